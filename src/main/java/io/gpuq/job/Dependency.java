package io.gpuq.job;

import java.util.Objects;

/**
 * One thing a job waits for (issue 37): a job or a sweep (exactly one of the two ids) and the
 * condition it must end in. Only ids that exist when the dependent job is submitted are accepted,
 * so no dependency can point at a job submitted later: the graph is ordered by submission and no
 * cycle can form.
 */
public record Dependency(String job, String sweep, DependencyCondition condition) {

  public Dependency {
    Objects.requireNonNull(condition, "condition");
    if ((job == null) == (sweep == null)) {
      throw new IllegalArgumentException("a dependency names a job or a sweep");
    }
  }

  public static Dependency onJob(String job, DependencyCondition condition) {
    return new Dependency(job, null, condition);
  }

  public static Dependency onSweep(String sweep, DependencyCondition condition) {
    return new Dependency(null, sweep, condition);
  }

  /** "job 01J..." or "sweep 01J...". */
  public String describe() {
    return job != null ? "job " + job : "sweep " + sweep;
  }

  /** Why a dependent job waits on this: "waiting for job 01J... to succeed". */
  public String waitingReason() {
    return "waiting for " + describe() + " to " + condition.waitingFor();
  }

  /** Why a dependent job was cancelled: this dependency ended so that it can never hold. */
  public String neverMetMessage(String how) {
    return "dependency "
        + condition.wireName()
        + " on "
        + describe()
        + " can no longer hold: it ended "
        + how;
  }
}

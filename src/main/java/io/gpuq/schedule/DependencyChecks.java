package io.gpuq.schedule;

import io.gpuq.job.Caller;
import io.gpuq.job.Dependency;
import io.gpuq.job.DependencyCondition;
import io.gpuq.job.DependencyCondition.Verdict;
import io.gpuq.job.DependencyJudgement;
import io.gpuq.job.DependencyTargets;
import io.gpuq.job.DependencyTargets.Target;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobRequest;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.job.WireNamed;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A submission's {@code dependsOn} (issue 37), checked: its shape, that every job and sweep it
 * names exists and is the caller's (an admin's may be anyone's), and, for those already ended,
 * whether they can still be met. Only existing ids are accepted, so a job can depend only on jobs
 * submitted before it: no cycle can form.
 */
public final class DependencyChecks {

  /** At most this many dependencies per job. */
  public static final int MAX_DEPENDENCIES = 64;

  private final DependencyTargets targets;

  public DependencyChecks(DependencyTargets targets) {
    this.targets = targets;
  }

  /** None: submissions without dependencies, or a store that has none (tests of other things). */
  public static final DependencyChecks NONE = new DependencyChecks(null);

  /**
   * The dependencies, and whether the job must be held for them.
   *
   * @param held whether one of them is not met yet
   */
  public record Checked(List<Dependency> dependsOn, boolean held) {
    public static final Checked NOTHING = new Checked(List.of(), false);
  }

  /**
   * @throws InvalidJobRequestException (400) for a malformed list, an unknown id, or another
   *     owner's job or sweep
   * @throws UnsatisfiableRequestException (422) when one has ended so that it can never be met
   */
  public Checked check(Caller caller, List<JobRequest.DependsOn> requested) {
    if (requested == null || requested.isEmpty()) {
      return Checked.NOTHING;
    }
    if (targets == null) {
      throw new InvalidJobRequestException("dependsOn", "dependencies are not supported here");
    }
    if (requested.size() > MAX_DEPENDENCIES) {
      throw new InvalidJobRequestException(
          "dependsOn", "at most " + MAX_DEPENDENCIES + " dependencies");
    }
    List<FieldError> errors = new ArrayList<>();
    List<Dependency> dependsOn = new ArrayList<>();
    for (int i = 0; i < requested.size(); i++) {
      JobRequest.DependsOn one = requested.get(i);
      String field = "dependsOn[" + i + "]";
      if (one == null) {
        errors.add(new FieldError(field, "must be an object with a job or a sweep"));
        continue;
      }
      boolean job = one.job() != null && !one.job().isBlank();
      boolean sweep = one.sweep() != null && !one.sweep().isBlank();
      if (job == sweep) {
        errors.add(new FieldError(field, "must name a job or a sweep, one of the two"));
        continue;
      }
      DependencyCondition condition = DependencyCondition.AFTEROK;
      if (one.condition() != null) {
        condition = WireNamed.fromWire(DependencyCondition.class, one.condition()).orElse(null);
        if (condition == null) {
          errors.add(
              new FieldError(field + ".condition", "must be afterok, afternotok or afterany"));
          continue;
        }
      }
      dependsOn.add(
          job
              ? Dependency.onJob(one.job(), condition)
              : Dependency.onSweep(one.sweep(), condition));
    }
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    Map<String, Target> jobs = targets.jobs(idsOf(dependsOn, Dependency::job));
    Map<String, Target> sweeps = targets.sweeps(idsOf(dependsOn, Dependency::sweep));
    for (int i = 0; i < dependsOn.size(); i++) {
      Dependency d = dependsOn.get(i);
      Target target = d.job() != null ? jobs.get(d.job()) : sweeps.get(d.sweep());
      // Another owner's job is answered as an unknown one: its existence is not theirs to learn.
      if (target == null || !caller.mayAccessJobOf(target.owner())) {
        errors.add(
            new FieldError(
                "dependsOn[" + i + "]." + (d.job() != null ? "job" : "sweep"),
                "no " + (d.job() != null ? "job" : "sweep") + " of yours has this id"));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    DependencyJudgement judgement = DependencyJudgement.of(dependsOn, jobs, sweeps);
    if (judgement.verdict() == Verdict.NEVER) {
      int at = dependsOn.indexOf(judgement.dependency());
      throw new UnsatisfiableRequestException("dependsOn[" + at + "]", judgement.message());
    }
    return new Checked(List.copyOf(dependsOn), judgement.verdict() == Verdict.WAITING);
  }

  /**
   * Why a held job waits ("waiting for job 01J... to succeed"), from where its dependencies are.
   */
  public String waitingReason(List<Dependency> dependsOn) {
    if (targets == null || dependsOn.isEmpty()) {
      return null;
    }
    DependencyJudgement judgement =
        DependencyJudgement.of(
            dependsOn,
            targets.jobs(idsOf(dependsOn, Dependency::job)),
            targets.sweeps(idsOf(dependsOn, Dependency::sweep)));
    return switch (judgement.verdict()) {
      case WAITING -> judgement.message();
      // Settled, not yet acted on: the next run of the duty will.
      case MET -> "its dependencies are met; it is queued within seconds";
      case NEVER -> judgement.message() + "; it is cancelled within seconds";
    };
  }

  /** The jobs' (or the sweeps') ids the dependencies name, each once. */
  private static Set<String> idsOf(List<Dependency> dependsOn, Function<Dependency, String> id) {
    Set<String> ids = new HashSet<>();
    for (Dependency d : dependsOn) {
      if (id.apply(d) != null) {
        ids.add(id.apply(d));
      }
    }
    return ids;
  }
}

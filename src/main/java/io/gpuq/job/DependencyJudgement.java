package io.gpuq.job;

import io.gpuq.job.DependencyCondition.Verdict;
import io.gpuq.job.DependencyTargets.Target;
import java.util.List;
import java.util.Map;

/**
 * What a job's dependencies say together (issue 37): it may run once every one is met; it never can
 * once one can no longer be met; it waits otherwise, for the first one not settled.
 *
 * @param verdict {@link Verdict#MET} when all are met
 * @param dependency the one that decided: the first never met, else the first still waited for;
 *     null when all are met
 * @param message for {@link Verdict#NEVER}, the failure message naming it; else for {@link
 *     Verdict#WAITING} the queued reason ("waiting for job 01J... to succeed"); null when met
 */
public record DependencyJudgement(Verdict verdict, Dependency dependency, String message) {

  /**
   * Judges {@code dependsOn} by where its jobs and sweeps stand. One that is gone (deleted by
   * retention after it ended) is judged as ended unknown: it can no longer be met but by {@code
   * afterany}.
   */
  public static DependencyJudgement of(
      List<Dependency> dependsOn, Map<String, Target> jobs, Map<String, Target> sweeps) {
    Dependency waitingFor = null;
    for (Dependency dependency : dependsOn) {
      Target target =
          dependency.job() != null ? jobs.get(dependency.job()) : sweeps.get(dependency.sweep());
      if (target == null) {
        target = new Target(null, true, false, "and is gone");
      }
      Verdict verdict = target.judge(dependency.condition());
      if (verdict == Verdict.NEVER) {
        return new DependencyJudgement(
            Verdict.NEVER, dependency, dependency.neverMetMessage(target.how()));
      }
      if (verdict == Verdict.WAITING && waitingFor == null) {
        waitingFor = dependency;
      }
    }
    if (waitingFor != null) {
      return new DependencyJudgement(Verdict.WAITING, waitingFor, waitingFor.waitingReason());
    }
    return new DependencyJudgement(Verdict.MET, null, null);
  }
}

package io.gpuq.job;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What dependencies (issue 37) are judged by: the held jobs, and where the jobs and sweeps they
 * wait for stand. A port: the database store answers it in a few statements.
 */
public interface DependencyTargets {

  /** A queued job that waits for its dependencies. */
  record HeldJob(String id, String owner, List<Dependency> dependsOn) {}

  /**
   * Where a job or sweep named as a dependency stands.
   *
   * @param ended whether it has ended (a job in a final state; a sweep done or cancelled)
   * @param succeeded whether it ended well ({@link DependencyCondition#judge(boolean, boolean)})
   * @param how in words, for a dependent's failure message: "FAILED", "CANCELLED"
   */
  record Target(String owner, boolean ended, boolean succeeded, String how) {

    public DependencyCondition.Verdict judge(DependencyCondition condition) {
      return condition.judge(ended, succeeded);
    }
  }

  /**
   * At most {@code limit} held, queued jobs after {@code afterId} (null: from the first), by id.
   */
  List<HeldJob> heldJobs(String afterId, int limit);

  /** These jobs, by id; an id with no job is left out. */
  Map<String, Target> jobs(Collection<String> ids);

  /** These sweeps, by id; an id with no sweep is left out. */
  Map<String, Target> sweeps(Collection<String> ids);
}

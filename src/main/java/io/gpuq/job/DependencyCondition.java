package io.gpuq.job;

/**
 * When a dependent job may start (issue 37), as Slurm's {@code --dependency} names it: after its
 * dependency succeeded, after it did not, or after it ended whichever way. A dependency is a job or
 * a sweep; a sweep succeeded when every trial did (a pruned trial counts as a success: the sweep's
 * own rule stopped it).
 */
public enum DependencyCondition implements WireNamed {
  AFTEROK("succeed"),
  AFTERNOTOK("fail"),
  AFTERANY("end");

  private final String waitingFor;

  DependencyCondition(String waitingFor) {
    this.waitingFor = waitingFor;
  }

  /** The verb of "waiting for job X to ...". */
  public String waitingFor() {
    return waitingFor;
  }

  /** What this condition says of a dependency that has, or has not yet, settled. */
  public enum Verdict {
    /** The dependency has not ended yet. */
    WAITING,
    /** It ended as the condition asks. */
    MET,
    /** It ended otherwise: the condition can no longer hold. */
    NEVER
  }

  /**
   * @param ended whether the dependency ended (a job in a final state, a sweep done or cancelled)
   * @param succeeded whether it ended well (a job SUCCEEDED; every trial of a sweep SUCCEEDED or
   *     PRUNED, and the sweep was not cancelled)
   */
  public Verdict judge(boolean ended, boolean succeeded) {
    if (!ended) {
      return Verdict.WAITING;
    }
    return switch (this) {
      case AFTEROK -> succeeded ? Verdict.MET : Verdict.NEVER;
      case AFTERNOTOK -> succeeded ? Verdict.NEVER : Verdict.MET;
      case AFTERANY -> Verdict.MET;
    };
  }

  /** {@link #judge(boolean, boolean)} of a job in {@code state}: only SUCCEEDED is a success. */
  public Verdict judge(JobState state) {
    return judge(state.isTerminal(), state == JobState.SUCCEEDED);
  }
}

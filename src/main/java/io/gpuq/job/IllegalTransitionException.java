package io.gpuq.job;

/** A caller tried a move the job lifecycle forbids. This is a bug, never a user error. */
public class IllegalTransitionException extends IllegalStateException {

  private final String jobId;
  private final JobState current;
  private final JobTransition transition;

  public IllegalTransitionException(String jobId, JobState current, JobTransition transition) {
    super("illegal transition " + transition + " of job " + jobId + " from state " + current);
    this.jobId = jobId;
    this.current = current;
    this.transition = transition;
  }

  public String jobId() {
    return jobId;
  }

  public JobState current() {
    return current;
  }

  public JobTransition transition() {
    return transition;
  }
}

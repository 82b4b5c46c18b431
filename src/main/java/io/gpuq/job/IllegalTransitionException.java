package io.gpuq.job;

/**
 * A caller tried a move the job lifecycle forbids. This is a bug, never a user error: it is logged
 * and fails the call, and its message names the job, its state and the move, which is all anyone
 * reads of it.
 */
public class IllegalTransitionException extends IllegalStateException {

  public IllegalTransitionException(String jobId, JobState current, JobTransition transition) {
    super("illegal transition " + transition + " of job " + jobId + " from state " + current);
  }
}

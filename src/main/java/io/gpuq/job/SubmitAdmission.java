package io.gpuq.job;

/**
 * Refuses at submit a request that could never run, instead of queueing it forever: on no node, or
 * under its owner's running limits.
 */
@FunctionalInterface
public interface SubmitAdmission {

  /**
   * @param owner who the job would run for: their running limits count
   * @throws UnsatisfiableRequestException naming what cannot be met
   */
  void check(String owner, JobSpec spec);
}

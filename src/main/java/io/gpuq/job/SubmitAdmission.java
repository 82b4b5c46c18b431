package io.gpuq.job;

/**
 * Refuses at submit a request that could never run on this node, instead of queueing it forever.
 */
@FunctionalInterface
public interface SubmitAdmission {

  /**
   * @throws UnsatisfiableRequestException naming what cannot be met
   */
  void check(JobSpec spec);
}

package io.gpuq.schedule;

import io.gpuq.job.JobPlacement;

/** What {@link RecordWorkerEnd} tells, step by step, as it records how a worker ended. */
public interface WorkerEndListener {

  /**
   * A worker's place became free, with the placement it held; told again once the end of an attempt
   * that left its job queued for a retry is stored.
   */
  void capacityFreed(JobPlacement placement);

  /** The end of an attempt that left the job finished is stored; with the placement it held. */
  void endStored(JobPlacement placement);

  /**
   * A job's worker ended, before its end is recorded: what must be read from the worker's files
   * first (its reported metrics).
   */
  void beforeEndRecorded(String jobId);
}

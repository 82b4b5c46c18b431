/**
 * Deleting finished jobs, their directories and logs, {@code gpuq.retention.finished} after they
 * finished. {@link io.gpuq.retention.RetentionDuty} is the plain-Java policy; {@link
 * io.gpuq.retention.FinishedJobs} the rows it reads and deletes, written in SQL by {@code
 * io.gpuq.storage.RetentionTable}.
 */
package io.gpuq.retention;

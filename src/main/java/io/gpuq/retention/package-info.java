/**
 * Deleting finished jobs, their directories and logs, {@code gpuq.retention.finished} after they
 * finished. {@link io.gpuq.retention.RetentionDuty} is the plain-Java policy; {@link
 * io.gpuq.retention.FinishedJobRows} is its database edge (JDBC).
 */
package io.gpuq.retention;

package io.gpuq.launch.env;

import io.gpuq.job.Framework;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The facts about one worker that its environment depends on.
 *
 * @param jobId the job's id
 * @param framework the framework the job declared
 * @param gpus the placed GPUs in the order the worker will number them; empty for a CPU-only job
 * @param budgetBytesPerGpu the GPU-memory budget on each placed GPU; 0 exactly when there are no
 *     GPUs
 * @param jobDir the job's directory (absolute); its {@code tmp} becomes the worker's {@code TMPDIR}
 */
public record WorkerSpec(
    String jobId, Framework framework, List<PlacedGpu> gpus, long budgetBytesPerGpu, Path jobDir) {

  public WorkerSpec {
    if (jobId == null || jobId.isBlank()) {
      throw new IllegalArgumentException("jobId must not be blank");
    }
    Objects.requireNonNull(framework, "framework");
    gpus = List.copyOf(gpus);
    if (gpus.isEmpty() && budgetBytesPerGpu != 0) {
      throw new IllegalArgumentException(
          "a CPU-only worker has no GPU budget, got " + budgetBytesPerGpu);
    }
    if (!gpus.isEmpty() && budgetBytesPerGpu <= 0) {
      throw new IllegalArgumentException(
          "a GPU worker needs a positive budget, got " + budgetBytesPerGpu);
    }
    for (PlacedGpu gpu : gpus) {
      if (budgetBytesPerGpu > gpu.totalBytes()) {
        throw new IllegalArgumentException(
            "budget "
                + budgetBytesPerGpu
                + " exceeds the memory of GPU "
                + gpu.index()
                + " ("
                + gpu.totalBytes()
                + ")");
      }
    }
    if (jobDir == null || !jobDir.isAbsolute()) {
      throw new IllegalArgumentException("jobDir must be an absolute path: " + jobDir);
    }
  }

  /** A worker that sees no GPU. */
  public static WorkerSpec cpuOnly(String jobId, Framework framework, Path jobDir) {
    return new WorkerSpec(jobId, framework, List.of(), 0, jobDir);
  }
}

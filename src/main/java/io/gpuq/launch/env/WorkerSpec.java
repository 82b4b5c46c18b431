package io.gpuq.launch.env;

import io.gpuq.isolation.Account;
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
 * @param workDir the job's work directory (absolute); its {@code tmp} becomes the worker's {@code
 *     TMPDIR}
 * @param account the account the worker runs as: its {@code HOME}, {@code USER} and {@code
 *     LOGNAME}, and its JAX compilation cache
 */
public record WorkerSpec(
    String jobId,
    Framework framework,
    List<PlacedGpu> gpus,
    long budgetBytesPerGpu,
    Path workDir,
    Account account) {

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
    if (workDir == null || !workDir.isAbsolute()) {
      throw new IllegalArgumentException("workDir must be an absolute path: " + workDir);
    }
    Objects.requireNonNull(account, "account");
  }

  /** A worker that sees no GPU. */
  public static WorkerSpec cpuOnly(
      String jobId, Framework framework, Path workDir, Account account) {
    return new WorkerSpec(jobId, framework, List.of(), 0, workDir, account);
  }
}

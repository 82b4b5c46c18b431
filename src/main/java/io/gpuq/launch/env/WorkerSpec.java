package io.gpuq.launch.env;

import io.gpuq.isolation.Account;
import io.gpuq.job.Framework;
import io.gpuq.placement.PlacedGpu;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The facts about one worker that its environment depends on.
 *
 * @param jobId the job's id
 * @param framework the framework the job declared
 * @param gpus the placed GPUs in the order the worker will number them, each with the same budget;
 *     empty for a CPU-only job
 * @param workDir the job's work directory (absolute); its {@code tmp} becomes the worker's {@code
 *     TMPDIR}
 * @param account the account the worker runs as: its {@code HOME}, {@code USER} and {@code
 *     LOGNAME}, and its JAX compilation cache
 * @param cpus the job's cores, rounded up (0.25 is 1, 1.5 is 2): the thread count its runtimes are
 *     given
 * @param attempt which attempt of the job this worker runs, from 1 ({@code GPUQ_ATTEMPT})
 */
public record WorkerSpec(
    String jobId,
    Framework framework,
    List<PlacedGpu> gpus,
    Path workDir,
    Account account,
    int cpus,
    int attempt) {

  /** A worker of its job's first attempt. */
  public WorkerSpec(
      String jobId,
      Framework framework,
      List<PlacedGpu> gpus,
      Path workDir,
      Account account,
      int cpus) {
    this(jobId, framework, gpus, workDir, account, cpus, 1);
  }

  public WorkerSpec {
    if (jobId == null || jobId.isBlank()) {
      throw new IllegalArgumentException("jobId must not be blank");
    }
    Objects.requireNonNull(framework, "framework");
    gpus = List.copyOf(gpus);
    for (PlacedGpu gpu : gpus) {
      requireUsable(gpu, gpus.get(0).memoryBytes());
    }
    if (workDir == null || !workDir.isAbsolute()) {
      throw new IllegalArgumentException("workDir must be an absolute path: " + workDir);
    }
    Objects.requireNonNull(account, "account");
    if (cpus < 1) {
      throw new IllegalArgumentException("a worker has at least 1 core, not " + cpus);
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempts count from 1, not " + attempt);
    }
  }

  /** A worker of one core, as every job was before jobs could ask for cores. */
  public WorkerSpec(
      String jobId, Framework framework, List<PlacedGpu> gpus, Path workDir, Account account) {
    this(jobId, framework, gpus, workDir, account, 1);
  }

  /** A worker that sees no GPU. */
  public static WorkerSpec cpuOnly(
      String jobId, Framework framework, Path workDir, Account account) {
    return new WorkerSpec(jobId, framework, List.of(), workDir, account);
  }

  /** The GPU-memory budget on each placed GPU; 0 exactly when there are no GPUs. */
  public long budgetBytesPerGpu() {
    return gpus.isEmpty() ? 0 : gpus.get(0).memoryBytes();
  }

  private static void requireUsable(PlacedGpu gpu, long budget) {
    if (gpu.uuid().isBlank() || gpu.uuid().contains(",")) {
      // A comma would split one device into two entries of CUDA_VISIBLE_DEVICES.
      throw new IllegalArgumentException(
          "GPU uuid must be non-blank without commas: " + gpu.uuid());
    }
    if (gpu.totalBytes() <= 0) {
      throw new IllegalArgumentException("GPU total memory must be positive: " + gpu.totalBytes());
    }
    if (gpu.memoryBytes() <= 0) {
      throw new IllegalArgumentException(
          "a GPU worker needs a positive budget, got " + gpu.memoryBytes());
    }
    if (gpu.memoryBytes() != budget) {
      throw new IllegalArgumentException(
          "a worker has one budget on all its GPUs, got " + budget + " and " + gpu.memoryBytes());
    }
    if (gpu.memoryBytes() > gpu.totalBytes()) {
      throw new IllegalArgumentException(
          "budget "
              + gpu.memoryBytes()
              + " exceeds the memory of GPU "
              + gpu.index()
              + " ("
              + gpu.totalBytes()
              + ")");
    }
  }
}

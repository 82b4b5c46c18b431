package io.gpuq.api;

import io.gpuq.node.NodeGpu;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.function.Predicate;

/** One GPU as {@code GET /api/v1/gpus} shows it (API.md, "GPUs"). */
@Schema(name = "Gpu")
public record GpuView(
    String node,
    int index,
    String uuid,
    String name,
    @Schema(description = "nvml or emulated") String backend,
    long memoryTotalBytes,
    long memoryUsedBytes,
    @Schema(description = "sum of the budgets of the jobs placed on it") long memoryReservedBytes,
    double utilization,
    List<ProcessView> processes) {

  /** What a submitter sees of another owner's process: that it is one, and its memory. */
  public static final String ANOTHER_OWNERS_JOB = "another owner's job";

  /** The GPU as an admin sees it: every process with its pid and job. */
  public static GpuView of(NodeGpu gpu) {
    return of(gpu, jobId -> true);
  }

  /**
   * The GPU as a caller sees it: a process of a job {@code visible} refuses (another owner's) keeps
   * only its memory, so that a submitter learns neither the ids of others' jobs nor their pids, by
   * which it could look for their names and commands.
   */
  public static GpuView of(NodeGpu gpu, Predicate<String> visible) {
    return new GpuView(
        gpu.node(),
        gpu.index(),
        gpu.uuid(),
        gpu.name(),
        gpu.backend(),
        gpu.memoryTotalBytes(),
        gpu.memoryUsedBytes(),
        gpu.memoryReservedBytes(),
        gpu.utilization(),
        gpu.processes().stream()
            .map(
                p ->
                    p.jobId() == null || visible.test(p.jobId())
                        ? new ProcessView(p.pid(), p.jobId(), p.memoryUsedBytes(), null)
                        : new ProcessView(null, null, p.memoryUsedBytes(), ANOTHER_OWNERS_JOB))
            .toList());
  }

  @Schema(name = "GpuProcess")
  public record ProcessView(
      @Schema(description = "null for another owner's job, shown to a submitter") Long pid,
      @Schema(description = "null for a process gpuq did not start, or another owner's job")
          String jobId,
      long memoryUsedBytes,
      @Schema(
              description =
                  "\"another owner's job\" for such a process shown to a submitter; else null")
          String note) {}
}

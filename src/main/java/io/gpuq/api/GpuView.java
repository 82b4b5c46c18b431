package io.gpuq.api;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

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

  @Schema(name = "GpuProcess")
  public record ProcessView(
      long pid,
      @Schema(description = "null for a process gpuq did not start") String jobId,
      long memoryUsedBytes) {}
}

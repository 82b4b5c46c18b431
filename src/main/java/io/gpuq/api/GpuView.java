package io.gpuq.api;

import io.gpuq.node.NodeGpu;
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

  public static GpuView of(NodeGpu gpu) {
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
            .map(p -> new ProcessView(p.pid(), p.jobId(), p.memoryUsedBytes()))
            .toList());
  }

  @Schema(name = "GpuProcess")
  public record ProcessView(
      long pid,
      @Schema(description = "null for a process gpuq did not start") String jobId,
      long memoryUsedBytes) {}
}

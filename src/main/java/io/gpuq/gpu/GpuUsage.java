package io.gpuq.gpu;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One poll of the GPUs, with each process attributed to the job whose process tree holds it.
 *
 * @param samples one per device, in index order
 * @param jobOfPid the job of each process seen on a GPU that belongs to a gpuq worker
 * @param jobBytes per job, per GPU index, the memory its process tree uses there
 */
public record GpuUsage(
    Instant takenAt,
    List<GpuSample> samples,
    Map<Long, String> jobOfPid,
    Map<String, Map<Integer, Long>> jobBytes) {

  public GpuUsage {
    samples = List.copyOf(samples);
    jobOfPid = Map.copyOf(jobOfPid);
    jobBytes = Map.copyOf(jobBytes);
  }

  public static GpuUsage none(Instant at) {
    return new GpuUsage(at, List.of(), Map.of(), Map.of());
  }

  /** Memory in use on a GPU by processes that are not gpuq workers (other users, the driver). */
  public long foreignBytes(int gpuIndex) {
    for (GpuSample sample : samples) {
      if (sample.device().index() == gpuIndex) {
        long ours =
            jobBytes.values().stream().mapToLong(perGpu -> perGpu.getOrDefault(gpuIndex, 0L)).sum();
        return Math.max(0, sample.memoryUsedBytes() - ours);
      }
    }
    return 0;
  }

  public long usedBytes(int gpuIndex) {
    return samples.stream()
        .filter(s -> s.device().index() == gpuIndex)
        .mapToLong(GpuSample::memoryUsedBytes)
        .findFirst()
        .orElse(0);
  }
}

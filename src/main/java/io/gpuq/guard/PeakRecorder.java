package io.gpuq.guard;

import io.gpuq.gpu.GpuUsage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Keeps each running job's peak GPU memory (the most it used on any one of its GPUs, comparable to
 * its per-GPU budget). Only a new peak is written, so a steady job costs no database writes.
 */
public final class PeakRecorder implements Consumer<GpuUsage> {

  /** Where peaks go: the job service, in production. */
  @FunctionalInterface
  public interface PeakSink {
    void newPeak(String jobId, long bytes);
  }

  private final PeakSink sink;
  private final Map<String, Long> peaks = new ConcurrentHashMap<>();

  public PeakRecorder(PeakSink sink) {
    this.sink = sink;
  }

  @Override
  public void accept(GpuUsage usage) {
    peaks.keySet().retainAll(usage.jobBytes().keySet());
    usage
        .jobBytes()
        .forEach(
            (job, perGpu) -> {
              long max = perGpu.values().stream().mapToLong(Long::longValue).max().orElse(0);
              Long previous = peaks.get(job);
              if (previous == null || max > previous) {
                peaks.put(job, max);
                sink.newPeak(job, max);
              }
            });
  }
}

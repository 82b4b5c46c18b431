package io.gpuq.placement;

import io.gpuq.text.Cpus;
import java.util.Objects;

/** Why a pass did not start a job it examined: what {@link Placer} saw, for a person to read. */
public sealed interface Wait {

  /**
   * Its GPUs lacked the memory: no {@code gpus} GPUs had {@code bytesPerGpu} available ({@code -1}:
   * a whole free GPU each).
   */
  record NoRoom(int gpus, long bytesPerGpu) implements Wait {}

  /** The node lacked the cores: it asks for {@code cpus}, {@code free} were free. */
  record NoCores(Cpus cpus, Cpus free) implements Wait {}

  /** The node lacked the host memory: it asks for {@code bytes}, {@code free} were free. */
  record NoHostMemory(long bytes, long free) implements Wait {}

  /** It would have fitted, but GPU {@code gpu} had started a job too recently (start spacing). */
  record StartSpacing(int gpu) implements Wait {}

  /**
   * Room is kept for an earlier job that has waited past the reservation's bound: its GPUs, or,
   * when {@code host}, the node's cores and host memory (which every job takes).
   */
  record ReservedFor(String jobId, boolean host) implements Wait {
    public ReservedFor {
      Objects.requireNonNull(jobId, "jobId");
    }

    /** GPUs kept for {@code jobId}. */
    public ReservedFor(String jobId) {
      this(jobId, false);
    }
  }

  /** A CPU-only job, and every free CPU slot went to jobs ahead of it. */
  record NoCpuSlot() implements Wait {}

  /** It can never start on this node ({@link Placer#feasibility}). */
  record NeverHere(String why) implements Wait {}
}

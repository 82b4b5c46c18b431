package io.gpuq.gpu;

import java.util.List;

/**
 * Where GPU devices, their memory and their processes come from: NVML on a GPU machine, an
 * emulation from {@code /proc} elsewhere. Implementations are thread-safe.
 */
public interface GpuBackend extends AutoCloseable {

  /** {@code "nvml"} or {@code "emulated"}. */
  String kind();

  /** The devices, in index order; fixed when the backend is opened. */
  List<GpuDevice> devices();

  /**
   * Reads every device now: one sample per device, in index order.
   *
   * @throws GpuBackendException when the devices cannot be read (also after {@link #close()})
   */
  List<GpuSample> sample();

  /**
   * A worker process was started on these GPUs. The emulation needs this to know whose memory to
   * count where; NVML sees the real processes and ignores it.
   */
  default void attach(long pid, List<Integer> gpuIndices) {}

  /** Forgets a worker attached with {@link #attach}; not needed for workers that ended. */
  default void detach(long pid) {}

  /** Releases the backend; idempotent. */
  @Override
  void close();
}

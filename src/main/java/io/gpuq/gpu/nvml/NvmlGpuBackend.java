package io.gpuq.gpu.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuBackendSettings;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuProcessUsage;
import io.gpuq.gpu.GpuSample;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Real GPUs through NVML ({@code libnvidia-ml.so.1}, shipped with the NVIDIA driver), bound with
 * JNA to the versioned symbols of current drivers.
 *
 * <p>Per device and sample: memory used ({@code nvmlDeviceGetMemoryInfo}), utilization ({@code
 * nvmlDeviceGetUtilizationRates}, GPU percent / 100; 0 where the device does not support it) and
 * the <em>compute</em> processes ({@code nvmlDeviceGetComputeRunningProcesses_v3}; graphics-only
 * processes are not listed). A process whose memory NVML reports as not available (e.g. seen from a
 * container without the needed privileges) is listed with 0 bytes. A device that does not support
 * process listing reports none. Pids are as NVML reports them: host pids, which differ from gpuq's
 * own view only if gpuq runs in a separate pid namespace.
 *
 * <p>Thread-safe; every call is serialised.
 */
public final class NvmlGpuBackend implements GpuBackend {

  /** Attempts at reading a process list that keeps growing between the sizing and reading calls. */
  static final int MAX_PROCESS_LIST_ATTEMPTS = 5;

  private final NvmlNative nvml;
  private final String library;
  private final List<GpuDevice> devices;
  private final List<Pointer> handles;
  private final Memory memoryInfo = new Memory(NvmlLayout.MEMORY_SIZE);
  private final Memory utilization = new Memory(NvmlLayout.UTILIZATION_SIZE);
  private Memory processInfos;
  private boolean closed;

  private NvmlGpuBackend(NvmlNative nvml, String library) {
    this.nvml = nvml;
    this.library = library;
    IntByReference count = new IntByReference();
    check("nvmlDeviceGetCount_v2", nvml.nvmlDeviceGetCount_v2(count), "");
    List<GpuDevice> found = new ArrayList<>();
    List<Pointer> foundHandles = new ArrayList<>();
    for (int index = 0; index < count.getValue(); index++) {
      String context = " for GPU " + index;
      PointerByReference handle = new PointerByReference();
      check(
          "nvmlDeviceGetHandleByIndex_v2",
          nvml.nvmlDeviceGetHandleByIndex_v2(index, handle),
          context);
      Pointer device = handle.getValue();
      byte[] uuid = new byte[NvmlLayout.UUID_BUFFER_SIZE];
      check("nvmlDeviceGetUUID", nvml.nvmlDeviceGetUUID(device, uuid, uuid.length), context);
      byte[] name = new byte[NvmlLayout.NAME_BUFFER_SIZE];
      check("nvmlDeviceGetName", nvml.nvmlDeviceGetName(device, name, name.length), context);
      check("nvmlDeviceGetMemoryInfo", nvml.nvmlDeviceGetMemoryInfo(device, memoryInfo), context);
      long total = memoryInfo.getLong(NvmlLayout.MEMORY_TOTAL);
      found.add(new GpuDevice(index, cString(uuid), cString(name), total));
      foundHandles.add(device);
    }
    this.devices = List.copyOf(found);
    this.handles = List.copyOf(foundHandles);
  }

  /**
   * Loads the library, initialises NVML and enumerates the devices (there may be none).
   *
   * @param library {@link GpuBackendSettings#DEFAULT_NVML_LIBRARY} ({@code libnvidia-ml.so.1}, then
   *     {@code nvidia-ml}), another library name, or a path to the library file
   * @throws GpuBackendException when the library cannot be loaded, lacks a needed symbol, or an
   *     NVML call fails (an {@link NvmlException} as the cause, e.g. for {@code nvmlInit_v2}
   *     failing with "Driver Not Loaded")
   */
  public static NvmlGpuBackend open(String library) {
    List<String> failures = new ArrayList<>();
    for (String candidate : candidates(library)) {
      NvmlNative nvml;
      try {
        nvml = Native.load(candidate, NvmlNative.class);
      } catch (LinkageError e) {
        // UnsatisfiedLinkError when the library is missing; NoClassDefFoundError when JNA's own
        // native part cannot load. Either way NVML is unusable, not the JVM.
        failures.add(oneLine(e.getMessage()));
        continue;
      }
      requireSymbols(candidate);
      int rc = nvml.nvmlInit_v2();
      if (rc != NvmlLayout.SUCCESS) {
        throw unusable(candidate, new NvmlException("nvmlInit_v2", rc, errorString(nvml, rc)));
      }
      try {
        return new NvmlGpuBackend(nvml, candidate);
      } catch (NvmlException e) {
        nvml.nvmlShutdown();
        throw unusable(candidate, e);
      }
    }
    throw new GpuBackendException(
        "NVML library "
            + String.join(" or ", candidates(library))
            + " could not be loaded: "
            + String.join("; ", failures));
  }

  private static List<String> candidates(String library) {
    // The unversioned libnvidia-ml.so only exists where the CUDA development files are installed;
    // the driver itself ships libnvidia-ml.so.1.
    return library.equals(GpuBackendSettings.DEFAULT_NVML_LIBRARY)
        ? List.of("libnvidia-ml.so.1", GpuBackendSettings.DEFAULT_NVML_LIBRARY)
        : List.of(library);
  }

  private static void requireSymbols(String candidate) {
    NativeLibrary loaded = NativeLibrary.getInstance(candidate);
    for (String symbol : NvmlNative.SYMBOLS) {
      try {
        loaded.getFunction(symbol);
      } catch (UnsatisfiedLinkError e) {
        throw new GpuBackendException(
            "NVML library "
                + candidate
                + " ("
                + loaded.getFile()
                + ") has no "
                + symbol
                + "; the NVIDIA driver is probably too old",
            e);
      }
    }
  }

  private static GpuBackendException unusable(String candidate, NvmlException cause) {
    return new GpuBackendException(
        "NVML library " + candidate + " loaded but unusable: " + cause.getMessage(), cause);
  }

  /** The library this backend was loaded from (the name or path that worked). */
  public String library() {
    return library;
  }

  @Override
  public String kind() {
    return "nvml";
  }

  @Override
  public List<GpuDevice> devices() {
    return devices;
  }

  @Override
  public synchronized List<GpuSample> sample() {
    if (closed) {
      throw new GpuBackendException("the NVML backend is closed");
    }
    List<GpuSample> samples = new ArrayList<>(devices.size());
    for (GpuDevice device : devices) {
      Pointer handle = handles.get(device.index());
      String context = " for GPU " + device.index();
      check("nvmlDeviceGetMemoryInfo", nvml.nvmlDeviceGetMemoryInfo(handle, memoryInfo), context);
      long used = memoryInfo.getLong(NvmlLayout.MEMORY_USED);
      samples.add(
          new GpuSample(
              device, Math.max(0, used), utilization(handle, context), processes(handle, context)));
    }
    return samples;
  }

  private double utilization(Pointer handle, String context) {
    int rc = nvml.nvmlDeviceGetUtilizationRates(handle, utilization);
    if (rc == NvmlLayout.ERROR_NOT_SUPPORTED) {
      // Some devices (e.g. MIG instances, old boards) cannot tell; 0 keeps sums and graphs sane.
      return 0;
    }
    check("nvmlDeviceGetUtilizationRates", rc, context);
    int percent = utilization.getInt(NvmlLayout.UTILIZATION_GPU);
    return Math.min(100, Integer.toUnsignedLong(percent)) / 100.0;
  }

  /**
   * The two-call pattern: ask for the count, then read into a buffer with headroom. Processes can
   * start between the two calls; when the buffer is still too small NVML says so again (with the
   * new count), and we retry a bounded number of times.
   */
  private List<GpuProcessUsage> processes(Pointer handle, String context) {
    String function = "nvmlDeviceGetComputeRunningProcesses_v3";
    IntByReference count = new IntByReference(0);
    int rc = nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, count, null);
    int attempts = 1;
    while (rc == NvmlLayout.ERROR_INSUFFICIENT_SIZE) {
      if (attempts == MAX_PROCESS_LIST_ATTEMPTS) {
        throw new NvmlException(
            function,
            rc,
            errorString(nvml, rc),
            context + " " + attempts + " times (the process list kept growing)");
      }
      int needed = count.getValue();
      int capacity = needed + Math.max(8, needed / 2);
      count.setValue(capacity);
      rc = nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, count, processBuffer(capacity));
      attempts++;
    }
    if (rc == NvmlLayout.ERROR_NOT_SUPPORTED) {
      return List.of();
    }
    check(function, rc, context);
    int found = count.getValue();
    List<GpuProcessUsage> processes = new ArrayList<>(found);
    for (int i = 0; i < found; i++) {
      long offset = (long) i * NvmlLayout.PROCESS_INFO_SIZE;
      long pid = Integer.toUnsignedLong(processInfos.getInt(offset + NvmlLayout.PROCESS_INFO_PID));
      long used = processInfos.getLong(offset + NvmlLayout.PROCESS_INFO_USED_GPU_MEMORY);
      // NVML_VALUE_NOT_AVAILABLE (all ones) reads as -1: unknown, reported as 0.
      processes.add(
          new GpuProcessUsage(pid, used == NvmlLayout.VALUE_NOT_AVAILABLE || used < 0 ? 0 : used));
    }
    processes.sort(Comparator.comparingLong(GpuProcessUsage::pid));
    return processes;
  }

  private Memory processBuffer(int capacity) {
    long bytes = (long) capacity * NvmlLayout.PROCESS_INFO_SIZE;
    if (processInfos == null || processInfos.size() < bytes) {
      if (processInfos != null) {
        processInfos.close();
      }
      processInfos = new Memory(bytes);
    }
    return processInfos;
  }

  private void check(String function, int rc, String context) {
    if (rc != NvmlLayout.SUCCESS) {
      throw new NvmlException(function, rc, errorString(nvml, rc), context);
    }
  }

  private static String errorString(NvmlNative nvml, int rc) {
    try {
      String text = nvml.nvmlErrorString(rc);
      return text == null ? "no description" : text;
    } catch (RuntimeException | LinkageError e) {
      return "no description";
    }
  }

  private static String cString(byte[] bytes) {
    int length = 0;
    while (length < bytes.length && bytes[length] != 0) {
      length++;
    }
    return new String(bytes, 0, length, StandardCharsets.UTF_8);
  }

  private static String oneLine(String message) {
    String line = message == null ? "unknown error" : message.replaceAll("\\s*\\R\\s*", " ").trim();
    return line.length() > 400 ? line.substring(0, 400) + "..." : line;
  }

  /** Shuts NVML down (NVML counts initialisations; this balances ours). Idempotent. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      nvml.nvmlShutdown();
      memoryInfo.close();
      utilization.close();
      if (processInfos != null) {
        processInfos.close();
      }
    }
  }
}

package io.gpuq.gpu.emulated;

import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuProcessUsage;
import io.gpuq.gpu.GpuSample;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import io.gpuq.proc.ProcessTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * GPUs that do not exist, for machines without one: lets gpuq place, launch, measure and guard jobs
 * end to end, with the host memory of a worker's processes standing in for GPU memory.
 *
 * <p>Each worker is registered with {@link #attach} (its root pid and its GPUs). A {@link
 * #sample()} reads the process table once and, for every attached root still alive, reports each
 * process of its tree (root and descendants) on each of the root's GPUs, with {@code RSS / number
 * of the root's GPUs} as its memory. A device's used memory is the sum over its processes; it may
 * exceed the device total, as nothing stops a process from allocating more host memory.
 *
 * <p>Utilization: the CPU time a tree used since the previous sample, in cores, shared evenly
 * between its GPUs, summed per device and capped at 1; so one busy core per GPU reads as fully
 * used. A tree's first sample has no previous one and counts 0.
 *
 * <p>Roots that ended (or whose pid now belongs to another process, recognised by its start time)
 * are dropped by the next sample. Thread-safe: attach/detach from any thread, sample from one or
 * more.
 */
public final class EmulatedGpuBackend implements GpuBackend {

  private final List<GpuDevice> devices;
  private final ProcFs procFs;
  private final Clock clock;
  private final Map<Long, Worker> workers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** A registered worker root; the CPU fields belong to whoever holds the sample lock. */
  private static final class Worker {
    final long pid;
    final long startTimeTicks; // -1: the process was already gone when attached
    final int[] gpus;
    long previousCpuTicks = -1;
    Instant previousAt;

    Worker(long pid, long startTimeTicks, int[] gpus) {
      this.pid = pid;
      this.startTimeTicks = startTimeTicks;
      this.gpus = gpus;
    }
  }

  public EmulatedGpuBackend(List<GpuDevice> devices, ProcFs procFs, Clock clock) {
    this.devices = List.copyOf(devices);
    for (int i = 0; i < this.devices.size(); i++) {
      if (this.devices.get(i).index() != i) {
        throw new IllegalArgumentException("device " + i + " has index " + devices.get(i).index());
      }
    }
    this.procFs = Objects.requireNonNull(procFs, "procFs");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** {@code count} devices named {@code name}, with UUIDs {@code GPU-emulated-0, -1, ...}. */
  public static EmulatedGpuBackend create(
      int count, long memoryBytesEach, String name, ProcFs procFs, Clock clock) {
    List<GpuDevice> devices = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      devices.add(new GpuDevice(i, "GPU-emulated-" + i, name, memoryBytesEach));
    }
    return new EmulatedGpuBackend(devices, procFs, clock);
  }

  @Override
  public String kind() {
    return "emulated";
  }

  @Override
  public List<GpuDevice> devices() {
    return devices;
  }

  /**
   * Counts the process tree of {@code pid} on {@code gpuIndices} from the next sample on. An empty
   * list (a CPU-only job) registers nothing; attaching a pid again replaces its GPUs.
   *
   * @throws IllegalArgumentException for an index that is not one of {@link #devices()}
   */
  @Override
  public void attach(long pid, List<Integer> gpuIndices) {
    int[] gpus = gpuIndices.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
    for (int gpu : gpus) {
      if (gpu < 0 || gpu >= devices.size()) {
        throw new IllegalArgumentException(
            "no emulated GPU " + gpu + " (there are " + devices.size() + ")");
      }
    }
    if (gpus.length == 0) {
      workers.remove(pid);
      return;
    }
    long startTime = procFs.stat(pid).map(ProcStat::startTimeTicks).orElse(-1L);
    workers.put(pid, new Worker(pid, startTime, gpus));
  }

  @Override
  public void detach(long pid) {
    workers.remove(pid);
  }

  /** The pids currently attached (roots only), for diagnostics and tests. */
  public List<Long> attachedPids() {
    return workers.keySet().stream().sorted().toList();
  }

  @Override
  public synchronized List<GpuSample> sample() {
    if (closed) {
      throw new GpuBackendException("the emulated GPU backend is closed");
    }
    // The workers first, then the process table: a worker attached after the table was read
    // (its process spawned too late to be in it) would look ended and be dropped for good, its
    // memory never measured again. Taken in this order, every worker's process predates the table.
    List<Worker> attached = List.copyOf(workers.values());
    ProcessTable table = procFs.snapshot();
    Instant now = clock.instant();
    int deviceCount = devices.size();
    List<Map<Long, GpuProcessUsage>> processesByDevice = new ArrayList<>(deviceCount);
    double[] busyCores = new double[deviceCount];
    for (int i = 0; i < deviceCount; i++) {
      processesByDevice.add(new LinkedHashMap<>());
    }

    for (Worker worker : attached) {
      List<ProcStat> tree = table.treeOf(worker.pid);
      if (tree.isEmpty() || tree.get(0).startTimeTicks() != worker.startTimeTicks) {
        workers.remove(worker.pid, worker);
        continue;
      }
      long cpuTicks = 0;
      for (ProcStat process : tree) {
        cpuTicks += process.cpuTimeTicks();
      }
      double coresPerGpu = coresUsedSince(worker, cpuTicks, now) / worker.gpus.length;
      for (int gpu : worker.gpus) {
        busyCores[gpu] += coresPerGpu;
        Map<Long, GpuProcessUsage> onDevice = processesByDevice.get(gpu);
        for (ProcStat process : tree) {
          // A process in two attached trees (nested attach) is counted once, by the first.
          onDevice.putIfAbsent(
              process.pid(),
              new GpuProcessUsage(process.pid(), process.residentBytes() / worker.gpus.length));
        }
      }
    }

    List<GpuSample> samples = new ArrayList<>(deviceCount);
    for (int i = 0; i < deviceCount; i++) {
      List<GpuProcessUsage> processes = new ArrayList<>(processesByDevice.get(i).values());
      processes.sort(Comparator.comparingLong(GpuProcessUsage::pid));
      long used = 0;
      for (GpuProcessUsage process : processes) {
        used += process.memoryUsedBytes();
      }
      samples.add(new GpuSample(devices.get(i), used, Math.min(1.0, busyCores[i]), processes));
    }
    return samples;
  }

  /** CPU cores the tree kept busy since the previous sample; 0 the first time. */
  private double coresUsedSince(Worker worker, long cpuTicks, Instant now) {
    long previousTicks = worker.previousCpuTicks;
    Instant previousAt = worker.previousAt;
    worker.previousCpuTicks = cpuTicks;
    worker.previousAt = now;
    if (previousTicks < 0) {
      return 0;
    }
    double elapsedSeconds = Duration.between(previousAt, now).toNanos() / 1e9;
    // Negative when a descendant ended (its CPU time leaves the sum with it).
    long ticks = cpuTicks - previousTicks;
    if (elapsedSeconds <= 0 || ticks <= 0) {
      return 0;
    }
    return procFs.ticksToSeconds(ticks) / elapsedSeconds;
  }

  @Override
  public void close() {
    closed = true;
    workers.clear();
  }
}

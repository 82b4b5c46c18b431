package io.gpuq.gpu;

import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import io.gpuq.proc.ProcessTable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Reads the GPU backend and attributes every process on a GPU to the job whose worker tree holds
 * it. The latest poll is kept for placement and the nodes' heartbeats; the listeners, fixed at
 * construction, see each poll.
 */
public final class GpuPoller {

  private final GpuBackend backend;
  private final ProcFs procFs;
  private final Clock clock;
  private final Supplier<Map<Long, String>> workerRoots;
  private final AtomicReference<GpuUsage> latest;
  private final List<Consumer<GpuUsage>> listeners;

  /**
   * @param workerRoots the root PID of every live worker, with its job id
   * @param listeners told of each poll, in this order, once it is the latest
   */
  public GpuPoller(
      GpuBackend backend,
      ProcFs procFs,
      Clock clock,
      Supplier<Map<Long, String>> workerRoots,
      List<Consumer<GpuUsage>> listeners) {
    this.backend = backend;
    this.procFs = procFs;
    this.clock = clock;
    this.workerRoots = workerRoots;
    this.listeners = List.copyOf(listeners);
    this.latest = new AtomicReference<>(GpuUsage.none(clock.instant()));
  }

  /** Polls once; throws {@link GpuBackendException} when the backend cannot be read. */
  public GpuUsage poll() {
    List<GpuSample> samples = backend.sample();
    Map<Long, String> roots = workerRoots.get();
    ProcessTable table = roots.isEmpty() ? null : procFs.snapshot();
    Map<Long, String> jobOfPid = attribute(roots, table);
    if (table != null) {
      samples = withoutEndedProcesses(samples, table, jobOfPid);
    }
    Map<String, Map<Integer, Long>> jobBytes = new HashMap<>();
    for (GpuSample sample : samples) {
      for (GpuProcessUsage process : sample.processes()) {
        String job = jobOfPid.get(process.pid());
        if (job != null) {
          jobBytes
              .computeIfAbsent(job, j -> new HashMap<>())
              .merge(sample.device().index(), process.memoryUsedBytes(), Long::sum);
        }
      }
    }
    jobOfPid.keySet().retainAll(pidsOn(samples));
    GpuUsage usage = new GpuUsage(clock.instant(), samples, jobOfPid, jobBytes);
    latest.set(usage);
    listeners.forEach(listener -> listener.accept(usage));
    return usage;
  }

  public GpuUsage latest() {
    return latest.get();
  }

  private static Map<Long, String> attribute(Map<Long, String> roots, ProcessTable table) {
    Map<Long, String> jobOfPid = new HashMap<>();
    if (table == null) {
      return jobOfPid;
    }
    roots.forEach(
        (root, job) -> {
          for (ProcStat process : table.treeOf(root)) {
            jobOfPid.put(process.pid(), job);
          }
        });
    return jobOfPid;
  }

  /**
   * The samples without the processes that ended between the backend's reading and the process
   * table's: a worker's short-lived child (a {@code sleep} in its shell loop) is on the GPU in the
   * one and gone from the other, so no tree holds it, and it would be shown as a process gpuq did
   * not start, with its pid, to every caller. Only where this node sees the backend's pids at all
   * (some of them are its workers'): in a container without the host's PID namespace none is in
   * {@code /proc}, and every process is kept as the backend reported it.
   */
  private static List<GpuSample> withoutEndedProcesses(
      List<GpuSample> samples, ProcessTable table, Map<Long, String> jobOfPid) {
    boolean samePidNamespace =
        samples.stream()
            .flatMap(s -> s.processes().stream())
            .anyMatch(p -> jobOfPid.containsKey(p.pid()));
    if (!samePidNamespace) {
      return samples;
    }
    List<GpuSample> kept = new ArrayList<>(samples.size());
    for (GpuSample sample : samples) {
      List<GpuProcessUsage> alive =
          sample.processes().stream()
              .filter(p -> jobOfPid.containsKey(p.pid()) || table.get(p.pid()).isPresent())
              .toList();
      kept.add(
          alive.size() == sample.processes().size()
              ? sample
              : new GpuSample(
                  sample.device(), sample.memoryUsedBytes(), sample.utilization(), alive));
    }
    return kept;
  }

  private static java.util.Set<Long> pidsOn(List<GpuSample> samples) {
    java.util.Set<Long> pids = new java.util.HashSet<>();
    samples.forEach(s -> s.processes().forEach(p -> pids.add(p.pid())));
    return pids;
  }
}

package io.gpuq.launch;

import io.gpuq.cgroup.WorkerId;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.WorkerProcess;
import io.gpuq.proc.ProcFs;
import io.gpuq.text.Cpus;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers alive on this node. A worker holds its place (CPU slot, GPU budget, cores) from
 * launch until its last process is gone, even after the job was cancelled: the capacity it frees is
 * real. Its process exiting is not enough (issue 34): what it left in its cgroup, or in its process
 * group and session without one, is killed, and waited for, first.
 */
public final class Workers {

  private static final Logger log = LoggerFactory.getLogger(Workers.class);

  private final WorkerLauncher launcher;
  private final ProcessTreeStopper stopper;
  private final Executor exitExecutor;
  private final ProcFs procFs;
  private final WorkerConfinement confinement;
  private final Map<String, RunningWorker> live = new ConcurrentHashMap<>();
  private final Map<String, JobPlacement> launching = new ConcurrentHashMap<>();
  private final Map<String, HostResources> launchingHosts = new ConcurrentHashMap<>();

  /** Workers left unconfined: no cgroups, no binding (tests that launch by hand). */
  public Workers(
      WorkerLauncher launcher, ProcessTreeStopper stopper, Executor exitExecutor, ProcFs procFs) {
    this(launcher, stopper, exitExecutor, procFs, WorkerConfinement.none());
  }

  /**
   * @param confinement what keeps each worker to its cores and host memory
   */
  public Workers(
      WorkerLauncher launcher,
      ProcessTreeStopper stopper,
      Executor exitExecutor,
      ProcFs procFs,
      WorkerConfinement confinement) {
    this.launcher = launcher;
    this.procFs = procFs;
    this.stopper = stopper;
    this.exitExecutor = exitExecutor;
    this.confinement = confinement;
  }

  public WorkerConfinement confinement() {
    return confinement;
  }

  /**
   * Starts a worker; {@code onExit} runs (on the exit executor, never on the JDK's reaper thread)
   * after its process has exited and it no longer counts as live.
   */
  public RunningWorker start(LaunchRequest request, Consumer<WorkerExit> onExit)
      throws LaunchException {
    try {
      WorkerConfinement.Confined confined =
          confinement.prepare(request.jobId(), request.attempt(), request.host());
      RunningWorker worker;
      try {
        worker = launcher.launch(request, confined);
      } catch (LaunchException | RuntimeException e) {
        confinement.abandon(confined);
        throw e;
      }
      return watch(worker, onExit);
    } finally {
      // Live now (watch registered it first) or failed: either way no longer launching.
      launching.remove(request.jobId());
      launchingHosts.remove(request.jobId());
    }
  }

  /**
   * Holds a claimed job's place while its launch runs elsewhere, so that a scheduling pass
   * meanwhile counts it as taken. {@link #start} releases it; so must whoever gives up the launch
   * before.
   */
  public void reserveForLaunch(String jobId, JobPlacement placement) {
    reserveForLaunch(jobId, placement, HostResources.ONE_CORE);
  }

  /** As {@link #reserveForLaunch(String, JobPlacement)}, with the cores and memory it takes. */
  public void reserveForLaunch(String jobId, JobPlacement placement, HostResources host) {
    launchingHosts.put(jobId, host);
    launching.put(jobId, placement);
  }

  /** Gives up a place held for a launch that will not happen. */
  public void releaseLaunch(String jobId) {
    launching.remove(jobId);
    launchingHosts.remove(jobId);
  }

  /**
   * Watches again a worker that outlived an earlier gpuq; empty if it is gone (or its PID now
   * belongs to another process).
   */
  public Optional<RunningWorker> adopt(AdoptRequest request, Consumer<WorkerExit> onExit) {
    return launcher
        .adopt(request, procFs)
        .map(
            worker -> {
              confinement.adopt(worker.jobId(), worker.attempt(), worker.pid());
              return watch(worker, onExit);
            });
  }

  /**
   * What the cgroup of an attempt that ended while gpuq was down says of its end; its group is
   * removed with whatever was left in it.
   */
  public WorkerGroupEnd endLeftBehind(String jobId, int attempt) {
    return groupEnd(jobId, attempt);
  }

  /**
   * After recovery: removes the cgroups of workers no longer watched here (gone, or stopped as
   * stale), stopping what still runs in them as a worker is stopped (SIGTERM, then SIGKILL after
   * the grace period).
   */
  public void removeUnwatchedGroups() {
    Set<WorkerId> watched = new HashSet<>();
    for (RunningWorker worker : live.values()) {
      try {
        watched.add(new WorkerId(worker.jobId(), worker.attempt()));
      } catch (IllegalArgumentException notAGroupName) {
        // Has no group.
      }
    }
    confinement.removeUnwatched(watched, stopper.grace());
  }

  private WorkerGroupEnd groupEnd(String jobId, int attempt) {
    return confinement
        .end(jobId, attempt)
        .withNotEntered(launcher.cgroupNotEntered(jobId, attempt));
  }

  private RunningWorker watch(RunningWorker worker, Consumer<WorkerExit> onExit) {
    RunningWorker earlier = live.put(worker.jobId(), worker);
    if (earlier != null && earlier.markStopping(StopReason.STALE)) {
      // An earlier attempt of the same job still runs here (its job was declared lost while this
      // node was silent, then requeued and claimed by this node again): only one may run.
      log.warn(
          "job {} attempt {} starts while attempt {} (pid {}) still runs here: stopping that one",
          worker.jobId(),
          worker.attempt(),
          earlier.attempt(),
          earlier.pid());
      stopper.stop(earlier.pid(), () -> confinement.killAll(earlier.jobId(), earlier.attempt()));
      confinement.signal(earlier.jobId(), earlier.attempt(), ProcessSignals.SIGTERM);
    }
    worker.exitCode().thenAcceptAsync(code -> exited(worker, code, onExit), exitExecutor);
    return worker;
  }

  private void exited(RunningWorker worker, Integer exitCode, Consumer<WorkerExit> onExit) {
    stopper.killLeftovers(worker.pid());
    // Its cores are given back, and its group emptied and removed, before its place is freed.
    WorkerGroupEnd group = groupEnd(worker.jobId(), worker.attempt());
    // Read before the place is freed: the attempt ends then in the record, so that a successor
    // placed in the freed room (its start read from the same clock afterwards) never starts
    // before it ended. The end stored later, after its log and metrics are read, came 4-30 ms
    // after the successor's start.
    Instant freedAt = launcher.now();
    live.remove(worker.jobId(), worker);
    try {
      onExit.accept(
          new WorkerExit(
              worker.jobId(),
              worker.attempt(),
              worker.pid(),
              exitCode,
              worker.stopReason(),
              worker.stopDetail(),
              freedAt,
              group));
    } catch (RuntimeException e) {
      log.error("recording the exit of job {} failed", worker.jobId(), e);
    }
  }

  /**
   * Stops a job's worker tree (SIGTERM, then SIGKILL after the grace period). Returns false when no
   * worker of that job lives here or it is already being stopped.
   */
  public boolean stop(String jobId, StopReason reason) {
    return stop(jobId, reason, null);
  }

  /**
   * As {@link #stop(String, StopReason)}, with the reason in words and numbers for the job's
   * failure message and log ({@link WorkerExit#stopDetail}).
   */
  public boolean stop(String jobId, StopReason reason, String detail) {
    RunningWorker worker = live.get(jobId);
    return worker != null && stopLive(worker, reason, detail);
  }

  /**
   * Stops this very worker, if it is still its job's live worker here and not being stopped
   * already. For a caller that read {@link #live()} a moment before: by now the worker may have
   * ended, or a later attempt of its job replaced it, and that one must run on.
   */
  public boolean stop(RunningWorker worker, StopReason reason) {
    return stop(worker, reason, null);
  }

  /** As {@link #stop(RunningWorker, StopReason)}, with the reason in words and numbers. */
  public boolean stop(RunningWorker worker, StopReason reason, String detail) {
    return live.get(worker.jobId()) == worker && stopLive(worker, reason, detail);
  }

  /**
   * Stops a job's worker tree with {@code signal}, then SIGKILL after {@code grace}: a preemption
   * (issue 35). Returns false when no worker of that job lives here or it is already being stopped.
   */
  public boolean stop(String jobId, StopReason reason, String detail, int signal, Duration grace) {
    RunningWorker worker = live.get(jobId);
    if (worker == null || !worker.markStopping(reason, detail)) {
      return false;
    }
    log.info(
        "stopping job {} (pid {}): {} ({}), signal {}, grace {}",
        jobId,
        worker.pid(),
        reason,
        detail,
        signal,
        grace);
    stopper.stop(worker.pid(), signal, grace, () -> confinement.killAll(jobId, worker.attempt()));
    confinement.signal(jobId, worker.attempt(), signal);
    return true;
  }

  /**
   * Sends this worker's tree one signal, without stopping it: the warning before its timeout
   * ({@code timeoutSignal}, issue 35). Nothing if it is no longer its job's live worker here.
   */
  public void signal(RunningWorker worker, int signal) {
    if (live.get(worker.jobId()) != worker) {
      return;
    }
    log.info("job {} (pid {}): signal {} before its timeout", worker.jobId(), worker.pid(), signal);
    ProcessSignals.signalGroup(worker.pid(), signal);
    confinement.signal(worker.jobId(), worker.attempt(), signal);
  }

  private boolean stopLive(RunningWorker worker, StopReason reason, String detail) {
    if (!worker.markStopping(reason, detail)) {
      return false;
    }
    String jobId = worker.jobId();
    log.info(
        "stopping job {} (pid {}): {}{}",
        jobId,
        worker.pid(),
        reason,
        detail == null ? "" : " (" + detail + ")");
    // At the deadline its whole group is killed at once, whatever it forked meanwhile.
    stopper.stop(worker.pid(), () -> confinement.killAll(jobId, worker.attempt()));
    // What left its process tree (a double fork) is still in its group.
    confinement.signal(jobId, worker.attempt(), ProcessSignals.SIGTERM);
    return true;
  }

  /**
   * Stops a worker tree gpuq no longer watches, if that PID still is the same process.
   *
   * @return whether there was one to stop
   */
  public boolean stopOrphan(long pid, long startTicks) {
    boolean same = procFs.isSameProcess(pid, startTicks);
    if (same) {
      stopper.stop(pid);
    }
    return same;
  }

  public Collection<RunningWorker> live() {
    return List.copyOf(live.values());
  }

  /** Per GPU index, the sum of the budgets of the live and launching workers placed on it. */
  public Map<Integer, Long> reservedBytesByGpu() {
    Map<Integer, Long> reserved = new java.util.HashMap<>();
    for (JobPlacement placement : placementsTaken()) {
      placement.gpus().forEach(gpu -> reserved.merge(gpu.index(), gpu.memoryBytes(), Long::sum));
    }
    return reserved;
  }

  /** How many live or launching workers run on no GPU. */
  public int cpuOnlyCount() {
    return (int) placementsTaken().stream().filter(p -> p.gpus().isEmpty()).count();
  }

  /**
   * The cores and host memory held by the live workers and the launches under way: what placement
   * counts as taken on this node. A worker that just became live may be counted twice for a moment,
   * never zero times.
   *
   * <p>What is held beside the workers (a warm start's zygote) counts with all of its memory, but
   * with the nearest whole number of cores it keeps busy: a zygote that imports (at most one core,
   * its cap) takes a core, one that waits between forks, at 1 % of one, takes none. Counted at its
   * measured rate, the 0.01 core made a trial of one core wait on a 2-core node until the other
   * trial ended (issue 36): the workers' cores are reservations, a zygote's use is like gpuq's own,
   * from what they leave. Fair share counts its rate exactly ({@link #heldBesideWorkers}).
   */
  public HostHeld hostHeld() {
    Cpus cpus = Cpus.ZERO;
    long memory = 0;
    for (HostResources host : launchingHosts.values()) {
      cpus = cpus.plus(host.cpus());
      memory += host.memoryBytes() == null ? 0 : host.memoryBytes();
    }
    for (RunningWorker worker : live.values()) {
      cpus = cpus.plus(worker.host().cpus());
      memory += worker.host().memoryBytes() == null ? 0 : worker.host().memoryBytes();
    }
    for (HostHeld beside : heldBesideWorkers().values()) {
      cpus = cpus.plus(beside.cpus().wholeCoresNearest());
      memory += beside.memoryBytes();
    }
    return new HostHeld(cpus, memory);
  }

  /**
   * Says what else on this node holds cores and host memory for its owners, outside any worker
   * (issue 36: warm-start zygotes): counted in {@link #hostHeld} and, per owner, in fair share.
   */
  public void holdAlso(java.util.function.Supplier<Map<String, HostHeld>> beside) {
    this.beside = beside;
  }

  /** Per owner, what {@link #holdAlso} says is held outside the workers now; read each time. */
  public Map<String, HostHeld> heldBesideWorkers() {
    try {
      return beside.get();
    } catch (RuntimeException e) {
      log.warn("cannot read what is held beside the workers: {}", e.toString());
      return Map.of();
    }
  }

  private volatile java.util.function.Supplier<Map<String, HostHeld>> beside = Map::of;

  /** Cores (fractions added up), and bytes of host memory reserved (none asked: 0). */
  public record HostHeld(Cpus cpus, long memoryBytes) {}

  /**
   * The placements of live workers and of launches under way; a worker that just became live may be
   * counted twice for a moment, never zero times.
   */
  private List<JobPlacement> placementsTaken() {
    List<JobPlacement> taken = new java.util.ArrayList<>(launching.values());
    live.values().forEach(worker -> taken.add(worker.placement()));
    return taken;
  }

  /** The root PID of every live worker, with its job. */
  public Map<Long, String> roots() {
    Map<Long, String> roots = new java.util.HashMap<>();
    live.values().forEach(w -> roots.put(w.pid(), w.jobId()));
    return roots;
  }

  /** See {@link WorkerLauncher#recordProcess}. */
  public void recordProcess(WorkerProcess process) throws IOException {
    launcher.recordProcess(process);
  }

  /**
   * An attempt's worker process: as the database has it ({@code pid} and {@code startTicks}, null
   * if it never learned them), else as its process file has it, written at once when gpuq spawned
   * it. Empty if neither knows a process with a start time.
   */
  public Optional<WorkerProcess> processOf(String jobId, int attempt, Long pid, Long startTicks) {
    Optional<WorkerProcess> process =
        pid != null && startTicks != null
            ? Optional.of(new WorkerProcess(jobId, attempt, pid, startTicks))
            : launcher.recordedProcess(jobId, attempt);
    return process.filter(p -> p.startTicks() > 0);
  }

  /** See {@link WorkerLauncher#recordedExit}. */
  public Optional<RecordedExit> recordedExit(String jobId, int attempt) {
    return launcher.recordedExit(jobId, attempt);
  }

  /** See {@link WorkerLauncher#exitCodeUnwritten}. */
  public boolean exitCodeUnwritten(String jobId, int attempt) {
    return launcher.exitCodeUnwritten(jobId, attempt);
  }
}

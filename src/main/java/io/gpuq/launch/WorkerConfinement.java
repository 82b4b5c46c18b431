package io.gpuq.launch;

import io.gpuq.cgroup.Affinity;
import io.gpuq.cgroup.CgroupVersion;
import io.gpuq.cgroup.Controller;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.WorkerCgroup;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.cgroup.WorkerId;
import io.gpuq.job.BoundCores;
import io.gpuq.job.HostResources;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each worker to its cores and host memory, as well as this node allows: a cgroup of its own
 * ({@link Mode#CGROUPS}: cpuset and memory cap, enforced by the kernel), or, where gpuq cannot make
 * cgroups, a CPU affinity it is born with ({@link Mode#AFFINITY}: bound, not enforced; memory only
 * accounted). See docs/design/worker-cgroups.md.
 */
public final class WorkerConfinement implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WorkerConfinement.class);
  // A group whose count of processes has not fallen for this long under SIGKILL sent at once holds
  // a process in uninterruptible sleep (issue 34: it gave up after 5 s, on a job whose forks outran
  // its kills one by one, and freed the place under it).
  private static final long EMPTY_WAIT_MILLIS = 30_000;
  private static final long POLL_MILLIS = 20;
  // However fast its processes go, an end waits no longer for its group: the rest is retried.
  private static final long LONGEST_REMOVAL_MILLIS = 120_000;
  static final Duration LEFTOVER_RETRY = Duration.ofSeconds(10);
  private static final Duration FREEZE_WAIT = Duration.ofSeconds(1);

  /** How workers are kept to their cores and memory. */
  public enum Mode {
    /** A cgroup per worker: cores and memory enforced. */
    CGROUPS,
    /** Born bound to its cores by sched_setaffinity; memory not capped, only accounted. */
    AFFINITY,
    /** Neither: workers run where and as large as they like (tests that launch by hand). */
    NONE
  }

  /**
   * How one launch is confined.
   *
   * @param cgroupProcs the {@code cgroup.procs} files the wrapper writes its pid into, in order
   * @param bindAtBirth the cores the worker is born bound to (the affinity mode), or empty
   * @param cores its cores, or null where none were given (the NONE mode)
   */
  public record Confined(
      String jobId,
      int attempt,
      List<Path> cgroupProcs,
      Optional<CpuList> bindAtBirth,
      CpuList cores) {

    public Confined {
      cgroupProcs = List.copyOf(cgroupProcs);
    }

    static Confined none(String jobId, int attempt) {
      return new Confined(jobId, attempt, List.of(), Optional.empty(), null);
    }
  }

  private final Mode mode;
  private final Optional<WorkerCgroups> cgroups;
  private final CoreAllocator cores;
  private final String fallbackReason;
  private final Map<WorkerId, WorkerCgroup> leftovers = new ConcurrentHashMap<>();
  private final long emptyWaitMillis;
  private volatile boolean warnedNoCpuController;

  private WorkerConfinement(
      Mode mode, WorkerCgroups cgroups, CoreAllocator cores, String fallbackReason) {
    this(mode, cgroups, cores, fallbackReason, EMPTY_WAIT_MILLIS);
  }

  private WorkerConfinement(
      Mode mode,
      WorkerCgroups cgroups,
      CoreAllocator cores,
      String fallbackReason,
      long emptyWaitMillis) {
    this.mode = mode;
    this.cgroups = Optional.ofNullable(cgroups);
    this.cores = cores;
    this.fallbackReason = fallbackReason;
    this.emptyWaitMillis = emptyWaitMillis;
  }

  /** Workers unconfined: what a node that launches by hand (a test) gets. */
  public static WorkerConfinement none() {
    return new WorkerConfinement(Mode.NONE, null, null, "not confined");
  }

  /** Each worker in a cgroup of its own, below {@code cgroups}' parent group. */
  public static WorkerConfinement inCgroups(WorkerCgroups cgroups, CoreAllocator cores) {
    return new WorkerConfinement(Mode.CGROUPS, cgroups, cores, null);
  }

  /**
   * As {@link #inCgroups(WorkerCgroups, CoreAllocator)}, an ended worker's group given up for now
   * (and retried later) once its count of processes has not fallen for {@code emptyWait} instead of
   * 30 s: a test of that retry need not wait half a minute.
   */
  static WorkerConfinement inCgroups(
      WorkerCgroups cgroups, CoreAllocator cores, Duration emptyWait) {
    return new WorkerConfinement(Mode.CGROUPS, cgroups, cores, null, emptyWait.toMillis());
  }

  /**
   * Each worker born bound to its cores, its memory not capped.
   *
   * @param reason why there are no cgroups, for the health details
   */
  public static WorkerConfinement byAffinity(CoreAllocator cores, String reason) {
    return new WorkerConfinement(Mode.AFFINITY, null, cores, reason);
  }

  public Mode mode() {
    return mode;
  }

  /** Why workers are not in cgroups; empty when they are. */
  public Optional<String> fallbackReason() {
    return Optional.ofNullable(fallbackReason);
  }

  /** The cores workers are given; empty in the NONE mode. */
  public Optional<CpuList> usableCores() {
    return cores == null ? Optional.empty() : Optional.of(cores.usable());
  }

  /** How many usable cores no worker holds now; 0 in the NONE mode. */
  public int freeCores() {
    return cores == null ? 0 : cores.free();
  }

  /** The cgroup version, in the CGROUPS mode. */
  public Optional<CgroupVersion> cgroupVersion() {
    return cgroups.map(WorkerCgroups::version);
  }

  /** The workers' cgroups, in the CGROUPS mode. */
  public Optional<WorkerCgroups> cgroups() {
    return cgroups;
  }

  /** The parent group of the workers' groups, per hierarchy; empty without cgroups. */
  public List<Path> parentGroups() {
    TreeSet<Path> parents = new TreeSet<>();
    cgroups.ifPresent(
        groups -> {
          for (Controller controller : Controller.values()) {
            groups.parent(controller).ifPresent(parents::add);
          }
        });
    return List.copyOf(parents);
  }

  /** The cores of a live worker, if it was given any. */
  public Optional<CpuList> coresOf(String jobId, int attempt) {
    return cores == null ? Optional.empty() : cores.coresOf(key(jobId, attempt));
  }

  /** The cores of a live worker and how it is held to them, as its job's attempt records them. */
  public Optional<BoundCores> boundCoresOf(String jobId, int attempt) {
    String boundBy = mode == Mode.CGROUPS ? BoundCores.CGROUP : BoundCores.AFFINITY;
    return coresOf(jobId, attempt).map(cpus -> new BoundCores(cpus.toString(), boundBy));
  }

  /**
   * Gives a worker about to start its cores and, in the CGROUPS mode, its group, bound and capped.
   * Nothing is spawned yet: a failure here is the launch's.
   */
  Confined prepare(String jobId, int attempt, HostResources host) throws LaunchException {
    if (mode == Mode.NONE) {
      return Confined.none(jobId, attempt);
    }
    String key = key(jobId, attempt);
    boolean share = !host.cpus().isWhole();
    CoreAllocator.Allocation given =
        share
            ? cores.takeShare(key, host.cpus().millis())
            : cores.take(key, Math.toIntExact(host.cpus().wholeCoresUp()));
    if (given.shared() || (!share && given.cores().count() < host.cpus().wholeCoresUp())) {
      log.info(
          "job {} asked for {} with {} free: it shares cores {} with other workers",
          jobId,
          host.cpus().text(),
          given.freeBefore(),
          given.cores());
    }
    if (mode == Mode.AFFINITY) {
      // Bound at birth to the pool as it is now; without cgroups nothing holds it to its fraction.
      return new Confined(jobId, attempt, List.of(), Optional.of(given.cores()), given.cores());
    }
    WorkerId id = new WorkerId(jobId, attempt);
    WorkerCgroup group = null;
    try {
      group = create(id);
      group.bindCpus(given.cores());
      if (share) {
        limitCpu(group, host.cpus().millis());
      }
      if (host.memoryBytes() != null) {
        group.limitMemory(host.memoryBytes());
      }
      List<Path> procs = new ArrayList<>();
      for (Path dir : group.directories()) {
        procs.add(dir.resolve("cgroup.procs"));
      }
      if (share) {
        // The pool may have grown for this worker: its other members may use the new cores too.
        rebindPool();
      }
      return new Confined(jobId, attempt, procs, Optional.empty(), given.cores());
    } catch (IOException | RuntimeException e) {
      cores.release(key);
      if (group != null) {
        removeQuietly(group);
      }
      if (share) {
        rebindPool();
      }
      throw new LaunchException("cannot give the worker its cgroup: " + e.getMessage(), e);
    }
  }

  /** Holds a worker that asks for a fraction to it, where this node's groups can be. */
  private void limitCpu(WorkerCgroup group, long millicores) throws IOException {
    if (group.hasCpuController()) {
      group.limitCpu(millicores);
    } else if (!warnedNoCpuController) {
      warnedNoCpuController = true;
      log.warn(
          "no cpu controller for the workers' cgroups: workers that ask for a fraction of a core"
              + " share their pool's cores without a bandwidth limit");
    }
  }

  /**
   * Binds every worker of the pool (those that asked for a fraction of a core) to the pool's cores
   * as they are now, after a member joined or left. One at a time, and each time to the newest
   * pool: the last to write writes what the allocator holds last.
   */
  private synchronized void rebindPool() {
    if (cgroups.isEmpty()) {
      return;
    }
    CpuList pool = cores.pool();
    if (pool.isEmpty()) {
      return;
    }
    for (String member : cores.poolMembers()) {
      WorkerId.ofDirectoryName(member)
          .flatMap(cgroups.get()::find)
          .ifPresent(
              group -> {
                try {
                  if (!group.cpus().equals(pool)) {
                    group.bindCpus(pool);
                  }
                } catch (IOException | RuntimeException e) {
                  log.warn("cannot bind {} to the shared cores {}: {}", group, pool, e.toString());
                }
              });
    }
  }

  /**
   * A group of the same attempt left over (a launch a crash interrupted) is emptied and made anew.
   */
  private WorkerCgroup create(WorkerId id) throws IOException {
    WorkerCgroups groups = cgroups.orElseThrow();
    try {
      return groups.create(id);
    } catch (FileAlreadyExistsException e) {
      Optional<WorkerCgroup> old = groups.find(id);
      if (old.isPresent()) {
        killAndRemove(old.get());
      }
      return groups.create(id);
    }
  }

  /** A launch that was prepared did not happen: gives its cores and group back. */
  void abandon(Confined confined) {
    if (mode == Mode.NONE) {
      return;
    }
    end(confined.jobId(), confined.attempt());
  }

  /**
   * Takes back, after a restart, the cores (and group) of a worker an earlier gpuq started: its
   * group's cpuset, or, without cgroups, the affinity it was born with.
   */
  void adopt(String jobId, int attempt, long pid) {
    if (mode == Mode.NONE) {
      return;
    }
    String key = key(jobId, attempt);
    try {
      if (mode == Mode.CGROUPS) {
        Optional<WorkerCgroup> group = cgroups.orElseThrow().find(new WorkerId(jobId, attempt));
        if (group.isPresent()) {
          OptionalLong share =
              group.get().hasCpuController() ? group.get().cpuLimit() : OptionalLong.empty();
          if (share.isPresent()) {
            // A worker that asked for a fraction: its quota says how much, its cpuset the pool.
            cores.holdShare(key, share.getAsLong(), group.get().cpus());
          } else {
            cores.hold(key, group.get().cpus());
          }
          return;
        }
        log.warn("re-adopted job {} attempt {} has no cgroup: it runs unconfined", jobId, attempt);
      }
      cores.hold(key, Affinity.ofThread(Math.toIntExact(pid)));
    } catch (IOException | RuntimeException e) {
      log.warn("cannot read the cgroup cores of re-adopted job {}: {}", jobId, e.toString());
      try {
        // The cores it was bound to at birth, so that they are not handed to another worker.
        cores.hold(key, Affinity.ofThread(Math.toIntExact(pid)));
      } catch (RuntimeException gone) {
        log.warn("nor its CPUs: {}", gone.toString());
      }
    }
  }

  /** Asks every process left in a worker's group to end (its tree may have lost some). */
  void signal(String jobId, int attempt, int signal) {
    group(jobId, attempt).ifPresent(group -> signalAll(group, signal));
  }

  /**
   * Kills every process of a worker's group at once (issue 34): v2's {@code cgroup.kill}; elsewhere
   * the group is frozen, each of its processes sent SIGKILL, and thawed, so that none forks between
   * the list and the kill. Nothing without a group (the affinity mode: its stopper kills the
   * process group and session, until they are empty).
   */
  void killAll(String jobId, int attempt) {
    group(jobId, attempt).ifPresent(WorkerConfinement::killAtOnce);
  }

  private static void killAtOnce(WorkerCgroup group) {
    try {
      if (group.killAtOnce()) {
        return;
      }
      try {
        // Not frozen in time (a process in uninterruptible sleep): what is listed is killed all
        // the same, and whoever waits for the group to empty calls again.
        group.freeze(FREEZE_WAIT);
        group.processes().forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGKILL));
      } finally {
        group.thaw();
      }
    } catch (IOException e) {
      log.warn("cannot kill what runs in {}: {}", group, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A worker has ended (or was found ended after a restart): reads what its group says, kills what
   * is left in it, removes it and gives its cores back.
   */
  WorkerGroupEnd end(String jobId, int attempt) {
    if (mode == Mode.NONE) {
      return WorkerGroupEnd.NONE;
    }
    try {
      return endGroup(jobId, attempt);
    } finally {
      // Only once its group is empty: what was left in it no longer runs on the cores that the
      // next worker is given.
      String key = key(jobId, attempt);
      boolean share = cores.sharesPool(key);
      cores.release(key);
      if (share) {
        rebindPool();
      }
    }
  }

  private WorkerGroupEnd endGroup(String jobId, int attempt) {
    Optional<WorkerCgroup> found = group(jobId, attempt);
    if (found.isEmpty()) {
      return WorkerGroupEnd.NONE;
    }
    WorkerCgroup group = found.get();
    long oomKills = 0;
    Long limit = null;
    long forkRefusals = 0;
    Long processLimit = null;
    try {
      oomKills = group.oomKills();
      limit = group.memoryLimit().isPresent() ? group.memoryLimit().getAsLong() : null;
      forkRefusals = group.forkRefusals();
      processLimit = group.processLimit().isPresent() ? group.processLimit().getAsLong() : null;
    } catch (IOException | RuntimeException e) {
      log.warn("cannot read how {} ended: {}", group, e.toString());
    }
    killAndRemove(group);
    return new WorkerGroupEnd(oomKills, limit, false, forkRefusals, processLimit);
  }

  /**
   * After recovery: removes the groups of workers that are gone or not watched (their jobs ended or
   * were given away while gpuq was down), stopping whatever still runs in them as any worker is
   * stopped: SIGTERM, so that a job's code may save its work, then SIGKILL to what is left after
   * the grace period. All of them are signalled at once and share one grace period, which recovery
   * waits for only while something is left.
   *
   * @param watched the workers being watched, as jobId and attempt
   * @param grace time between SIGTERM and SIGKILL ({@code gpuq.worker.kill-grace})
   */
  void removeUnwatched(Set<WorkerId> watched, Duration grace) {
    if (cgroups.isEmpty()) {
      return;
    }
    List<WorkerId> found;
    try {
      found = cgroups.get().list();
    } catch (IOException e) {
      log.warn("cannot list the workers' cgroups: {}", e.toString());
      return;
    }
    List<WorkerCgroup> unwatched = new ArrayList<>();
    for (WorkerId id : found) {
      if (!watched.contains(id)) {
        cgroups.get().find(id).ifPresent(unwatched::add);
      }
    }
    for (WorkerCgroup group : unwatched) {
      List<Long> left = processesOf(group);
      if (!left.isEmpty()) {
        log.info(
            "stopping processes {} left in {}, which no gpuq watches: SIGTERM, then SIGKILL after"
                + " {}",
            left,
            group,
            grace);
        left.forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGTERM));
      }
    }
    long killAt = System.nanoTime() + grace.toNanos();
    for (WorkerCgroup group : unwatched) {
      awaitEmpty(group, killAt);
      killAndRemove(group);
      log.info("removed {}, which no gpuq watches", group);
    }
  }

  private static List<Long> processesOf(WorkerCgroup group) {
    try {
      return group.processes();
    } catch (IOException e) {
      log.warn("cannot list the processes of {}: {}", group, e.toString());
      return List.of();
    }
  }

  /** Waits until nothing runs in the group, or until {@code deadline} ({@link System#nanoTime}). */
  private static void awaitEmpty(WorkerCgroup group, long deadline) {
    try {
      while (!processesOf(group).isEmpty() && deadline - System.nanoTime() > 0) {
        Thread.sleep(POLL_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Optional<WorkerCgroup> group(String jobId, int attempt) {
    if (cgroups.isEmpty()) {
      return Optional.empty();
    }
    try {
      return cgroups.get().find(new WorkerId(jobId, attempt));
    } catch (IllegalArgumentException notAGroupName) {
      return Optional.empty();
    }
  }

  private static void signalAll(WorkerCgroup group, int signal) {
    processesOf(group).forEach(pid -> ProcessSignals.signal(pid, signal));
  }

  /**
   * SIGKILL to whatever is left in it (double-forked children too), then rmdir once empty.
   * Thousands of processes take a while to exit (3,500 took 14 s on a busy 2-core host): the wait
   * goes on while their number falls, and a group still not removed at the end is tried again later
   * ({@link #removeLeftovers}), never forgotten until a restart.
   */
  private void killAndRemove(WorkerCgroup group) {
    long started = System.nanoTime();
    long deadline = started + emptyWaitMillis * 1_000_000;
    int fewest = Integer.MAX_VALUE;
    boolean killing = false;
    try {
      while (true) {
        List<Long> left = group.processes();
        if (left.isEmpty() && removed(group)) {
          leftovers.remove(group.id());
          return;
        }
        if (left.size() < fewest) {
          fewest = left.size();
          deadline =
              Math.min(
                  System.nanoTime() + emptyWaitMillis * 1_000_000,
                  started + LONGEST_REMOVAL_MILLIS * 1_000_000);
        }
        if (System.nanoTime() - deadline > 0) {
          log.warn(
              "{} still holds {} process(es) {}: it is tried again every {}",
              group,
              left.size(),
              left.size() > 20 ? left.subList(0, 20) + "..." : left,
              LEFTOVER_RETRY);
          leftovers.put(group.id(), group);
          return;
        }
        if (!left.isEmpty()) {
          if (!killing) {
            killing = true;
            log.info(
                "killing {} process(es) left behind in {}: {}",
                left.size(),
                group,
                left.size() > 20 ? left.subList(0, 20) + "..." : left);
          }
          killAtOnce(group);
        }
        Thread.sleep(POLL_MILLIS);
      }
    } catch (IOException e) {
      log.warn("cannot remove {}: {}; tried again every {}", group, e.toString(), LEFTOVER_RETRY);
      leftovers.put(group.id(), group);
    } catch (InterruptedException e) {
      leftovers.put(group.id(), group);
      Thread.currentThread().interrupt();
    }
  }

  /**
   * rmdir, which the kernel may still refuse a moment after the last process left the group (EBUSY
   * while it finishes with them): false then, to be tried again.
   */
  private static boolean removed(WorkerCgroup group) {
    try {
      return group.remove();
    } catch (IOException e) {
      log.debug("{} not removed yet: {}", group, e.toString());
      return false;
    }
  }

  /**
   * Tries once more, without waiting, the groups that {@link #end} could not remove: SIGKILL to
   * what is left, rmdir once empty. A periodic duty calls it ({@link LeftoverGroupsDuty}).
   *
   * @return how many groups are still left
   */
  int removeLeftovers() {
    for (WorkerCgroup group : List.copyOf(leftovers.values())) {
      List<Long> left = processesOf(group);
      if (left.isEmpty() && removed(group)) {
        leftovers.remove(group.id(), group);
        log.info("removed {}, which still held processes when its worker ended", group);
      } else {
        killAtOnce(group);
      }
    }
    return leftovers.size();
  }

  /** The groups of ended workers not removed yet, which {@link #removeLeftovers} tries again. */
  public Set<WorkerId> leftoverGroups() {
    return Set.copyOf(leftovers.keySet());
  }

  private static void removeQuietly(WorkerCgroup group) {
    try {
      group.remove();
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", group, e.toString());
    }
  }

  private static String key(String jobId, int attempt) {
    return jobId + "@" + attempt;
  }

  /** Removes the parent groups where no worker is left in them (a gpuq that stops for good). */
  @Override
  public void close() {
    for (Path parent : parentGroups()) {
      try {
        Files.deleteIfExists(parent);
      } catch (IOException stillInUse) {
        // Workers outlive gpuq: their groups stay for the next gpuq to re-adopt.
      }
    }
  }
}

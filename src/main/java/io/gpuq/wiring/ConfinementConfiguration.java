package io.gpuq.wiring;

import io.gpuq.cgroup.Affinity;
import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.HostPaths;
import io.gpuq.cgroup.OomScoreAdj;
import io.gpuq.cgroup.ProcessLimit;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.config.GpuqProperties;
import io.gpuq.config.GpuqProperties.Node.Cgroups;
import io.gpuq.isolation.Isolation;
import io.gpuq.launch.WorkerConfinement;
import io.gpuq.node.LocalCapacity;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Decides once, at start, how workers are kept to their cores and host memory ({@code
 * gpuq.node.cgroups}): each in a cgroup of its own where gpuq can make them, else born bound to its
 * cores by affinity with its memory only accounted, said loudly in the log and in the health
 * details.
 */
@Configuration(proxyBeanMethods = false)
public class ConfinementConfiguration {

  private static final Logger log = LoggerFactory.getLogger(ConfinementConfiguration.class);

  @Bean(destroyMethod = "close")
  WorkerConfinement workerConfinement(GpuqProperties properties, LocalCapacity capacity) {
    protectGpuq();
    ProcessLimit processes;
    try {
      processes =
          ProcessLimit.decide(
              properties.worker().maxProcesses(), ProcessLimit.pidMax(HostPaths.system()));
    } catch (IllegalArgumentException e) {
      throw new StartRefusedException(
          e.getMessage(), "set gpuq.worker.max-processes to " + ProcessLimit.MIN + " or more");
    }
    processes.lowered().ifPresent(log::warn);
    return decide(
        properties.node().cgroups(),
        CgroupSupport::detect,
        parentName(properties.dataDir()),
        new CoreAllocator(
            CoreAllocator.usable(Affinity.ofThisProcess(), capacity.reserved().cpus())),
        capacity.allocatable().memoryBytes(),
        processes.perWorker());
  }

  /**
   * gpuq's own oom_score_adj, lowered where it may (root with CAP_SYS_RESOURCE): its workers' is
   * raised in any case, so the kernel takes them first either way.
   */
  private static void protectGpuq() {
    OomScoreAdj.protectThisProcess()
        .ifPresent(
            why ->
                log.info(
                    "gpuq cannot lower its own oom_score_adj ({}; it needs root with"
                        + " CAP_SYS_RESOURCE): it stays at {}, and its workers' scores of {} (no"
                        + " resources.memory) and {} still have the kernel's OOM killer take"
                        + " them first",
                    why,
                    OomScoreAdj.of(ProcessHandle.current().pid()).orElse(0),
                    OomScoreAdj.UNCAPPED_WORKER,
                    OomScoreAdj.CAPPED_WORKER));
  }

  /** As the other, with no cap on the workers' parent group and no process limit (tests). */
  static WorkerConfinement decide(
      Cgroups mode, Supplier<CgroupSupport> detect, String parentName, CoreAllocator cores) {
    return decide(mode, detect, parentName, cores, 0, 0);
  }

  /**
   * The confinement {@code mode} asks for, as far as this host allows; detection runs only when
   * cgroups are wanted.
   *
   * @param allocatableMemory the workers' parent group's memory cap: the node's memory after its
   *     reservation (0: none)
   * @param processLimit each worker group's pids.max (0: none)
   * @throws StartRefusedException when cgroups are required and gpuq cannot make them
   */
  static WorkerConfinement decide(
      Cgroups mode,
      Supplier<CgroupSupport> detect,
      String parentName,
      CoreAllocator cores,
      long allocatableMemory,
      int processLimit) {
    if (mode == Cgroups.OFF) {
      WorkerConfinement confinement =
          WorkerConfinement.byAffinity(cores, "turned off (gpuq.node.cgroups=off)");
      warnFallback(confinement);
      return confinement;
    }
    CgroupSupport support = detect.get();
    String reason;
    if (support.usable()) {
      try {
        WorkerCgroups cgroups =
            WorkerCgroups.open(support, parentName).withProcessLimit(processLimit);
        limitTogether(cgroups, allocatableMemory, processLimit);
        WorkerConfinement confinement = WorkerConfinement.inCgroups(cgroups, cores);
        log.info(
            "workers run in cgroups of their own ({}; below {}), bound to cores {} and capped at"
                + " their memory",
            support.describe(),
            confinement.parentGroups(),
            cores.usable());
        return confinement;
      } catch (IOException | RuntimeException e) {
        reason = "cannot make the workers' parent cgroup: " + e.getMessage();
      }
    } else {
      reason = support.unavailableReason().orElseThrow();
    }
    if (mode == Cgroups.REQUIRED) {
      throw new StartRefusedException(
          "gpuq.node.cgroups=required, but gpuq cannot give workers cgroups: " + reason,
          "run gpuq as root, or in a cgroup delegated to it (systemd: Delegate=yes), with the"
              + " cpuset and memory controllers; or set gpuq.node.cgroups=auto to run with cores"
              + " bound by affinity and memory not capped");
    }
    WorkerConfinement confinement = WorkerConfinement.byAffinity(cores, reason);
    warnFallback(confinement);
    return confinement;
  }

  /**
   * Caps the workers' parent group at the node's allocatable memory, so that the jobs together,
   * those without resources.memory included, never take what is kept for gpuq and the system; says
   * when workers get no process limit.
   */
  private static void limitTogether(
      WorkerCgroups cgroups, long allocatableMemory, int processLimit) {
    if (allocatableMemory > 0) {
      try {
        cgroups.capMemory(allocatableMemory);
      } catch (IOException | RuntimeException e) {
        log.warn(
            "cannot cap the workers' parent cgroup at the memory this node gives its jobs ({}):"
                + " {}. Jobs without resources.memory may together take the memory kept for gpuq;"
                + " their workers' high oom_score_adj still has the kernel take them first",
            MemorySize.format(allocatableMemory),
            e.getMessage());
      }
    }
    if (processLimit > 0 && !cgroups.limitsProcesses()) {
      log.warn(
          "the pids controller is not available to gpuq's cgroup: workers get no process limit"
              + " (gpuq.worker.max-processes), and one job may take every PID of the host");
    }
  }

  private static void warnFallback(WorkerConfinement confinement) {
    log.warn(
        "WORKERS ARE NOT IN CGROUPS: {}. Each worker is born bound to its cores by"
            + " sched_setaffinity, which a job may undo, and its host memory (resources.memory) is"
            + " NOT capped, only accounted: a job that uses more than it asked for takes it from"
            + " its neighbours, and the kernel's OOM killer may then pick any process, gpuq's own"
            + " included; no job ends HOST_OUT_OF_MEMORY. Cores given to workers: {}. See"
            + " docs/operations.md, \"Cores and host memory\".",
        confinement.fallbackReason().orElse("unknown reason"),
        confinement.usableCores().map(CpuList::toString).orElse("none"));
  }

  private static String memoryTogether(WorkerCgroups cgroups) {
    try {
      return cgroups.memoryCap().stream()
          .mapToObj(
              cap ->
                  "capped at "
                      + MemorySize.format(cap)
                      + " (the node's memory after its reservation), in their parent group")
          .findFirst()
          .orElse("not capped: their parent group has no memory cap");
    } catch (IOException e) {
      return "unknown: " + e.getMessage();
    }
  }

  /**
   * One parent group per data directory: two gpuqs on one host (each with its own data directory
   * and jobs) never take, re-adopt or remove each other's workers' groups.
   */
  static String parentName(Path dataDir) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  dataDir.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
      return WorkerCgroups.DEFAULT_PARENT + "-" + HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Named "cgroups" in /actuator/health; shown to admins only, as every health detail. */
  @Bean
  HealthIndicator cgroupsHealthIndicator(
      WorkerConfinement confinement, GpuqProperties properties, Isolation isolation) {
    List<String> owners =
        isolation.byOwner().entrySet().stream()
            .filter(owner -> !isolation.needsSwitch(owner.getValue()))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    // Where gpuq cannot switch accounts no owner is listed: every job runs as gpuq's.
    String asGpuq =
        !owners.isEmpty()
            ? "jobs of " + String.join(", ", owners)
            : isolation.byOwner().isEmpty() && !isolation.needsSwitch(isolation.fallback())
                ? "all jobs"
                : null;
    return () -> {
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("configured", properties.node().cgroups().name().toLowerCase());
      details.put("mode", confinement.mode().name().toLowerCase());
      confinement.fallbackReason().ifPresent(reason -> details.put("reason", reason));
      confinement.cgroupVersion().ifPresent(version -> details.put("cgroupVersion", version));
      boolean inCgroups = confinement.mode() == WorkerConfinement.Mode.CGROUPS;
      details.put(
          "cores",
          inCgroups
              ? "enforced: each worker's cpuset holds its cores"
              : "bound by sched_setaffinity at birth, not enforced (a job may widen its mask)");
      details.put(
          "memory",
          inCgroups
              ? "capped at each job's resources.memory (memory and swap)"
              : "not capped, only accounted: no job ends HOST_OUT_OF_MEMORY");
      confinement.usableCores().ifPresent(cores -> details.put("usableCores", cores.toString()));
      details.put("freeCores", confinement.freeCores());
      confinement
          .cgroups()
          .ifPresent(
              cgroups -> {
                details.put("memoryTogether", memoryTogether(cgroups));
                details.put(
                    "processes",
                    cgroups.limitsProcesses()
                        ? "at most "
                            + properties.worker().maxProcesses()
                            + " tasks (processes and threads) per worker, pids.max"
                            + " (gpuq.worker.max-processes)"
                        : "not limited: no pids controller");
              });
      details.put(
          "oomScoreAdj",
          Map.of(
              "gpuq",
              OomScoreAdj.of(ProcessHandle.current().pid()).orElse(0),
              "workersWithoutMemory",
              OomScoreAdj.UNCAPPED_WORKER,
              "workersWithMemory",
              OomScoreAdj.CAPPED_WORKER));
      if (inCgroups && asGpuq != null) {
        // They own what gpuq owns, the groups' files included (docs/design/worker-cgroups.md).
        details.put(
            "notEnforcedFor",
            asGpuq
                + " run as gpuq's own account: they could leave their groups or raise their"
                + " limits; their caps guard against accidents, not against a hostile job");
      }
      if (inCgroups) {
        details.put(
            "parentGroups", confinement.parentGroups().stream().map(Path::toString).toList());
      }
      return Health.up().withDetails(details).build();
    };
  }
}

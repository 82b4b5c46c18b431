package io.gpuq.wiring;

import io.gpuq.cgroup.Affinity;
import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.config.GpuqProperties;
import io.gpuq.config.GpuqProperties.Node.Cgroups;
import io.gpuq.isolation.Isolation;
import io.gpuq.launch.WorkerConfinement;
import io.gpuq.node.LocalCapacity;
import io.gpuq.startup.StartRefusedException;
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
    return decide(
        properties.node().cgroups(),
        CgroupSupport::detect,
        parentName(properties.dataDir()),
        new CoreAllocator(
            CoreAllocator.usable(Affinity.ofThisProcess(), capacity.reserved().cpus())));
  }

  /**
   * The confinement {@code mode} asks for, as far as this host allows; detection runs only when
   * cgroups are wanted.
   *
   * @throws StartRefusedException when cgroups are required and gpuq cannot make them
   */
  static WorkerConfinement decide(
      Cgroups mode, Supplier<CgroupSupport> detect, String parentName, CoreAllocator cores) {
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
        WorkerCgroups cgroups = WorkerCgroups.open(support, parentName);
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

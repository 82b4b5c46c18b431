package io.gpuq.config;

import io.gpuq.guard.BudgetGuard;
import io.gpuq.job.Caller;
import io.gpuq.launch.env.JaxCompilationCache;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything a user may configure under {@code gpuq.*}. Defaults here are the documented ones
 * (README, "Configuration").
 */
@ConfigurationProperties("gpuq")
public record GpuqProperties(
    @DefaultValue("./data") Path dataDir,
    String nodeName,
    Map<String, String> nodeLabels,
    @DefaultValue Cluster cluster,
    @DefaultValue Node node,
    @DefaultValue Gpu gpu,
    @DefaultValue Scheduler scheduler,
    @DefaultValue Placement placement,
    @DefaultValue Worker worker,
    @DefaultValue Guard guard,
    @DefaultValue Auth auth,
    @DefaultValue Api api,
    @DefaultValue Storage storage,
    @DefaultValue Retention retention,
    @DefaultValue Backup backup,
    @DefaultValue Sweeps sweeps,
    @DefaultValue Metrics metrics,
    @DefaultValue Ui ui,
    @DefaultValue FairShare fairShare,
    @DefaultValue Warm warm,
    @DefaultValue Preemption preemption) {

  public GpuqProperties {
    nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
  }

  /**
   * @param heartbeatInterval how often this node tells the others it is alive
   * @param nodeTimeout a node silent this long is dead: its running jobs are LOST and requeued
   */
  public record Cluster(
      @DefaultValue("5s") Duration heartbeatInterval, @DefaultValue("30s") Duration nodeTimeout) {}

  /** GPU backend selection and the emulated devices. */
  public record Gpu(
      @DefaultValue("auto") String backend,
      String nvmlLibrary,
      @DefaultValue("1s") Duration pollInterval,
      @DefaultValue Emulated emulated) {

    public record Emulated(
        @DefaultValue("2") int count,
        @DefaultValue("16GiB") String memory,
        @DefaultValue("Emulated GPU") String name) {}
  }

  /**
   * @param cpuSlots how many {@code gpus: 0} jobs run at once on this node
   * @param lookahead how many queued jobs one scheduling pass considers
   * @param safetyNetInterval the loop also wakes this often when nothing woke it
   * @param defaultCpus the cores of a job that does not ask ({@code resources.cpus}): whole, or a
   *     fraction in thousandths such as 0.25
   * @param defaultMemory the host memory of a job that does not ask ({@code resources.memory}), a
   *     size; unset, such a job has none reserved and none capped
   */
  public record Scheduler(
      @DefaultValue("4") int cpuSlots,
      @DefaultValue("1000") int lookahead,
      @DefaultValue("2s") Duration safetyNetInterval,
      @DefaultValue("1") BigDecimal defaultCpus,
      String defaultMemory) {}

  /**
   * @param headroom memory kept free on every GPU: a size ("1GiB") or a share of it ("5%")
   * @param startSpacing least time between two starts on one GPU, so CUDA contexts do not all
   *     initialise at once
   * @param maxWaitBeforeReservation a blocked job waits at most this long before smaller jobs stop
   *     overtaking it
   */
  public record Placement(
      @DefaultValue("5%") String headroom,
      @DefaultValue("1s") Duration startSpacing,
      @DefaultValue("10m") Duration maxWaitBeforeReservation) {}

  /**
   * @param killGrace time between SIGTERM and SIGKILL when a worker is stopped
   * @param logTailBytes how much of a log's end is read to recognise how a worker died
   * @param jaxCompilationCache where JAX workers keep compiled programs (see
   *     docs/worker-environment.md)
   * @param jaxPreallocate whether jax jobs take their whole budget at start
   * @param runAs the account jobs run as when their token names none: a user name or uid:gid;
   *     unset, {@code nobody} where gpuq can switch accounts, else gpuq's own
   * @param allowSharedAccount whether the jobs of several owners may run as one account, where each
   *     can read and stop the others' jobs
   * @param maxProcesses the tasks (processes and threads) each worker's cgroup may hold at once,
   *     its pids.max; at most the kernel's pid_max (docs/configuration.md)
   * @param maxLogSize the most a job's log holds (at least 64KiB): past it the log keeps its first
   *     quarter, a line that says how much was dropped, and its latest part (docs/operations.md, "A
   *     job's log")
   * @param maxWorkSize the most a running job may write into its work directory in the data
   *     directory ({@code work/<id>/}: its working directory unless it names one, its TMPDIR, its
   *     metrics file); past it the job is stopped and fails OVER_WORK_SIZE; 0 for no cap
   */
  public record Worker(
      @DefaultValue("10s") Duration killGrace,
      @DefaultValue("65536") int logTailBytes,
      @DefaultValue("PER_NODE") JaxCompilationCache jaxCompilationCache,
      @DefaultValue("true") boolean jaxPreallocate,
      String runAs,
      @DefaultValue("false") boolean allowSharedAccount,
      @DefaultValue("4096") int maxProcesses,
      @DefaultValue("64MiB") String maxLogSize,
      @DefaultValue("16GiB") String maxWorkSize) {}

  /**
   * This node's cores and host memory. What it keeps back from its jobs for gpuq and the system:
   * unset, the defaults of {@code io.gpuq.cgroup.Reservation.defaultsFor} (docs/configuration.md,
   * "What a node gives its jobs").
   *
   * @param cgroups whether each worker runs in a cgroup of its own (docs/operations.md, "Cores and
   *     host memory")
   * @param reservedCpus whole cores
   * @param reservedMemory a size ("2GiB")
   * @param cpus the CPUs this node offers, in place of those measured (before the reservation);
   *     more than it has oversubscribes it, as HTCondor's NUM_CPUS does: its workers then share
   *     cores
   */
  public record Node(
      @DefaultValue("auto") Cgroups cgroups,
      Integer reservedCpus,
      String reservedMemory,
      Integer cpus) {

    /** {@code gpuq.node.cgroups}. */
    public enum Cgroups {
      /** Cgroups where gpuq can make them, else cores bound by affinity and memory uncapped. */
      AUTO,
      /** The affinity fallback, even where cgroups would work. */
      OFF,
      /** gpuq refuses to start without them, saying why. */
      REQUIRED
    }
  }

  /**
   * @param policy STOP (the job fails OVER_BUDGET) or WARN (logged and counted only)
   * @param tolerance share of its budget a job may exceed it by
   * @param toleranceBytes bytes a job may exceed its budget by in any case: the CUDA context of
   *     each process lives outside the framework's memory pool
   * @param consecutivePolls polls in a row over budget before the guard acts
   */
  public record Guard(
      @DefaultValue("STOP") BudgetGuard.Policy policy,
      @DefaultValue("0.10") double tolerance,
      @DefaultValue("512MiB") String toleranceBytes,
      @DefaultValue("3") int consecutivePolls) {}

  /**
   * @param tokens bearer tokens; when empty an admin token is generated into the data dir
   * @param publicActuator whether /actuator/health and /actuator/prometheus need no token
   * @param minTokenLength gpuq refuses to start with a shorter token
   */
  public record Auth(
      List<Token> tokens,
      @DefaultValue("true") boolean publicActuator,
      @DefaultValue("16") int minTokenLength) {

    public Auth {
      tokens = tokens == null ? List.of() : List.copyOf(tokens);
    }

    /**
     * @param name the owner of the jobs it submits
     * @param runAs the account those jobs run as (a user name or uid:gid); unset, {@code
     *     gpuq.worker.run-as}
     * @param share the owner's weight in fair share, positive; every token of one owner must give
     *     the same
     * @param maxRunningJobs the owner's running jobs at most, over every node; unset, no limit
     * @param maxGpus the GPUs the owner's running jobs hold at most, whole GPUs and fractions added
     *     up; unset, no limit
     * @param maxGpuMemory the GPU memory the owner's running jobs hold at most (a size, "40GiB");
     *     unset, no limit
     * @param maxQueuedJobs the owner's queued jobs at most, sweeps' trials included: past it a
     *     submission is refused with 429; unset, {@link
     *     io.gpuq.fairshare.Limits#DEFAULT_MAX_QUEUED_JOBS}
     */
    public record Token(
        String name,
        String token,
        @DefaultValue("SUBMITTER") Caller.Role role,
        String runAs,
        @DefaultValue("1") double share,
        Long maxRunningJobs,
        Double maxGpus,
        String maxGpuMemory,
        Long maxQueuedJobs) {}
  }

  /**
   * @param maxRequestBytes requests with a larger body are refused with 413
   * @param maxLogFollowersPerCaller how many {@code logs?follow=true} one token may hold open at
   *     once; the next is refused with 429
   * @param queryTimeout a job listing the database has not answered within this is cancelled and
   *     answered 503 (read by the job store as {@code gpuq.api.query-timeout}; the default is
   *     {@link io.gpuq.job.QueryTimeouts#DEFAULT})
   */
  public record Api(
      @DefaultValue("1048576") long maxRequestBytes,
      @DefaultValue("8") int maxLogFollowersPerCaller,
      @DefaultValue(io.gpuq.job.QueryTimeouts.DEFAULT) Duration queryTimeout) {

    public Api {
      if (queryTimeout.isNegative() || queryTimeout.isZero()) {
        throw new IllegalArgumentException("gpuq.api.query-timeout must be positive");
      }
    }
  }

  /**
   * @param minFree gpuq takes no new job (submissions get 507, readiness is DOWN) while the data
   *     directory's file system has less free space than this: the margin that keeps the database,
   *     the exit files and the logs of the jobs already accepted writable when a job fills the disk
   * @param checkInterval how often the free space is measured for readiness and the gauge (every
   *     submission measures it too)
   */
  public record Storage(
      @DefaultValue("1GiB") String minFree, @DefaultValue("1s") Duration checkInterval) {}

  /**
   * @param finished a job that finished (SUCCEEDED, FAILED, CANCELLED or PRUNED) this long ago is
   *     deleted, with its directories and log; 0 keeps jobs forever
   * @param interval how often each node looks for jobs to delete
   */
  /**
   * @param enabled serve the web page under {@code /ui/} (and redirect {@code /} there); false
   *     leaves only the API
   */
  public record Ui(@DefaultValue("true") boolean enabled) {}

  public record Retention(
      @DefaultValue("7d") Duration finished, @DefaultValue("10m") Duration interval) {

    public Retention {
      if (finished.isNegative()) {
        throw new IllegalArgumentException("gpuq.retention.finished must be 0 or more");
      }
      if (interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("gpuq.retention.interval must be positive");
      }
    }
  }

  /**
   * @param interval how often the embedded H2 database is backed up into {@code
   *     <data-dir>/backups/}: a restore loses at most this much; 0 turns backups off (PostgreSQL is
   *     never backed up by gpuq: use its own tools)
   * @param keep how many of the newest backups are kept
   */
  public record Backup(@DefaultValue("15m") Duration interval, @DefaultValue("4") int keep) {

    public Backup {
      if (interval.isNegative()) {
        throw new IllegalArgumentException("gpuq.backup.interval must be 0 (off) or more");
      }
      if (keep < 1) {
        throw new IllegalArgumentException("gpuq.backup.keep must be 1 or more");
      }
    }
  }

  /**
   * @param halfLife how fast an owner's recent usage is forgotten: what they used one half-life ago
   *     counts half (docs/architecture.md, fair share)
   * @param accountInterval how often each node adds its running jobs' usage to the database and
   *     reads every owner's back
   */
  public record FairShare(
      @DefaultValue("1d") Duration halfLife, @DefaultValue("30s") Duration accountInterval) {

    public FairShare {
      if (halfLife.isNegative() || halfLife.isZero()) {
        throw new IllegalArgumentException("gpuq.fair-share.half-life must be positive");
      }
      if (accountInterval.isNegative() || accountInterval.isZero()) {
        throw new IllegalArgumentException("gpuq.fair-share.account-interval must be positive");
      }
    }
  }

  /**
   * @param maxUnfinishedPerOwner how many unfinished sweeps one owner may have; the next is
   *     answered 429 (each adds series to the public metrics)
   */
  public record Sweeps(@DefaultValue("100") int maxUnfinishedPerOwner) {}

  /**
   * @param jobNames whether {@code gpuq_job_info} carries each running job's name, which anyone who
   *     may scrape {@code /actuator/prometheus} then reads; off, its {@code name} is empty
   */
  public record Metrics(@DefaultValue("false") boolean jobNames) {}

  /**
   * Warm starts (issue 36, docs/jobs.md).
   *
   * @param idleExit a zygote with no trial running for this long exits
   * @param maxForks a zygote that forked this many trials stops taking more, and a new one starts
   * @param readyWait how long a trial waits for its zygote's imports before it starts cold
   */
  public record Warm(
      @DefaultValue("2m") Duration idleExit,
      @DefaultValue("1000") int maxForks,
      @DefaultValue("120s") Duration readyWait) {}

  /**
   * Preemption for fair share (issue 35).
   *
   * @param grace the time between a preempted job's signal and SIGKILL, where it names none
   * @param maxGrace the most a job's {@code preemptGrace} may be
   * @param minRuntime a job younger than this is never preempted for fair share
   * @param maxRequeues how often one job may go back to the queue by its requeue exit code
   * @param overShareRequiresPreemptible whether a job that may not be preempted starts only while
   *     its owner stays within their share (above it, only preemptible jobs start)
   */
  public record Preemption(
      @DefaultValue("60s") Duration grace,
      @DefaultValue("10m") Duration maxGrace,
      @DefaultValue("5m") Duration minRuntime,
      @DefaultValue("100") int maxRequeues,
      @DefaultValue("false") boolean overShareRequiresPreemptible) {

    public Preemption {
      if (grace.isNegative() || maxGrace.isNegative() || grace.compareTo(maxGrace) > 0) {
        throw new IllegalArgumentException(
            "gpuq.preemption.grace must be between 0 and gpuq.preemption.max-grace");
      }
      if (minRuntime.isNegative() || maxRequeues < 0) {
        throw new IllegalArgumentException(
            "gpuq.preemption.min-runtime and max-requeues must not be negative");
      }
    }
  }
}

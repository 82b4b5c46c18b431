package io.gpuq.wiring;

import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.config.GpuqProperties;
import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fs.StorageGuard;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.guard.ExitClassifier;
import io.gpuq.guard.OomRecognizer;
import io.gpuq.isolation.Isolation;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.DependencyTargets;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobService;
import io.gpuq.job.JobStore;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.ProcessTreeStopper;
import io.gpuq.launch.WorkerConfinement;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.launch.WorkerSetups;
import io.gpuq.launch.Workers;
import io.gpuq.launch.env.WorkerEnvironment;
import io.gpuq.launch.env.WorkerEnvironmentSettings;
import io.gpuq.meters.GpuMetrics;
import io.gpuq.meters.JobHostMetrics;
import io.gpuq.meters.SchedulerMetrics;
import io.gpuq.node.LocalCapacity;
import io.gpuq.node.NodeGpu;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import io.gpuq.proc.ProcFs;
import io.gpuq.schedule.DependencyChecks;
import io.gpuq.schedule.Dispatcher;
import io.gpuq.schedule.FairShareInputs;
import io.gpuq.schedule.JobCommands;
import io.gpuq.schedule.MetricsReading;
import io.gpuq.schedule.PlacementAdmission;
import io.gpuq.schedule.Scheduler;
import io.gpuq.schedule.SchedulerBuilder;
import io.gpuq.schedule.SubmitChecks;
import io.gpuq.security.TokenRegistry;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.storage.DependencyTable;
import io.gpuq.storage.OwnerUsageTable;
import io.gpuq.text.MemorySize;
import io.gpuq.warm.WarmFallbacks;
import io.gpuq.warm.WarmStarts;
import io.gpuq.warm.ZygoteGroups;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires the plain-Java core (launch, scheduling, duties) into Spring. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(GpuqProperties.class)
public class CoreConfiguration {

  @Bean
  Clock clock() {
    return new MicrosecondClock(Clock.systemUTC());
  }

  /** Each attempt's start and end, once stored, is heard by the metrics. */
  @Bean
  JobService jobService(
      JobStore store,
      Clock clock,
      GpuMetrics gpuMetrics,
      JobHostMetrics jobHostMetrics,
      SchedulerMetrics schedulerMetrics,
      TokenRegistry tokens,
      GpuqProperties properties) {
    return new JobService(
        store,
        clock,
        List.of(gpuMetrics, jobHostMetrics, schedulerMetrics),
        maxQueuedOf(tokens),
        properties.preemption().maxRequeues());
  }

  /** Each owner's {@code max-queued-jobs}; an owner with no token of their own has the default. */
  static ToLongFunction<String> maxQueuedOf(TokenRegistry tokens) {
    Map<String, OwnerTerms> terms = tokens.ownerTerms();
    return owner -> terms.getOrDefault(owner, OwnerTerms.DEFAULT).limits().maxQueuedJobs();
  }

  @Bean
  NodeIdentity nodeIdentity(GpuqProperties properties) {
    String name = properties.nodeName();
    if (name == null || name.isBlank()) {
      try {
        name = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        name = "localhost";
      }
    }
    return new NodeIdentity(name, properties.nodeLabels());
  }

  @Bean
  JobFiles jobFiles(GpuqProperties properties) {
    return new JobFiles(properties.dataDir().toAbsolutePath().normalize());
  }

  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService workerTimer() {
    return Executors.newSingleThreadScheduledExecutor(daemon("gpuq-stopper"));
  }

  @Bean(destroyMethod = "shutdown")
  ExecutorService workerExitExecutor() {
    return Executors.newFixedThreadPool(4, daemon("gpuq-worker-exit"));
  }

  @Bean
  Workers workers(
      JobFiles files,
      Clock clock,
      ScheduledExecutorService workerTimer,
      ExecutorService workerExitExecutor,
      GpuqProperties properties,
      ProcFs procFs,
      WorkerConfinement confinement) {
    return new Workers(
        new WorkerLauncher(files, clock, maxLogSize(properties.worker().maxLogSize())),
        new ProcessTreeStopper(workerTimer, properties.worker().killGrace()),
        workerExitExecutor,
        procFs,
        confinement);
  }

  /** {@code gpuq.worker.max-log-size}: a size of at least 64KiB. */
  static long maxLogSize(String text) {
    long bytes;
    try {
      bytes = MemorySize.parse(text.trim());
    } catch (IllegalArgumentException e) {
      bytes = -1;
    }
    if (bytes < WorkerLauncher.MIN_MAX_LOG_BYTES) {
      throw new StartRefusedException(
          "gpuq.worker.max-log-size=" + text + " is no size of at least 64KiB",
          "give a size such as 64MiB or 1GiB",
          null);
    }
    return bytes;
  }

  /** {@code gpuq.worker.max-work-size}: a size, or 0 for no cap. */
  static long maxWorkSize(String text) {
    long bytes;
    try {
      bytes = MemorySize.parse(text.trim());
    } catch (IllegalArgumentException e) {
      bytes = -1;
    }
    if (bytes < 0) {
      throw new StartRefusedException(
          "gpuq.worker.max-work-size=" + text + " is no size",
          "give a size such as 16GiB, or 0 for no cap",
          null);
    }
    return bytes;
  }

  /**
   * The scheduler's steps, wired by its own composition root; whoever needs one of them takes it
   * from here (NodeComposition runs its loop, recovery and duties).
   */
  @Bean
  Scheduler scheduler(
      JobService jobs,
      Workers workers,
      JobFiles files,
      Placer placer,
      Clock clock,
      NodeIdentity node,
      GpuqProperties properties,
      GpuBackend gpuBackend,
      GpuInventory inventory,
      GpuPoller poller,
      WorkerEnvironment environment,
      Isolation isolation,
      WarmStarts warmStarts,
      ProcFs procFs,
      NodeRegistry nodes,
      ExecutorService jobStarter,
      StorageGuard storage,
      MetricsReading metricsReading,
      TokenRegistry tokens,
      JdbcTemplate jdbc,
      TransactionTemplate tx,
      LocalCapacity capacity,
      SchedulerMetrics schedulerMetrics) {
    int cpuSlots = properties.scheduler().cpuSlots();
    return new SchedulerBuilder(jobs, workers, files, placer, clock, node.name())
        .workerSetup(
            warmSetups(
                new WorkerSetups(environment, files, isolation, System.getenv()), warmStarts))
        .exitClassifier(new ExitClassifier(new OomRecognizer()), properties.worker().logTailBytes())
        .gpus(gpuBackend, inventory, poller::latest)
        .procFs(procFs)
        .cpuSlots(properties.scheduler().cpuSlots())
        .allocatable(capacity.allocatable())
        .selects(nodes::selects)
        .starter(jobStarter)
        .roomToStart(() -> !storage.check().isLow())
        .safetyNet(properties.scheduler().safetyNetInterval())
        .beforeEndRecorded(metricsReading::readBeforeEnd)
        .preemption(
            new Dispatcher.PreemptionSettings(
                properties.preemption().minRuntime(),
                schedulerMetrics::preempted,
                properties.preemption().overShareRequiresPreemptible()))
        .fairShare(
            new FairShareInputs(
                tokens.ownerTerms(),
                () -> otherNodes(nodes, cpuSlots),
                new OwnerUsageTable(jdbc, tx, properties.fairShare().halfLife()),
                properties.fairShare().halfLife(),
                properties.fairShare().accountInterval()))
        .build();
  }

  /**
   * What the other live nodes have, from their last heartbeats: GPUs, and the cores and host memory
   * they give their jobs. Their CPU slots are not shared through the database: each is taken to
   * have as many as this node.
   */
  private static Capacity otherNodes(NodeRegistry nodes, int cpuSlotsPerNode) {
    long memory = 0;
    long gpus = 0;
    for (NodeGpu gpu : nodes.otherLiveNodesGpus()) {
      memory += gpu.memoryTotalBytes();
      gpus++;
    }
    long cores = 0;
    long hostMemory = 0;
    for (NodeCapacity node : nodes.otherLiveNodesAllocatable().values()) {
      cores += node.cpus();
      hostMemory += node.memoryBytes();
    }
    return new Capacity(
        memory, gpus, (long) nodes.otherLiveNodes().size() * cpuSlotsPerNode, cores, hostMemory);
  }

  /** The Python hook is in the data directory by now: its preparation installs it. */
  @Bean
  WorkerEnvironment workerEnvironment(GpuqProperties properties, JobFiles files) {
    return new WorkerEnvironment(
        WorkerEnvironmentSettings.defaults(files.layout().jaxCache(), files.layout().python())
            .withJaxCompilationCache(properties.worker().jaxCompilationCache())
            .withPreallocateJax(properties.worker().jaxPreallocate()));
  }

  /** Warm starts (issue 36): their zygotes' directories and scripts in the data directory. */
  @Bean(destroyMethod = "close")
  WarmStarts warmStarts(
      GpuqProperties properties,
      JobFiles files,
      Clock clock,
      WorkerConfinement confinement,
      Workers workers,
      WarmFallbacks fallbacks) {
    GpuqProperties.Warm warm = properties.warm();
    Path root = files.layout().root().resolve("warm");
    // The zygotes' own groups beside the workers', counted as their owners' (issue 36).
    ZygoteGroups groups = new ZygoteGroups(confinement.cgroups(), root, System::nanoTime);
    workers.holdAlso(groups::heldByOwner);
    WarmStarts warmStarts =
        new WarmStarts(root, warm.idleExit(), warm.maxForks(), warm.readyWait(), clock, groups);
    warmStarts.recordFallbacksIn(fallbacks);
    return warmStarts;
  }

  /** Where the fallbacks of warm starts to cold ones are kept (issue 36, V33). */
  @Bean
  WarmFallbacks warmFallbacks(javax.sql.DataSource dataSource) {
    return new io.gpuq.storage.WarmFallbackTable(dataSource);
  }

  /**
   * A job with {@code preload} gets its worker's setup turned into a warm start's (issue 36); the
   * setup itself is decided in {@code launch}, which need not know of warm starts.
   */
  private static BiFunction<ClaimedJob, JobPlacement, LaunchRequest> warmSetups(
      WorkerSetups setups, WarmStarts warmStarts) {
    return (job, placement) -> warmStarts.prepare(job, setups.apply(job, placement));
  }

  @Bean
  Placer placer(GpuqProperties properties) {
    GpuqProperties.Placement placement = properties.placement();
    return new Placer(
        new PlacementPolicy(
            headroom(placement.headroom()),
            placement.maxWaitBeforeReservation(),
            placement.startSpacing(),
            properties.scheduler().lookahead()));
  }

  static Headroom headroom(String text) {
    String trimmed = text.trim();
    if (trimmed.endsWith("%")) {
      return Headroom.ofFraction(
          Double.parseDouble(trimmed.substring(0, trimmed.length() - 1).trim()) / 100);
    }
    return Headroom.ofBytes(MemorySize.parse(trimmed));
  }

  @Bean(destroyMethod = "shutdown")
  ExecutorService jobStarter() {
    return Executors.newFixedThreadPool(4, daemon("gpuq-starter"));
  }

  /** Submit and cancel, each one call for the web layer (and a sweep's trials). */
  @Bean
  JobCommands jobCommands(
      JobService jobs,
      JobRequestValidator validator,
      SubmitAdmission admission,
      StorageGuard storage,
      Workers workers,
      Scheduler scheduler,
      DependencyTargets dependencies,
      SchedulerMetrics schedulerMetrics,
      io.gpuq.notify.NotifyChecks notifyChecks) {
    return new JobCommands(
            jobs,
            new SubmitChecks(validator, storage, admission),
            workers,
            scheduler.loop(),
            new DependencyChecks(dependencies),
            schedulerMetrics::preempted)
        .notifications(notifyChecks);
  }

  /** What the usage report (issue 37) is computed from. */
  @Bean
  io.gpuq.job.UsageSource usageSource(javax.sql.DataSource dataSource) {
    return new io.gpuq.storage.UsageTable(dataSource);
  }

  /** What dependencies (issue 37) are judged by: the held jobs and where their targets stand. */
  @Bean
  DependencyTargets dependencyTargets(javax.sql.DataSource dataSource) {
    return new DependencyTable(dataSource);
  }

  @Bean
  PlacementAdmission placementAdmission(
      Placer placer, Scheduler scheduler, Clock clock, NodeRegistry nodes, TokenRegistry tokens) {
    Map<String, OwnerTerms> terms = tokens.ownerTerms();
    return new PlacementAdmission(
        placer,
        scheduler.dispatcher()::capacities,
        clock,
        nodes,
        owner -> terms.getOrDefault(owner, OwnerTerms.DEFAULT).limits());
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}

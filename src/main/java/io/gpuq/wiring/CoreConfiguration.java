package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.duty.PeriodicDuties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.fs.StorageGuard;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.guard.ExitClassifier;
import io.gpuq.guard.OomRecognizer;
import io.gpuq.isolation.Account;
import io.gpuq.isolation.Isolation;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.ProcessTreeStopper;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.launch.WorkerSetup;
import io.gpuq.launch.Workers;
import io.gpuq.launch.env.PythonHook;
import io.gpuq.launch.env.WorkerEnvironment;
import io.gpuq.launch.env.WorkerEnvironmentSettings;
import io.gpuq.launch.env.WorkerSpec;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import io.gpuq.proc.ProcFs;
import io.gpuq.schedule.Dispatcher;
import io.gpuq.schedule.JobExecution;
import io.gpuq.schedule.PlacementAdmission;
import io.gpuq.schedule.SchedulingLoop;
import io.gpuq.schedule.TimeoutDuty;
import io.gpuq.schedule.WorkerRecovery;
import io.gpuq.text.MemorySize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the plain-Java core (launch, scheduling, duties) into Spring. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(GpuqProperties.class)
public class CoreConfiguration {

  @Bean
  Clock clock() {
    return Clock.systemUTC();
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
    return new NodeIdentity(name);
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
      ProcFs procFs) {
    return new Workers(
        new WorkerLauncher(files, clock),
        new ProcessTreeStopper(workerTimer),
        workerExitExecutor,
        properties.worker().killGrace(),
        procFs);
  }

  @Bean
  JobExecution jobExecution(
      JobService jobs,
      Workers workers,
      JobFiles files,
      GpuqProperties properties,
      GpuBackend gpuBackend,
      GpuInventory inventory,
      WorkerEnvironment environment,
      Isolation isolation,
      ProcFs procFs) {
    return new JobExecution(
        jobs,
        workers,
        files,
        setupOf(environment, files, isolation),
        new ExitClassifier(new OomRecognizer()),
        properties.worker().logTailBytes(),
        gpuBackend,
        inventory,
        procFs);
  }

  @Bean
  WorkerEnvironment workerEnvironment(GpuqProperties properties, JobFiles files) {
    Path dataDir = files.dataDir();
    try {
      Path hookDir = PythonHook.extractTo(files.layout().python());
      return new WorkerEnvironment(
          WorkerEnvironmentSettings.defaults(files.layout().jaxCache(), hookDir)
              .withJaxCompilationCache(properties.worker().jaxCompilationCache())
              .withPreallocateJax(properties.worker().jaxPreallocate()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the Python hook under " + dataDir, e);
    }
  }

  /**
   * Who a worker runs as, and its environment: gpuq's own (minus its secrets), the job's, then
   * gpuq's rules.
   */
  private static BiFunction<ClaimedJob, JobPlacement, WorkerSetup> setupOf(
      WorkerEnvironment environment, JobFiles files, Isolation isolation) {
    return (job, placement) -> {
      Account account = isolation.accountOf(job.owner());
      WorkerSpec spec =
          new WorkerSpec(
              job.id(), job.framework(), placement.gpus(), files.workDir(job.id()), account);
      return new WorkerSetup(
          isolation.needsSwitch(account) ? account : null,
          environment.environment(spec, System.getenv(), job.env()),
          environment.directoriesToCreate(spec));
    };
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

  @Bean
  Dispatcher dispatcher(
      JobService jobs,
      Workers workers,
      JobExecution execution,
      Placer placer,
      GpuInventory inventory,
      GpuPoller poller,
      Clock clock,
      NodeIdentity node,
      GpuqProperties properties,
      NodeRegistry nodes,
      ExecutorService jobStarter,
      StorageGuard storage) {
    return new Dispatcher(
        jobs,
        workers,
        execution,
        placer,
        inventory,
        poller::latest,
        clock,
        node.name(),
        properties.scheduler().cpuSlots(),
        nodes::selects,
        jobStarter,
        () -> !storage.check().isLow());
  }

  @Bean(destroyMethod = "shutdown")
  ExecutorService jobStarter() {
    return Executors.newFixedThreadPool(4, daemon("gpuq-starter"));
  }

  @Bean
  PlacementAdmission placementAdmission(
      Placer placer, Dispatcher dispatcher, Clock clock, NodeRegistry nodes) {
    return new PlacementAdmission(placer, dispatcher, clock, nodes);
  }

  @Bean
  SchedulingLoop schedulingLoop(
      Dispatcher dispatcher, JobExecution execution, GpuqProperties properties) {
    SchedulingLoop loop =
        new SchedulingLoop(dispatcher, properties.scheduler().safetyNetInterval());
    execution.onCapacityFreed(
        placement -> {
          if (placement.gpus().isEmpty()) {
            loop.wakeUp();
          } else {
            loop.wakeUpForGpus();
          }
        });
    return loop;
  }

  @Bean
  WorkerRecovery workerRecovery(
      JobService jobs, JobExecution execution, Workers workers, NodeIdentity node) {
    return new WorkerRecovery(jobs, execution, workers, node.name());
  }

  @Bean
  TimeoutDuty timeoutDuty(Workers workers, Clock clock) {
    return new TimeoutDuty(workers, clock);
  }

  @Bean
  PeriodicDuties periodicDuties(List<PeriodicDuty> duties) {
    return new PeriodicDuties(duties);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}

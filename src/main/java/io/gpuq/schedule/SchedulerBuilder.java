package io.gpuq.schedule;

import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.fairshare.Capacity;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.guard.ExitClassifier;
import io.gpuq.guard.OomRecognizer;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.Workers;
import io.gpuq.placement.Placer;
import io.gpuq.proc.ProcFs;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The scheduler's one composition root, plain Java: it is handed what the scheduler works with (the
 * jobs, the workers, the GPUs, the placer) and builds every step once, each given what it needs,
 * none told of another afterwards. Spring, or a test, hands it its parts.
 */
public final class SchedulerBuilder {

  private final JobService jobs;
  private final Workers workers;
  private final JobFiles files;
  private final Placer placer;
  private final Clock clock;
  private final String node;
  private BiFunction<ClaimedJob, JobPlacement, LaunchRequest> setup =
      (job, placement) -> LaunchRequest.bare(job, placement);
  private ExitClassifier classifier = new ExitClassifier(new OomRecognizer());
  private int logTailBytes = 64 * 1024;
  private NodeGpus gpus;
  private ProcFs procFs = new ProcFs(java.nio.file.Path.of("/proc"));
  private int cpuSlots = 4;
  private NodeCapacity allocatable = LocalNode.UNLIMITED;
  private Predicate<Map<String, String>> selects = Map::isEmpty;
  private Executor starter = Runnable::run;
  private BooleanSupplier roomToStart = () -> true;
  private Duration safetyNet = Duration.ofSeconds(5);
  private Consumer<String> beforeEndRecorded = jobId -> {};
  private FairShareInputs fairShare = FairShareInputs.ALONE;
  private Dispatcher.PreemptionSettings preemption;

  public SchedulerBuilder(
      JobService jobs, Workers workers, JobFiles files, Placer placer, Clock clock, String node) {
    this.jobs = jobs;
    this.workers = workers;
    this.files = files;
    this.placer = placer;
    this.clock = clock;
    this.node = node;
    this.gpus =
        new NodeGpus(
            new NoGpus(),
            new GpuInventory("emulated", List.of(), Optional.empty()),
            () -> GpuUsage.none(clock.instant()));
  }

  /** Who each worker runs as, and its environment; by default gpuq's own account, no variables. */
  public SchedulerBuilder workerSetup(BiFunction<ClaimedJob, JobPlacement, LaunchRequest> setup) {
    this.setup = setup;
    return this;
  }

  public SchedulerBuilder exitClassifier(ExitClassifier classifier, int logTailBytes) {
    this.classifier = classifier;
    this.logTailBytes = logTailBytes;
    return this;
  }

  /** This node's GPUs, and their last measured use; none by default. */
  public SchedulerBuilder gpus(GpuBackend gpus, GpuInventory inventory, Supplier<GpuUsage> usage) {
    this.gpus = new NodeGpus(gpus, inventory, usage);
    return this;
  }

  public SchedulerBuilder procFs(ProcFs procFs) {
    this.procFs = procFs;
    return this;
  }

  public SchedulerBuilder cpuSlots(int cpuSlots) {
    this.cpuSlots = cpuSlots;
    return this;
  }

  /**
   * The cores and host memory this node gives its jobs, which placement counts, and its part of the
   * cluster's, which owners' dominant shares count against. By default they never run out, and fair
   * share counts neither.
   */
  public SchedulerBuilder allocatable(NodeCapacity allocatable) {
    this.allocatable = allocatable;
    return this;
  }

  /** Whether this node runs jobs with a node selector; by default only jobs with none. */
  public SchedulerBuilder selects(Predicate<Map<String, String>> selects) {
    this.selects = selects;
    return this;
  }

  /** Where launches run; by default on the scheduling thread itself. */
  public SchedulerBuilder starter(Executor starter) {
    this.starter = starter;
    return this;
  }

  /** Whether there is room (disk) to start jobs now. */
  public SchedulerBuilder roomToStart(BooleanSupplier roomToStart) {
    this.roomToStart = roomToStart;
    return this;
  }

  /** What reads a job's files before its end is recorded (its reported metrics). */
  public SchedulerBuilder beforeEndRecorded(Consumer<String> beforeEndRecorded) {
    this.beforeEndRecorded = beforeEndRecorded;
    return this;
  }

  /** The owners' shares, the other nodes' capacity and recent usage; by default a node alone. */
  /** Preemption for fair share (issue 35); without it, none. */
  public SchedulerBuilder preemption(Dispatcher.PreemptionSettings preemption) {
    this.preemption = preemption;
    return this;
  }

  public SchedulerBuilder fairShare(FairShareInputs fairShare) {
    this.fairShare = fairShare;
    return this;
  }

  /** How long the loop waits, at most, for a wake-up before a pass of its own. */
  public SchedulerBuilder safetyNet(Duration safetyNet) {
    this.safetyNet = safetyNet;
    return this;
  }

  public Scheduler build() {
    Wakeups wakeups = new Wakeups();
    LastPass lastPass = new LastPass();
    Consumer<String> beforeEnd = beforeEndRecorded;
    RecordWorkerEnd recordEnd =
        new RecordWorkerEnd(
            jobs,
            new ExitJudging(workers, files, classifier, logTailBytes),
            gpus,
            new WorkerEndListener() {
              @Override
              public void capacityFreed(JobPlacement placement) {
                wakeups.capacityFreed(placement);
              }

              @Override
              public void endStored(JobPlacement placement) {
                if (lastPass.heldBackTrials()) {
                  wakeups.capacityFreed(placement);
                }
              }

              @Override
              public void beforeEndRecorded(String jobId) {
                beforeEnd.accept(jobId);
              }
            });
    TimeoutWarnings warnings = new TimeoutWarnings();
    JobExecution execution =
        new JobExecution(
            jobs,
            workers,
            new WorkerHost(setup, gpus.backend(), procFs),
            wakeups::capacityFreed,
            recordEnd,
            warnings);
    Supplier<Capacity> cluster = this::clusterCapacity;
    UsageAccounting usageAccounting = new UsageAccounting(jobs, fairShare, cluster, node, clock);
    Dispatcher dispatcher =
        new Dispatcher(
            jobs,
            workers,
            execution,
            placer,
            gpus,
            new LocalNode(node, cpuSlots, selects, allocatable),
            clock,
            starter,
            roomToStart,
            lastPass,
            fairShare,
            cluster,
            usageAccounting::recentUsage,
            preemption);
    return new Scheduler(
        wakeups,
        execution,
        recordEnd,
        dispatcher,
        new SchedulingLoop(dispatcher, wakeups, safetyNet),
        new WorkerRecovery(jobs, execution, workers, node),
        new TimeoutDuty(workers, clock, warnings),
        new StopUnownedWorkers(jobs, workers, node),
        new QueuedReasons(lastPass),
        usageAccounting);
  }

  /**
   * The cluster's capacity for fair share: this node's GPUs, CPU slots, cores and host memory with
   * the other live nodes'.
   */
  private Capacity clusterCapacity() {
    long memory = 0;
    for (io.gpuq.gpu.GpuDevice device : gpus.inventory().devices()) {
      memory += device.memoryTotalBytes();
    }
    Capacity others = fairShare.otherNodes().get();
    // A node given no figures (tests that build the scheduler by hand) counts none.
    boolean counted = allocatable != LocalNode.UNLIMITED;
    return new Capacity(
        memory + others.gpuMemoryBytes(),
        gpus.inventory().devices().size() + others.gpus(),
        cpuSlots + others.cpuSlots(),
        (counted ? allocatable.cpus() : 0) + others.cores(),
        (counted ? allocatable.memoryBytes() : 0) + others.hostMemoryBytes());
  }

  /** A node without GPUs: there is nothing to attach workers to. */
  private static final class NoGpus implements GpuBackend {
    @Override
    public String kind() {
      return "none";
    }

    @Override
    public List<io.gpuq.gpu.GpuDevice> devices() {
      return List.of();
    }

    @Override
    public List<io.gpuq.gpu.GpuSample> sample() {
      return List.of();
    }

    @Override
    public void close() {}
  }
}

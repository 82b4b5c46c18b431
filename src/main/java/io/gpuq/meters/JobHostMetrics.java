package io.gpuq.meters;

import static io.gpuq.meters.MeterNames.JOB_ID;
import static io.gpuq.meters.MeterNames.NODE;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.JobLifecycleListener;
import io.gpuq.job.JobState;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.Workers;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import io.gpuq.proc.ProcessTable;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Host figures of every running job, GPU or not: resident memory and CPU use of its process tree,
 * read from {@code /proc} on a fixed delay. A job's series go when its attempt ends.
 */
public final class JobHostMetrics extends FixedDelayDuty implements JobLifecycleListener {

  /** The CPU-time counter of one job and the value it reads. */
  private static final class CpuCounter {
    volatile double seconds;
    FunctionCounter meter;
  }

  private final MeterRegistry registry;
  private final String node;
  private final Workers workers;
  private final ProcFs procFs;
  private final Clock clock;
  private final TreeCpuTracker tracker;
  private final LiveGauges resident;
  private final LiveGauges cores;
  private final Map<String, CpuCounter> cpuCounters = new HashMap<>();

  /**
   * The sums over this node's running jobs at the last reading: CPU cores (of the jobs read twice
   * already) and resident bytes.
   */
  public record Totals(double cpus, long residentBytes) {}

  private volatile Totals totals = new Totals(0, 0);

  public JobHostMetrics(
      MeterRegistry registry,
      String node,
      Workers workers,
      ProcFs procFs,
      Clock clock,
      Duration interval) {
    super("job-host-metrics", interval);
    this.registry = registry;
    this.node = node;
    this.workers = workers;
    this.procFs = procFs;
    this.clock = clock;
    this.tracker = new TreeCpuTracker(procFs.kernel());
    this.resident =
        new LiveGauges(
            registry,
            MeterNames.JOB_RESIDENT_MEMORY,
            MeterNames.BYTES,
            "Resident host memory of a running job's process tree");
    this.cores =
        new LiveGauges(
            registry,
            MeterNames.JOB_CPU_USAGE,
            MeterNames.RATIO,
            "CPU cores a running job's process tree used since the previous reading");
  }

  @Override
  public synchronized void runOnce() {
    List<RunningWorker> live = List.copyOf(workers.live());
    ProcessTable table = procFs.snapshot();
    Instant now = clock.instant();
    Map<Tags, Long> residentBytes = new HashMap<>();
    Map<Tags, Double> coresUsed = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (RunningWorker worker : live) {
      List<ProcStat> tree = table.treeOf(worker.pid());
      if (tree.isEmpty()) {
        continue; // exited; its end is being recorded
      }
      String job = worker.jobId();
      seen.add(job);
      Tags tags = Tags.of(NODE, node, JOB_ID, job);
      residentBytes.put(tags, tree.stream().mapToLong(ProcStat::residentBytes).sum());
      TreeCpuTracker.Reading reading = tracker.observe(job, tree, now);
      reading.cores().ifPresent(c -> coresUsed.put(tags, c));
      cpuCounter(job, tags).seconds = reading.cpuSeconds();
    }
    tracker.retainOnly(seen);
    removeCountersExcept(seen);
    resident.update(residentBytes);
    cores.update(coresUsed);
    totals =
        new Totals(
            coresUsed.values().stream().mapToDouble(Double::doubleValue).sum(),
            residentBytes.values().stream().mapToLong(Long::longValue).sum());
  }

  /**
   * What this node's workers used at the last reading, summed ({@code gpuq_node_*{kind="used"}}).
   */
  public Totals totals() {
    return totals;
  }

  private CpuCounter cpuCounter(String job, Tags tags) {
    return cpuCounters.computeIfAbsent(
        job,
        j -> {
          CpuCounter counter = new CpuCounter();
          counter.meter =
              FunctionCounter.builder(MeterNames.JOB_CPU_TIME, counter, c -> c.seconds)
                  .baseUnit(MeterNames.SECONDS)
                  .description("CPU time of a running job's process tree since it started")
                  .tags(tags)
                  .register(registry);
          return counter;
        });
  }

  private void removeCountersExcept(Set<String> jobs) {
    for (Iterator<Map.Entry<String, CpuCounter>> it = cpuCounters.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, CpuCounter> entry = it.next();
      if (!jobs.contains(entry.getKey())) {
        registry.remove(entry.getValue().meter);
        it.remove();
      }
    }
  }

  /** Drops the ended job's series now rather than at the next reading. */
  @Override
  public synchronized void attemptEnded(
      String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {
    tracker.forget(jobId);
    CpuCounter counter = cpuCounters.remove(jobId);
    if (counter != null) {
      registry.remove(counter.meter);
    }
    resident.removeSeriesWith(JOB_ID, jobId);
    cores.removeSeriesWith(JOB_ID, jobId);
  }
}

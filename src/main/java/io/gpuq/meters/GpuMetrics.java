package io.gpuq.meters;

import static io.gpuq.meters.MeterNames.BYTES;
import static io.gpuq.meters.MeterNames.GPU;
import static io.gpuq.meters.MeterNames.JOB_ID;
import static io.gpuq.meters.MeterNames.NODE;
import static io.gpuq.meters.MeterNames.PID;
import static io.gpuq.meters.MeterNames.UUID;

import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuProcessUsage;
import io.gpuq.gpu.GpuSample;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.JobLifecycleListener;
import io.gpuq.job.JobState;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.Workers;
import io.gpuq.placement.PlacedGpu;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The GPU figures: per device (total, used, reserved, utilization), per process on a device and per
 * job on each of its GPUs (used against budget). Device series live as long as gpuq; process and
 * job series are rebuilt from every poll it hears, and a job's are dropped as soon as its attempt
 * ends. It keeps the last poll it heard itself, rather than asking the poller, so that it only
 * listens to the poller and the poller can be built with it as a listener.
 */
public final class GpuMetrics implements JobLifecycleListener {

  private final String node;
  private final Workers workers;
  private volatile GpuUsage lastPoll = GpuUsage.none(Instant.EPOCH); // no samples: NaN gauges
  private final LiveGauges processUsed;
  private final LiveGauges jobUsed;
  private final LiveGauges jobBudget;

  public GpuMetrics(MeterRegistry registry, String node, GpuInventory inventory, Workers workers) {
    this.node = node;
    this.workers = workers;
    for (GpuDevice device : inventory.devices()) {
      registerDevice(registry, device);
    }
    this.processUsed =
        new LiveGauges(
            registry,
            MeterNames.PROCESS_GPU_MEMORY_USED,
            BYTES,
            "GPU memory used by one process on one GPU; job_id is empty for processes gpuq did"
                + " not start");
    this.jobUsed =
        new LiveGauges(
            registry,
            MeterNames.JOB_GPU_MEMORY_USED,
            BYTES,
            "GPU memory used by a running job's process tree on one of its GPUs");
    this.jobBudget =
        new LiveGauges(
            registry,
            MeterNames.JOB_GPU_MEMORY_BUDGET,
            BYTES,
            "GPU memory budget of a running job on each of its GPUs");
  }

  private void registerDevice(MeterRegistry registry, GpuDevice device) {
    Tags tags = Tags.of(NODE, node, GPU, Integer.toString(device.index()), UUID, device.uuid());
    long total = device.memoryTotalBytes();
    int index = device.index();
    Gauge.builder(MeterNames.GPU_MEMORY_TOTAL, () -> total)
        .baseUnit(BYTES)
        .description("Memory of the GPU")
        .tags(tags)
        .register(registry);
    Gauge.builder(
            MeterNames.GPU_MEMORY_USED,
            () -> fromLatestSample(index, sample -> sample.memoryUsedBytes()))
        .baseUnit(BYTES)
        .description("Memory in use on the GPU by all processes, as of the latest poll")
        .tags(tags)
        .register(registry);
    Gauge.builder(
            MeterNames.GPU_MEMORY_RESERVED,
            () -> workers.reservedBytesByGpu().getOrDefault(index, 0L))
        .baseUnit(BYTES)
        .description("Sum of the budgets of the jobs placed on the GPU")
        .tags(tags)
        .register(registry);
    Gauge.builder(MeterNames.GPU_UTILIZATION, () -> fromLatestSample(index, GpuSample::utilization))
        .baseUnit(MeterNames.RATIO)
        .description("Share of the latest sampling period the GPU was busy, 0..1")
        .tags(tags)
        .register(registry);
  }

  /** NaN until a poll has read the device: no reading is not the same as an idle GPU. */
  private double fromLatestSample(int index, ToDoubleFunction<GpuSample> figure) {
    for (GpuSample sample : lastPoll.samples()) {
      if (sample.device().index() == index) {
        return figure.applyAsDouble(sample);
      }
    }
    return Double.NaN;
  }

  /** Rebuilds the process and job series from a poll (it listens to the GPU poller). */
  public synchronized void refresh(GpuUsage usage) {
    lastPoll = usage;
    Map<String, RunningWorker> live = new HashMap<>();
    workers.live().forEach(worker -> live.put(worker.jobId(), worker));

    Map<Tags, Long> processes = new HashMap<>();
    for (GpuSample sample : usage.samples()) {
      String gpu = Integer.toString(sample.device().index());
      for (GpuProcessUsage process : sample.processes()) {
        String job = usage.jobOfPid().get(process.pid());
        if (job != null && !live.containsKey(job)) {
          continue; // its attempt ended since the poll: its series are gone for good
        }
        processes.put(
            Tags.of(
                NODE,
                node,
                GPU,
                gpu,
                PID,
                Long.toString(process.pid()),
                JOB_ID,
                job == null ? MeterNames.NO_JOB : job),
            process.memoryUsedBytes());
      }
    }

    Map<Tags, Long> used = new HashMap<>();
    Map<Tags, Long> budgets = new HashMap<>();
    for (RunningWorker worker : live.values()) {
      Map<Integer, Long> perGpu = usage.jobBytes().getOrDefault(worker.jobId(), Map.of());
      // Every placed GPU has a used series, 0 until a process shows up there, so that
      // "used > budget" has both sides from the job's start on.
      for (PlacedGpu gpu : worker.placement().gpus()) {
        Tags tags = jobTags(worker.jobId(), gpu.index());
        budgets.put(tags, gpu.memoryBytes());
        used.put(tags, perGpu.getOrDefault(gpu.index(), 0L));
      }
      perGpu.forEach((gpu, bytes) -> used.put(jobTags(worker.jobId(), gpu), bytes));
    }
    processUsed.update(processes);
    jobUsed.update(used);
    jobBudget.update(budgets);
  }

  private Tags jobTags(String jobId, int gpu) {
    return Tags.of(NODE, node, GPU, Integer.toString(gpu), JOB_ID, jobId);
  }

  /** Drops the ended job's series now rather than at the next poll. */
  @Override
  public void attemptEnded(String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {
    refresh(lastPoll);
  }
}

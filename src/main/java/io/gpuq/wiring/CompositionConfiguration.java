package io.gpuq.wiring;

import io.gpuq.backup.BackupDuty;
import io.gpuq.config.GpuqProperties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.fs.DataDirectory;
import io.gpuq.fs.StorageCheckDuty;
import io.gpuq.fs.StorageGuard;
import io.gpuq.gpu.GpuPollDuty;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.guard.WorkSizeGuard;
import io.gpuq.job.DependencyTargets;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LeftoverGroupsDuty;
import io.gpuq.launch.WorkerConfinement;
import io.gpuq.launch.Workers;
import io.gpuq.meters.GpuPollMetrics;
import io.gpuq.meters.JobHostMetrics;
import io.gpuq.meters.OwnerGauges;
import io.gpuq.meters.SweepMeters;
import io.gpuq.node.DeadNodeReaper;
import io.gpuq.node.HeartbeatDuty;
import io.gpuq.node.NodeRegistry;
import io.gpuq.retention.FinishedJobs;
import io.gpuq.retention.JobDirectories;
import io.gpuq.retention.RetentionDuty;
import io.gpuq.schedule.DependencyDuty;
import io.gpuq.schedule.MetricsReading;
import io.gpuq.schedule.Scheduler;
import io.gpuq.sweep.SweepStore;
import io.gpuq.sweeprun.SweepCompletionDuty;
import io.gpuq.warm.WarmStarts;
import io.gpuq.warm.ZygoteRetirement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node's one composition ({@link NodeComposition}): the scheduler's loop and recovery (built by
 * {@code SchedulerBuilder} in {@link CoreConfiguration}), and every periodic duty with its
 * interval.
 */
@Configuration(proxyBeanMethods = false)
public class CompositionConfiguration {

  /** Often enough that a done sweep shows its end (and starts ageing) within seconds. */
  static final Duration SWEEP_COMPLETION_INTERVAL = Duration.ofSeconds(5);

  static final Duration ZYGOTE_RETIREMENT_INTERVAL = Duration.ofSeconds(10);

  /**
   * Often enough that a job waiting for another starts within about a second of its end (issue 37);
   * a run reads the held jobs by an index seek, and costs one statement when there are none.
   */
  static final Duration DEPENDENCY_INTERVAL = Duration.ofSeconds(1);

  static final Duration USAGE_ROLL_UP_INTERVAL = Duration.ofSeconds(30);

  /**
   * Often enough that a job writing at disk speed (about 1 GiB/s) passes gpuq.worker.max-work-size
   * by a few GiB at most, which gpuq.storage.min-free leaves room for; seldom enough that walking
   * the running jobs' work directories costs little.
   */
  static final Duration WORK_SIZE_INTERVAL = Duration.ofSeconds(2);

  /**
   * The duties, each on its own fixed delay (zero turns one off). Those that are also something
   * else are beans of their own: the reading of reported metrics (which the scheduler calls before
   * it records an attempt's end), the job and sweep meters (MetricsConfiguration), the owners'
   * gauges (OwnersConfiguration); the backup duty decides its interval from the database
   * (BackupConfiguration).
   */
  @Bean
  NodeComposition nodeComposition(
      Scheduler scheduler,
      NodeRegistry nodes,
      JobService jobs,
      GpuPoller poller,
      GpuPollMetrics pollMetrics,
      StorageGuard storage,
      MetricsReading metricsReading,
      JobHostMetrics jobHostMetrics,
      SweepMeters sweepMeters,
      OwnerGauges ownerGauges,
      SweepStore sweeps,
      FinishedJobs finishedJobs,
      BackupDuty backup,
      WorkerConfinement confinement,
      Workers workers,
      JobFiles files,
      WarmStarts warmStarts,
      DependencyTargets dependencies,
      io.gpuq.notify.NotificationDuty notifications,
      io.gpuq.job.UsageSource usage,
      GpuqProperties properties,
      Clock clock) {
    Duration heartbeat = properties.cluster().heartbeatInterval();
    GpuqProperties.Retention retention = properties.retention();
    List<PeriodicDuty> duties =
        new ArrayList<>(
            List.of(
                // every 200 ms
                scheduler.timeouts(),
                // gpuq.fair-share.account-interval
                scheduler.usageAccounting(),
                // gpuq.gpu.poll-interval; timed and counted by the poll's meters
                pollMetrics.timed(
                    new GpuPollDuty(
                        poller, properties.gpu().pollInterval(), pollMetrics::pollFailed)),
                // gpuq.gpu.poll-interval
                metricsReading,
                jobHostMetrics,
                sweepMeters,
                ownerGauges,
                // gpuq.cluster.heartbeat-interval: beat, then stop the workers this node no longer
                // owns
                new HeartbeatDuty(nodes, scheduler.stopUnowned()::runOnce, heartbeat),
                new DeadNodeReaper(
                    nodes::silentNodes, jobs, scheduler.loop()::wakeUpForGpus, heartbeat),
                // gpuq.storage.check-interval
                new StorageCheckDuty(storage, properties.storage().checkInterval(), clock),
                new SweepCompletionDuty(sweeps, clock, SWEEP_COMPLETION_INTERVAL),
                // every second: held jobs released or cancelled as their dependencies end; a
                // released job may need GPUs, and a plain wake-up reads the GPU queue only if the
                // last read found jobs waiting there
                new DependencyDuty(
                    dependencies, jobs, scheduler.loop()::wakeUpForGpus, DEPENDENCY_INTERVAL),
                // gpuq.notifications.interval (issue 37): events found, deliveries sent (on the
                // sender's own threads)
                notifications,
                // gpuq.retention.interval
                new RetentionDuty(
                    finishedJobs,
                    new JobDirectories(new DataDirectory(properties.dataDir())),
                    retention.finished(),
                    retention.interval(),
                    clock),
                // every 30 s: the usage report's daily roll-up, up to two minutes ago (issue 37)
                new io.gpuq.retention.UsageRollUpDuty(usage, USAGE_ROLL_UP_INTERVAL, clock),
                // gpuq.backup.interval; off on PostgreSQL
                backup,
                // every 10 s: the cgroups an ended worker's processes kept too long
                new LeftoverGroupsDuty(confinement),
                // every 10 s: the warm-start zygotes of sweeps that have ended (issue 36)
                new ZygoteRetirement(
                    warmStarts,
                    sweep -> sweeps.find(sweep).map(s -> s.finishedAt() != null).orElse(true),
                    ZYGOTE_RETIREMENT_INTERVAL)));
    long maxWorkSize = CoreConfiguration.maxWorkSize(properties.worker().maxWorkSize());
    if (maxWorkSize > 0) {
      // every 2 s: each running job's work directory against gpuq.worker.max-work-size
      duties.add(new WorkSizeGuard(workers, files, maxWorkSize, WORK_SIZE_INTERVAL));
    }
    return new NodeComposition(scheduler.recovery(), scheduler.loop(), duties);
  }

  /** The composition's first step, the node's first heartbeat, before the web server starts. */
  @Bean
  SmartLifecycle nodeMembership(NodeRegistry nodes) {
    return NodeComposition.membership(nodes::beat);
  }
}

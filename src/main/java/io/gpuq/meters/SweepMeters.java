package io.gpuq.meters;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.JobState;
import io.gpuq.sweep.SweepFigures;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code gpuq_sweep_trials{sweep,state}}, {@code gpuq_sweep_best_value{sweep}} and {@code
 * gpuq_job_info{job_id,name,owner,sweep}}, refreshed on a cadence from one read of the figures (a
 * few grouped queries, never one per sweep), so that a scrape costs no query. A sweep's series go
 * when it finishes, a job's when it stops running.
 */
public final class SweepMeters extends FixedDelayDuty {

  private final Supplier<SweepFigures> figures;
  private final LiveGauges trials;
  private final LiveGauges best;
  private final LiveGauges info;
  private final boolean jobNames;

  public SweepMeters(MeterRegistry registry, Supplier<SweepFigures> figures, Duration interval) {
    this(registry, figures, interval, false);
  }

  /**
   * @param jobNames whether {@code gpuq_job_info}'s {@code name} is the job's name ({@code
   *     gpuq.metrics.job-names}): anyone who may scrape reads it, so it is empty unless the
   *     operator opts in; the label stays, so that queries and the contract's label set hold either
   *     way
   */
  public SweepMeters(
      MeterRegistry registry, Supplier<SweepFigures> figures, Duration interval, boolean jobNames) {
    super("sweep metrics", interval);
    this.jobNames = jobNames;
    this.figures = figures;
    this.trials =
        new LiveGauges(registry, MeterNames.SWEEP_TRIALS, null, "Trials per state of a sweep");
    this.best =
        new LiveGauges(
            registry,
            MeterNames.SWEEP_BEST_VALUE,
            null,
            "The final value of the sweep's best completed trial, by its goal");
    this.info =
        new LiveGauges(
            registry,
            MeterNames.JOB_INFO,
            null,
            "1 for each job running on this node: join per-job series on job_id");
  }

  @Override
  public void runOnce() {
    SweepFigures now = figures.get();
    Map<Tags, Long> trialSeries = new HashMap<>();
    now.trials()
        .forEach(
            (sweep, perState) -> {
              // Every state, 0 included, so that a panel's lines do not break off.
              for (JobState state : JobState.ofJobs()) {
                trialSeries.put(
                    Tags.of(MeterNames.SWEEP, sweep, MeterNames.STATE, state.name()),
                    perState.getOrDefault(state, 0L));
              }
            });
    trials.update(trialSeries);
    Map<Tags, Double> bestSeries = new HashMap<>();
    now.best().forEach((sweep, value) -> bestSeries.put(Tags.of(MeterNames.SWEEP, sweep), value));
    best.update(bestSeries);
    Map<Tags, Integer> infoSeries = new HashMap<>();
    for (SweepFigures.RunningJob job : now.running()) {
      infoSeries.put(
          Tags.of(
              MeterNames.JOB_ID,
              job.jobId(),
              MeterNames.NAME,
              jobNames ? job.name() : "",
              MeterNames.OWNER,
              job.owner(),
              MeterNames.SWEEP,
              job.sweep() == null ? MeterNames.NO_SWEEP : job.sweep()),
          1);
    }
    info.update(infoSeries);
  }
}

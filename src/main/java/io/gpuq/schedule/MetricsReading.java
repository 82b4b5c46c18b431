package io.gpuq.schedule;

import io.gpuq.duty.PeriodicDuty;
import io.gpuq.fs.NotARegularFileException;
import io.gpuq.job.JobStore;
import io.gpuq.job.MetricsCursor;
import io.gpuq.job.MetricsUpdate;
import io.gpuq.job.ReportedPoint;
import io.gpuq.job.ReportingJob;
import io.gpuq.job.SweepMetric;
import io.gpuq.launch.JobFiles;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.MetricPoint;
import io.gpuq.sweep.MetricsFileReader;
import io.gpuq.sweep.MetricsPosition;
import io.gpuq.sweep.MetricsRead;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads, each poll, what the runs of this node appended to their metrics files ({@code
 * GPUQ_METRICS_FILE}) and stores it with the job: the new points, where to read on (so that a
 * restarted gpuq reads on from there, including what was written while it was down), what the job's
 * view shows and, for a trial, its sweep metric's last and best value. A job that has ended is read
 * to its end once more, then no longer. Then the sweeps whose running trials here reported their
 * metric are handed to {@link TrialPruning}.
 */
public final class MetricsReading implements PeriodicDuty {

  private static final Logger log = LoggerFactory.getLogger(MetricsReading.class);

  /** Reads of at most 1 MiB each: one chatty run cannot hold up the others' poll for long. */
  static final int MAX_READS_PER_POLL = 16;

  private final JobStore store;
  private final JobFiles files;
  private final MetricsFileReader reader;
  private final TrialPruning pruning;
  private final Clock clock;
  private final String node;
  private final Duration interval;
  // Jobs whose unreadable file was reported once already: a poll each second must not log each.
  private final Set<String> warned = new HashSet<>();

  public MetricsReading(
      JobStore store,
      JobFiles files,
      MetricsFileReader reader,
      TrialPruning pruning,
      Clock clock,
      String node,
      Duration interval) {
    this.store = store;
    this.files = files;
    this.reader = reader;
    this.pruning = pruning;
    this.clock = clock;
    this.node = node;
    this.interval = interval;
  }

  @Override
  public String name() {
    return "reported-metrics";
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce() {
    Map<String, SweepMetric> sweepsWithNews = new LinkedHashMap<>();
    // Locked with readBeforeEnd, which two reads of one file at once would store twice; pruning
    // is left outside, so that a worker's end never waits for it.
    synchronized (this) {
      for (ReportingJob job : store.jobsReportingOn(node)) {
        try {
          if (readOn(job) && !job.ended() && stopsEarly(job.sweep())) {
            sweepsWithNews.put(job.sweep().sweepId(), job.sweep());
          }
        } catch (RuntimeException e) {
          // The next poll tries again; the other jobs are read meanwhile.
          log.warn("could not store the metrics of job {}: {}", job.jobId(), e.toString());
        }
      }
    }
    sweepsWithNews.values().forEach(pruning::judge);
  }

  /**
   * Reads what a job's worker, which has just exited, appended since the last poll, before its end
   * is recorded: a job (and a sweep) seen finished then shows everything its run reported, not what
   * the poll before the exit had read. The next poll reads the file to its end once more (a last
   * line without a newline) and marks it done.
   */
  public synchronized void readBeforeEnd(String jobId) {
    try {
      store.reportingJob(jobId).ifPresent(this::readOn);
    } catch (RuntimeException e) {
      // The poll reads it later; recording the end must not wait for that.
      log.warn("could not read the metrics of job {} at its end: {}", jobId, e.toString());
    }
  }

  private static boolean stopsEarly(SweepMetric sweep) {
    return sweep != null && sweep.hasMetric() && sweep.earlyStopping() != null;
  }

  /**
   * Reads on in one job's file and stores what it found.
   *
   * @return whether it found a value of its sweep's metric
   */
  private boolean readOn(ReportingJob job) {
    Path file = files.metricsFile(job.jobId());
    MetricsCursor cursor = job.cursor();
    MetricsPosition position =
        new MetricsPosition(cursor.offset(), cursor.lastStep(), cursor.skippingLine());
    Instant at = clock.instant();
    Progress progress = new Progress(job);
    boolean more = false;
    try {
      for (int reads = 0; reads < MAX_READS_PER_POLL; reads++) {
        MetricsRead read = reader.read(file, position, job.ended());
        read.points().forEach(point -> progress.add(point, at));
        progress.skipped += read.skippedLines();
        position = read.position();
        more = read.more();
        if (!more) {
          break;
        }
      }
    } catch (NotARegularFileException e) {
      // Only the job's own account can have put it there; it loses its metrics, nobody else.
      log.warn(
          "job {}: its metrics file {} was replaced by {}; its metrics are no longer read",
          job.jobId(),
          file,
          e.kind());
      store.recordMetrics(progress.update(cursor, true));
      return false;
    } catch (IOException e) {
      if (warned.add(job.jobId())) {
        log.warn("job {}: cannot read its metrics file {}: {}", job.jobId(), file, e.toString());
      }
      return false;
    }
    MetricsCursor next =
        new MetricsCursor(
            position.offset(), position.lastStep(), position.skippingLine(), progress.skipped);
    boolean done = job.ended() && !more;
    // A new attempt is stored even with nothing read: the job stops showing the earlier attempt's.
    if (next.equals(cursor) && progress.points.isEmpty() && !done && !job.newAttempt()) {
      return false;
    }
    store.recordMetrics(progress.update(next, done));
    if (done) {
      warned.remove(job.jobId());
    }
    return progress.metricReported;
  }

  /** What one job's reads found so far this poll, merged over what its view shows. */
  private static final class Progress {
    private final ReportingJob job;
    private final String metric;
    private final Goal goal;
    private final List<ReportedPoint> points = new ArrayList<>();
    private final Map<String, Double> latest;
    private Double value;
    private Double best;
    private long skipped;
    private Long step;
    private boolean metricReported;

    Progress(ReportingJob job) {
      this.job = job;
      SweepMetric sweep = job.sweep();
      boolean ranked = sweep != null && sweep.hasMetric();
      this.metric = ranked ? sweep.name() : null;
      this.goal = ranked ? Goal.of(sweep.goal()) : null;
      this.latest = new LinkedHashMap<>(job.latest());
      this.value = job.value();
      this.best = job.best();
      this.skipped = job.cursor().skippedLines();
      this.step = job.cursor().lastStep() < 0 ? null : job.cursor().lastStep();
    }

    void add(MetricPoint point, Instant at) {
      points.add(new ReportedPoint(job.attempt(), point.step(), point.values(), at));
      latest.putAll(point.values());
      step = point.step();
      if (metric != null && point.values().containsKey(metric)) {
        double reported = point.values().get(metric);
        metricReported = true;
        value = reported;
        if (Double.isFinite(reported)) {
          // NaN and the infinities are never best: a diverged run is not the winner.
          best = best == null ? reported : goal.better(best, reported);
        }
      }
    }

    MetricsUpdate update(MetricsCursor next, boolean done) {
      return new MetricsUpdate(
          job.jobId(), job.attempt(), points, next, latest, step, value, best, done);
    }
  }
}

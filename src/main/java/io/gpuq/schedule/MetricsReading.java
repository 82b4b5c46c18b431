package io.gpuq.schedule;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.fs.NotARegularFileException;
import io.gpuq.job.JobStore;
import io.gpuq.launch.JobFiles;
import io.gpuq.reported.MetricPoint;
import io.gpuq.reported.MetricsCaps;
import io.gpuq.reported.MetricsFileReader;
import io.gpuq.reported.MetricsPosition;
import io.gpuq.reported.MetricsRead;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReadingState;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import io.gpuq.reported.SweepObjective;
import io.gpuq.sweep.Goal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads, each poll, what the runs of this node appended to their metrics files ({@code
 * GPUQ_METRICS_FILE}) and stores it with the job: the new points, where to read on (so that a
 * restarted gpuq reads on from there, including what was written while it was down), what the job's
 * view shows and, for a trial, its sweep metric's last and best value. A job that has ended is read
 * to its end once more (at most {@link MetricsCaps#MAX_BYTES_AFTER_END} more), then no longer. Then
 * the sweeps whose running trials here reported their metric are handed to {@link TrialPruning}.
 *
 * <p>What any run writes costs bounded memory, time and rows ({@link MetricsCaps}): jobs are loaded
 * {@link #BATCH} at a time, each job's read is capped per poll and stored in a transaction of its
 * own, and a job's end, recorded meanwhile, waits for no other job's read.
 */
public final class MetricsReading extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(MetricsReading.class);

  /** Reads of at most 1 MiB each: one chatty run cannot hold up the others' poll for long. */
  static final int MAX_READS_PER_POLL =
      MetricsCaps.MAX_BYTES_PER_POLL / MetricsFileReader.DEFAULT_MAX_BYTES_PER_READ;

  /** Jobs loaded at once: each holds its latest values (up to the cap on names). */
  static final int BATCH = 100;

  private final JobStore store;
  private final JobFiles files;
  private final MetricsFileReader reader;
  private final TrialPruning pruning;
  private final Clock clock;
  private final String node;
  // Jobs whose unreadable file was reported once already: a poll each second must not log each.
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  // Jobs readBeforeEnd read since the poll loaded its batch: the poll's copy of them is stale, and
  // reading on from it would store their points twice. Guarded by this.
  private final Set<String> readSinceLoad = new HashSet<>();
  // Jobs being read now, each by one thread: two reads of one file at once would store its points
  // twice. Only the one job is locked, so a job's end never waits behind another's read. Guarded
  // by this.
  private final Set<String> reading = new HashSet<>();

  public MetricsReading(
      JobStore store,
      JobFiles files,
      MetricsFileReader reader,
      TrialPruning pruning,
      Clock clock,
      String node,
      Duration interval) {
    super("reported-metrics", interval);
    this.store = store;
    this.files = files;
    this.reader = reader;
    this.pruning = pruning;
    this.clock = clock;
    this.node = node;
  }

  @Override
  public void runOnce() {
    Map<String, SweepObjective> sweepsWithNews = new LinkedHashMap<>();
    String after = null;
    List<ReportingJob> batch;
    do {
      synchronized (this) {
        // A read of readBeforeEnd going on now may store after the batch is loaded.
        readSinceLoad.clear();
        readSinceLoad.addAll(reading);
      }
      batch = store.jobsReportingOn(node, after, BATCH);
      for (ReportingJob job : batch) {
        if (readOneOf(job) && !job.ended() && stopsEarly(job.sweep())) {
          sweepsWithNews.put(job.sweep().sweepId(), job.sweep());
        }
      }
      after = batch.isEmpty() ? after : batch.get(batch.size() - 1).jobId();
    } while (batch.size() == BATCH);
    // Pruning is left outside the lock, so that a worker's end never waits for it.
    sweepsWithNews.values().forEach(pruning::judge);
  }

  /**
   * Reads on in one job of the poll's batch, unless {@link #readBeforeEnd} read it since the batch
   * was loaded (the batch's copy of it is then stale) or is reading it now.
   */
  private boolean readOneOf(ReportingJob job) {
    synchronized (this) {
      if (readSinceLoad.contains(job.jobId())) {
        return false;
      }
      reading.add(job.jobId());
    }
    try {
      return readOn(job);
    } catch (RuntimeException e) {
      // The next poll tries again; the other jobs are read meanwhile.
      log.warn("could not store the metrics of job {}: {}", job.jobId(), e.toString());
      return false;
    } finally {
      doneReading(job.jobId());
    }
  }

  /**
   * Reads what a job's worker, which has just exited, appended since the last poll, before its end
   * is recorded: a job (and a sweep) seen finished then shows everything its run reported, not what
   * the poll before the exit had read. The next poll reads the file to its end once more (a last
   * line without a newline) and marks it done. It waits only while the poll reads this same job
   * (one bounded read), never for the poll's other jobs.
   */
  public void readBeforeEnd(String jobId) {
    synchronized (this) {
      readSinceLoad.add(jobId);
      while (reading.contains(jobId)) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      reading.add(jobId);
    }
    try {
      store.reportingJob(jobId).ifPresent(this::readOn);
    } catch (RuntimeException e) {
      // The poll reads it later; recording the end must not wait for that.
      log.warn("could not read the metrics of job {} at its end: {}", jobId, e.toString());
    } finally {
      doneReading(jobId);
    }
  }

  private synchronized void doneReading(String jobId) {
    reading.remove(jobId);
    notifyAll();
  }

  private static boolean stopsEarly(SweepObjective sweep) {
    return sweep != null && sweep.hasMetric() && sweep.earlyStopping() != null;
  }

  /**
   * Reads on in one job's file, at most {@link #MAX_READS_PER_POLL} reads, and stores what it
   * found.
   *
   * @return whether it found a value of its sweep's metric
   */
  private boolean readOn(ReportingJob job) {
    Path file = files.metricsFile(job.jobId());
    ReadingState cursor = job.cursor();
    if (job.newAttempt() && lastWrittenBefore(file, job.startedAt())) {
      // The earlier attempt's file, which this attempt's launch has not moved aside yet (a retry
      // claimed here a moment ago): read now, its points were stored as this attempt's. Once the
      // attempt ended with the file still there, its run never started: nothing is its.
      if (job.ended()) {
        store.recordMetrics(new Progress(job, clock.instant()).update(cursor, true));
      }
      return false;
    }
    MetricsPosition position = cursor.position();
    // Where reading stood when it first read on after the job's end: it reads a bounded amount
    // more, so that a huge (or sparse) file left behind is not read for hours.
    long endOffset = job.ended() && cursor.endOffset() < 0 ? cursor.offset() : cursor.endOffset();
    Progress progress = new Progress(job, clock.instant());
    boolean more = false;
    boolean cut = false;
    try {
      for (int reads = 0; reads < MAX_READS_PER_POLL; reads++) {
        MetricsRead read = reader.read(file, position, job.ended());
        read.points().forEach(progress::add);
        progress.skippedLines += read.skippedLines();
        position = read.position();
        more = read.more();
        if (more
            && job.ended()
            && position.offset() - endOffset >= MetricsCaps.MAX_BYTES_AFTER_END) {
          cut = true;
          more = false;
        }
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
      store.recordMetrics(progress.update(progress.cursor(position, endOffset, false), true));
      return false;
    } catch (IOException e) {
      if (warned.add(job.jobId())) {
        log.warn("job {}: cannot read its metrics file {}: {}", job.jobId(), file, e.toString());
      }
      return false;
    }
    ReadingState next = progress.cursor(position, endOffset, cut);
    boolean done = job.ended() && !more;
    // A new attempt is stored even with nothing read: the job stops showing the earlier attempt's.
    if (next.equals(cursor) && progress.points.isEmpty() && !done && !job.newAttempt()) {
      return false;
    }
    store.recordMetrics(progress.update(next, done));
    if (cursor.skippedValues() == 0 && next.skippedValues() > 0) {
      log.warn(
          "job {}: reported more than {} metric names; the first are kept, the values of the"
              + " others skipped and counted (its metrics' skippedValues)",
          job.jobId(),
          MetricsCaps.MAX_NAMES);
    }
    if (cut) {
      log.warn(
          "job {}: stopped reading its metrics file {} at byte {}, {} MiB after the job ended;"
              + " the rest is not read (its metrics say truncated)",
          job.jobId(),
          file,
          position.offset(),
          MetricsCaps.MAX_BYTES_AFTER_END / (1024 * 1024));
    }
    if (done) {
      warned.remove(job.jobId());
    }
    return progress.metricReported;
  }

  /** Whether the file exists and was last written before {@code instant} (null: never). */
  private static boolean lastWrittenBefore(Path file, Instant instant) {
    if (instant == null) {
      return false;
    }
    try {
      return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS)
          .toInstant()
          .isBefore(instant);
    } catch (IOException e) {
      return false; // none (read as empty), or the reader says what is wrong with it
    }
  }

  /**
   * What one job's reads found so far this poll, merged over what its view shows, within the caps
   * ({@link MetricsCaps}): the names its attempt keeps, and the points kept at the current stride.
   */
  private static final class Progress {
    private final ReportingJob job;
    private final Instant at;
    private final String metric;
    private final Goal goal;
    private final List<ReportedPoint> points = new ArrayList<>();
    private final List<Long> indexes = new ArrayList<>();
    private final Map<String, Double> latest;
    // The names kept, each to its one instance: a poll's points share them.
    private final Map<String, String> names = new HashMap<>();
    private Double value;
    private Double best;
    private long skippedLines;
    private long skippedValues;
    private long count;
    private long stride;
    private boolean thin;
    private Long step;
    private boolean metricReported;

    Progress(ReportingJob job, Instant at) {
      this.job = job;
      this.at = at;
      SweepObjective sweep = job.sweep();
      boolean ranked = sweep != null && sweep.hasMetric();
      this.metric = ranked ? sweep.name() : null;
      this.goal = ranked ? Goal.of(sweep.goal()) : null;
      this.latest = new LinkedHashMap<>(job.latest());
      job.latest().keySet().forEach(name -> names.put(name, name));
      this.value = job.value();
      this.best = job.best();
      ReadingState cursor = job.cursor();
      this.skippedLines = cursor.skippedLines();
      this.skippedValues = cursor.skippedValues();
      this.count = cursor.points();
      this.stride = cursor.stride();
      this.step = cursor.lastStep() < 0 ? null : cursor.lastStep();
    }

    void add(MetricPoint point) {
      step = point.step();
      Map<String, Double> values = new LinkedHashMap<>();
      point
          .values()
          .forEach(
              (name, reported) -> {
                String kept = names.get(name);
                if (kept == null && (names.size() < MetricsCaps.MAX_NAMES || name.equals(metric))) {
                  // The sweep's metric is kept whenever it comes: it ranks and prunes the trial.
                  kept = name;
                  names.put(name, name);
                }
                if (kept == null) {
                  skippedValues++;
                } else {
                  values.put(kept, reported);
                }
              });
      if (values.isEmpty()) {
        return;
      }
      latest.putAll(values);
      if (metric != null && values.containsKey(metric)) {
        double reported = values.get(metric);
        metricReported = true;
        value = reported;
        if (Double.isFinite(reported)) {
          // NaN and the infinities are never best: a diverged run is not the winner.
          best = best == null ? reported : goal.better(best, reported);
        }
      }
      long index = count++;
      if (!MetricsCaps.keeps(index, stride)) {
        return;
      }
      points.add(new ReportedPoint(job.attempt(), point.step(), values, at));
      indexes.add(index);
      if (MetricsCaps.kept(count, stride) > MetricsCaps.MAX_POINTS) {
        // Evenly spaced again at twice the spacing: the stored points are thinned with this read.
        stride *= 2;
        thin = true;
        for (int i = points.size() - 1; i >= 0; i--) {
          if (!MetricsCaps.keeps(indexes.get(i), stride)) {
            points.remove(i);
            indexes.remove(i);
          }
        }
      }
    }

    ReadingState cursor(MetricsPosition position, long endOffset, boolean cut) {
      return new ReadingState(
          position.offset(),
          position.lastStep(),
          position.skippingLine(),
          skippedLines,
          count,
          stride,
          skippedValues,
          endOffset,
          cut);
    }

    MetricsUpdate update(ReadingState next, boolean done) {
      return new MetricsUpdate(
          job.jobId(), job.attempt(), points, indexes, thin, next, latest, step, value, best, done);
    }
  }
}

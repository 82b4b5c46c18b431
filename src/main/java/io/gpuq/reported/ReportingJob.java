package io.gpuq.reported;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job of this node whose metrics file is not read to its end: running, or ended with lines
 * perhaps left to read. What reading on needs, for the job's current attempt (whose file is its
 * own): where it stopped, the values its view shows now (merged with the new ones), and for a trial
 * its sweep's metric and rule.
 *
 * @param ended whether the job has ended: its file's last line then counts without a newline, and
 *     once read to the end nothing more will come
 * @param startedAt when this attempt was claimed (null if never): its launch moves an earlier
 *     attempt's file aside before its run starts, so a file last written before it is not this
 *     attempt's
 * @param latest the latest value of each metric so far (null for NaN or infinite), in
 *     first-reported order
 * @param value the last value of the sweep's metric so far, or null
 * @param best the best value of the sweep's metric so far, or null
 * @param sweep the trial's sweep, or null for a job of its own
 * @param newAttempt whether nothing of this attempt's file was stored yet although an earlier
 *     attempt's was: the cursor and values are then this attempt's start, and the job still shows
 *     the earlier attempt's until they are stored
 */
public record ReportingJob(
    String jobId,
    int attempt,
    boolean newAttempt,
    boolean ended,
    java.time.Instant startedAt,
    ReadingState cursor,
    Map<String, Double> latest,
    Double value,
    Double best,
    SweepObjective sweep) {

  public ReportingJob {
    latest = Collections.unmodifiableMap(new LinkedHashMap<>(latest));
  }
}

package io.gpuq.support;

import io.gpuq.job.JobIds;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A sweep's row as V7 stores it, for tests of what reads sweeps (the scheduler, the meters) while
 * the sweep API is built elsewhere: its trials are jobs with {@code JobBuilder.trialOf}.
 */
public final class SweepRows {

  private static final JobIds IDS = new JobIds(Clock.systemUTC());

  private final JdbcTemplate jdbc;

  public SweepRows(DataSource dataSource) {
    this.jdbc = new JdbcTemplate(dataSource);
  }

  /**
   * Stores an unfinished sweep: an external one, not closed, so that it stays unfinished whatever
   * becomes of its trials until {@link #finish}.
   *
   * @param maxConcurrent null for no limit
   * @param goal {@code minimize} or {@code maximize}, or null for no metric
   * @return its id
   */
  public String sweep(Integer maxConcurrent, String goal) {
    // A real id: in a database shared with other tests, a sweep listing orders by it.
    String id = IDS.next();
    jdbc.update(
        "insert into sweeps (id, owner, name, method, definition, metric_name, metric_goal,"
            + " max_concurrent, trial_count, closed, created_at, version)"
            + " values (?, 'alice', 'search', 'external', '{}', ?, ?, ?, 0, false, ?, 0)",
        id,
        goal == null ? null : "val_loss",
        goal,
        maxConcurrent,
        Timestamp.from(Instant.now()));
    return id;
  }

  /** Records a trial's best value of the sweep's metric, as reading its metrics would. */
  public void best(String jobId, double value) {
    jdbc.update(
        "update jobs set metric_best = ?, metric_value = ? where id = ?", value, value, jobId);
  }

  /** The sweep is DONE. */
  public void finish(String sweepId) {
    jdbc.update(
        "update sweeps set closed = true, finished_at = ? where id = ?",
        Timestamp.from(Instant.now()),
        sweepId);
  }
}

package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.sweep.BestScope;
import io.gpuq.sweep.SweepFigures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The sweep meters' figures in three grouped queries: trials per sweep and state, the value of each
 * sweep's best trial (as its view names it), and this node's running jobs. Only unfinished sweeps
 * are read.
 */
public final class JdbcSweepFigures implements Supplier<SweepFigures> {

  private static final String TRIALS =
      "select j.sweep_id, j.state, count(*) from jobs j join sweeps s on s.id = j.sweep_id"
          + " where s.finished_at is null group by j.sweep_id, j.state";

  // The value of each unfinished sweep's best trial, as the sweep's view names it.
  private static final String BEST =
      BestTrialSql.bestTrials(
          BestScope.LAST,
          "s.id, j." + BestTrialSql.valueColumn(BestScope.LAST),
          "s.finished_at is null");

  private static final String RUNNING_HERE =
      "select id, name, owner, sweep_id from jobs where state = 'RUNNING' and node = ?";

  private final JdbcTemplate jdbc;
  private final String node;

  public JdbcSweepFigures(JdbcTemplate jdbc, String node) {
    this.jdbc = jdbc;
    this.node = node;
  }

  @Override
  public SweepFigures get() {
    Map<String, Map<JobState, Long>> trials = new HashMap<>();
    jdbc.query(
        TRIALS,
        row -> {
          trials
              .computeIfAbsent(row.getString(1), sweep -> new HashMap<>())
              .put(JobState.valueOf(row.getString(2)), row.getLong(3));
        });
    Map<String, Double> best = new HashMap<>();
    jdbc.query(
        BEST,
        row -> {
          double value = row.getDouble(2);
          if (!row.wasNull()) {
            best.put(row.getString(1), value);
          }
        },
        java.util.Collections.nCopies(BestTrialSql.PARAMETERS, BestTrialSql.PARAMETER).toArray());
    List<SweepFigures.RunningJob> running =
        jdbc.query(
            RUNNING_HERE,
            (row, n) ->
                new SweepFigures.RunningJob(
                    row.getString(1), row.getString(2), row.getString(3), row.getString(4)),
            node);
    return new SweepFigures(trials, best, running);
  }
}

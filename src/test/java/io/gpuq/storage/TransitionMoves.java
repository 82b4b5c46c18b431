package io.gpuq.storage;

import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.AttemptEffect;
import io.gpuq.job.JobTransition.Change;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * A state move written into a database that no gpuq has open, in the SQL gpuq writes for it ({@link
 * TransitionSql}): for a test of a node that is down, which needs the state another node's move
 * would have left. A test's own JDBC, not gpuq's.
 */
public final class TransitionMoves {

  private TransitionMoves() {}

  /**
   * Moves one job by {@code transition} on {@code db}, in the SQL the store writes for it: the
   * job's row, guarded by the states the move leaves, then, when the move ends an attempt, the row
   * of the job's current attempt if it is still open. For whoever has the database to itself (a
   * test of a node that is down) and needs a state another node's move would have left.
   *
   * @return the rows written: the job's (0 when it was in no state the move leaves), then its
   *     attempt's
   */
  public static int[] move(Connection db, JobTransition transition, String jobId, Change change)
      throws SQLException {
    if (transition.attemptEffect() == AttemptEffect.OPENS) {
      throw new IllegalArgumentException(transition + " opens an attempt: claim the job instead");
    }
    TransitionSql sql = new TransitionSql(transition);
    int attempt;
    try (PreparedStatement read = db.prepareStatement("select attempt from jobs where id = ?")) {
      read.setString(1, jobId);
      try (ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          return new int[] {0, 0};
        }
        attempt = row.getInt(1);
      }
    }
    int job;
    try (PreparedStatement update = db.prepareStatement(sql.updateJob(true))) {
      bindAll(update, sql.jobValues(change, jobId, attempt));
      job = update.executeUpdate();
    }
    if (job == 0) {
      return new int[] {0, 0};
    }
    try (PreparedStatement update =
        db.prepareStatement(sql.updateAttempt() + " and outcome is null")) {
      bindAll(update, sql.attemptUpdateValues(jobId, attempt, change));
      return new int[] {job, update.executeUpdate()};
    }
  }

  private static void bindAll(PreparedStatement statement, List<Object> values)
      throws SQLException {
    int index = 1;
    for (Object value : values) {
      statement.setObject(index++, value);
    }
  }
}

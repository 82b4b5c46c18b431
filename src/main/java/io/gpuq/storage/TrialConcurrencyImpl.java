package io.gpuq.storage;

import io.gpuq.concurrency.TrialSlots;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;

/** Plain JDBC in the transaction's connection, as the claim's other statements are. */
class TrialConcurrencyImpl implements TrialConcurrency {

  // The limited sweeps first, locked in id order (two claims never wait on each other in a
  // circle), and only then their running trials: counted after the lock, the count includes what
  // a claim that held the lock before us committed.
  private static final String LOCK_SWEEPS =
      "select id, max_concurrent from sweeps where max_concurrent is not null"
          + " and id in (select sweep_id from jobs where id in (%s)) order by id for update";

  private static final String RUNNING_TRIALS =
      "select sweep_id, count(*) from jobs where state = 'RUNNING' and sweep_id in (%s)"
          + " group by sweep_id";

  private static final String SLOTS =
      "select s.id, s.max_concurrent,"
          + " (select count(*) from jobs j where j.sweep_id = s.id and j.state = 'RUNNING')"
          + " from sweeps s where s.max_concurrent is not null and s.id in (%s)";

  // Unfinished sweeps only: a finished one has no queued trial left to hold back.
  private static final String FULL_SWEEPS =
      "select s.id, s.max_concurrent, count(*) from sweeps s"
          + " join jobs j on j.sweep_id = s.id and j.state = 'RUNNING'"
          + " where s.max_concurrent is not null and s.finished_at is null"
          + " group by s.id, s.max_concurrent having count(*) >= s.max_concurrent";

  @PersistenceContext private EntityManager entityManager;

  @Override
  public Map<String, TrialSlots> lockTrialSlotsOf(Collection<String> jobIds) {
    if (jobIds.isEmpty()) {
      return Map.of();
    }
    return work(
        connection -> {
          Map<String, Integer> limits = new LinkedHashMap<>();
          eachRow(
              connection, LOCK_SWEEPS, jobIds, row -> limits.put(row.getString(1), row.getInt(2)));
          if (limits.isEmpty()) {
            return Map.of();
          }
          Map<String, TrialSlots> slots = new LinkedHashMap<>();
          limits.forEach((sweep, max) -> slots.put(sweep, new TrialSlots(max, 0)));
          eachRow(
              connection,
              RUNNING_TRIALS,
              limits.keySet(),
              row -> {
                String sweep = row.getString(1);
                slots.put(sweep, new TrialSlots(limits.get(sweep), row.getLong(2)));
              });
          return slots;
        });
  }

  @Override
  public Map<String, TrialSlots> trialSlots(Collection<String> sweepIds) {
    if (sweepIds.isEmpty()) {
      return Map.of();
    }
    return work(
        connection -> {
          Map<String, TrialSlots> slots = new LinkedHashMap<>();
          eachRow(
              connection,
              SLOTS,
              sweepIds,
              row -> slots.put(row.getString(1), new TrialSlots(row.getInt(2), row.getLong(3))));
          return slots;
        });
  }

  @Override
  public Map<String, TrialSlots> fullSweeps() {
    return work(
        connection -> {
          Map<String, TrialSlots> full = new LinkedHashMap<>();
          try (PreparedStatement select = connection.prepareStatement(FULL_SWEEPS);
              ResultSet row = select.executeQuery()) {
            while (row.next()) {
              full.put(row.getString(1), new TrialSlots(row.getInt(2), row.getLong(3)));
            }
          }
          return full;
        });
  }

  private <T> T work(org.hibernate.jdbc.ReturningWork<T> work) {
    return entityManager.unwrap(Session.class).doReturningWork(work);
  }

  /** One row of a result, read where it stands. */
  private interface RowReader {
    void read(ResultSet row) throws SQLException;
  }

  /**
   * Runs {@code sql}, whose {@code %s} takes one parameter per value of {@code ids}, and hands each
   * row it returns to {@code reader}.
   */
  private static void eachRow(
      Connection connection, String sql, Collection<String> ids, RowReader reader)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            sql.formatted(String.join(", ", Collections.nCopies(ids.size(), "?"))))) {
      int parameter = 1;
      for (String id : List.copyOf(ids)) {
        select.setString(parameter++, id);
      }
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          reader.read(row);
        }
      }
    }
  }
}

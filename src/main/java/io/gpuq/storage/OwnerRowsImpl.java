package io.gpuq.storage;

import io.gpuq.job.TooManyQueuedJobsException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.hibernate.Session;

/** Plain JDBC in the transaction's connection, as the claim's and the submission's statements. */
class OwnerRowsImpl implements OwnerRows {

  /**
   * Kept by the database as jobs are queued and leave the queue (V22): counting the owner's queued
   * jobs in an index cost each submission 30 ms at 100,000 queued on H2.
   */
  private static final String QUEUED_COUNT =
      "select owner, jobs from owner_queued where owner in (%s)";

  private static final String LOCK_QUEUED_COUNTS =
      "select owner from owner_queued where owner in (%s) order by owner for update";

  @PersistenceContext private EntityManager entityManager;

  /**
   * Locks the owner's row and refuses {@code adding} more queued jobs past {@code maxQueued}, in
   * the connection's transaction: for the stores that write jobs in plain JDBC (a sweep's trials).
   *
   * @throws TooManyQueuedJobsException nothing is written then
   */
  static void requireQueuedRoom(
      java.sql.Connection connection, String owner, long adding, long maxQueued, Instant now)
      throws java.sql.SQLException {
    if (maxQueued == Long.MAX_VALUE) {
      return;
    }
    OwnerUsageTable.lockRows(connection, List.of(owner), now);
    long queued = 0;
    try (PreparedStatement select = connection.prepareStatement(QUEUED_COUNT.formatted("?"))) {
      select.setString(1, owner);
      try (ResultSet row = select.executeQuery()) {
        if (row.next()) {
          queued = row.getLong(2);
        }
      }
    }
    if (queued + adding > maxQueued) {
      throw new TooManyQueuedJobsException(maxQueued, queued, adding);
    }
  }

  /**
   * Locks the {@code owner_queued} rows of these owners in owner order, before a statement that
   * moves their jobs out of the queue: the database's trigger then updates rows this transaction
   * holds already, rather than taking them in the order of the jobs, which two nodes' claims could
   * take in opposite orders and so wait on each other.
   */
  static void lockQueuedCounts(java.sql.Connection connection, Collection<String> owners)
      throws java.sql.SQLException {
    if (owners.isEmpty()) {
      return;
    }
    List<String> ordered = List.copyOf(new TreeSet<>(owners));
    try (PreparedStatement lock =
        connection.prepareStatement(
            LOCK_QUEUED_COUNTS.formatted(
                String.join(",", Collections.nCopies(ordered.size(), "?"))))) {
      int i = 1;
      for (String owner : ordered) {
        lock.setString(i++, owner);
      }
      try (ResultSet rows = lock.executeQuery()) {
        while (rows.next()) {
          // Read to the end: the rows are locked as they are read.
        }
      }
    }
  }

  @Override
  public void lockOwners(Collection<String> owners, Instant now) {
    if (owners.isEmpty()) {
      return;
    }
    List<String> ordered = List.copyOf(new TreeSet<>(owners));
    entityManager
        .unwrap(Session.class)
        .doWork(connection -> OwnerUsageTable.lockRows(connection, ordered, now));
  }

  @Override
  public Map<String, Long> queuedCountOf(Collection<String> owners) {
    if (owners.isEmpty()) {
      return Map.of();
    }
    return entityManager
        .unwrap(Session.class)
        .doReturningWork(
            connection -> {
              Map<String, Long> counts = new HashMap<>();
              try (PreparedStatement select =
                  connection.prepareStatement(
                      QUEUED_COUNT.formatted(
                          String.join(",", Collections.nCopies(owners.size(), "?"))))) {
                int i = 1;
                for (String owner : owners) {
                  select.setString(i++, owner);
                }
                try (ResultSet row = select.executeQuery()) {
                  while (row.next()) {
                    counts.put(row.getString(1), row.getLong(2));
                  }
                }
              }
              return counts;
            });
  }
}

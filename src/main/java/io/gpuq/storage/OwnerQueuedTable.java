package io.gpuq.storage;

import io.gpuq.job.TooManyQueuedJobsException;
import io.gpuq.schedule.OwnerCounts;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of the table {@code owner_queued}, the queued jobs per owner that the database keeps
 * (V22: its triggers on {@code jobs} write it), rather than counted from the jobs at each read:
 * counting an owner's queued jobs in an index cost each submission 30 ms at 100,000 queued on H2.
 * The {@link OwnerCounts}; and, in a submission's or a claim's own transaction (a {@link
 * JdbcClient} over the data source joins it, JPA's included), the checks of an owner's queued limit
 * and the locks that keep those exact between nodes.
 */
public final class OwnerQueuedTable implements OwnerCounts {

  private static final String QUEUED = "select owner, jobs from owner_queued where jobs > 0";

  private static final String QUEUED_OF =
      "select owner, jobs from owner_queued where owner in (:owners)";

  private static final String LOCK =
      "select owner from owner_queued where owner in (:owners) order by owner for update";

  private final JdbcClient sql;

  public OwnerQueuedTable(DataSource dataSource) {
    this.sql = JdbcClient.create(dataSource);
  }

  @Override
  public Map<String, Long> queuedByOwner() {
    return read(sql.sql(QUEUED));
  }

  /** The queued jobs of each of these owners (an owner with none is left out). */
  Map<String, Long> queuedOf(Collection<String> owners) {
    if (owners.isEmpty()) {
      return Map.of();
    }
    return read(sql.sql(QUEUED_OF).param("owners", List.copyOf(owners)));
  }

  private static Map<String, Long> read(JdbcClient.StatementSpec statement) {
    Map<String, Long> queued = new HashMap<>();
    statement.query(
        row -> {
          queued.put(row.getString(1), row.getLong(2));
        });
    return queued;
  }

  /**
   * Locks these owners' rows ({@code owner_usage}, created if missing) until the transaction ends,
   * in owner order, so that two transactions never wait on each other in a circle: a submission and
   * a claim for one owner take turns, on every node, and each counts what the other committed.
   */
  void lockOwners(Collection<String> owners, Instant now) {
    OwnerUsageTable.lockRows(sql, List.copyOf(new TreeSet<>(owners)), now);
  }

  /**
   * Locks the owner's row and refuses {@code adding} more queued jobs past {@code maxQueued}, in
   * the caller's transaction: for the stores that write jobs in plain SQL (a sweep's trials).
   *
   * @throws TooManyQueuedJobsException nothing is written then
   */
  void requireQueuedRoom(String owner, long adding, long maxQueued, Instant now) {
    if (maxQueued == Long.MAX_VALUE) {
      return;
    }
    lockOwners(List.of(owner), now);
    long queued = queuedOf(List.of(owner)).getOrDefault(owner, 0L);
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
  void lockQueuedCounts(Collection<String> owners) {
    if (owners.isEmpty()) {
      return;
    }
    // Read to the end: the rows are locked as they are read.
    sql.sql(LOCK).param("owners", List.copyOf(new TreeSet<>(owners))).query(String.class).list();
  }
}

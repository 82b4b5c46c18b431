package io.gpuq.storage;

import io.gpuq.fairshare.Held;
import io.gpuq.job.QueuedJob;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;

/** Plain JDBC in the transaction's connection. */
public class QueueHeadsImpl implements QueueHeads {

  /**
   * The owners with queued jobs, found by skipping through the index {@code
   * jobs_queue_by_owner_and_kind} (V21) from one owner to the next: one seek per owner, however
   * many jobs each has queued. (Of either kind: the kind follows the owner in the index, and an
   * owner with none of the kind asked costs one empty seek.) H2 runs this step by step ({@link
   * #NEXT_OWNER}): its recursive queries materialise every step, and at 100 owners took 50 ms.
   */
  private static final String OWNERS =
      "with recursive o (owner) as ((select j.owner from jobs j where j.state = 'QUEUED'"
          + " order by j.owner limit 1) union all select (select j.owner from jobs j"
          + " where j.state = 'QUEUED' and j.owner > o.owner order by j.owner limit 1)"
          + " from o where o.owner is not null) select o.owner from o where o.owner is not null";

  /**
   * The first owner after this one with queued jobs (H2). The bound is {@code >=} the owner and a
   * NUL, the least string after it, because H2 starts an index range at its bound inclusive and
   * passes over the previous owner's entries one by one: with {@code > ?}, each step read all the
   * queued jobs of the owner before. ({@code ''}: the first owner.)
   */
  private static final String NEXT_OWNER =
      "select j.owner from jobs j where j.state = 'QUEUED' and j.owner >= ?"
          + " order by j.state, j.owner limit 1";

  /**
   * One owner's first queued jobs of one kind, in their scheduling order: a bounded seek in {@code
   * jobs_queue_by_owner_and_kind}, read from the index alone. Held jobs (issue 37: waiting for a
   * dependency) are passed over: they take no place and hold no one up. {@code %s}: the sweeps left
   * out. The order names the index's columns from the first (equal here) so that H2 reads in index
   * order and stops at the limit; by {@code priority desc, id} alone it read and sorted all the
   * owner's jobs.
   */
  private static final String OWNER_HEAD =
      "select j.owner, j.id, j.queued_at from jobs j where j.state = 'QUEUED' and j.gpu_job = ?"
          + " and j.owner = ? and j.held = false%s order by j.state, j.owner, j.gpu_job, j.priority desc, j.id"
          + " limit ?";

  /** {@link #OWNER_HEAD} for many owners in one statement (PostgreSQL). */
  private static final String OWNERS_HEADS =
      "select h.owner, h.id, h.queued_at from unnest(cast(? as varchar[])) with ordinality"
          + " as o (owner, n) cross join lateral (select j.owner, j.id, j.queued_at, j.priority"
          + " from jobs j where j.state = 'QUEUED' and j.gpu_job = ? and j.owner = o.owner"
          + " and j.held = false"
          + " and (j.sweep_id is null or j.sweep_id <> all (cast(? as varchar[])))"
          + " order by j.priority desc, j.id limit ?) h order by o.n, h.priority desc, h.id";

  /**
   * The chosen jobs' rows, by primary key alone. With {@code j.state = 'QUEUED'} beside the ids, H2
   * read every queued row from an index on the state and tested each against the whole list: at
   * 100,000 queued a pass took seconds. A job that left the queue since its key was read is left
   * out here by its state.
   */
  private static final String QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id, j.cpus, j.memory_bytes, j.state, j.held, j.preemptible"
          + " from jobs j where j.id in (%s)";

  private record Key(String owner, String id, Instant queuedAt, int rank) {}

  /**
   * Every owner's first job, then every owner's second, and so on; equal ranks by the time the job
   * was queued, so that when more owners have jobs than a pass takes, the owners whose next job has
   * waited longest come first (as fair share breaks its ties), and none is left out for good.
   */
  private static final Comparator<Key> BY_RANK =
      Comparator.comparingInt(Key::rank).thenComparing(Key::queuedAt).thenComparing(Key::id);

  /**
   * A whole-GPU job asks for neither bytes nor a fraction; every GPU job's attempt records its
   * budget per GPU. The columns are {@link Held}'s, in its order: GPU memory, whole GPUs, CPU
   * slots, cores, host memory (a job that reserved none counts none), running jobs, the GPUs of
   * fraction jobs as their fractions, and the budgets of jobs that asked for bytes.
   */
  static final String HELD_BY_OWNER =
      "select j.owner,"
          + " sum(case when j.gpus > 0 then a.budget_bytes * j.gpus else 0 end),"
          + " sum(case when j.gpus > 0 and j.gpu_memory_bytes is null"
          + " and j.gpu_fraction is null then j.gpus else 0 end),"
          + " sum(case when j.gpus = 0 then 1 else 0 end),"
          + " sum(j.cpus),"
          + " sum(coalesce(j.memory_bytes, 0)),"
          + " count(*),"
          + " sum(case when j.gpus > 0 and j.gpu_fraction is not null"
          + " then j.gpus * j.gpu_fraction else 0 end),"
          + " sum(case when j.gpus > 0 and j.gpu_memory_bytes is not null"
          + " then a.budget_bytes * j.gpus else 0 end)"
          + " from jobs j join job_attempts a on a.job_id = j.id and a.attempt = j.attempt"
          + " where j.state = 'RUNNING'%s group by j.owner";

  @PersistenceContext private EntityManager entityManager;

  /** Whether the database is PostgreSQL, which runs the owners' seeks as one statement each. */
  private volatile Boolean postgres;

  /**
   * The statements that find the owners with queued jobs and read one owner's head, by kind: for
   * their plans to be checked.
   */
  public static List<String> queueHeadStatements() {
    return List.of(OWNERS, NEXT_OWNER, OWNER_HEAD.formatted(""), OWNERS_HEADS);
  }

  /** The statement that reads the rows a pass picked, {@code %s} for their ids: for its plan. */
  public static String pickedRowsStatement() {
    return QUEUED_BY_ID;
  }

  @Override
  public List<QueuedJob> queueHeadsByOwner(
      boolean gpu, int perOwner, int limit, Collection<String> withoutSweeps) {
    if (limit <= 0 || perOwner <= 0) {
      return List.of();
    }
    return work(
        connection -> {
          List<Key> keys = firstJobsOfEachOwner(connection, gpu, perOwner, limit, withoutSweeps);
          keys.sort(BY_RANK);
          List<Key> chosen = keys.subList(0, Math.min(limit, keys.size()));
          if (chosen.isEmpty()) {
            return List.of();
          }
          Map<String, QueuedJob> byId = new HashMap<>();
          try (PreparedStatement select =
              connection.prepareStatement(QUEUED_BY_ID.formatted(marks(chosen.size())))) {
            int i = 1;
            for (Key key : chosen) {
              select.setString(i++, key.id());
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                if (!"QUEUED".equals(row.getString(12)) || row.getBoolean(13)) {
                  continue;
                }
                QueuedJob job = queuedJob(row);
                byId.put(job.id(), job);
              }
            }
          }
          List<QueuedJob> heads = new ArrayList<>(chosen.size());
          for (Key key : chosen) {
            QueuedJob job = byId.get(key.id());
            if (job != null) {
              heads.add(job);
            }
          }
          return heads;
        });
  }

  /**
   * The first jobs of every owner with queued jobs of this kind, ranked within their owner: enough
   * of them that the first {@code limit} by {@link #BY_RANK} are among them. Each owner is read to
   * the same depth, a share of the limit; the owners with fewer jobs than that leave the rest of it
   * to the others, whose next round reads deeper. So a round reads about {@code limit} keys plus
   * one per owner, and an owner's 10,000 queued jobs cost no more than their first few.
   */
  private List<Key> firstJobsOfEachOwner(
      java.sql.Connection connection,
      boolean gpu,
      int perOwner,
      int limit,
      Collection<String> withoutSweeps)
      throws SQLException {
    boolean onPostgres = isPostgres(connection);
    List<String> owners = owners(connection, onPostgres);
    Map<String, List<Key>> read = new LinkedHashMap<>();
    List<String> deeper = owners;
    int depth = 0;
    while (!deeper.isEmpty()) {
      int covered = 0;
      for (List<Key> of : read.values()) {
        covered += Math.min(of.size(), depth);
      }
      int share = -Math.floorDiv(covered - limit, deeper.size()); // rounded up
      depth = Math.min(perOwner, depth + Math.max(1, share));
      Map<String, List<Key>> round =
          onPostgres
              ? headsInOneStatement(connection, gpu, deeper, depth, withoutSweeps)
              : headsOneByOne(connection, gpu, deeper, depth, withoutSweeps);
      read.putAll(round);
      List<String> next = new ArrayList<>();
      covered = 0;
      for (List<Key> of : read.values()) {
        covered += Math.min(of.size(), depth);
      }
      if (covered < limit && depth < perOwner) {
        for (String owner : deeper) {
          if (round.getOrDefault(owner, List.of()).size() == depth) {
            next.add(owner);
          }
        }
      }
      deeper = next;
    }
    List<Key> keys = new ArrayList<>();
    read.values().forEach(keys::addAll);
    return keys;
  }

  private boolean isPostgres(java.sql.Connection connection) throws SQLException {
    Boolean known = postgres;
    if (known == null) {
      known = connection.getMetaData().getDatabaseProductName().equals("PostgreSQL");
      postgres = known;
    }
    return known;
  }

  private static List<String> owners(java.sql.Connection connection, boolean onPostgres)
      throws SQLException {
    List<String> owners = new ArrayList<>();
    if (onPostgres) {
      try (PreparedStatement select = connection.prepareStatement(OWNERS)) {
        try (ResultSet row = select.executeQuery()) {
          while (row.next()) {
            owners.add(row.getString(1));
          }
        }
      }
      return owners;
    }
    try (PreparedStatement select = connection.prepareStatement(NEXT_OWNER)) {
      String after = "";
      while (true) {
        select.setString(1, after + '\0');
        try (ResultSet row = select.executeQuery()) {
          if (!row.next()) {
            return owners;
          }
          after = row.getString(1);
          owners.add(after);
        }
      }
    }
  }

  private static Map<String, List<Key>> headsOneByOne(
      java.sql.Connection connection,
      boolean gpu,
      List<String> owners,
      int depth,
      Collection<String> withoutSweeps)
      throws SQLException {
    Map<String, List<Key>> heads = new LinkedHashMap<>();
    String sweeps =
        withoutSweeps.isEmpty()
            ? ""
            : " and (j.sweep_id is null or j.sweep_id not in (%s))"
                .formatted(marks(withoutSweeps.size()));
    try (PreparedStatement select = connection.prepareStatement(OWNER_HEAD.formatted(sweeps))) {
      for (String owner : owners) {
        int i = 1;
        select.setBoolean(i++, gpu);
        select.setString(i++, owner);
        for (String sweep : withoutSweeps) {
          select.setString(i++, sweep);
        }
        select.setInt(i, depth);
        try (ResultSet row = select.executeQuery()) {
          heads.put(owner, keys(row));
        }
      }
    }
    return heads;
  }

  private static Map<String, List<Key>> headsInOneStatement(
      java.sql.Connection connection,
      boolean gpu,
      List<String> owners,
      int depth,
      Collection<String> withoutSweeps)
      throws SQLException {
    Map<String, List<Key>> heads = new LinkedHashMap<>();
    owners.forEach(owner -> heads.put(owner, new ArrayList<>()));
    try (PreparedStatement select = connection.prepareStatement(OWNERS_HEADS)) {
      select.setArray(1, connection.createArrayOf("varchar", owners.toArray()));
      select.setBoolean(2, gpu);
      select.setArray(3, connection.createArrayOf("varchar", withoutSweeps.toArray()));
      select.setInt(4, depth);
      try (ResultSet row = select.executeQuery()) {
        for (Key key : keys(row)) {
          heads.get(key.owner()).add(key);
        }
      }
    }
    return heads;
  }

  /** Keys in each owner's scheduling order, each ranked within its owner from 1. */
  private static List<Key> keys(ResultSet row) throws SQLException {
    List<Key> keys = new ArrayList<>();
    String owner = null;
    int rank = 0;
    while (row.next()) {
      String of = row.getString(1);
      if (!of.equals(owner)) {
        owner = of;
        rank = 0;
      }
      keys.add(
          new Key(
              of, row.getString(2), row.getObject(3, OffsetDateTime.class).toInstant(), ++rank));
    }
    return keys;
  }

  private static QueuedJob queuedJob(ResultSet row) throws SQLException {
    long bytes = row.getLong(4);
    Long gpuMemoryBytes = row.wasNull() ? null : bytes;
    double fraction = row.getDouble(5);
    Double gpuFraction = row.wasNull() ? null : fraction;
    String selector = row.getString(8);
    long host = row.getLong(11);
    Long memoryBytes = row.wasNull() ? null : host;
    return new QueuedJob(
        row.getString(1),
        row.getString(2),
        row.getInt(3),
        gpuMemoryBytes,
        gpuFraction,
        row.getInt(6),
        row.getObject(7, OffsetDateTime.class).toInstant(),
        selector == null ? Map.of() : SELECTOR.convertToEntityAttribute(selector),
        row.getString(9),
        JobRows.cpus(row.getBigDecimal(10)),
        memoryBytes,
        row.getBoolean(14));
  }

  private static final JsonColumns.StringMap SELECTOR = new JsonColumns.StringMap();

  @Override
  public Map<String, Held> heldByOwner(String node) {
    return work(
        connection -> {
          Map<String, Held> held = new LinkedHashMap<>();
          try (PreparedStatement select =
              connection.prepareStatement(
                  HELD_BY_OWNER.formatted(node == null ? "" : " and j.node = ?"))) {
            if (node != null) {
              select.setString(1, node);
            }
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                held.put(
                    row.getString(1),
                    new Held(
                        row.getLong(2),
                        row.getLong(3),
                        row.getLong(4),
                        JobRows.cpus(row.getBigDecimal(5)),
                        row.getLong(6),
                        row.getLong(7),
                        row.getDouble(8),
                        row.getLong(9)));
              }
            }
          }
          return held;
        });
  }

  private <T> T work(org.hibernate.jdbc.ReturningWork<T> work) {
    return entityManager.unwrap(Session.class).doReturningWork(work);
  }

  private static String marks(int count) {
    return String.join(",", java.util.Collections.nCopies(count, "?"));
  }
}

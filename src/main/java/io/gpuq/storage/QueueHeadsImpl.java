package io.gpuq.storage;

import io.gpuq.fairshare.Held;
import io.gpuq.job.QueuedJob;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
   * Every queued job's key in each owner's scheduling order, from the index {@code
   * jobs_queue_by_owner} (V16) alone: no row is read and nothing sorted. The first jobs of each
   * owner are picked from it here, then read by id. A window ranked per owner ({@code row_number()
   * over (partition by owner ...)}) says the same in one statement, but H2 ranks it by sorting the
   * whole queue: at 100,000 queued jobs of 100 owners it took about five times as long as this.
   */
  static final String QUEUED_KEYS =
      "select j.owner, j.priority, j.id, j.gpus, j.sweep_id from jobs j where j.state = 'QUEUED'"
          + " order by j.owner, j.priority desc, j.id";

  private static final String QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id, j.cpus, j.memory_bytes"
          + " from jobs j where j.state = 'QUEUED' and j.id in (%s)";

  private record Key(String owner, int priority, String id, int rank) {}

  private static final Comparator<Key> BY_RANK =
      Comparator.comparingInt(Key::rank)
          .thenComparing(Comparator.comparingInt(Key::priority).reversed())
          .thenComparing(Key::id);

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

  /**
   * The statement that reads every queued job's key in owners' order: for its plan to be checked.
   */
  public static String queuedKeysSql() {
    return QUEUED_KEYS;
  }

  @Override
  public List<QueuedJob> queueHeadsByOwner(
      boolean gpu, int perOwner, int limit, Collection<String> withoutSweeps) {
    if (limit <= 0 || perOwner <= 0) {
      return List.of();
    }
    return work(
        connection -> {
          List<Key> keys = new ArrayList<>();
          try (PreparedStatement select = connection.prepareStatement(QUEUED_KEYS);
              ResultSet row = select.executeQuery()) {
            String owner = null;
            int rank = 0;
            while (row.next()) {
              boolean isGpu = row.getInt(4) >= 1;
              String sweep = row.getString(5);
              if (isGpu != gpu || (sweep != null && withoutSweeps.contains(sweep))) {
                continue;
              }
              String of = row.getString(1);
              if (!of.equals(owner)) {
                owner = of;
                rank = 0;
              }
              if (++rank <= perOwner) {
                keys.add(new Key(of, row.getInt(2), row.getString(3), rank));
              }
            }
          }
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
        row.getInt(10),
        memoryBytes);
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
                        row.getLong(5),
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

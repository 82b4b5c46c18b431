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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;

/** Plain JDBC in the transaction's connection: window functions are beyond the JPA queries. */
public class QueueHeadsImpl implements QueueHeads {

  /**
   * Each owner's jobs ranked in scheduling order, the first {@code perOwner} of each kept, then
   * taken by rank: one statement whatever the number of owners. The index {@code
   * jobs_queue_by_owner} (V16) hands the window its rows in partition order, so that it sorts
   * nothing.
   */
  static final String HEADS_BY_OWNER =
      "select id, owner, gpus, gpu_memory_bytes, gpu_fraction, priority, queued_at,"
          + " node_selector, sweep_id from ("
          + "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority,"
          + " j.queued_at, j.node_selector, j.sweep_id,"
          + " row_number() over (partition by j.owner order by j.priority desc, j.id) as owner_rank"
          + " from jobs j where j.state = 'QUEUED' and %s%s"
          + ") ranked where owner_rank <= ? order by owner_rank, priority desc, id"
          + " fetch first ? rows only";

  // ">= 1", not "> 0": H2 starts an index range at ">= 1" (JobRepository).
  private static final String GPU_JOBS = "j.gpus >= 1";
  private static final String CPU_JOBS = "j.gpus = 0";
  private static final String WITHOUT_SWEEPS =
      " and (j.sweep_id is null or j.sweep_id not in (%s))";

  /**
   * A whole-GPU job asks for neither bytes nor a fraction; every GPU job's attempt records its
   * budget per GPU.
   */
  static final String HELD_BY_OWNER =
      "select j.owner,"
          + " sum(case when j.gpus > 0 then a.budget_bytes * j.gpus else 0 end),"
          + " sum(case when j.gpus > 0 and j.gpu_memory_bytes is null"
          + " and j.gpu_fraction is null then j.gpus else 0 end),"
          + " sum(case when j.gpus = 0 then 1 else 0 end)"
          + " from jobs j join job_attempts a on a.job_id = j.id and a.attempt = j.attempt"
          + " where j.state = 'RUNNING'%s group by j.owner";

  @PersistenceContext private EntityManager entityManager;

  /**
   * The statement that reads the heads of one kind, with its two parameters (jobs per owner, jobs
   * in all) and no sweeps left out: for a plan to be checked.
   */
  public static String headsByOwnerSql(boolean gpu) {
    return HEADS_BY_OWNER.formatted(gpu ? GPU_JOBS : CPU_JOBS, "");
  }

  @Override
  public List<QueuedJob> queueHeadsByOwner(
      boolean gpu, int perOwner, int limit, Collection<String> withoutSweeps) {
    if (limit <= 0 || perOwner <= 0) {
      return List.of();
    }
    String sql =
        HEADS_BY_OWNER.formatted(
            gpu ? GPU_JOBS : CPU_JOBS,
            withoutSweeps.isEmpty() ? "" : WITHOUT_SWEEPS.formatted(marks(withoutSweeps.size())));
    return work(
        connection -> {
          List<QueuedJob> heads = new ArrayList<>();
          try (PreparedStatement select = connection.prepareStatement(sql)) {
            int i = 1;
            for (String sweep : withoutSweeps) {
              select.setString(i++, sweep);
            }
            select.setInt(i++, perOwner);
            select.setInt(i, limit);
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                heads.add(queuedJob(row));
              }
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
    return new QueuedJob(
        row.getString(1),
        row.getString(2),
        row.getInt(3),
        gpuMemoryBytes,
        gpuFraction,
        row.getInt(6),
        row.getObject(7, OffsetDateTime.class).toInstant(),
        selector == null ? Map.of() : SELECTOR.convertToEntityAttribute(selector),
        row.getString(9));
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
                    row.getString(1), new Held(row.getLong(2), row.getLong(3), row.getLong(4)));
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

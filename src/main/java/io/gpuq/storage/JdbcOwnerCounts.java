package io.gpuq.storage;

import io.gpuq.placement.PlacedGpu;
import io.gpuq.schedule.OwnerCounts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link OwnerCounts} from the {@code jobs} table, in one read-only transaction of two statements:
 * the queued jobs per owner, counted from the index {@code jobs_queue_by_owner_and_kind} (V21)
 * alone, and the running jobs' rows, which are as many as the cluster has places, not as the queue
 * is long.
 */
public final class JdbcOwnerCounts implements OwnerCounts {

  static final String QUEUED =
      "select j.owner, count(*) from jobs j where j.state = 'QUEUED' group by j.owner";

  static final String RUNNING =
      "select j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.cpus, j.memory_bytes,"
          + " j.placement from jobs j where j.state = 'RUNNING'";

  private static final JsonColumns.Placement PLACEMENT = new JsonColumns.Placement();

  private final JdbcTemplate jdbc;
  private final TransactionTemplate reads;

  public JdbcOwnerCounts(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.jdbc = jdbc;
    this.reads = new TransactionTemplate(tx.getTransactionManager(), tx);
    this.reads.setReadOnly(true);
  }

  @Override
  public Map<String, Counted> byOwner() {
    return reads.execute(
        status -> {
          Map<String, Counted> counts = new HashMap<>();
          jdbc.query(
              RUNNING,
              row -> {
                long bytes = row.getLong(3);
                Long budget = row.wasNull() ? null : bytes;
                double fraction = row.getDouble(4);
                Double asked = row.wasNull() ? null : fraction;
                String placement = row.getString(7);
                List<PlacedGpu> placed =
                    placement == null
                        ? List.of()
                        : PLACEMENT.convertToEntityAttribute(placement).gpus();
                Counted job =
                    new Counted(
                        1,
                        OwnerCounts.gpusOf(row.getInt(2), budget, asked, placed),
                        row.getLong(5),
                        row.getLong(6),
                        0);
                counts.merge(row.getString(1), job, Counted::plus);
              });
          jdbc.query(
              QUEUED,
              row -> {
                Counted queued = new Counted(0, 0, 0, 0, row.getLong(2));
                counts.merge(row.getString(1), queued, Counted::plus);
              });
          return counts;
        });
  }
}

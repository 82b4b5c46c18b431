package io.gpuq.storage;

import io.gpuq.schedule.OwnerCounts;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The reads of the table {@code owner_queued}, the queued jobs per owner that the database keeps
 * (V22: its triggers on {@code jobs} write it), rather than counted from the jobs at each read: the
 * {@link OwnerCounts}. ({@link OwnerRowsImpl} reads and locks it on a claim's or a submission's own
 * connection.)
 */
public final class OwnerQueuedTable implements OwnerCounts {

  private static final String QUEUED = "select owner, jobs from owner_queued where jobs > 0";

  private final JdbcClient sql;

  public OwnerQueuedTable(DataSource dataSource) {
    this.sql = JdbcClient.create(dataSource);
  }

  @Override
  public Map<String, Long> queuedByOwner() {
    Map<String, Long> queued = new HashMap<>();
    sql.sql(QUEUED)
        .query(
            row -> {
              queued.put(row.getString(1), row.getLong(2));
            });
    return queued;
  }
}

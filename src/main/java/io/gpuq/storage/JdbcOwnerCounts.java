package io.gpuq.storage;

import io.gpuq.schedule.OwnerCounts;
import java.util.HashMap;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link OwnerCounts} from the {@code jobs} table: the queued jobs per owner, counted from the
 * index {@code jobs_queue_by_owner_and_kind} (V21) alone.
 */
public final class JdbcOwnerCounts implements OwnerCounts {

  static final String QUEUED =
      "select j.owner, count(*) from jobs j where j.state = 'QUEUED' group by j.owner";

  private final JdbcTemplate jdbc;

  public JdbcOwnerCounts(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public Map<String, Long> queuedByOwner() {
    Map<String, Long> queued = new HashMap<>();
    jdbc.query(
        QUEUED,
        row -> {
          queued.put(row.getString(1), row.getLong(2));
        });
    return queued;
  }
}

package io.gpuq.storage;

import io.gpuq.schedule.OwnerCounts;
import java.util.HashMap;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link OwnerCounts} from {@code owner_queued}, the queued jobs per owner that the database keeps
 * (V22), rather than counted from the jobs at each read.
 */
public final class JdbcOwnerCounts implements OwnerCounts {

  static final String QUEUED = "select owner, jobs from owner_queued where jobs > 0";

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

package io.gpuq.storage;

import io.gpuq.warm.WarmFallbacks;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The SQL of {@code warm_start_fallbacks} (V33, issue 36). */
public final class WarmFallbackTable implements WarmFallbacks {

  private static final String RECORD =
      "insert into warm_start_fallbacks (job_id, attempt, reason, recorded_at)"
          + " select :jobId, :attempt, :reason, :at from jobs where id = :jobId"
          + " and not exists (select 1 from warm_start_fallbacks"
          + " where job_id = :jobId and attempt = :attempt)";

  private static final String OF_SWEEP =
      "select f.job_id, f.attempt, f.reason, f.recorded_at from warm_start_fallbacks f"
          + " join jobs j on j.id = f.job_id where j.sweep_id = :sweepId"
          + " order by f.recorded_at, f.job_id, f.attempt limit :limit";

  private static final String OF_JOB =
      "select job_id, attempt, reason, recorded_at from warm_start_fallbacks"
          + " where job_id = :jobId order by attempt";

  private static final int MAX_REASON = 2000;

  private final JdbcClient jdbc;

  public WarmFallbackTable(DataSource dataSource) {
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  public void record(String jobId, int attempt, String reason, Instant at) {
    String text = reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason;
    jdbc.sql(RECORD)
        .param("jobId", jobId)
        .param("attempt", attempt)
        .param("reason", text)
        .param("at", OffsetDateTime.ofInstant(at, ZoneOffset.UTC))
        .update();
  }

  @Override
  public List<Fallback> ofSweep(String sweepId, int limit) {
    return jdbc.sql(OF_SWEEP)
        .param("sweepId", sweepId)
        .param("limit", limit)
        .query(WarmFallbackTable::fallback)
        .list();
  }

  @Override
  public List<Fallback> ofJob(String jobId) {
    return jdbc.sql(OF_JOB).param("jobId", jobId).query(WarmFallbackTable::fallback).list();
  }

  private static Fallback fallback(ResultSet rs, int row) throws SQLException {
    return new Fallback(
        rs.getString("job_id"),
        rs.getInt("attempt"),
        rs.getString("reason"),
        rs.getObject("recorded_at", OffsetDateTime.class).toInstant());
  }
}

package io.gpuq.storage;

import io.gpuq.job.NotifyEvent;
import io.gpuq.job.NotifyFormat;
import io.gpuq.job.NotifyTarget;
import io.gpuq.notify.NotificationBody.JobFacts;
import io.gpuq.notify.Outbox;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of the {@code notifications} table (issue 37, V30), the outbox of notifications. Every
 * change of a row's status is a conditional update on the status it had (and, for a claim, on no
 * node holding it), so that of several nodes on one database exactly one makes each change.
 */
public final class NotificationTable implements Outbox {

  private static final String INSERT =
      "insert into notifications (id, job_id, sweep_id, owner, event, url, format, status,"
          + " attempts, created_at) values (:id, :job, :sweep, :owner, :event, :url, :format,"
          + " 'WAITING', 0, :now)";

  /**
   * A STARTED row's job has started once it runs, or has an attempt (it started, then went back to
   * the queue or ended); an ENDED or FAILED row's job has ended. Queued jobs that never started are
   * left out here, so that their rows are not read again and again.
   */
  private static final String JOB_EVENTS =
      "select n.id, n.event, n.format, j.id as job_id, j.name, j.owner, j.state, j.exit_code,"
          + " j.failure_message, j.started_at, j.finished_at"
          + " from notifications n join jobs j on j.id = n.job_id"
          + " where n.status = 'WAITING' and ("
          + " j.state in ('SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED')"
          + " or (n.event = 'STARTED' and (j.state <> 'QUEUED'"
          + " or exists (select 1 from job_attempts a where a.job_id = j.id))))"
          + " order by n.created_at, n.id limit :limit";

  private static final String SWEEP_EVENTS =
      "select n.id, n.event, n.format, n.sweep_id from notifications n"
          + " join sweeps s on s.id = n.sweep_id"
          + " where n.status = 'WAITING' and s.finished_at is not null"
          + " order by n.created_at, n.id limit :limit";

  private static final String MAKE_DUE =
      "update notifications set status = 'DUE', body = :body, happened_at = :now, due_at = :now"
          + " where id = :id and status = 'WAITING'";

  private static final String SKIP =
      "update notifications set status = 'SKIPPED', finished_at = :now"
          + " where id = :id and status = 'WAITING'";

  private static final String DUE =
      "select id, url, body, attempts, happened_at from notifications"
          + " where status = 'DUE' and due_at <= :now"
          + " and (claimed_until is null or claimed_until < :now)"
          + " order by status, due_at limit :limit";

  private static final String CLAIM =
      "update notifications set claimed_until = :until, attempts = attempts + 1"
          + " where id = :id and status = 'DUE' and due_at <= :now"
          + " and (claimed_until is null or claimed_until < :now)";

  private static final String DELIVERED =
      "update notifications set status = 'DELIVERED', finished_at = :now, claimed_until = null,"
          + " last_error = null where id = :id and status = 'DUE'";

  private static final String RETRY =
      "update notifications set due_at = :next, claimed_until = null, last_error = :error"
          + " where id = :id and status = 'DUE'";

  private static final String GAVE_UP =
      "update notifications set status = 'GAVE_UP', finished_at = :now, claimed_until = null,"
          + " last_error = :error where id = :id and status = 'DUE'";

  private static final String DELETE_SETTLED =
      "delete from notifications where status in ('DELIVERED', 'GAVE_UP', 'SKIPPED')"
          + " and finished_at < :before";

  private static final String LAST_ERROR =
      "select last_error from notifications where job_id = :job and last_error is not null"
          + " and status <> 'DELIVERED' order by due_at desc, id limit 1";

  private static final String STANDINGS =
      "select id, event, status, attempts, happened_at, finished_at, last_error"
          + " from notifications where job_id = :job order by created_at, id";

  private static final String SWEEP_STANDINGS =
      "select id, event, status, attempts, happened_at, finished_at, last_error"
          + " from notifications where sweep_id = :sweep order by created_at, id";

  /** As last_error's column holds it. */
  private static final int MAX_ERROR = 2000;

  private final JdbcClient jdbc;

  /**
   * @param dataSource the database's; a JdbcClient on it joins the transaction that Spring's
   *     transaction manager has bound to it, so that {@link #add} writes with the job's insert
   */
  public NotificationTable(DataSource dataSource) {
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  public void add(
      String jobId, String sweepId, String owner, List<NotifyTarget> targets, Instant now) {
    for (NotifyTarget target : targets) {
      for (NotifyEvent event : target.on()) {
        jdbc.sql(INSERT)
            .param("id", UUID.randomUUID().toString())
            .param("job", jobId)
            .param("sweep", sweepId)
            .param("owner", owner)
            .param("event", event.name())
            .param("url", target.url())
            .param("format", target.format().name())
            .param("now", time(now))
            .update();
      }
    }
  }

  @Override
  public List<JobEvent> jobEvents(int limit) {
    return jdbc.sql(JOB_EVENTS)
        .param("limit", limit)
        .query(
            (row, n) ->
                new JobEvent(
                    row.getString("id"),
                    NotifyEvent.valueOf(row.getString("event")),
                    NotifyFormat.valueOf(row.getString("format")),
                    new JobFacts(
                        row.getString("job_id"),
                        row.getString("name"),
                        row.getString("owner"),
                        row.getString("state"),
                        (Integer) row.getObject("exit_code", Integer.class),
                        row.getString("failure_message"),
                        instant(row, "started_at"),
                        instant(row, "finished_at"))))
        .list();
  }

  @Override
  public List<SweepEvent> sweepEvents(int limit) {
    return jdbc.sql(SWEEP_EVENTS)
        .param("limit", limit)
        .query(
            (row, n) ->
                new SweepEvent(
                    row.getString("id"),
                    NotifyEvent.valueOf(row.getString("event")),
                    NotifyFormat.valueOf(row.getString("format")),
                    row.getString("sweep_id")))
        .list();
  }

  @Override
  public boolean makeDue(String id, String body, Instant now) {
    return jdbc.sql(MAKE_DUE).param("id", id).param("body", body).param("now", time(now)).update()
        == 1;
  }

  @Override
  public boolean skip(String id, Instant now) {
    return jdbc.sql(SKIP).param("id", id).param("now", time(now)).update() == 1;
  }

  @Override
  public List<Due> due(Instant now, int limit) {
    return jdbc.sql(DUE)
        .param("now", time(now))
        .param("limit", limit)
        .query(
            (row, n) ->
                new Due(
                    row.getString("id"),
                    row.getString("url"),
                    row.getString("body"),
                    row.getInt("attempts"),
                    instant(row, "happened_at")))
        .list();
  }

  @Override
  public boolean claim(String id, Instant now, Instant until) {
    return jdbc.sql(CLAIM)
            .param("id", id)
            .param("now", time(now))
            .param("until", time(until))
            .update()
        == 1;
  }

  @Override
  public void delivered(String id, Instant now) {
    jdbc.sql(DELIVERED).param("id", id).param("now", time(now)).update();
  }

  @Override
  public void retryAt(String id, Instant next, String error) {
    jdbc.sql(RETRY).param("id", id).param("next", time(next)).param("error", cut(error)).update();
  }

  @Override
  public void gaveUp(String id, Instant now, String error) {
    jdbc.sql(GAVE_UP).param("id", id).param("now", time(now)).param("error", cut(error)).update();
  }

  @Override
  public int deleteSettledBefore(Instant before) {
    return jdbc.sql(DELETE_SETTLED).param("before", time(before)).update();
  }

  @Override
  public String lastErrorOf(String jobId) {
    return jdbc.sql(LAST_ERROR)
        .param("job", jobId)
        .query((row, n) -> row.getString("last_error"))
        .optional()
        .orElse(null);
  }

  @Override
  public List<Standing> standingsOf(String jobId) {
    return jdbc.sql(STANDINGS).param("job", jobId).query((row, n) -> standing(row)).list();
  }

  @Override
  public List<Standing> standingsOfSweep(String sweepId) {
    return jdbc.sql(SWEEP_STANDINGS)
        .param("sweep", sweepId)
        .query((row, n) -> standing(row))
        .list();
  }

  private static Standing standing(java.sql.ResultSet row) throws java.sql.SQLException {
    return new Standing(
        row.getString("id"),
        NotifyEvent.valueOf(row.getString("event")),
        row.getString("status"),
        row.getInt("attempts"),
        instant(row, "happened_at"),
        instant(row, "finished_at"),
        row.getString("last_error"));
  }

  private static String cut(String error) {
    if (error == null) {
      return null;
    }
    String text = error.replace('\u0000', ' ');
    return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR);
  }

  private static OffsetDateTime time(Instant instant) {
    return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    OffsetDateTime time = row.getObject(column, OffsetDateTime.class);
    return time == null ? null : time.toInstant();
  }
}

package io.gpuq.storage;

import io.gpuq.job.Dependency;
import io.gpuq.job.DependencyTargets;
import io.gpuq.job.JobState;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of dependencies (issue 37): the held jobs (the {@code held} and {@code depends_on}
 * columns of {@code jobs}, V24) and where the jobs and sweeps they wait for stand.
 */
public final class DependencyTable implements DependencyTargets {

  private static final String HELD =
      "select id, owner, depends_on from jobs where held = true and state = 'QUEUED'"
          + " and id > :after order by held, state, id limit :limit";

  private static final String JOBS = "select id, owner, state from jobs where id in (:ids)";

  /**
   * A sweep has ended when it was cancelled, or it is closed with no trial left queued or running;
   * it succeeded when no trial failed or was cancelled (a pruned trial was stopped by its own
   * rule).
   */
  private static final String SWEEPS =
      "select s.id, s.owner, s.closed, s.cancelled_at,"
          + " (select count(*) from jobs j where j.sweep_id = s.id"
          + " and j.state in ('QUEUED', 'RUNNING')) as unfinished,"
          + " (select count(*) from jobs j where j.sweep_id = s.id"
          + " and j.state in ('FAILED', 'CANCELLED')) as unsuccessful"
          + " from sweeps s where s.id in (:ids)";

  private static final JsonColumns.Dependencies DEPENDENCIES = new JsonColumns.Dependencies();

  private final JdbcClient jdbc;

  public DependencyTable(DataSource dataSource) {
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  public List<HeldJob> heldJobs(String afterId, int limit) {
    return jdbc.sql(HELD)
        .param("after", afterId == null ? "" : afterId)
        .param("limit", limit)
        .query(
            (row, n) -> {
              List<Dependency> dependsOn =
                  DEPENDENCIES.convertToEntityAttribute(row.getString("depends_on"));
              return new HeldJob(
                  row.getString("id"),
                  row.getString("owner"),
                  dependsOn == null ? List.of() : dependsOn);
            })
        .list();
  }

  @Override
  public Map<String, Target> jobs(Collection<String> ids) {
    Map<String, Target> targets = new HashMap<>();
    if (ids.isEmpty()) {
      return targets;
    }
    jdbc.sql(JOBS)
        .param("ids", List.copyOf(ids))
        .query(
            row -> {
              JobState state = JobState.valueOf(row.getString("state"));
              targets.put(
                  row.getString("id"),
                  new Target(
                      row.getString("owner"),
                      state.isTerminal(),
                      state == JobState.SUCCEEDED,
                      state.name()));
            });
    return targets;
  }

  @Override
  public Map<String, Target> sweeps(Collection<String> ids) {
    Map<String, Target> targets = new HashMap<>();
    if (ids.isEmpty()) {
      return targets;
    }
    jdbc.sql(SWEEPS)
        .param("ids", List.copyOf(ids))
        .query(
            row -> {
              boolean cancelled = row.getObject("cancelled_at") != null;
              long unfinished = row.getLong("unfinished");
              long unsuccessful = row.getLong("unsuccessful");
              boolean ended = cancelled || (row.getBoolean("closed") && unfinished == 0);
              String how =
                  cancelled
                      ? "CANCELLED"
                      : "DONE, with " + unsuccessful + " trials failed or cancelled";
              targets.put(
                  row.getString("id"),
                  new Target(row.getString("owner"), ended, !cancelled && unsuccessful == 0, how));
            });
    return targets;
  }
}

package io.gpuq.storage;

import io.gpuq.job.Job;
import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPage;
import io.gpuq.job.QueryTimeouts;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;

/**
 * A page in two reads: the ids of its rows, by an index that serves the filter in id order and
 * stops at the limit; then those jobs, whose labels and attempts follow in batches ({@link
 * Job#ASSOCIATION_BATCH} at a time). Reading entities with the filter itself would let Hibernate
 * load associations for the filter's every match.
 *
 * <p>The id read is SQL, not JPQL: a label filter is then one correlated {@code exists} on {@code
 * job_labels}, without the second copy of {@code jobs} that a JPQL map join puts in the subquery.
 * It runs unchanged on PostgreSQL and on H2 in PostgreSQL mode; the indexes are V5's.
 */
class JobListingImpl implements JobListing {

  /** The JPA hint that becomes JDBC's {@code setQueryTimeout}, honoured by H2 and PostgreSQL. */
  static final String TIMEOUT_HINT = "jakarta.persistence.query.timeout";

  @PersistenceContext private EntityManager entityManager;

  @Value("${gpuq.api.query-timeout:" + QueryTimeouts.DEFAULT + "}")
  private Duration timeout;

  @Override
  public JobPage page(JobFilter filter) {
    List<String> ids = pageIds(filter);
    boolean more = ids.size() > filter.limit();
    List<String> pageIds = more ? ids.subList(0, filter.limit()) : ids;
    List<Job> jobs = pageIds.isEmpty() ? List.of() : jobsWithIds(pageIds);
    return new JobPage(jobs, more ? pageIds.get(pageIds.size() - 1) : null);
  }

  private List<String> pageIds(JobFilter filter) {
    List<Map.Entry<String, String>> labels = List.copyOf(filter.labels().entrySet());
    List<Object> parameters = new ArrayList<>();
    StringBuilder sql =
        labels.isEmpty()
            ? jobsNewestFirst(filter, parameters)
            : labelNewestFirst(filter, labels, parameters);
    parameters.add(filter.limit() + 1);
    Query query = timed(entityManager.createNativeQuery(sql.toString(), String.class));
    for (int i = 0; i < parameters.size(); i++) {
      query.setParameter(i + 1, parameters.get(i));
    }
    @SuppressWarnings("unchecked")
    List<String> ids = query.getResultList();
    return ids;
  }

  private static StringBuilder jobsNewestFirst(JobFilter filter, List<Object> parameters) {
    StringBuilder sql = new StringBuilder("select j.id from jobs j where 1 = 1");
    ownerAndState(filter, sql, parameters);
    if (filter.beforeId() != null) {
      sql.append(" and j.id < ?");
      parameters.add(filter.beforeId());
    }
    return sql.append(" order by ").append(newestFirst(filter)).append(" limit ?");
  }

  /** The filter's owner and state as conditions on {@code jobs j}, each only when it is set. */
  private static void ownerAndState(JobFilter filter, StringBuilder sql, List<Object> parameters) {
    if (filter.owner() != null) {
      sql.append(" and j.owner = ?");
      parameters.add(filter.owner());
    }
    if (filter.state() != null) {
      sql.append(" and j.state = ?");
      parameters.add(filter.state().name());
    }
  }

  /**
   * Driven from the first label's index entries, newest first, with the rest of the filter probed
   * per entry: a label (a sweep, a run) is usually rarer than a state or an owner, and probing
   * every job for a rare label read about 1,000 jobs per match (MillionJobsBench, H2). One table in
   * the outer read, not a join: with parameters instead of literals H2 may put {@code jobs} first
   * in a join and walk it whole.
   */
  private static StringBuilder labelNewestFirst(
      JobFilter filter, List<Map.Entry<String, String>> labels, List<Object> parameters) {
    StringBuilder sql =
        new StringBuilder(
            "select l0.job_id from job_labels l0 where l0.label_key = ? and l0.label_value = ?");
    parameters.add(labels.get(0).getKey());
    parameters.add(labels.get(0).getValue());
    if (filter.beforeId() != null) {
      sql.append(" and l0.job_id < ?");
      parameters.add(filter.beforeId());
    }
    if (filter.owner() != null || filter.state() != null) {
      sql.append(" and exists (select 1 from jobs j where j.id = l0.job_id");
      ownerAndState(filter, sql, parameters);
      sql.append(")");
    }
    for (Map.Entry<String, String> label : labels.subList(1, labels.size())) {
      sql.append(
          " and exists (select 1 from job_labels l where l.job_id = l0.job_id"
              + " and l.label_key = ? and l.label_value = ?)");
      parameters.add(label.getKey());
      parameters.add(label.getValue());
    }
    return sql.append(" order by ").append(LABEL_NEWEST_FIRST).append(" limit ?");
  }

  /** Newest first among one label's jobs, spelled as V5's {@code job_labels_newest} index is. */
  private static final String LABEL_NEWEST_FIRST = "l0.label_key, l0.label_value, l0.job_id desc";

  /**
   * Newest first, spelled as the index that serves the filter is: H2 reads an index in order, and
   * stops at the limit, only when ORDER BY names its columns from the first, the equal ones too
   * (EXPLAIN, H2 2.4; otherwise it sorts every match, 800,000 for a state). PostgreSQL drops the
   * columns the filter holds equal, and reads the same index either way.
   */
  private static String newestFirst(JobFilter filter) {
    if (filter.owner() != null && filter.state() != null) {
      return "j.owner, j.state, j.id desc"; // jobs_owner_state_newest
    }
    if (filter.owner() != null) {
      return "j.owner desc, j.id desc"; // jobs_owner (owner, id), read backwards
    }
    if (filter.state() != null) {
      return "j.state, j.id desc"; // jobs_state_newest
    }
    return "j.id desc"; // the primary key, read backwards
  }

  /** In statements of {@link Job#ASSOCIATION_BATCH} ids, for the reason given there. */
  private List<Job> jobsWithIds(List<String> ids) {
    List<Job> jobs = new ArrayList<>(ids.size());
    for (int from = 0; from < ids.size(); from += Job.ASSOCIATION_BATCH) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + Job.ASSOCIATION_BATCH));
      jobs.addAll(
          timed(entityManager.createQuery("select j from Job j where j.id in :ids", Job.class))
              .setParameter("ids", chunk)
              .getResultList());
    }
    jobs.sort(Comparator.comparing(Job::id).reversed());
    return jobs;
  }

  private <Q extends Query> Q timed(Q query) {
    // An Integer: Hibernate refuses a Long here.
    query.setHint(TIMEOUT_HINT, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
    return query;
  }
}

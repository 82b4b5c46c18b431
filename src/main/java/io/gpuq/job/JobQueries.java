package io.gpuq.job;

import jakarta.persistence.criteria.MapJoin;
import jakarta.persistence.criteria.Predicate;
import jakarta.persistence.criteria.Root;
import jakarta.persistence.criteria.Subquery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.data.domain.Sort;
import org.springframework.data.jpa.domain.Specification;

/** Listing jobs with filters and id cursors; ULID ids sort by creation time. */
final class JobQueries {

  private JobQueries() {}

  static JobPage page(JobRepository repository, JobFilter filter) {
    List<Job> rows =
        repository.findBy(
            matching(filter),
            q -> q.sortBy(Sort.by(Sort.Direction.DESC, "id")).limit(filter.limit() + 1).all());
    if (rows.size() <= filter.limit()) {
      return new JobPage(rows, null);
    }
    List<Job> page = rows.subList(0, filter.limit());
    return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
  }

  private static Specification<Job> matching(JobFilter filter) {
    return (root, query, cb) -> {
      List<Predicate> all = new ArrayList<>();
      if (filter.owner() != null) {
        all.add(cb.equal(root.get("owner"), filter.owner()));
      }
      if (filter.state() != null) {
        all.add(cb.equal(root.get("state"), filter.state()));
      }
      if (filter.beforeId() != null) {
        all.add(cb.lessThan(root.get("id"), filter.beforeId()));
      }
      for (Map.Entry<String, String> label : filter.labels().entrySet()) {
        // A correlated EXISTS: H2 re-runs an uncorrelated IN (subquery) for every row.
        Subquery<Integer> carrying = query.subquery(Integer.class);
        Root<Job> same = carrying.correlate(root);
        MapJoin<Job, String, String> labels = same.joinMap("labels");
        carrying
            .select(cb.literal(1))
            .where(
                cb.equal(labels.key(), label.getKey()), cb.equal(labels.value(), label.getValue()));
        all.add(cb.exists(carrying));
      }
      return cb.and(all.toArray(Predicate[]::new));
    };
  }
}

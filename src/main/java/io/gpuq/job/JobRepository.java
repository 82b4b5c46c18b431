package io.gpuq.job;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.JpaSpecificationExecutor;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface JobRepository extends JpaRepository<Job, String>, JpaSpecificationExecutor<Job> {

  Optional<Job> findByOwnerAndIdempotencyKey(String owner, String idempotencyKey);

  /**
   * Those of the given jobs that are still queued, locked until the transaction ends; rows another
   * transaction holds are skipped ({@code FOR UPDATE SKIP LOCKED}). This is how a node claims: of
   * several nodes claiming one job at once, one wins and the others move on at once instead of
   * queueing on its lock.
   */
  @Query(
      value = "select * from jobs where id in (:ids) and state = 'QUEUED' for update skip locked",
      nativeQuery = true)
  List<Job> findQueuedForUpdate(@Param("ids") Collection<String> ids);

  /** The head of the queue in scheduling order: priority first, then submission order. */
  @Query(
      "select new io.gpuq.job.QueuedJob(j.id, j.gpus, j.gpuMemoryBytes, j.gpuFraction,"
          + " j.priority, j.queuedAt, j.nodeSelector)"
          + " from Job j where j.state = io.gpuq.job.JobState.QUEUED"
          + " order by j.priority desc, j.id asc")
  List<QueuedJob> findQueueHead(Limit limit);

  @Query("select j.state, count(j) from Job j group by j.state")
  List<Object[]> countByStateRaw();

  @Query(
      "select a from JobAttempt a where a.node = :node"
          + " and a.failureReason = io.gpuq.job.FailureReason.LOST and a.pid is not null")
  List<JobAttempt> findLostAttemptsOn(@Param("node") String node);

  @Query("select j from Job j where j.state = :state and j.node = :node")
  List<Job> findByStateAndNode(@Param("state") JobState state, @Param("node") String node);
}

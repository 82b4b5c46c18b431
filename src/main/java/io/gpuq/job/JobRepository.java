package io.gpuq.job;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface JobRepository
    extends JpaRepository<Job, String>, TransitionWrites, JobListing, MetricsRows {

  Optional<Job> findByOwnerAndIdempotencyKey(String owner, String idempotencyKey);

  /**
   * The head of the queue of CPU-only jobs in scheduling order: priority first, then submission
   * order. CPU-only and GPU jobs are read apart because they compete for different capacity: a pass
   * with two free CPU slots needs two CPU-only jobs, not the GPU jobs' lookahead.
   */
  @Query(
      "select new io.gpuq.job.QueuedJob(j.id, j.gpus, j.gpuMemoryBytes, j.gpuFraction,"
          + " j.priority, j.queuedAt, j.nodeSelector)"
          + " from Job j where j.state = io.gpuq.job.JobState.QUEUED and j.gpus = 0"
          // The same order, spelled as the index is: H2 then reads it sorted and stops at the
          // limit, instead of sorting every queued row.
          + " order by j.state, j.gpus, j.priority desc, j.id asc")
  List<QueuedJob> findCpuQueueHead(Limit limit);

  /** The head of the queue of GPU jobs, in the same order. */
  @Query(
      "select new io.gpuq.job.QueuedJob(j.id, j.gpus, j.gpuMemoryBytes, j.gpuFraction,"
          + " j.priority, j.queuedAt, j.nodeSelector)"
          // ">= 1", not "> 0": H2 starts an index range at ">= 1", but reads every queued row to
          // filter "> 0" (EXPLAIN ANALYZE, H2 2.4).
          + " from Job j where j.state = io.gpuq.job.JobState.QUEUED and j.gpus >= 1"
          + " order by j.priority desc, j.id asc")
  List<QueuedJob> findGpuQueueHead(Limit limit);

  /**
   * Records a worker's process in one statement. Not only while the job runs: a fast worker may
   * have ended, and been recorded, before its launch is.
   */
  @Modifying
  @Query(
      "update JobAttempt a set a.pid = :pid, a.pidStartTicks = :ticks"
          + " where a.job.id = :jobId and a.attempt = :attempt")
  int recordWorkerProcess(
      @Param("jobId") String jobId,
      @Param("attempt") int attempt,
      @Param("pid") long pid,
      @Param("ticks") long pidStartTicks);

  @Query("select j.state, count(j) from Job j group by j.state")
  List<Object[]> countByStateRaw();

  @Query(
      "select new io.gpuq.job.LostAttempt(a.job.id, a.attempt, a.pid, a.pidStartTicks)"
          + " from JobAttempt a where a.node = :node"
          + " and a.failureReason = io.gpuq.job.FailureReason.LOST")
  List<LostAttempt> findLostAttemptsOn(@Param("node") String node);

  @Query("select j from Job j where j.state = :state and j.node = :node")
  List<Job> findByStateAndNode(@Param("state") JobState state, @Param("node") String node);

  @Query("select j.id from Job j where j.id in :ids and j.state in :states")
  List<String> findIdsInStates(
      @Param("ids") Collection<String> ids, @Param("states") Collection<JobState> states);
}

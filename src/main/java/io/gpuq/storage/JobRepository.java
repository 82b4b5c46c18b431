package io.gpuq.storage;

import io.gpuq.job.Job;
import io.gpuq.job.JobState;
import io.gpuq.job.LostAttempt;
import io.gpuq.job.StoppedAttempt;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface JobRepository extends JpaRepository<Job, String> {

  Optional<Job> findByOwnerAndIdempotencyKey(String owner, String idempotencyKey);

  /**
   * A job with its attempts in one statement, and its labels in a second (their eager batch read),
   * instead of a statement for each: a job's page is read most, and each statement is a round trip
   * to the database. Not the labels in the same join: the attempts are a bag, and each label would
   * repeat every attempt in it.
   */
  @Query("select j from Job j left join fetch j.attempts where j.id = :id")
  Optional<Job> findWithAttempts(@Param("id") String id);

  /**
   * Records a worker's process in one statement. Not only while the job runs: a fast worker may
   * have ended, and been recorded, before its launch is.
   */
  @Modifying
  @Query(
      "update JobAttempt a set a.pid = :pid, a.pidStartTicks = :ticks, a.cores = :cores,"
          + " a.coresBoundBy = :boundBy where a.job.id = :jobId and a.attempt = :attempt")
  int recordWorkerProcess(
      @Param("jobId") String jobId,
      @Param("attempt") int attempt,
      @Param("pid") long pid,
      @Param("ticks") long pidStartTicks,
      @Param("cores") String cores,
      @Param("boundBy") String coresBoundBy);

  @Query("select j.state, count(j) from Job j group by j.state")
  List<Object[]> countByStateRaw();

  @Query(
      "select new io.gpuq.job.LostAttempt(a.job.id, a.attempt, a.pid, a.pidStartTicks)"
          + " from JobAttempt a where a.node = :node"
          + " and a.failureReason = io.gpuq.job.FailureReason.LOST and a.finishedAt >= :since")
  List<LostAttempt> findLostAttemptsOn(
      @Param("node") String node, @Param("since") Instant declaredSince);

  /**
   * From the index of jobs by end ({@code jobs_finished}): the attempts' rows are few. A job whose
   * worker is still being stopped has no end yet (issue 34).
   */
  @Query(
      "select new io.gpuq.job.StoppedAttempt(j.id, a.attempt, j.state, a.placement, a.startedAt,"
          + " a.pid, a.pidStartTicks, j.finishedAt)"
          + " from JobAttempt a join a.job j"
          + " where (j.finishedAt >= :since or j.finishedAt is null) and j.state in :states"
          + " and j.node = :node"
          + " and a.attempt = j.attempt and a.node = :node and a.exitCode is null")
  List<StoppedAttempt> findStoppedAttemptsOn(
      @Param("node") String node,
      @Param("since") Instant since,
      @Param("states") Collection<JobState> states);

  @Query("select j from Job j where j.state = :state and j.node = :node")
  List<Job> findByStateAndNode(@Param("state") JobState state, @Param("node") String node);

  @Query("select j.id from Job j where j.id in :ids and j.state in :states")
  List<String> findIdsInStates(
      @Param("ids") Collection<String> ids, @Param("states") Collection<JobState> states);
}

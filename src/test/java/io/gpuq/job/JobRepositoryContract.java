package io.gpuq.job;

import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.gpuq.config.GpuqProperties.Auth.Role;
import io.gpuq.security.Caller;
import io.gpuq.support.IntegrationTier;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.domain.Limit;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What gpuq needs from its database, run unchanged on each database it supports: H2 in PostgreSQL
 * mode (one node) and PostgreSQL (several nodes sharing one database). Each subclass points the
 * context at a fresh database that Flyway migrates; tests commit for real, as the application does,
 * and several of them race real threads against each other.
 */
@IntegrationTier
@DataJpaTest(showSql = false)
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
// Commits for real: rollback-only test transactions would hide constraint and version checks.
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Import({JobService.class, JobRepositoryContract.Fixtures.class})
abstract class JobRepositoryContract {

  static final Instant T0 = Instant.parse("2026-11-29T12:00:00.123456Z");
  static final long GIB = 1L << 30;
  static final Caller ALICE = new Caller("alice", Role.SUBMITTER);
  static final Caller BOB = new Caller("bob", Role.SUBMITTER);
  static final Caller ADMIN = new Caller("root", Role.ADMIN);

  @Autowired JobRepository repository;
  @Autowired JobService service;
  @Autowired TransactionTemplate tx;
  @Autowired DataSource dataSource;
  @Autowired RecordedEvents events;

  private final JobIds ids = new JobIds(Clock.fixed(T0, ZoneOffset.UTC));

  /** The name JDBC gives the database these tests must run on. */
  abstract String databaseProductName();

  /** A query counting sessions of this database that wait for a lock another one holds. */
  abstract String sessionsWaitingForALockSql();

  @TestConfiguration(proxyBeanMethods = false)
  static class Fixtures {
    @Bean
    Clock clock() {
      return Clock.fixed(T0, ZoneOffset.UTC);
    }

    @Bean
    RecordedEvents recordedEvents() {
      return new RecordedEvents();
    }
  }

  /** The lifecycle events JobService sent, in order. */
  static final class RecordedEvents implements JobLifecycleListener {
    final Queue<String> started = new ConcurrentLinkedQueue<>();
    final Queue<JobState> endedIn = new ConcurrentLinkedQueue<>();

    @Override
    public void attemptStarted(
        String jobId, int attempt, Instant createdAt, Instant queuedAt, Instant startedAt) {
      started.add(jobId + "#" + attempt);
    }

    @Override
    public void attemptEnded(String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {
      endedIn.add(jobState);
    }
  }

  @BeforeEach
  void emptyDatabase() {
    jdbc().update("delete from jobs"); // labels and attempts go with their job (on delete cascade)
    events.started.clear();
    events.endedIn.clear();
  }

  @Test
  void it_runs_on_the_database_it_names() throws Exception {
    try (var connection = dataSource.getConnection()) {
      assertThat(connection.getMetaData().getDatabaseProductName())
          .isEqualTo(databaseProductName());
    }
    assertThat(jdbc().queryForObject("select count(*) from flyway_schema_history", Integer.class))
        .isPositive();
  }

  // --- storing a job -----------------------------------------------------------------------------

  @Test
  void a_job_reads_back_with_its_labels_argv_environment_placement_and_attempts() {
    JobPlacement firstPlacement =
        new JobPlacement(
            "node-1",
            List.of(
                new JobPlacement.Gpu(0, "GPU-aaaa-0", 6 * GIB),
                new JobPlacement.Gpu(3, "GPU-aaaa-3", 6 * GIB)),
            0.375);
    JobPlacement secondPlacement =
        new JobPlacement("node-2", List.of(new JobPlacement.Gpu(1, "GPU-bbbb-1", 9 * GIB)), 0.5);
    Job job =
        Job.submit(
            ids.next(),
            "alice",
            aSpec()
                .command("python3", "train.py", "--note", "it's \"quoted\"\nand ünïcödé ✓")
                .env(Map.of("SEED", "7", "EMPTY", ""))
                .labels(Map.of("team", "vision", "run", "r-17", "note", "Ölçüm ✓"))
                .workingDir("/data/runs/r-17")
                .timeout(Duration.ofMinutes(90))
                .gpuMemory(6 * GIB)
                .attempts(3)
                .build(),
            "key-1",
            T0);
    job.start(firstPlacement, T0.plusSeconds(2));
    job.observeGpuMemory(5 * GIB);
    job.failAttempt(
        FailureReason.OUT_OF_MEMORY, "CUDA out of memory", 1, 16 * GIB, T0.plusSeconds(60));
    job.start(secondPlacement, T0.plusSeconds(61));
    save(job);
    service
        .recordWorkerProcesses(List.of(new WorkerProcess(job.id(), 1, 4242, 987_654_321L)))
        .join();

    Job read = reload(job.id());

    assertThat(read.owner()).isEqualTo("alice");
    assertThat(read.state()).isEqualTo(JobState.RUNNING);
    assertThat(read.attempt()).isEqualTo(2);
    assertThat(read.command())
        .containsExactly("python3", "train.py", "--note", "it's \"quoted\"\nand ünïcödé ✓");
    assertThat(read.env()).isEqualTo(Map.of("SEED", "7", "EMPTY", ""));
    assertThat(read.labels()).isEqualTo(Map.of("team", "vision", "run", "r-17", "note", "Ölçüm ✓"));
    assertThat(read.workingDir()).isEqualTo("/data/runs/r-17");
    assertThat(read.timeout()).isEqualTo(Duration.ofMinutes(90));
    assertThat(read.gpuMemoryBytes()).isEqualTo(9 * GIB); // grown by 1.5 after the OOM
    assertThat(read.requestedGpuMemoryBytes()).isEqualTo(6 * GIB); // as submitted
    assertThat(read.idempotencyKey()).isEqualTo("key-1");
    assertThat(read.node()).isEqualTo("node-2");
    assertThat(read.placement()).isEqualTo(secondPlacement);
    assertThat(read.attempts())
        .satisfiesExactly(
            first -> {
              assertThat(first.attempt()).isEqualTo(1);
              assertThat(first.placement()).isEqualTo(firstPlacement);
              assertThat(first.budgetBytes()).isEqualTo(6 * GIB);
              assertThat(first.pid()).isEqualTo(4242);
              assertThat(first.pidStartTicks()).isEqualTo(987_654_321L);
              assertThat(first.peakGpuMemoryBytes()).isEqualTo(5 * GIB);
              assertThat(first.outcome()).isEqualTo(JobState.FAILED);
              assertThat(first.failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
              assertThat(first.failureMessage()).isEqualTo("CUDA out of memory");
              assertThat(first.exitCode()).isEqualTo(1);
            },
            second -> {
              assertThat(second.attempt()).isEqualTo(2);
              assertThat(second.node()).isEqualTo("node-2");
              assertThat(second.placement()).isEqualTo(secondPlacement);
              assertThat(second.outcome()).isNull();
            });
  }

  @Test
  void instants_keep_their_microseconds_and_are_stored_as_absolute_times() {
    Instant started = T0.plus(Duration.ofSeconds(3, 1_000)); // one microsecond past the second
    Job job = Job.submit(ids.next(), "alice", aSpec().build(), null, T0);
    job.start(JobPlacement.cpuOnly("node-1"), started);
    job.succeed(0, started.plusNanos(999_000));
    save(job);

    Job read = reload(job.id());

    assertThat(read.createdAt()).isEqualTo(T0);
    assertThat(read.queuedAt()).isEqualTo(T0);
    assertThat(read.startedAt()).isEqualTo(started);
    assertThat(read.finishedAt()).isEqualTo(started.plusNanos(999_000));
    assertThat(read.attempts().get(0).startedAt()).isEqualTo(started);
    // Read past Hibernate: the column holds the same instant whatever the server's time zone.
    OffsetDateTime column =
        jdbc()
            .queryForObject(
                "select created_at from jobs where id = ?",
                (ResultSet rs, int row) -> rs.getObject(1, OffsetDateTime.class),
                job.id());
    assertThat(column.toInstant()).isEqualTo(T0);
  }

  @Test
  void jobs_without_a_key_never_collide() {
    for (int i = 0; i < 3; i++) {
      save(Job.submit(ids.next(), "alice", aSpec().build(), null, T0));
    }

    assertThat(repository.count()).isEqualTo(3);
  }

  // --- idempotency keys --------------------------------------------------------------------------

  @Test
  void one_owner_cannot_store_two_jobs_with_one_key_but_two_owners_can() {
    Job first = save(Job.submit(ids.next(), "alice", aSpec().build(), "nightly", T0));

    assertThatThrownBy(() -> save(Job.submit(ids.next(), "alice", aSpec().build(), "nightly", T0)))
        .isInstanceOf(DataIntegrityViolationException.class);
    Job bobs = save(Job.submit(ids.next(), "bob", aSpec().build(), "nightly", T0));

    assertThat(repository.findByOwnerAndIdempotencyKey("alice", "nightly"))
        .map(Job::id)
        .contains(first.id());
    assertThat(repository.findByOwnerAndIdempotencyKey("bob", "nightly"))
        .map(Job::id)
        .contains(bobs.id());
    assertThat(repository.findByOwnerAndIdempotencyKey("alice", "weekly")).isEmpty();
    assertThat(repository.count()).isEqualTo(2);
  }

  @Test
  void a_repeated_submission_returns_the_first_job() {
    Submission first = service.submit(ALICE, aSpec().build(), "nightly");
    Submission again = service.submit(ALICE, aSpec().build(), "nightly");

    assertThat(first.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.job().id()).isEqualTo(first.job().id());
  }

  @Test
  void simultaneous_submissions_with_one_key_create_exactly_one_job() throws Exception {
    List<Outcome<Submission>> outcomes =
        race(6, i -> service.submit(ALICE, aSpec().build(), "same-key"));

    assertThat(outcomes).allSatisfy(o -> assertThat(o.failure()).isNull());
    assertThat(outcomes).filteredOn(o -> o.value().created()).hasSize(1);
    assertThat(outcomes)
        .extracting(o -> o.value().job().id())
        .containsOnly(outcomes.get(0).value().job().id());
    assertThat(repository.count()).isEqualTo(1);
  }

  // --- the queue ---------------------------------------------------------------------------------

  @Test
  void its_head_is_queued_jobs_by_priority_then_submission_order() {
    Job low = save(queued(0));
    Job highFirst = save(queued(5));
    Job highSecond = save(queued(5));
    save(running(10, "node-1"));
    Job lowest = save(queued(-1));
    save(cancelled(10));

    assertThat(repository.findCpuQueueHead(Limit.of(3)))
        .extracting(QueuedJob::id)
        .containsExactly(highFirst.id(), highSecond.id(), low.id());
    assertThat(service.cpuQueueHead(10))
        .extracting(QueuedJob::id)
        .containsExactly(highFirst.id(), highSecond.id(), low.id(), lowest.id());
  }

  @Test
  void cpu_only_and_gpu_jobs_are_read_as_two_queues_each_in_scheduling_order() {
    Job cpuLow = save(queued(0));
    Job gpuLow = save(queuedOnGpus(0));
    Job cpuHigh = save(queued(5));
    Job gpuHigh = save(queuedOnGpus(5));
    Job gpuLowSecond = save(queuedOnGpus(0));

    assertThat(service.cpuQueueHead(10))
        .extracting(QueuedJob::id)
        .containsExactly(cpuHigh.id(), cpuLow.id());
    assertThat(service.queueHead(0, 10).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(gpuHigh.id(), gpuLow.id(), gpuLowSecond.id());
    assertThat(service.queueHead(0, 2).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(gpuHigh.id(), gpuLow.id());
  }

  @Test
  void a_worker_process_is_recorded_on_its_attempt_even_after_the_attempt_ended() {
    Job job = running(0, "node-1");
    job.succeed(0, T0.plusSeconds(2));
    save(job);

    service.recordWorkerProcesses(List.of(new WorkerProcess(job.id(), 1, 4242, 987L))).join();

    JobAttempt attempt = service.get(ADMIN, job.id()).attempts().get(0);
    assertThat(attempt.pid()).isEqualTo(4242);
    assertThat(attempt.pidStartTicks()).isEqualTo(987L);
    assertThat(attempt.outcome()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void a_worker_process_recorded_while_the_attempt_end_is_written_keeps_both() throws Exception {
    Job job = save(running(0, "node-1"));

    tx.executeWithoutResult(
        status -> {
          Job loaded = repository.findById(job.id()).orElseThrow();
          // Another transaction records the process after this one read the attempt.
          runInAnotherThread(
              () ->
                  service
                      .recordWorkerProcesses(List.of(new WorkerProcess(job.id(), 1, 77, 5L)))
                      .join());
          loaded.succeed(0, T0.plusSeconds(3));
        });

    JobAttempt attempt = reload(job.id()).attempts().get(0);
    assertThat(attempt.pid()).isEqualTo(77);
    assertThat(attempt.pidStartTicks()).isEqualTo(5L);
    assertThat(attempt.outcome()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void a_success_recorded_in_one_statement_stores_what_the_entity_would() {
    Job viaService = save(running(0, "node-1"));
    Job viaEntity = save(running(0, "node-1"));

    service.recordAttemptEnd(viaService.id(), 1, AttemptOutcome.succeeded(), 0);
    Instant finished = reload(viaService.id()).finishedAt();
    tx.executeWithoutResult(
        status -> repository.findById(viaEntity.id()).orElseThrow().succeed(0, finished));

    assertThat(storedRow("jobs", "id", viaService.id()))
        .isEqualTo(storedRow("jobs", "id", viaEntity.id()));
    assertThat(storedRow("job_attempts", "job_id", viaService.id()))
        .isEqualTo(storedRow("job_attempts", "job_id", viaEntity.id()));
    assertThat(reload(viaService.id()).state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(events.endedIn).contains(JobState.SUCCEEDED);
  }

  @Test
  void an_attempt_that_ended_at_a_known_time_ends_then_not_when_its_end_is_recorded() {
    Instant started = T0.minusSeconds(60);
    Instant ended = T0.minusSeconds(44).plusNanos(123_456_000);
    Job succeeded = save(runningSince(started));
    Job failed = save(runningSince(started));
    Job fromTheFuture = save(runningSince(started));

    service.recordAttemptEndLater(succeeded.id(), 1, AttemptOutcome.succeeded(), 0, ended).join();
    service
        .recordAttemptEndLater(
            failed.id(),
            1,
            new AttemptOutcome(FailureReason.EXIT_CODE, "exited with code 3", 3),
            0,
            ended)
        .join();
    service
        .recordAttemptEndLater(
            fromTheFuture.id(), 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(3600))
        .join();

    for (Job job : List.of(succeeded, failed)) {
      Job read = reload(job.id());
      assertThat(read.state()).as(job.id()).isIn(JobState.SUCCEEDED, JobState.FAILED);
      assertThat(read.finishedAt()).as(job.id()).isEqualTo(ended);
      assertThat(read.attempts().get(0).finishedAt()).as(job.id()).isEqualTo(ended);
    }
    // A clock that ran ahead of this node's must not end an attempt in the future.
    assertThat(reload(fromTheFuture.id()).finishedAt()).isEqualTo(T0);
  }

  private Job runningSince(Instant started) {
    Job job = Job.submit(ids.next(), "alice", aSpec().build(), null, started);
    job.start(JobPlacement.cpuOnly("node-1"), started);
    return job;
  }

  // --- claiming without loading the job ----------------------------------------------------------

  static final JobPlacement TWO_GPUS =
      new JobPlacement(
          "node-1",
          List.of(
              new JobPlacement.Gpu(1, "GPU-aaaa-1", 6 * GIB),
              new JobPlacement.Gpu(3, "GPU-aaaa-3", 6 * GIB)),
          0.375);

  @Test
  void a_claim_stores_what_starting_the_entity_would() {
    Job viaService = save(claimable());
    Job viaEntity = save(claimable());
    // No path leaves these on a queued job today, but Job.start clears them: so must a claim.
    for (String id : List.of(viaService.id(), viaEntity.id())) {
      jdbc()
          .update(
              "update jobs set failure_reason = 'OUT_OF_MEMORY', failure_message = 'earlier',"
                  + " exit_code = 137 where id = ?",
              id);
    }
    long versionBefore = version(viaService.id());

    assertThat(service.markStarted(viaService.id(), TWO_GPUS)).isPresent();
    tx.executeWithoutResult(
        status -> repository.findById(viaEntity.id()).orElseThrow().start(TWO_GPUS, T0));

    assertThat(storedRow("jobs", "id", viaService.id()))
        .isEqualTo(storedRow("jobs", "id", viaEntity.id()));
    assertThat(storedRow("job_attempts", "job_id", viaService.id()))
        .isEqualTo(storedRow("job_attempts", "job_id", viaEntity.id()));
    Job read = reload(viaService.id());
    assertThat(read.state()).isEqualTo(JobState.RUNNING);
    assertThat(read.placement()).isEqualTo(TWO_GPUS);
    assertThat(read.node()).isEqualTo("node-1");
    assertThat(read.startedAt()).isEqualTo(T0); // the fixed clock, to the microsecond
    assertThat(read.failureReason()).isNull();
    assertThat(read.failureMessage()).isNull();
    assertThat(read.exitCode()).isNull();
    assertThat(version(viaService.id())).isEqualTo(versionBefore + 1);
    assertThat(read.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.attempt()).isEqualTo(1);
              assertThat(attempt.node()).isEqualTo("node-1");
              assertThat(attempt.placement()).isEqualTo(TWO_GPUS);
              assertThat(attempt.budgetBytes()).isEqualTo(6 * GIB);
              assertThat(attempt.startedAt()).isEqualTo(T0);
              assertThat(attempt.finishedAt()).isNull();
              assertThat(attempt.outcome()).isNull();
              assertThat(attempt.failureReason()).isNull();
              assertThat(attempt.exitCode()).isNull();
            });
    assertThat(events.started).containsExactly(viaService.id() + "#1");
  }

  @Test
  void a_claim_answers_what_launching_the_job_needs() {
    Job job = save(claimable());

    ClaimedJob claimed = service.markStarted(job.id(), TWO_GPUS).orElseThrow();

    assertThat(claimed)
        .isEqualTo(
            new ClaimedJob(
                job.id(),
                job.owner(),
                1,
                List.of("python3", "train.py", "--lr", "3e-4"),
                "/data/runs/r-1",
                Map.of("SEED", "7"),
                Framework.PYTORCH,
                Duration.ofMinutes(90),
                T0,
                T0));
    assertThat(
            service
                .markStarted(save(queued(0)).id(), JobPlacement.cpuOnly("node-1"))
                .orElseThrow()
                .timeout())
        .isNull();
  }

  @Test
  void a_requeued_job_claimed_again_gets_its_second_attempt() {
    Job viaService = save(requeued());
    Job viaEntity = save(requeued());

    ClaimedJob claimed = service.markStarted(viaService.id(), TWO_GPUS).orElseThrow();
    tx.executeWithoutResult(
        status -> repository.findById(viaEntity.id()).orElseThrow().start(TWO_GPUS, T0));

    assertThat(claimed.attempt()).isEqualTo(2);
    assertThat(claimed.queuedAt()).isEqualTo(T0.plusSeconds(60));
    assertThat(storedRow("jobs", "id", viaService.id()))
        .isEqualTo(storedRow("jobs", "id", viaEntity.id()));
    for (int attempt : List.of(1, 2)) {
      assertThat(storedAttempt(viaService.id(), attempt))
          .isEqualTo(storedAttempt(viaEntity.id(), attempt));
    }
    Job read = reload(viaService.id());
    assertThat(read.state()).isEqualTo(JobState.RUNNING);
    assertThat(read.attempt()).isEqualTo(2);
    assertThat(read.attempts())
        .satisfiesExactly(
            first -> {
              assertThat(first.attempt()).isEqualTo(1);
              assertThat(first.node()).isEqualTo("node-2");
              assertThat(first.outcome()).isEqualTo(JobState.FAILED);
            },
            second -> {
              assertThat(second.attempt()).isEqualTo(2);
              assertThat(second.placement()).isEqualTo(TWO_GPUS);
              assertThat(second.startedAt()).isEqualTo(T0);
              assertThat(second.outcome()).isNull();
            });
    assertThat(events.started).containsExactly(viaService.id() + "#2");
  }

  /** What the locking read would have returned for this job, had it still been queued. */
  private static ClaimedJob claimedAsIfLocked(Job job) {
    return new ClaimedJob(
        job.id(),
        job.owner(),
        job.attempt(),
        job.command(),
        job.workingDir(),
        job.env(),
        job.framework(),
        job.timeout(),
        job.createdAt(),
        job.queuedAt());
  }

  @Test
  void a_job_no_longer_queued_is_not_claimed_and_stays_as_it_was() {
    Job cancelled = save(cancelled(0));
    Job running = save(running(0, "node-2"));
    Job queued = save(queued(0));
    Map<String, Object> cancelledBefore = storedRow("jobs", "id", cancelled.id());
    Map<String, Object> runningBefore = storedRow("jobs", "id", running.id());

    List<ClaimedJob> claimed =
        service.markStarted(
            Map.of(cancelled.id(), TWO_GPUS, running.id(), TWO_GPUS, queued.id(), TWO_GPUS));
    // The writes' own guard, past the lock that already leaves such jobs out.
    List<ClaimedJob> startedPastTheLock =
        tx.execute(
            status ->
                repository.startWithoutLoading(
                    List.of(claimedAsIfLocked(cancelled), claimedAsIfLocked(running)),
                    Map.of(cancelled.id(), TWO_GPUS, running.id(), TWO_GPUS),
                    T0));

    assertThat(claimed).extracting(ClaimedJob::id).containsExactly(queued.id());
    assertThat(startedPastTheLock).isEmpty();
    assertThat(storedRow("jobs", "id", cancelled.id())).isEqualTo(cancelledBefore);
    assertThat(storedRow("jobs", "id", running.id())).isEqualTo(runningBefore);
    assertThat(reload(cancelled.id()).attempts()).isEmpty();
    assertThat(reload(running.id()).attempts()).singleElement();
    assertThat(events.started).containsExactly(queued.id() + "#1");
  }

  /** A queued GPU job with everything a launch reads set. */
  private Job claimable() {
    return Job.submit(
        ids.next(),
        "alice",
        aSpec()
            .command("python3", "train.py", "--lr", "3e-4")
            .workingDir("/data/runs/r-1")
            .env(Map.of("SEED", "7"))
            .framework(Framework.PYTORCH)
            .timeout(Duration.ofMinutes(90))
            .labels(Map.of("team", "vision"))
            .gpuMemory(6 * GIB)
            .attempts(3)
            .build(),
        null,
        T0);
  }

  /** A job whose first attempt ran out of memory on node-2, queued again for its second. */
  private Job requeued() {
    Job job = claimable();
    job.start(JobPlacement.cpuOnly("node-2"), T0.plusSeconds(1));
    job.failAttempt(FailureReason.OUT_OF_MEMORY, "CUDA out of memory", 1, 0, T0.plusSeconds(60));
    return job;
  }

  private long version(String id) {
    return jdbc().queryForObject("select version from jobs where id = ?", Long.class, id);
  }

  private Map<String, Object> storedAttempt(String jobId, int attempt) {
    Map<String, Object> row =
        new java.util.TreeMap<>(
            jdbc()
                .queryForMap(
                    "select * from job_attempts where job_id = ? and attempt = ?", jobId, attempt));
    row.remove("id");
    row.remove("job_id");
    return row;
  }

  /** A stored row without the columns that tell two jobs apart by construction. */
  private Map<String, Object> storedRow(String table, String idColumn, String id) {
    Map<String, Object> row =
        new java.util.TreeMap<>(
            jdbc().queryForMap("select * from " + table + " where " + idColumn + " = ?", id));
    for (String column : List.of("id", "job_id")) {
      row.remove(column);
    }
    return row;
  }

  private static void runInAnotherThread(Runnable work) {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      other.submit(work).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void jobs_are_counted_per_state_with_zero_for_empty_states() {
    save(queued(0));
    save(queued(0));
    save(running(0, "node-1"));
    save(cancelled(0));

    assertThat(service.countByState())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                JobState.QUEUED, 2L,
                JobState.RUNNING, 1L,
                JobState.SUCCEEDED, 0L,
                JobState.FAILED, 0L,
                JobState.CANCELLED, 1L));
  }

  @Test
  void a_node_finds_the_jobs_it_runs() {
    Job mine = save(running(0, "node-1"));
    Job alsoMine = save(running(0, "node-1"));
    save(running(0, "node-2"));
    save(queued(0));

    assertThat(repository.findByStateAndNode(JobState.RUNNING, "node-1"))
        .extracting(Job::id)
        .containsExactlyInAnyOrder(mine.id(), alsoMine.id());
  }

  @Test
  void a_node_finds_its_attempts_declared_lost_with_or_without_their_process() {
    Job withProcess = save(running(0, "node-1"));
    Job withoutProcess = save(running(0, "node-1"));
    save(running(0, "node-2"));
    service
        .recordWorkerProcesses(List.of(new WorkerProcess(withProcess.id(), 1, 4242, 987L)))
        .join();

    service.declareLostOn("node-1", "node node-1 stopped heartbeating");

    assertThat(service.lostAttemptsOn("node-1"))
        .containsExactlyInAnyOrder(
            new LostAttempt(withProcess.id(), 1, 4242L, 987L),
            new LostAttempt(withoutProcess.id(), 1, null, null));
    assertThat(service.lostAttemptsOn("node-2")).isEmpty();
  }

  // --- listing -----------------------------------------------------------------------------------

  /** Seven jobs: five of alice's with and without labels, two of bob's, oldest first. */
  record Listed(Job plain, Job visionProd, Job vision, Job nlpProd, Job visionProdToo) {}

  Listed jobsOfTwoOwners() {
    Job plain = submitWith(ALICE, Map.of());
    Job visionProd = submitWith(ALICE, Map.of("team", "vision", "env", "prod"));
    submitWith(BOB, Map.of("team", "vision", "env", "prod"));
    Job vision = submitWith(ALICE, Map.of("team", "vision"));
    Job nlpProd = submitWith(ALICE, Map.of("team", "nlp", "env", "prod"));
    submitWith(BOB, Map.of());
    Job visionProdToo = submitWith(ALICE, Map.of("team", "vision", "env", "prod", "x", "1"));
    return new Listed(plain, visionProd, vision, nlpProd, visionProdToo);
  }

  @Test
  void a_submitter_sees_only_their_own_jobs_newest_first() {
    Listed l = jobsOfTwoOwners();
    assertThat(ids(service.list(ALICE, null, Map.of(), null, 50)))
        .containsExactly(
            l.visionProdToo().id(),
            l.nlpProd().id(),
            l.vision().id(),
            l.visionProd().id(),
            l.plain().id());
    assertThat(service.list(ADMIN, null, Map.of(), null, 50).items()).hasSize(7);
  }

  @Test
  void jobs_must_carry_every_label_asked_for() {
    Listed l = jobsOfTwoOwners();
    assertThat(ids(service.list(ALICE, null, Map.of("team", "vision", "env", "prod"), null, 50)))
        .containsExactly(l.visionProdToo().id(), l.visionProd().id());
    assertThat(ids(service.list(ALICE, null, Map.of("env", "prod"), null, 50)))
        .containsExactly(l.visionProdToo().id(), l.nlpProd().id(), l.visionProd().id());
    assertThat(service.list(ADMIN, null, Map.of("team", "vision", "env", "prod"), null, 50).items())
        .hasSize(3);
    assertThat(service.list(ALICE, null, Map.of("team", "audio"), null, 50).items()).isEmpty();
  }

  @Test
  void a_state_filter_shows_only_that_state() {
    Listed l = jobsOfTwoOwners();
    service.markStarted(l.vision().id(), JobPlacement.cpuOnly("node-1"));

    assertThat(ids(service.list(ALICE, JobState.RUNNING, Map.of(), null, 50)))
        .containsExactly(l.vision().id());
    assertThat(service.list(ALICE, JobState.QUEUED, Map.of(), null, 50).items()).hasSize(4);
  }

  @Test
  void pages_continue_before_the_last_id_until_none_are_left() {
    Listed l = jobsOfTwoOwners();
    JobPage first = service.list(ALICE, null, Map.of(), null, 2);
    JobPage second = service.list(ALICE, null, Map.of(), first.nextBeforeId(), 2);
    JobPage third = service.list(ALICE, null, Map.of(), second.nextBeforeId(), 2);

    assertThat(ids(first)).containsExactly(l.visionProdToo().id(), l.nlpProd().id());
    assertThat(first.nextBeforeId()).isEqualTo(l.nlpProd().id());
    assertThat(ids(second)).containsExactly(l.vision().id(), l.visionProd().id());
    assertThat(ids(third)).containsExactly(l.plain().id());
    assertThat(third.nextBeforeId()).isNull();
    assertThat(service.list(ALICE, null, Map.of(), null, 5).nextBeforeId())
        .as("a page that holds exactly the rest has no next page")
        .isNull();
  }

  private Job submitWith(Caller caller, Map<String, String> labels) {
    return service.submit(caller, aSpec().labels(labels).build(), null).job();
  }

  private static List<String> ids(JobPage page) {
    return page.items().stream().map(Job::id).toList();
  }

  // --- concurrent writers ------------------------------------------------------------------------

  @Test
  void of_two_transactions_changing_one_job_the_second_to_commit_fails() throws Exception {
    String id = save(running(0, "node-1")).id();
    CyclicBarrier bothHaveRead = new CyclicBarrier(2);

    List<Outcome<JobState>> outcomes =
        race(
            2,
            i ->
                tx.execute(
                    status -> {
                      Job job = repository.findById(id).orElseThrow();
                      arrive(bothHaveRead);
                      if (i == 0) {
                        job.cancel(T0.plusSeconds(9));
                      } else {
                        job.succeed(0, T0.plusSeconds(9));
                      }
                      return job.state();
                    }));

    assertThat(outcomes).filteredOn(o -> o.failure() == null).hasSize(1);
    assertThat(outcomes)
        .filteredOn(o -> o.failure() != null)
        .singleElement()
        .satisfies(
            o -> assertThat(o.failure()).isInstanceOf(OptimisticLockingFailureException.class));
    JobState winner =
        outcomes.stream().filter(o -> o.failure() == null).findFirst().orElseThrow().value();
    assertThat(reload(id).state()).isEqualTo(winner);
  }

  @Test
  void an_attempt_that_ends_while_a_cancel_commits_is_recorded_on_the_cancelled_job()
      throws Exception {
    String id = save(running(0, "node-1")).id();

    Future<?> ending;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      ending =
          holdingAChange(
              id,
              job -> job.cancel(T0.plusSeconds(5)),
              () ->
                  pool.submit(
                      () ->
                          service.recordAttemptEnd(
                              id, 1, new AttemptOutcome(null, null, 0), 16 * GIB)));
      ending.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    Job job = reload(id);
    assertThat(job.state()).isEqualTo(JobState.CANCELLED);
    assertThat(job.exitCode()).isZero();
    assertThat(job.attempts().get(0).outcome()).isEqualTo(JobState.CANCELLED);
    assertThat(job.attempts().get(0).exitCode()).isZero();
    assertThat(events.endedIn).containsExactly(JobState.CANCELLED);
  }

  @Test
  void a_cancel_that_races_the_end_of_the_attempt_finds_the_job_finished() throws Exception {
    String id = save(running(0, "node-1")).id();
    List<Job> stopped = new ArrayList<>();

    Future<Job> cancelling;
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      cancelling =
          holdingAChange(
              id,
              job -> job.succeed(0, T0.plusSeconds(5)),
              () -> pool.submit(() -> service.cancel(ALICE, id, stopped::add)));

      assertThatThrownBy(() -> cancelling.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(JobConflictException.class);
    } finally {
      pool.shutdownNow();
    }
    assertThat(stopped).isEmpty();
    assertThat(reload(id).state()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void cancels_racing_attempt_ends_leave_every_job_consistent() throws Exception {
    for (int round = 0; round < 10; round++) {
      String id = save(running(0, "node-1")).id();

      List<Outcome<Object>> outcomes =
          race(
              2,
              i -> {
                if (i == 0) {
                  return service.cancel(ALICE, id, job -> {});
                }
                service.recordAttemptEnd(id, 1, new AttemptOutcome(null, null, 0), 16 * GIB);
                return null;
              });

      Job job = reload(id);
      Throwable cancelFailure = outcomes.get(0).failure();
      assertThat(outcomes.get(1).failure()).as("recording the end").isNull();
      if (job.state() == JobState.CANCELLED) {
        assertThat(cancelFailure).isNull();
        assertThat(job.attempts().get(0).exitCode()).as("exit code kept after cancel").isZero();
      } else {
        assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(cancelFailure).isInstanceOf(JobConflictException.class);
      }
    }
  }

  @Test
  void of_several_nodes_claiming_one_queued_job_exactly_one_starts_it() throws Exception {
    for (int round = 0; round < 5; round++) {
      String id = save(queued(0)).id();

      List<Outcome<Optional<ClaimedJob>>> claims = claimFromEightNodes(id);

      List<Integer> winners = new ArrayList<>();
      for (int node = 0; node < claims.size(); node++) {
        Outcome<Optional<ClaimedJob>> claim = claims.get(node);
        if (claim.failure() == null && claim.value().isPresent()) {
          winners.add(node);
        }
      }
      assertThat(winners).hasSize(1);
      Job job = reload(id);
      assertThat(job.state()).isEqualTo(JobState.RUNNING);
      assertThat(job.node()).isEqualTo("node-" + winners.get(0));
      assertThat(job.attempts()).singleElement();
    }
    assertThat(events.started).hasSize(5).doesNotHaveDuplicates();
  }

  @Test
  void a_node_that_loses_a_claim_is_told_so_without_an_error() throws Exception {
    for (int round = 0; round < 5; round++) {
      String id = save(queued(0)).id();

      List<Outcome<Optional<ClaimedJob>>> claims = claimFromEightNodes(id);

      assertThat(claims).allSatisfy(c -> assertThat(c.failure()).isNull());
      assertThat(claims).filteredOn(c -> c.value().isPresent()).hasSize(1);
    }
  }

  private List<Outcome<Optional<ClaimedJob>>> claimFromEightNodes(String id) throws Exception {
    return race(8, i -> service.markStarted(id, JobPlacement.cpuOnly("node-" + i)));
  }

  /**
   * Changes the job in a transaction of the test's own and flushes it, so that the database holds
   * the row's lock; starts {@code contender}, waits until the database shows it blocked on that
   * lock, and only then commits.
   */
  private <T> Future<T> holdingAChange(
      String id,
      java.util.function.Consumer<Job> change,
      java.util.function.Supplier<Future<T>> contender) {
    return tx.execute(
        status -> {
          Job job = repository.findById(id).orElseThrow();
          change.accept(job);
          repository.flush();
          Future<T> started = contender.get();
          await()
              .atMost(Duration.ofSeconds(20))
              .until(
                  () ->
                      started.isDone()
                          || jdbc().queryForObject(sessionsWaitingForALockSql(), Integer.class)
                              > 0);
          assertThat(started).as("the contender waits for our lock").isNotDone();
          return started;
        });
  }

  // --- fixtures -------------------------------------------------------------------------------

  Job queued(int priority) {
    return Job.submit(ids.next(), "alice", aSpec().priority(priority).build(), null, T0);
  }

  Job queuedOnGpus(int priority) {
    return Job.submit(
        ids.next(), "alice", aSpec().priority(priority).fraction(0.5).build(), null, T0);
  }

  Job running(int priority, String node) {
    Job job = queued(priority);
    job.start(JobPlacement.cpuOnly(node), T0.plusSeconds(1));
    return job;
  }

  Job cancelled(int priority) {
    Job job = queued(priority);
    job.cancel(T0.plusSeconds(1));
    return job;
  }

  Job save(Job job) {
    return tx.execute(status -> repository.save(job));
  }

  Job reload(String id) {
    return tx.execute(status -> repository.findById(id).orElseThrow());
  }

  JdbcTemplate jdbc() {
    return new JdbcTemplate(dataSource);
  }

  /** What one racer did: its value, or what it threw. */
  record Outcome<T>(T value, Throwable failure) {}

  /** Runs {@code n} tasks on their own threads, released together, and waits for all of them. */
  static <T> List<Outcome<T>> race(int n, IntFunction<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int racer = i;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  return task.apply(racer);
                }));
      }
      go.countDown();
      List<Outcome<T>> outcomes = new ArrayList<>();
      for (Future<T> future : futures) {
        try {
          outcomes.add(new Outcome<>(future.get(60, TimeUnit.SECONDS), null));
        } catch (java.util.concurrent.ExecutionException e) {
          outcomes.add(new Outcome<>(null, e.getCause()));
        }
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  private static void arrive(CyclicBarrier barrier) {
    try {
      barrier.await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the other racer never came", e);
    }
  }
}

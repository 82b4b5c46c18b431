package io.gpuq.job;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aFailedJob;
import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.gpuq.notify.Outbox;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.reported.SweepObjective;
import io.gpuq.storage.JobRepository;
import io.gpuq.storage.JpaJobStore;
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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job store contract on a database, and what only a database store must keep besides: the
 * columns it writes (the SQL fast paths write what the entity would), instants to the microsecond,
 * version checks and row locks. Run unchanged on each database gpuq supports: H2 in PostgreSQL mode
 * (one node) and PostgreSQL (several nodes sharing one database). Each subclass points the context
 * at a fresh database that Flyway migrates; tests commit for real, as the application does, and
 * several of them race real threads against each other.
 */
@IntegrationTier
@DataJpaTest(showSql = false)
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
// Commits for real: rollback-only test transactions would hide constraint and version checks.
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Import({JpaJobStore.class, JpaJobStoreContract.Fixtures.class})
abstract class JpaJobStoreContract extends JobStoreContract {

  @Autowired JobRepository repository;
  @Autowired JpaJobStore store;
  @Autowired TransactionTemplate tx;
  @Autowired DataSource dataSource;

  private final JobIds ids = new JobIds(Clock.fixed(T0, ZoneOffset.UTC));

  @Override
  JobStore store() {
    return store;
  }

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
  }

  @BeforeEach
  void emptyDatabase() {
    jdbc().update("delete from jobs"); // labels and attempts go with their job (on delete cascade)
    jdbc().update("delete from sweeps");
    jdbc().update("delete from notifications");
  }

  private static final List<NotifyTarget> NOTIFY =
      List.of(
          new NotifyTarget(
              "https://hooks.example/x",
              List.of(NotifyEvent.STARTED, NotifyEvent.ENDED, NotifyEvent.FAILED),
              NotifyFormat.JSON));

  private NewJob notified(String id) {
    return new NewJob(id, "alice", aSpec().build(), null, null, T0, List.of(), false, NOTIFY);
  }

  private long notificationRows(String jobId) {
    return jdbc()
        .queryForObject("select count(*) from notifications where job_id = ?", Long.class, jobId);
  }

  /**
   * The store's two styles share one transaction: a {@code *Table}'s {@code JdbcClient} over the
   * data source runs on the connection of the JPA transaction it is called in (the transaction
   * manager binds it for {@code DataSourceUtils}), so it sees what the entity wrote before the
   * commit, the entity sees what it wrote, and a rollback undoes both. On a connection of its own,
   * the count would still find the deleted job, and the update would outlive the rollback.
   */
  @Test
  void a_tables_statements_run_in_the_jpa_transaction_and_roll_back_with_it() {
    Job deleted = aQueuedJob().in(store());
    Job changed = aQueuedJob().in(store());
    JdbcClient sql = JdbcClient.create(dataSource);

    tx.executeWithoutResult(
        status -> {
          repository.delete(repository.findById(deleted.id()).orElseThrow());
          repository.flush();
          assertThat(
                  sql.sql("select count(*) from jobs where id = :id")
                      .param("id", deleted.id())
                      .query(Long.class)
                      .single())
              .isZero();
          sql.sql("update jobs set priority = 7 where id = :id").param("id", changed.id()).update();
          assertThat(repository.findById(changed.id()).orElseThrow().priority()).isEqualTo(7);
          status.setRollbackOnly();
        });

    assertThat(store().find(deleted.id())).isPresent();
    assertThat(store().find(changed.id()).orElseThrow().priority()).isEqualTo(changed.priority());
  }

  @Test
  void a_jobs_notifications_are_written_in_its_submissions_transaction_or_not_at_all() {
    store().submit(notified("job-notified"));
    assertThat(notificationRows("job-notified")).isEqualTo(3);

    aQueuedJob().ownedBy("alice").in(store());
    assertThatThrownBy(() -> store().submit(notified("job-refused"), 1))
        .isInstanceOf(TooManyQueuedJobsException.class);
    assertThat(store().find("job-refused")).isEmpty();
    assertThat(notificationRows("job-refused")).isZero();
  }

  @Test
  void notifications_become_due_as_their_job_moves_and_one_claim_of_two_wins() {
    io.gpuq.storage.NotificationTable outbox = new io.gpuq.storage.NotificationTable(dataSource);
    Job queued = aQueuedJob().in(store());
    Job running = aRunningJob().in(store());
    Job succeeded = aSucceededJob().in(store());
    for (Job job : List.of(queued, running, succeeded)) {
      outbox.add(job.id(), null, job.owner(), NOTIFY, T0);
    }

    // A queued job's rows wait; a running one's STARTED and an ended one's three are read.
    assertThat(outbox.jobEvents(100))
        .extracting(e -> e.job().id() + " " + e.event())
        .containsExactlyInAnyOrder(
            running.id() + " STARTED",
            succeeded.id() + " STARTED",
            succeeded.id() + " ENDED",
            succeeded.id() + " FAILED");
    Outbox.JobEvent ended =
        outbox.jobEvents(100).stream()
            .filter(e -> e.job().id().equals(succeeded.id()) && e.event() == NotifyEvent.ENDED)
            .findFirst()
            .orElseThrow();
    assertThat(ended.job().state()).isEqualTo("SUCCEEDED");
    assertThat(ended.job().exitCode()).isZero();
    assertThat(ended.job().finishedAt()).isNotNull();

    Instant now = T0.plusSeconds(60);
    assertThat(outbox.makeDue(ended.id(), "{}", now)).isTrue();
    assertThat(outbox.makeDue(ended.id(), "{}", now)).as("made due once").isFalse();
    assertThat(outbox.due(now, 10)).extracting(Outbox.Due::id).containsExactly(ended.id());

    // Two nodes: one claim wins, and the row is not due to anyone while held.
    assertThat(outbox.claim(ended.id(), now, now.plusSeconds(30))).isTrue();
    assertThat(outbox.claim(ended.id(), now, now.plusSeconds(30))).isFalse();
    assertThat(outbox.due(now, 10)).isEmpty();
    // A failed try: due again later, the try counted, the error kept.
    outbox.retryAt(ended.id(), now.plusSeconds(5), "the receiver answered 503");
    assertThat(outbox.due(now.plusSeconds(4), 10)).isEmpty();
    assertThat(outbox.due(now.plusSeconds(5), 10))
        .singleElement()
        .satisfies(d -> assertThat(d.attempts()).isEqualTo(1));
    assertThat(outbox.lastErrorOf(succeeded.id())).isEqualTo("the receiver answered 503");
    // A node that died holding it: another takes it once the claim has run out.
    assertThat(outbox.claim(ended.id(), now.plusSeconds(5), now.plusSeconds(35))).isTrue();
    assertThat(outbox.claim(ended.id(), now.plusSeconds(36), now.plusSeconds(66))).isTrue();
    outbox.delivered(ended.id(), now.plusSeconds(37));
    assertThat(outbox.due(now.plusSeconds(99), 10)).isEmpty();
    assertThat(outbox.lastErrorOf(succeeded.id())).isNull();

    assertThat(outbox.skip(ended.id(), now)).as("settled rows are not skipped").isFalse();
    assertThat(outbox.deleteSettledBefore(now.plusSeconds(38))).isEqualTo(1);
  }

  /** The sweep's row as V7 has it; only what reading metrics needs is filled in. */
  @Override
  void defineSweep(SweepObjective sweep) {
    jdbc()
        .update(
            "insert into sweeps (id, owner, name, method, definition, metric_name, metric_goal,"
                + " early_stopping, trial_count, closed, created_at, version)"
                + " values (?, 'alice', 'sweep', 'grid', '{}', ?, ?, ?, 0, true, ?, 0)",
            sweep.sweepId(),
            sweep.name(),
            sweep.goal(),
            sweep.earlyStopping(),
            T0.atOffset(ZoneOffset.UTC));
  }

  @Override
  void aSweep(String id, Integer maxConcurrent) {
    jdbc()
        .update(
            "insert into sweeps (id, owner, name, method, definition, max_concurrent, trial_count,"
                + " closed, created_at, version) values (?, 'alice', 'search', 'grid', '{}', ?, 0,"
                + " true, ?, 0)",
            id,
            maxConcurrent,
            java.sql.Timestamp.from(T0));
  }

  @Test
  void dependencies_read_the_held_jobs_and_where_their_jobs_and_sweeps_stand() {
    Job succeeded = aSucceededJob().in(store());
    Job failed = aFailedJob().in(store());
    Job running = aRunningJob().in(store());
    List<Dependency> dependsOn =
        List.of(
            Dependency.onJob(succeeded.id(), DependencyCondition.AFTEROK),
            Dependency.onSweep("sweep-d", DependencyCondition.AFTERANY));
    Job held = service().submit(ALICE, aSpec().build(), null, dependsOn, true).job();
    Job heldThenCancelled = service().submit(ALICE, aSpec().build(), null, dependsOn, true).job();
    store().cancel(heldThenCancelled.id(), T0);
    aSweep("sweep-d", null);
    aQueuedJob().trialOf(new SweepTrial("sweep-d", 0, "{}")).in(store());
    aSweep("sweep-e", null);
    aSucceededJob().trialOf(new SweepTrial("sweep-e", 0, "{}")).in(store());
    aSweep("sweep-f", null);
    aFailedJob().trialOf(new SweepTrial("sweep-f", 0, "{}")).in(store());
    io.gpuq.storage.DependencyTable table = new io.gpuq.storage.DependencyTable(dataSource);

    assertThat(table.heldJobs(null, 10))
        .containsExactly(new DependencyTargets.HeldJob(held.id(), "alice", dependsOn));
    assertThat(table.heldJobs(held.id(), 10)).isEmpty();
    assertThat(table.jobs(List.of(succeeded.id(), failed.id(), running.id(), "nope")))
        .containsOnly(
            Map.entry(
                succeeded.id(), new DependencyTargets.Target("alice", true, true, "SUCCEEDED")),
            Map.entry(failed.id(), new DependencyTargets.Target("alice", true, false, "FAILED")),
            Map.entry(
                running.id(), new DependencyTargets.Target("alice", false, false, "RUNNING")));
    assertThat(table.sweeps(List.of("sweep-d", "sweep-e", "sweep-f", "nope")))
        .containsOnlyKeys("sweep-d", "sweep-e", "sweep-f")
        .satisfies(
            sweeps -> {
              assertThat(sweeps.get("sweep-d").ended()).isFalse();
              assertThat(sweeps.get("sweep-e").ended()).isTrue();
              assertThat(sweeps.get("sweep-e").succeeded()).isTrue();
              assertThat(sweeps.get("sweep-f").ended()).isTrue();
              assertThat(sweeps.get("sweep-f").succeeded()).isFalse();
            });
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

  /**
   * The first job, then {@code count - 1} copies of its row made in one statement (ids after its
   * first 16 characters), every column but those the database computes.
   */
  @Override
  void queueMany(JobBuilder job, int count) {
    String template = job.in(store()).id();
    List<String> columns =
        jdbc()
            .query(
                "select * from jobs where id = ?",
                rows -> {
                  java.sql.ResultSetMetaData meta = rows.getMetaData();
                  List<String> names = new java.util.ArrayList<>();
                  for (int i = 1; i <= meta.getColumnCount(); i++) {
                    String name = meta.getColumnName(i).toLowerCase(java.util.Locale.ROOT);
                    if (!name.equals("id") && !name.equals("gpu_job")) {
                      names.add(name);
                    }
                  }
                  return names;
                },
                template);
    String list = String.join(", ", columns);
    String series =
        databaseProductName().equals("PostgreSQL")
            ? "generate_series(1, ?) as r(x)"
            : "system_range(1, ?) as r(x)";
    jdbc()
        .update(
            "insert into jobs (id, "
                + list
                + ") select cast(? as varchar(16)) || lpad(cast(r.x as varchar), 10, '0'), "
                + list
                + " from jobs t, "
                + series
                + " where t.id = ?",
            template.substring(0, 16),
            count - 1,
            template);
  }

  /**
   * A pass finds the owners with queued jobs and reads each one's first jobs of a kind by seeks in
   * the index {@code jobs_queue_by_owner_and_kind}, never by reading every queued job (nor the
   * table: PostgreSQL told to avoid a sequential scan or a sort, which it may prefer on a table
   * this small). On H2, which runs them one seek at a time, each reads no more index entries than
   * it returns.
   */
  @Test
  void every_owners_queue_head_is_read_by_seeks_in_the_owner_index() {
    // A queue among finished jobs, as it is in use: on 20 queued rows alone, any index in owner
    // order costs PostgreSQL as little as this one, and which it picks is a coin toss.
    queueMany(JobBuilder.aSucceededJob().ownedBy("alice").onAGpu(), 2_000);
    for (int i = 0; i < 20; i++) {
      JobBuilder.aQueuedJob().ownedBy(i % 4 == 0 ? "bob" : "alice").onAGpu().in(store());
    }
    boolean postgres = databaseProductName().equals("PostgreSQL");
    List<String> statements = io.gpuq.storage.JobTable.queueHeadStatements();
    // PostgreSQL: all owners, then all their heads, one statement each. H2: the owner after
    // alice (bob: 1 entry read, not alice's 15 first), then bob's first 3 jobs (3 entries read).
    for (String statement :
        postgres ? List.of(statements.get(0), statements.get(3)) : statements.subList(1, 3)) {
      String plan =
          tx.execute(
              status -> {
                if (postgres) {
                  // Statistics of this test's rows, not of what earlier tests left (autovacuum
                  // runs when it will); and neither a table scan nor a sort of every queued job.
                  jdbc().execute("analyze jobs");
                  jdbc().execute("set local enable_seqscan = off");
                  jdbc().execute("set local enable_sort = off");
                }
                return String.join(
                    "\n",
                    jdbc()
                        .queryForList(
                            (postgres ? "explain (costs off) " : "explain analyze ")
                                + statement
                                    .replace("j.gpu_job = :gpu", "j.gpu_job = true")
                                    .replace("j.owner >= :after", "j.owner >= 'alice' || char(0)")
                                    .replace("j.owner = :owner", "j.owner = 'bob'")
                                    .replace("cast(:owners as varchar[])", "array['alice', 'bob']")
                                    .replace(
                                        "cast(:withoutSweeps as varchar[])",
                                        "array['alice', 'bob']")
                                    .replace("limit :depth", "limit 3"),
                            String.class));
              });
      assertThat(plan.toLowerCase(java.util.Locale.ROOT))
          .as(statement)
          .containsPattern(
              postgres
                  ? "index (only )?scan using jobs_queue_by_owner_and_kind"
                  : "jobs_queue_by_owner_and_kind: ")
          .doesNotContain(postgres ? "seq scan" : "tablescan");
      if (!postgres) {
        assertThat(plan)
            .as(statement)
            .containsAnyOf("scanCount: 1 ", "scanCount: 3 ")
            .doesNotContain("scanCount: 16");
      }
    }
  }

  /**
   * Issue 34: the rows a pass picked are read by their primary key, however long the queue. With
   * the state beside the ids, H2 read every queued row from an index on the state and tested it
   * against the whole list of ids: at 100,000 queued, seconds a pass.
   */
  @Test
  void the_rows_a_pass_picked_are_read_by_their_primary_key_not_through_the_queue() {
    queueMany(JobBuilder.aQueuedJob().ownedBy("alice").onAGpu(), 2_000);
    List<String> ids =
        jdbc().queryForList("select id from jobs order by id desc limit 3", String.class);
    boolean postgres = databaseProductName().equals("PostgreSQL");
    String statement =
        io.gpuq.storage.JobTable.pickedRowsStatement()
            .replace(":ids", "'" + String.join("', '", ids) + "'");
    String plan =
        tx.execute(
            status -> {
              if (postgres) {
                jdbc().execute("analyze jobs");
              }
              return String.join(
                  "\n",
                  jdbc()
                      .queryForList(
                          (postgres ? "explain (costs off) " : "explain analyze ") + statement,
                          String.class));
            });
    assertThat(plan.toLowerCase(java.util.Locale.ROOT))
        .containsPattern(postgres ? "using jobs_pkey" : "primary_key_[0-9a-z]*: id in")
        .doesNotContain(postgres ? "seq scan" : "tablescan");
    if (!postgres) {
      assertThat(plan).containsPattern("scanCount: [1-9] ");
    }
  }

  /**
   * Recent usage is kept in the database: what two nodes add is summed, decays with the half-life,
   * and a ledger made anew (a restarted gpuq, another node) reads the same.
   */
  @Test
  void recent_usage_is_summed_over_nodes_decays_and_outlives_its_reader() {
    Duration halfLife = Duration.ofHours(1);
    Instant at = Instant.parse("2026-12-03T06:00:00Z");
    String alice = "alice-" + System.nanoTime();
    new io.gpuq.storage.OwnerUsageTable(jdbc(), tx, halfLife).add(Map.of(alice, 100.0), at);
    new io.gpuq.storage.OwnerUsageTable(jdbc(), tx, halfLife)
        .add(Map.of(alice, 60.0), at.plusSeconds(3600));
    Map<String, Double> read =
        new io.gpuq.storage.OwnerUsageTable(jdbc(), tx, halfLife).decayed(at.plusSeconds(7200));
    assertThat(read.get(alice)).isCloseTo(55.0, org.assertj.core.api.Assertions.within(1e-9));
  }

  /** Far past its epoch, a row moves its epoch and keeps its worth. */
  @Test
  void recent_usage_survives_a_rebase_of_its_scale() {
    Duration halfLife = Duration.ofMinutes(1);
    Instant at = Instant.parse("2026-12-03T06:00:00Z");
    String bob = "bob-" + System.nanoTime();
    io.gpuq.storage.OwnerUsageTable ledger =
        new io.gpuq.storage.OwnerUsageTable(jdbc(), tx, halfLife);
    ledger.add(Map.of(bob, 1.0), at);
    Instant later = at.plus(Duration.ofMinutes(100));
    ledger.add(Map.of(bob, 8.0), later);
    assertThat(ledger.decayed(later.plus(Duration.ofMinutes(3))).get(bob))
        .isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-9));
  }

  /** An owner idle for far longer than a double's range of halvings is charged what they add. */
  @Test
  void an_owner_idle_for_thousands_of_half_lives_is_charged_only_what_they_add() {
    Duration halfLife = Duration.ofMinutes(1);
    Instant at = Instant.parse("2026-12-03T06:00:00Z");
    String carol = "carol-" + System.nanoTime();
    io.gpuq.storage.OwnerUsageTable ledger =
        new io.gpuq.storage.OwnerUsageTable(jdbc(), tx, halfLife);
    ledger.add(Map.of(carol, 5.0), at);
    Instant muchLater = at.plus(Duration.ofMinutes(5_000));
    ledger.add(Map.of(carol, 8.0), muchLater);
    assertThat(ledger.decayed(muchLater).get(carol))
        .isCloseTo(8.0, org.assertj.core.api.Assertions.within(1e-9));
    ledger.add(Map.of(carol, 2.0), muchLater.plus(halfLife));
    assertThat(ledger.decayed(muchLater.plus(halfLife)).get(carol))
        .isCloseTo(6.0, org.assertj.core.api.Assertions.within(1e-9));
  }

  // --- storing a job -----------------------------------------------------------------------------

  @Test
  void a_job_reads_back_with_its_labels_argv_environment_placement_and_attempts() {
    JobPlacement firstPlacement =
        new JobPlacement(
            "node-1",
            List.of(
                new PlacedGpu(0, "GPU-aaaa-0", 6 * GIB, 16 * GIB),
                new PlacedGpu(3, "GPU-aaaa-3", 6 * GIB, 16 * GIB)),
            0.375);
    JobPlacement secondPlacement =
        new JobPlacement("node-2", List.of(new PlacedGpu(1, "GPU-bbbb-1", 9 * GIB, 16 * GIB)), 0.5);
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
    service()
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

  // --- idempotency keys --------------------------------------------------------------------------

  // --- the queue ---------------------------------------------------------------------------------

  @Test
  void a_worker_process_recorded_while_the_attempt_end_is_written_keeps_both() throws Exception {
    Job job = save(running(0, "node-1"));

    tx.executeWithoutResult(
        status -> {
          Job loaded = repository.findById(job.id()).orElseThrow();
          // Another transaction records the process after this one read the attempt.
          runInAnotherThread(
              () ->
                  service()
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

    service().recordAttemptEnd(viaService.id(), 1, AttemptOutcome.succeeded(), 0);
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

  // --- claiming without loading the job ----------------------------------------------------------

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

    assertThat(service().markStarted(viaService.id(), TWO_GPUS)).isPresent();
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

    ClaimedJob claimed = service().markStarted(job.id(), TWO_GPUS).orElseThrow();

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
                T0,
                null,
                HostResources.ONE_CORE,
                List.of(),
                null));
    assertThat(
            service()
                .markStarted(save(queued(0)).id(), JobPlacement.cpuOnly("node-1"))
                .orElseThrow()
                .timeout())
        .isNull();
  }

  @Test
  void a_requeued_job_claimed_again_gets_its_second_attempt() {
    Job viaService = save(requeued());
    Job viaEntity = save(requeued());

    ClaimedJob claimed = service().markStarted(viaService.id(), TWO_GPUS).orElseThrow();
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
    return ClaimedJob.of(job);
  }

  @Test
  void a_job_no_longer_queued_is_not_claimed_and_stays_as_it_was() {
    Job cancelled = save(cancelled(0));
    Job running = save(running(0, "node-2"));
    Job queued = save(queued(0));
    Map<String, Object> cancelledBefore = storedRow("jobs", "id", cancelled.id());
    Map<String, Object> runningBefore = storedRow("jobs", "id", running.id());

    List<ClaimedJob> claimed =
        service()
            .markStarted(
                Map.of(cancelled.id(), TWO_GPUS, running.id(), TWO_GPUS, queued.id(), TWO_GPUS));
    // The writes' own guard, past the lock that already leaves such jobs out.
    List<ClaimedJob> startedPastTheLock =
        tx.execute(
            status ->
                new io.gpuq.storage.JobTable(dataSource)
                    .start(
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

  // --- listing -----------------------------------------------------------------------------------

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
                          service()
                              .recordAttemptEnd(
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
              () -> pool.submit(() -> service().cancel(ALICE, id, stopped::add)));

      assertThatThrownBy(() -> cancelling.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(JobConflictException.class);
    } finally {
      pool.shutdownNow();
    }
    assertThat(stopped).isEmpty();
    assertThat(reload(id).state()).isEqualTo(JobState.SUCCEEDED);
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

  JdbcTemplate jdbc() {
    return new JdbcTemplate(dataSource);
  }

  private List<Outcome<Optional<ClaimedJob>>> claimFromEightNodes(String id) throws Exception {
    JobService service = service();
    return race(8, i -> service.markStarted(id, JobPlacement.cpuOnly("node-" + i)));
  }

  private static void arrive(CyclicBarrier barrier) {
    try {
      barrier.await(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the other racer never came", e);
    }
  }
}

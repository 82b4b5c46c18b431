package io.gpuq.storage;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.storage.SweepBuilder.aGridSweep;
import static io.gpuq.storage.SweepBuilder.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.AttemptStanding;
import io.gpuq.job.Job;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.NewJob;
import io.gpuq.job.TooManyQueuedJobsException;
import io.gpuq.support.IntegrationTier;
import io.gpuq.sweep.BestScope;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepConflictException;
import io.gpuq.sweep.SweepKeyTakenException;
import io.gpuq.sweep.SweepState;
import io.gpuq.sweep.SweepStore;
import io.gpuq.sweep.TrialOrder;
import io.gpuq.sweep.TrialQuery;
import io.gpuq.sweep.TrialRow;
import io.gpuq.sweeprun.SweepCompletionDuty;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What gpuq needs of the sweep store, on each database it supports (a subclass names one): a
 * sweep's trials are jobs as the job store writes them, created with their sweep or not at all,
 * counted, ranked and cancelled in SQL. Tests commit for real, and some race real threads.
 */
@IntegrationTier
@DataJpaTest(showSql = false)
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Import(JpaJobStore.class)
abstract class SweepStoreContract {

  static final Instant LATER = T0.plusSeconds(60);

  @Autowired JpaJobStore jobs;
  @Autowired TransactionTemplate tx;
  @Autowired DataSource dataSource;

  JdbcTemplate jdbc;
  SweepStore sweeps;

  @BeforeEach
  void emptyDatabase() {
    jdbc = new JdbcTemplate(dataSource);
    jdbc.update("delete from jobs");
    jdbc.update("delete from sweeps");
    sweeps = new SweepTable(jdbc, tx);
  }

  // --- creating
  // -----------------------------------------------------------------------------------

  @Test
  void a_trial_is_stored_exactly_as_the_job_store_stores_the_same_job_but_for_its_sweep_columns() {
    SweepBuilder builder = aGridSweep().withTrials(1);
    Sweep sweep = builder.sweep();
    NewJob trial = builder.trial(sweep, 0);
    sweeps.create(sweep, List.of(trial));

    assertStoredAsSubmitted(sweep, trial, "01JD00000000000000000000AA", "{\"x\":0}");
    assertThat(labels(trial.id())).containsEntry("sweep", sweep.id());
    Job read = jobs.find(trial.id()).orElseThrow();
    assertThat(read.sweepTrial()).contains(trial.trial());
    assertThat(read.spec()).isEqualTo(trial.spec());
  }

  @Test
  void
      a_trial_with_every_optional_field_and_text_that_needs_escaping_is_stored_as_the_job_store_stores_it() {
    // PostgreSQL gets trials by COPY, whose text format gives tabs, newlines and backslashes a
    // meaning: each must reach the row as the job store's bound parameters bring it.
    String awkward = "tab\there, line\nbreak\r, back\\slash \\N, quote \" and \u00e9\u4e2d";
    SweepBuilder builder =
        aGridSweep()
            .withTrials(1)
            .spec(
                spec ->
                    spec.name("grid " + awkward)
                        .command("python3", "-c", awkward, "\\.")
                        .workingDir("/tmp/dir\twith\\odd")
                        .env(Map.of("NOTE", awkward, "EMPTY", ""))
                        .nodeSelector(Map.of("zone", "a\tb"))
                        .gpus(1)
                        .gpuMemory(3L << 30)
                        .priority(-7)
                        .timeout(Duration.ofMillis(90_061))
                        .attempts(3)
                        .growth(1.7)
                        .host(3, 5L << 30));
    Sweep sweep = builder.sweep();
    NewJob made = builder.trial(sweep, 0);
    NewJob trial =
        new NewJob(
            made.id(),
            made.owner(),
            made.spec(),
            null,
            new io.gpuq.job.SweepTrial(sweep.id(), 0, "{\"opt\":\"a\\\\b\\t\",\"lr\":1.0E-5}"),
            T0.plusNanos(123_456_789),
            List.of(),
            false,
            List.of());
    sweeps.create(sweep, List.of(trial));

    assertStoredAsSubmitted(
        sweep, trial, "01JD00000000000000000000AB", "{\"opt\":\"a\\\\b\\t\",\"lr\":1.0E-5}");
    assertThat(jobs.find(trial.id()).orElseThrow().spec()).isEqualTo(trial.spec());
  }

  @Test
  void a_sweep_reads_back_as_it_was_created() {
    Sweep created = aGridSweep().withTrials(2).idempotencyKey("key-1").sweep();
    sweeps.create(created, List.of());

    assertThat(sweeps.find(created.id())).contains(created);
    assertThat(sweeps.findByKey("alice", "key-1")).contains(created);
    assertThat(sweeps.findByKey("bob", "key-1")).isEmpty();
  }

  @Test
  void a_sweep_whose_trials_cannot_be_stored_is_not_stored_either() {
    SweepBuilder builder = aGridSweep();
    Sweep sweep = builder.sweep();
    // Two trials numbered 0: the second breaks the unique (sweep, trial) index.
    List<NewJob> trials = List.of(builder.trial(sweep, 0), builder.trial(sweep, 0));

    assertThatThrownBy(() -> sweeps.create(sweep, trials)).isNotNull();

    assertThat(sweeps.find(sweep.id())).isEmpty();
    assertThat(count("jobs")).isZero();
    assertThat(count("job_labels")).isZero();
  }

  @Test
  void a_sweep_whose_trials_would_pass_its_owners_queued_limit_is_not_stored() {
    aGridSweep().withTrials(3).in(sweeps);
    aGridSweep().withTrials(5).ownedBy("bob").in(sweeps);
    SweepBuilder builder = aGridSweep().withTrials(3);
    Sweep sweep = builder.sweep();
    List<NewJob> trials =
        List.of(builder.trial(sweep, 0), builder.trial(sweep, 1), builder.trial(sweep, 2));

    // alice has 3 queued; 3 more would make 6, past 5. bob's 5 are his.
    assertThatThrownBy(() -> sweeps.create(sweep, trials, 5))
        .isInstanceOf(TooManyQueuedJobsException.class)
        .hasMessageContaining("you have 3 queued jobs and this adds 3");
    assertThat(sweeps.find(sweep.id())).isEmpty();
    assertThat(count("jobs")).isEqualTo(8);

    sweeps.create(sweep, trials, 6);
    assertThat(count("jobs")).isEqualTo(11);
  }

  @Test
  void a_trial_added_past_its_owners_queued_limit_is_not_stored() {
    SweepBuilder builder = anExternalSweep();
    Sweep sweep = builder.in(sweeps);
    sweeps.addTrial(sweep.id(), n -> builder.trial(sweep, n), 1);

    assertThatThrownBy(() -> sweeps.addTrial(sweep.id(), n -> builder.trial(sweep, n), 1))
        .isInstanceOf(TooManyQueuedJobsException.class);
    assertThat(sweeps.find(sweep.id()).orElseThrow().trialCount()).isEqualTo(1);
    assertThat(count("jobs")).isEqualTo(1);
  }

  @Test
  void an_idempotency_key_is_its_owners_once() {
    aGridSweep().idempotencyKey("key-1").in(sweeps);
    aGridSweep().idempotencyKey("key-1").ownedBy("bob").in(sweeps);

    assertThatThrownBy(() -> aGridSweep().idempotencyKey("key-1").in(sweeps))
        .isInstanceOf(SweepKeyTakenException.class);
    assertThat(count("sweeps")).isEqualTo(2);
  }

  @Test
  void ten_thousand_trials_are_stored_with_their_sweep() {
    Sweep sweep = aGridSweep().withTrials(10_000).in(sweeps);

    assertThat(sweeps.trialCounts(sweep.id())).containsEntry(JobState.QUEUED, 10_000L);
    assertThat(count("job_labels")).isEqualTo(30_000);
  }

  @Test
  void trials_that_fill_the_multi_row_inserts_unevenly_are_all_stored_with_their_labels() {
    // TrialTable writes 500 jobs or 2,500 labels a statement: 1,234 trials are two full inserts of
    // jobs and a shorter one, and their 3,702 labels one full insert and a shorter one.
    Sweep sweep = aGridSweep().withTrials(1_234).in(sweeps);

    assertThat(sweeps.trialCounts(sweep.id())).containsEntry(JobState.QUEUED, 1_234L);
    assertThat(count("job_labels")).isEqualTo(3 * 1_234);
    for (int trial : List.of(0, 499, 500, 999, 1_000, 1_233)) {
      String id =
          jdbc.queryForObject(
              "select id from jobs where sweep_id = ? and trial = ?",
              String.class,
              sweep.id(),
              trial);
      assertThat(labels(id))
          .as("trial %d", trial)
          .isEqualTo(Map.of("team", "rl", "sweep", sweep.id(), "x", Integer.toString(trial)));
    }
  }

  // --- reading
  // ------------------------------------------------------------------------------------

  @Test
  void pages_sweeps_newest_first_by_owner_and_all_for_an_admin() {
    Sweep first = aGridSweep().in(sweeps);
    Sweep second = aGridSweep().ownedBy("bob").in(sweeps);
    Sweep third = aGridSweep().in(sweeps);

    SweepStore.SweepPage page = sweeps.page("alice", null, 1);
    assertThat(page.items()).extracting(Sweep::id).containsExactly(third.id());
    assertThat(sweeps.page("alice", page.nextBeforeId(), 1).items())
        .extracting(Sweep::id)
        .containsExactly(first.id());
    assertThat(sweeps.page(null, null, 10).items())
        .extracting(Sweep::id)
        .containsExactly(third.id(), second.id(), first.id());
  }

  @Test
  void counts_trials_in_every_state_of_each_sweep_at_once() {
    Sweep sweep = aGridSweep().withTrials(4).in(sweeps);
    Sweep empty = anExternalSweep().in(sweeps);
    start(sweep, 0);

    Map<String, Map<JobState, Long>> counts = sweeps.trialCounts(List.of(sweep.id(), empty.id()));

    assertThat(counts.get(sweep.id()))
        .containsOnlyKeys(JobState.ofJobs())
        .containsEntry(JobState.RUNNING, 1L)
        .containsEntry(JobState.QUEUED, 3L)
        .containsEntry(JobState.SUCCEEDED, 0L);
    assertThat(counts.get(empty.id()).values()).containsOnly(0L);
  }

  @Test
  void the_best_trial_is_the_completed_one_with_the_best_final_value_as_optunas_best_trial() {
    Sweep loss = aGridSweep().withTrials(5).in(sweeps);
    Sweep accuracy = aGridSweep().maximizing().withTrials(3).in(sweeps);
    // Trial 0 dipped to 0.1 mid-run but ended at 0.6; trial 1 ended at 0.3; trial 2 was pruned
    // after reaching 0.05; trial 3 is still running at 0.01; trial 4 ended with a NaN.
    setTrial(loss, 0, JobState.SUCCEEDED, 0.6, 0.1);
    setTrial(loss, 1, JobState.SUCCEEDED, 0.3, 0.3);
    setTrial(loss, 2, JobState.PRUNED, 0.05, 0.05);
    setTrial(loss, 3, JobState.RUNNING, 0.01, 0.01);
    setTrial(loss, 4, JobState.SUCCEEDED, Double.NaN, 0.2);
    setTrial(accuracy, 0, JobState.FAILED, 0.99, 0.99);
    setTrial(accuracy, 1, JobState.SUCCEEDED, 0.7, 0.8);
    setTrial(accuracy, 2, JobState.SUCCEEDED, 0.7, 0.9);

    Map<String, BestTrial> last = sweeps.best(List.of(loss.id(), accuracy.id()));
    Map<String, BestTrial> all = sweeps.best(List.of(loss.id(), accuracy.id()), BestScope.ALL);

    assertThat(last.get(loss.id()))
        .isEqualTo(new BestTrial(trialId(loss, 1), 1, "{\"x\":1}", 0.3, null));
    assertThat(last.get(accuracy.id()).trial()).as("a tie goes to the lower number").isEqualTo(1);
    assertThat(last.get(accuracy.id()).value()).isEqualTo(0.7);
    assertThat(all.get(loss.id()).trial()).isEqualTo(3);
    assertThat(all.get(loss.id()).value()).isEqualTo(0.01);
    assertThat(all.get(accuracy.id()).trial()).isEqualTo(0);
    assertThat(sweeps.best(loss.id())).contains(last.get(loss.id()));
    assertThat(sweeps.best(loss.id(), BestScope.ALL)).contains(all.get(loss.id()));
  }

  @Test
  void the_trials_table_orders_by_the_last_value_or_in_scope_all_by_the_best_at_any_step() {
    Sweep loss = aGridSweep().withTrials(3).in(sweeps);
    setTrial(loss, 0, JobState.SUCCEEDED, 0.6, 0.1);
    setTrial(loss, 1, JobState.SUCCEEDED, 0.3, 0.3);
    setTrial(loss, 2, JobState.PRUNED, 0.5, 0.2);

    SweepStore.TrialPage byLast =
        sweeps.trials(new TrialQuery(loss.id(), Goal.MINIMIZE, TrialOrder.METRIC, null, null, 2));
    SweepStore.TrialPage next =
        sweeps.trials(
            new TrialQuery(loss.id(), Goal.MINIMIZE, TrialOrder.METRIC, null, byLast.next(), 2));
    SweepStore.TrialPage byAll =
        sweeps.trials(
            new TrialQuery(
                loss.id(), Goal.MINIMIZE, TrialOrder.METRIC, null, null, 3, BestScope.ALL));

    assertThat(byLast.items()).extracting(TrialRow::trial).containsExactly(1, 2);
    assertThat(next.items()).extracting(TrialRow::trial).containsExactly(0);
    assertThat(byAll.items()).extracting(TrialRow::trial).containsExactly(0, 2, 1);
  }

  @Test
  void ranks_each_sweeps_best_trial_in_scope_all_by_its_own_goal_at_once_never_a_nan() {
    Sweep minimizing = aGridSweep().withTrials(4).in(sweeps);
    Sweep maximizing = aGridSweep().maximizing().withTrials(4).in(sweeps);
    Sweep tied = aGridSweep().withTrials(3).in(sweeps);
    Sweep onlyNan = aGridSweep().withTrials(2).in(sweeps);
    Sweep unreported = aGridSweep().withTrials(2).in(sweeps);
    Sweep unranked = aGridSweep().withoutMetric().withTrials(2).in(sweeps);
    for (Sweep sweep : List.of(minimizing, maximizing)) {
      setBest(sweep, 1, 0.5);
      setBest(sweep, 2, 0.2);
      setBest(sweep, 3, Double.NaN);
    }
    setBest(tied, 2, 0.4);
    setBest(tied, 1, 0.4);
    setBest(onlyNan, 0, Double.NaN);

    Map<String, BestTrial> best =
        sweeps.best(
            List.of(
                minimizing.id(),
                maximizing.id(),
                tied.id(),
                onlyNan.id(),
                unreported.id(),
                unranked.id()),
            BestScope.ALL);

    assertThat(best).containsOnlyKeys(minimizing.id(), maximizing.id(), tied.id());
    assertThat(best.get(minimizing.id()))
        .isEqualTo(new BestTrial(trialId(minimizing, 2), 2, "{\"x\":2}", 0.2, null));
    assertThat(best.get(maximizing.id()).trial()).isEqualTo(1);
    assertThat(best.get(maximizing.id()).value()).isEqualTo(0.5);
    assertThat(best.get(tied.id()).trial()).isEqualTo(1);
    assertThat(sweeps.best(minimizing.id(), BestScope.ALL)).contains(best.get(minimizing.id()));
    assertThat(sweeps.best(unreported.id(), BestScope.ALL)).isEmpty();
    assertThat(sweeps.best(List.of(), BestScope.ALL)).isEmpty();
  }

  // --- external trials
  // ----------------------------------------------------------------------------

  @Test
  void trials_added_at_once_get_distinct_numbers() throws Exception {
    Sweep sweep = anExternalSweep().in(sweeps);
    SweepBuilder builder = anExternalSweep();
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<NewJob>> added = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        added.add(
            pool.submit(
                () -> {
                  start.await();
                  return sweeps.addTrial(sweep.id(), number -> builder.trial(sweep, number));
                }));
      }
      List<Integer> numbers = new ArrayList<>();
      for (Future<NewJob> trial : added) {
        numbers.add(trial.get().trial().number());
      }
      assertThat(numbers).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    } finally {
      pool.shutdownNow();
    }
    assertThat(sweeps.find(sweep.id()).orElseThrow().trialCount()).isEqualTo(8);
  }

  @Test
  void a_refused_trial_stores_nothing_and_takes_no_number() {
    Sweep sweep = anExternalSweep().in(sweeps);

    assertThatThrownBy(
            () ->
                sweeps.addTrial(
                    sweep.id(),
                    number -> {
                      throw new IllegalArgumentException("parameters.x: out of range");
                    }))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(sweeps.find(sweep.id()).orElseThrow().trialCount()).isZero();
    assertThat(count("jobs")).isZero();
  }

  @Test
  void trials_are_added_only_to_an_open_external_sweep() {
    Sweep grid = aGridSweep().in(sweeps);
    Sweep closed = anExternalSweep().in(sweeps);
    sweeps.close(closed.id(), T0);
    Sweep cancelled = anExternalSweep().in(sweeps);
    sweeps.cancel(cancelled.id(), LATER);
    SweepBuilder builder = anExternalSweep();

    for (Sweep sweep : List.of(grid, closed, cancelled)) {
      assertThatThrownBy(() -> sweeps.addTrial(sweep.id(), n -> builder.trial(sweep, n)))
          .isInstanceOf(SweepConflictException.class);
    }
    assertThatThrownBy(() -> sweeps.close(grid.id(), T0))
        .isInstanceOf(SweepConflictException.class);
    assertThatThrownBy(() -> sweeps.close(cancelled.id(), T0))
        .isInstanceOf(SweepConflictException.class);
  }

  @Test
  void closing_stamps_the_end_of_a_sweep_whose_trials_have_all_ended_and_only_of_such_a_one() {
    SweepBuilder external = anExternalSweep();
    Sweep ended = external.in(sweeps);
    Sweep running = external.in(sweeps);
    for (Sweep sweep : List.of(ended, running)) {
      sweeps.addTrial(sweep.id(), n -> external.trial(sweep, n));
      start(sweep, 0);
    }
    jobs.endAttempt(
            new AttemptEnd(trialId(ended, 0), 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(10)))
        .join();

    Sweep closedEnded = sweeps.close(ended.id(), LATER);
    Sweep closedRunning = sweeps.close(running.id(), LATER);

    assertThat(closedEnded.closed()).isTrue();
    assertThat(closedEnded.finishedAt()).isEqualTo(T0.plusSeconds(10));
    assertThat(closedRunning.closed()).isTrue();
    assertThat(closedRunning.finishedAt()).isNull();
  }

  // --- cancelling
  // ---------------------------------------------------------------------------------

  @Test
  void a_cancel_cancels_queued_trials_at_once_and_running_ones_as_a_stored_fact() {
    Sweep sweep = aGridSweep().withTrials(3).in(sweeps);
    String running = start(sweep, 0);
    String succeeded = start(sweep, 1);
    jobs.endAttempt(new AttemptEnd(succeeded, 1, AttemptOutcome.succeeded(), 0, T0)).join();
    String queued = trialId(sweep, 2);

    List<String> stopped = sweeps.cancel(sweep.id(), LATER);

    assertThat(stopped).containsExactly(running);
    assertThat(jobs.find(queued).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    assertThat(jobs.find(succeeded).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    Job cancelledRunning = jobs.find(running).orElseThrow();
    assertThat(cancelledRunning.state()).isEqualTo(JobState.CANCELLED);
    // Issue 34: it finishes when its worker's last process is gone, not at the cancel.
    assertThat(cancelledRunning.finishedAt()).isNull();
    assertThat(cancelledRunning.attempts().get(0).outcome()).isEqualTo(JobState.CANCELLED);
    assertThat(cancelledRunning.attempts().get(0).finishedAt()).isNull();
    assertThat(jobs.find(queued).orElseThrow().finishedAt()).isEqualTo(LATER);
    assertThat(jobs.standingOf(running, 1, "node-1")).isEqualTo(AttemptStanding.CANCELLED);
    Sweep after = sweeps.find(sweep.id()).orElseThrow();
    assertThat(after.cancelledAt()).isEqualTo(LATER);
    assertThat(after.finishedAt()).isEqualTo(LATER);
    assertThat(after.state(sweeps.trialCounts(sweep.id()))).isEqualTo(SweepState.CANCELLED);
    assertThatThrownBy(() -> sweeps.cancel(sweep.id(), LATER))
        .isInstanceOf(SweepConflictException.class);
  }

  @Test
  void a_cancel_of_a_large_sweep_cancels_every_queued_trial_and_names_only_the_running_ones() {
    Sweep sweep = aGridSweep().withTrials(1_200).in(sweeps);
    List<String> running = List.of(start(sweep, 7), start(sweep, 600), start(sweep, 1_199));

    List<String> stopped = sweeps.cancel(sweep.id(), LATER);

    assertThat(stopped).containsExactlyInAnyOrderElementsOf(running);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from jobs where sweep_id = ? and state = 'CANCELLED'"
                    + " and finished_at is not null",
                Long.class,
                sweep.id()))
        .as("the queued ones finished at the cancel; the running ones finish when stopped")
        .isEqualTo(1_197L);
    assertThat(
            jdbc.queryForObject(
                "select count(*) from job_attempts a join jobs j on j.id = a.job_id"
                    + " where j.sweep_id = ? and a.outcome = 'CANCELLED' and a.finished_at is"
                    + " null",
                Long.class,
                sweep.id()))
        .as("only the running trials had an attempt, each ended, to finish when stopped")
        .isEqualTo(3L);
    for (String id : running) {
      assertThat(jobs.standingOf(id, 1, "node-1")).isEqualTo(AttemptStanding.CANCELLED);
    }
  }

  @Test
  void each_owners_queued_count_follows_trials_stored_started_and_cancelled_in_bulk() {
    Sweep large = aGridSweep().withTrials(1_200).in(sweeps);
    aGridSweep().withTrials(300).ownedBy("bob").in(sweeps);
    assertQueuedCountsAreTheQueue();
    // A statement that fails half-way counts nothing (issue 34: H2 counts per statement).
    SweepBuilder broken = aGridSweep();
    Sweep sweep = broken.sweep();
    assertThatThrownBy(
            () -> sweeps.create(sweep, List.of(broken.trial(sweep, 0), broken.trial(sweep, 0))))
        .isNotNull();
    assertQueuedCountsAreTheQueue();

    start(large, 7);
    start(large, 600);
    assertQueuedCountsAreTheQueue();
    sweeps.cancel(large.id(), LATER);
    assertQueuedCountsAreTheQueue();
    jdbc.update("delete from jobs where owner = 'bob' and trial < 100");
    assertQueuedCountsAreTheQueue();
  }

  private void assertQueuedCountsAreTheQueue() {
    Map<String, Long> kept = new TreeMap<>();
    jdbc.query(
        "select owner, jobs from owner_queued where jobs <> 0",
        row -> {
          kept.put(row.getString(1), row.getLong(2));
        });
    Map<String, Long> counted = new TreeMap<>();
    jdbc.query(
        "select owner, count(*) from jobs where state = 'QUEUED' group by owner",
        row -> {
          counted.put(row.getString(1), row.getLong(2));
        });
    assertThat(kept).isEqualTo(counted);
  }

  @Test
  void a_cancelled_trial_is_stored_as_the_job_stores_cancel_stores_a_job() {
    Sweep sweep = aGridSweep().withTrials(1).in(sweeps);
    String trial = start(sweep, 0);
    Sweep other = aGridSweep().withTrials(1).in(sweeps);
    String job = start(other, 0);

    sweeps.cancel(sweep.id(), LATER);
    jobs.cancel(job, LATER);

    Map<String, Object> trialRow = row(trial);
    Map<String, Object> jobRow = row(job);
    for (String column : List.of("sweep_id", "parameters", "created_at", "queued_at")) {
      trialRow.remove(column);
      jobRow.remove(column);
    }
    assertThat(trialRow).isEqualTo(jobRow);
    assertThat(attemptRow(trial)).isEqualTo(attemptRow(job));
  }

  // --- finishing
  // ----------------------------------------------------------------------------------

  @Test
  void a_closed_sweep_is_stamped_finished_when_its_last_trial_ended_whether_read_or_not() {
    Sweep sweep = aGridSweep().withTrials(2).in(sweeps);
    Sweep unfinished = aGridSweep().withTrials(1).in(sweeps);
    Sweep open = anExternalSweep().in(sweeps);
    for (int trial = 0; trial < 2; trial++) {
      String id = start(sweep, trial);
      jobs.endAttempt(
              new AttemptEnd(id, 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(10 + trial)))
          .join();
    }

    new SweepCompletionDuty(sweeps, Clock.fixed(LATER, ZoneOffset.UTC), Duration.ofSeconds(5))
        .runOnce();

    assertThat(sweeps.find(sweep.id()).orElseThrow().finishedAt()).isEqualTo(T0.plusSeconds(11));
    assertThat(sweeps.find(unfinished.id()).orElseThrow().finishedAt()).isNull();
    assertThat(sweeps.find(open.id()).orElseThrow().finishedAt()).isNull();
    assertThat(sweeps.close(open.id(), LATER).finishedAt()).isEqualTo(LATER);
    assertThat(sweeps.stampFinished(LATER)).isZero();
  }

  // --- helpers
  // ------------------------------------------------------------------------------------

  private String trialId(Sweep sweep, int trial) {
    return jdbc.queryForObject(
        "select id from jobs where sweep_id = ? and trial = ?", String.class, sweep.id(), trial);
  }

  /** Starts trial {@code trial} on node-1, as a claim does; its job id. */
  private String start(Sweep sweep, int trial) {
    String id = trialId(sweep, trial);
    assertThat(jobs.claim(Map.of(id, JobPlacement.cpuOnly("node-1")), T0.plusSeconds(1)))
        .hasSize(1);
    return id;
  }

  private void setTrial(Sweep sweep, int trial, JobState state, double last, double best) {
    jdbc.update(
        "update jobs set state = ?, metric_value = ?, metric_best = ? where sweep_id = ? and"
            + " trial = ?",
        state.name(),
        Double.isNaN(last) ? null : last,
        best,
        sweep.id(),
        trial);
  }

  private void setBest(Sweep sweep, int trial, double best) {
    jdbc.update(
        "update jobs set metric_best = ? where sweep_id = ? and trial = ?",
        best,
        sweep.id(),
        trial);
  }

  private long count(String table) {
    return jdbc.queryForObject("select count(*) from " + table, Long.class);
  }

  /**
   * The trial's row and labels are those the job store writes for the same job submitted on its own
   * (under {@code otherId}), but for the sweep's columns, which hold the sweep, the trial's number
   * (0) and {@code parametersJson}.
   */
  private void assertStoredAsSubmitted(
      Sweep sweep, NewJob trial, String otherId, String parametersJson) {
    Job submitted =
        jobs.submit(new NewJob(otherId, trial.owner(), trial.spec(), null, trial.createdAt()));

    Map<String, Object> trialRow = row(trial.id());
    Map<String, Object> jobRow = row(submitted.id());

    assertThat(trialRow.remove("sweep_id")).isEqualTo(sweep.id());
    assertThat(trialRow.remove("trial")).isEqualTo(0);
    assertThat(trialRow.remove("parameters")).isEqualTo(parametersJson);
    for (String column : List.of("sweep_id", "trial", "parameters")) {
      assertThat(jobRow.remove(column)).as(column).isNull();
    }
    assertThat(trialRow).isEqualTo(jobRow);
    assertThat(labels(trial.id())).isEqualTo(labels(submitted.id()));
  }

  private Map<String, Object> row(String id) {
    Map<String, Object> row =
        new TreeMap<>(jdbc.queryForMap("select * from jobs where id = ?", id));
    row.remove("id");
    return row;
  }

  private Map<String, Object> attemptRow(String jobId) {
    Map<String, Object> row =
        new TreeMap<>(jdbc.queryForMap("select * from job_attempts where job_id = ?", jobId));
    row.remove("id");
    row.remove("job_id");
    return row;
  }

  private Map<String, String> labels(String id) {
    Map<String, String> labels = new TreeMap<>();
    jdbc.query(
        "select label_key, label_value from job_labels where job_id = ?",
        r -> {
          labels.put(r.getString(1), r.getString(2));
        },
        id);
    return labels;
  }
}

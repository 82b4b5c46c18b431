package io.gpuq.retention;

import static io.gpuq.retention.StoredJob.aJob;
import static io.gpuq.retention.StoredSweep.aSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuq.fs.DataDirectory;
import io.gpuq.job.JobIds;
import io.gpuq.job.JobState;
import io.gpuq.storage.RetentionTable;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Retention of finished jobs against a real database (each subclass names one) and a real data
 * directory, at a fixed now. Runs commit for real, as the duty's do.
 */
@IntegrationTier
@DataJpaTest(showSql = false)
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@Transactional(propagation = Propagation.NOT_SUPPORTED)
abstract class RetentionContract {

  static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  static final Duration WEEK = Duration.ofDays(7);
  static final Instant CUTOFF = NOW.minus(WEEK);

  @Autowired JdbcTemplate jdbc;

  @TempDir Path dataDir;
  DataDirectory layout;

  @BeforeEach
  void emptyDatabaseAndDataDirectory() throws IOException {
    jdbc.update("delete from jobs");
    jdbc.update("delete from sweeps");
    layout = new DataDirectory(dataDir);
    Files.createDirectories(layout.jobs());
    Files.createDirectories(layout.work());
  }

  @Test
  void a_job_is_kept_until_it_finished_longer_ago_than_the_retention() {
    String exactlyAWeek = aJob().finishedAt(CUTOFF).storedIn(jdbc);
    String aMillisecondMore = aJob().finishedAt(CUTOFF.minusMillis(1)).storedIn(jdbc);
    String yesterday = aJob().finishedAt(NOW.minus(Duration.ofDays(1))).storedIn(jdbc);

    retaining(WEEK).runOnce();

    assertThat(jobIds()).containsExactlyInAnyOrder(exactlyAWeek, yesterday);
    assertThat(aMillisecondMore).isNotIn(jobIds());
  }

  @Test
  void every_finished_state_ages_alike_with_the_metrics_its_run_reported() {
    for (JobState state : JobState.values()) {
      if (state.isTerminal()) {
        String id = aJob().in(state).finishedAt(CUTOFF.minus(Duration.ofDays(30))).storedIn(jdbc);
        jdbc.update(
            "insert into job_metrics (job_id, seq, step, metric_values, read_at)"
                + " values (?, 0, 1, '{\"loss\":0.5}', ?)",
            id,
            CUTOFF.minus(Duration.ofDays(31)).atOffset(java.time.ZoneOffset.UTC));
      }
    }

    retaining(WEEK).runOnce();

    assertThat(jobIds()).isEmpty();
    assertThat(jdbc.queryForObject("select count(*) from job_metrics", Integer.class)).isZero();
  }

  @Test
  void a_retention_of_zero_keeps_finished_jobs_forever() {
    String ancient = aJob().finishedAt(Instant.parse("2020-01-01T00:00:00Z")).storedIn(jdbc);
    directoriesOf(ancient);

    retaining(Duration.ZERO).runOnce();

    assertThat(jobIds()).containsExactly(ancient);
    assertThat(layout.work().resolve(ancient)).isDirectory();
  }

  @Test
  void queued_and_running_jobs_are_never_deleted_however_old() {
    Instant longAgo = Instant.parse("2020-01-01T00:00:00Z");
    String queued = aJob().in(JobState.QUEUED).createdAt(longAgo).storedIn(jdbc);
    String running = aJob().in(JobState.RUNNING).createdAt(longAgo).storedIn(jdbc);
    directoriesOf(running);

    retaining(WEEK).runOnce();

    assertThat(jobIds()).containsExactlyInAnyOrder(queued, running);
    assertThat(layout.work().resolve(running)).isDirectory();
    assertThat(layout.jobs().resolve(running)).isDirectory();
  }

  @Test
  void a_deleted_job_takes_its_labels_and_attempts_with_it() {
    String old = aJob().finishedAt(CUTOFF.minusSeconds(60)).storedIn(jdbc);
    String kept = aJob().finishedAt(NOW).storedIn(jdbc);

    retaining(WEEK).runOnce();

    assertThat(jdbc.queryForList("select job_id from job_labels", String.class))
        .containsExactly(kept);
    assertThat(jdbc.queryForList("select job_id from job_attempts", String.class))
        .containsExactly(kept);
    assertThat(old).isNotIn(jobIds());
  }

  @Test
  void a_deleted_jobs_directories_go_but_not_what_a_link_in_them_points_to() throws IOException {
    String old = aJob().finishedAt(CUTOFF.minusSeconds(60)).storedIn(jdbc);
    directoriesOf(old);
    Path outside = Files.writeString(dataDir.resolve("outside.txt"), "not the job's");
    Files.createSymbolicLink(layout.work().resolve(old).resolve("planted"), outside);
    Files.createSymbolicLink(layout.jobs().resolve(old).resolve("planted"), outside);

    retaining(WEEK).runOnce();

    assertThat(layout.work().resolve(old)).doesNotExist();
    assertThat(layout.jobs().resolve(old)).doesNotExist();
    assertThat(outside).hasContent("not the job's");
  }

  @Test
  void a_trial_waits_for_its_sweep_to_end_then_ages_with_it_and_the_sweep_goes_with_its_last_trial()
      throws IOException {
    String running = aSweep().storedIn(jdbc);
    String endedRecently = aSweep().finishedAt(NOW.minus(Duration.ofDays(1))).storedIn(jdbc);
    String endedLongAgo = aSweep().finishedAt(CUTOFF.minusSeconds(60)).storedIn(jdbc);
    Instant monthAgo = CUTOFF.minus(Duration.ofDays(30));
    String ofRunning = aJob().finishedAt(monthAgo).trialOf(running, 0).storedIn(jdbc);
    String ofRecent = aJob().finishedAt(monthAgo).trialOf(endedRecently, 0).storedIn(jdbc);
    String first = aJob().finishedAt(monthAgo).trialOf(endedLongAgo, 0).storedIn(jdbc);
    String last =
        aJob().finishedAt(CUTOFF.minusSeconds(60)).trialOf(endedLongAgo, 1).storedIn(jdbc);
    directoriesOf(first);

    retaining(WEEK).runOnce();

    assertThat(jobIds()).containsExactlyInAnyOrder(ofRunning, ofRecent);
    assertThat(jdbc.queryForList("select id from sweeps", String.class))
        .containsExactlyInAnyOrder(running, endedRecently);
    assertThat(last).isNotIn(jobIds());
    assertThat(layout.work().resolve(first)).doesNotExist();
  }

  @Test
  void more_jobs_than_one_batch_are_all_deleted_in_one_run_batch_by_batch() {
    int many = 2 * RetentionDuty.BATCH + 3;
    IntStream.range(0, many)
        .forEach(i -> aJob().finishedAt(CUTOFF.minus(Duration.ofMinutes(i + 1))).storedIn(jdbc));
    String kept = aJob().finishedAt(NOW).storedIn(jdbc);
    RetentionTable rows = new RetentionTable(jdbc);

    assertThat(rows.finishedBefore(CUTOFF, RetentionDuty.BATCH))
        .as("one read is at most one batch")
        .hasSize(RetentionDuty.BATCH);
    retaining(WEEK).runOnce();

    assertThat(jobIds()).containsExactly(kept);
  }

  @Test
  void the_usage_of_deleted_jobs_survives_in_the_daily_roll_up() {
    noRollUp();
    Instant day = Instant.parse("2026-11-20T10:00:00Z");
    aJob().finishedAt(day).waited(Duration.ofSeconds(10)).storedIn(jdbc);
    aJob()
        .in(JobState.FAILED)
        .finishedAt(day.plus(Duration.ofHours(3)))
        .waited(Duration.ofSeconds(100))
        .storedIn(jdbc);
    aJob().finishedAt(NOW).waited(Duration.ofSeconds(1000)).storedIn(jdbc);
    io.gpuq.storage.UsageTable usage = new io.gpuq.storage.UsageTable(jdbc.getDataSource());
    Instant from = Instant.parse("2026-11-01T00:00:00Z");
    io.gpuq.job.UsageReport.Group before = report(usage, from);

    new RetentionDuty(
            new RetentionTable(jdbc, usage),
            new JobDirectories(layout),
            WEEK,
            Duration.ofMinutes(10),
            Clock.fixed(NOW, ZoneOffset.UTC))
        .runOnce();

    assertThat(jobIds()).hasSize(1);
    io.gpuq.job.UsageReport.Group after = report(usage, from);
    assertThat(after.jobs()).isEqualTo(before.jobs());
    assertThat(after.jobs().get(JobState.SUCCEEDED)).isEqualTo(2);
    assertThat(after.jobs().get(JobState.FAILED)).isEqualTo(1);
    // Each job held one core from its start to its end, an hour after its creation.
    double coreHours = (3590 + 3500 + 2600) / 3600.0;
    assertThat(after.coreHours()).isCloseTo(coreHours, within(1e-9));
    assertThat(after.coreHours()).isCloseTo(before.coreHours(), within(1e-9));
    assertThat(
            usage.rolledUp(
                java.time.LocalDate.parse("2026-11-20"), java.time.LocalDate.parse("2026-11-21")))
        .singleElement()
        .satisfies(d -> assertThat(d.owner()).isEqualTo("alice"));
    // The waits: exact while the jobs live, from the roll-up's buckets after (never below, at most
    // 19 % above); the max stays exact.
    assertThat(before.waitSeconds())
        .isEqualTo(new io.gpuq.job.UsageReport.Wait(100.0, 1000.0, 1000.0));
    assertThat(after.waitSeconds().p50()).isBetween(100.0, 119.0);
    assertThat(after.waitSeconds().p95()).isEqualTo(1000.0);
    assertThat(after.waitSeconds().max()).isEqualTo(1000.0);
    // By label: the deleted jobs count in their label's group, not in the group of no label.
    io.gpuq.job.UsageReport byTeam = reportByTeam(usage, from);
    assertThat(byTeam.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.key()).isEqualTo("nlp"));
    assertThat(byTeam.groups().get(0).jobs()).isEqualTo(before.jobs());
    assertThat(byTeam.groups().get(0).coreHours()).isCloseTo(coreHours, within(1e-9));
  }

  @Test
  void the_roll_up_of_every_ended_job_gives_the_same_report_and_retention_adds_nothing_twice() {
    noRollUp();
    Instant day = Instant.parse("2026-11-20T10:00:00Z");
    aJob().finishedAt(day).waited(Duration.ofSeconds(10)).storedIn(jdbc);
    aJob()
        .in(JobState.FAILED)
        .finishedAt(day.plus(Duration.ofHours(3)))
        .waited(Duration.ofSeconds(100))
        .storedIn(jdbc);
    aJob().finishedAt(NOW).waited(Duration.ofSeconds(1000)).storedIn(jdbc);
    io.gpuq.storage.UsageTable usage = new io.gpuq.storage.UsageTable(jdbc.getDataSource());
    Instant from = Instant.parse("2026-11-01T00:00:00Z");
    io.gpuq.job.UsageReport.Group live = report(usage, from);
    io.gpuq.job.UsageReport liveByTeam = reportByTeam(usage, from);

    Instant mark = null;
    for (int i = 0; i < 100 && !NOW.minusSeconds(60).equals(mark); i++) {
      mark = usage.rollUpTo(NOW.minusSeconds(60), Duration.ofDays(3));
    }
    io.gpuq.job.UsageReport.Group rolled = report(usage, from);
    new RetentionDuty(
            new RetentionTable(jdbc, usage),
            new JobDirectories(layout),
            WEEK,
            Duration.ofMinutes(10),
            Clock.fixed(NOW, ZoneOffset.UTC))
        .runOnce();
    io.gpuq.job.UsageReport.Group retained = report(usage, from);

    assertThat(mark).isEqualTo(NOW.minusSeconds(60));
    for (io.gpuq.job.UsageReport.Group group : List.of(rolled, retained)) {
      assertThat(group.jobs()).isEqualTo(live.jobs());
      assertThat(group.coreHours()).isCloseTo(live.coreHours(), within(1e-9));
      assertThat(group.waitSeconds().max()).isEqualTo(1000.0);
      assertThat(group.waitSeconds().p50()).isBetween(100.0, 119.0);
    }
    io.gpuq.job.UsageReport byTeam = reportByTeam(usage, from);
    assertThat(byTeam.groups()).hasSize(1);
    assertThat(byTeam.groups().get(0).jobs()).isEqualTo(liveByTeam.groups().get(0).jobs());
    assertThat(byTeam.groups().get(0).coreHours())
        .isCloseTo(liveByTeam.groups().get(0).coreHours(), within(1e-9));
  }

  @Test
  void a_roll_up_committed_while_a_report_reads_changes_nothing_the_report_counts()
      throws Exception {
    noRollUp();
    Instant day = Instant.parse("2026-11-20T10:00:00Z");
    aJob().finishedAt(day).waited(Duration.ofSeconds(10)).storedIn(jdbc);
    aJob()
        .in(JobState.FAILED)
        .finishedAt(day.plus(Duration.ofHours(3)))
        .waited(Duration.ofSeconds(100))
        .storedIn(jdbc);
    aJob().finishedAt(NOW).waited(Duration.ofSeconds(1000)).storedIn(jdbc);
    io.gpuq.storage.UsageTable usage = new io.gpuq.storage.UsageTable(jdbc.getDataSource());
    Instant from = Instant.parse("2026-11-01T00:00:00Z");
    io.gpuq.job.UsageReport.Group before = report(usage, from);
    // After the report has read the mark (nothing rolled up), another node rolls every end up and
    // commits, before the report reads the roll-up and the rows after the mark it read.
    java.util.concurrent.ExecutorService other =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      usage.betweenReads(
          () -> {
            try {
              other
                  .submit(
                      () -> {
                        Instant mark = null;
                        for (int i = 0; i < 100 && !NOW.minusSeconds(60).equals(mark); i++) {
                          mark = usage.rollUpTo(NOW.minusSeconds(60), Duration.ofDays(3));
                        }
                        return mark;
                      })
                  .get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      io.gpuq.job.UsageReport.Group during = report(usage, from);
      usage.betweenReads(() -> {});

      assertThat(usage.mark()).isEqualTo(NOW.minusSeconds(60));
      assertThat(during.jobs()).isEqualTo(before.jobs());
      assertThat(during.coreHours()).isCloseTo(before.coreHours(), within(1e-9));
      assertThat(report(usage, from).jobs()).isEqualTo(before.jobs());
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void an_end_stored_after_the_roll_up_passed_its_time_is_added_once() {
    noRollUp();
    aJob().finishedAt(NOW.minus(Duration.ofHours(2))).waited(Duration.ofSeconds(10)).storedIn(jdbc);
    io.gpuq.storage.UsageTable usage = new io.gpuq.storage.UsageTable(jdbc.getDataSource());
    Instant mark = null;
    for (int i = 0; i < 100 && !NOW.minusSeconds(60).equals(mark); i++) {
      mark = usage.rollUpTo(NOW.minusSeconds(60), Duration.ofDays(3));
    }
    Instant from = Instant.parse("2026-11-01T00:00:00Z");
    io.gpuq.job.UsageReport.Group one = report(usage, from);
    assertThat(usage.rollUpLate()).isZero();
    // An hour behind the mark: another node's clock behind, or an end stored again after a full
    // disk. The roll-up has passed its time, and the report reads only what is after the mark.
    aJob()
        .in(JobState.FAILED)
        .finishedAt(NOW.minus(Duration.ofHours(1)))
        .waited(Duration.ofSeconds(100))
        .storedIn(jdbc);
    assertThat(report(usage, from).jobs()).isEqualTo(one.jobs());

    assertThat(usage.rollUpLate()).isEqualTo(2); // its attempt and its finish
    assertThat(usage.rollUpLate()).isZero();
    for (int i = 0; i < 3; i++) {
      usage.rollUpTo(NOW.minusSeconds(30), Duration.ofDays(3));
    }

    io.gpuq.job.UsageReport.Group both = report(usage, from);
    assertThat(both.jobs().get(JobState.SUCCEEDED)).isEqualTo(1);
    assertThat(both.jobs().get(JobState.FAILED)).isEqualTo(1);
    // Each job held one core from its start to its end, an hour after its creation.
    assertThat(both.coreHours()).isCloseTo((3590 + 3500) / 3600.0, within(1e-9));
    assertThat(both.waitSeconds().max()).isEqualTo(100.0);
    assertThat(reportByTeam(usage, from).groups().get(0).jobs()).isEqualTo(both.jobs());
  }

  /** Empties the roll-up, and puts its mark back to where nothing is rolled up. */
  private void noRollUp() {
    jdbc.update("delete from usage_daily");
    jdbc.update("delete from usage_daily_labels");
    jdbc.update("delete from usage_counted");
    jdbc.update("update usage_mark set rolled_up_to = null, counted_from = null");
  }

  private static io.gpuq.job.UsageReport reportByTeam(
      io.gpuq.storage.UsageTable usage, Instant from) {
    Instant to = NOW.plus(Duration.ofDays(1));
    return usage.report(from, to, io.gpuq.job.UsageReport.By.LABEL, "label:team", "team", null);
  }

  /** The whole month's report, live attempts and rolled-up days together, as the API reads it. */
  private static io.gpuq.job.UsageReport.Group report(
      io.gpuq.storage.UsageTable usage, Instant from) {
    Instant to = NOW.plus(Duration.ofDays(1));
    return usage.report(from, to, io.gpuq.job.UsageReport.By.OWNER, "owner", null, null).total();
  }

  @Test
  void a_batch_is_read_longest_finished_first() {
    String older = aJob().finishedAt(CUTOFF.minus(Duration.ofDays(2))).storedIn(jdbc);
    aJob().finishedAt(CUTOFF.minus(Duration.ofDays(1))).storedIn(jdbc);

    assertThat(new RetentionTable(jdbc).finishedBefore(CUTOFF, 1)).containsExactly(older);
  }

  @Test
  void directories_of_jobs_another_node_deleted_go_when_older_than_the_cutoff() {
    String deletedElsewhere = idCreatedAt(CUTOFF.minus(Duration.ofDays(1)));
    String tooYoungToJudge = idCreatedAt(CUTOFF.plus(Duration.ofDays(1)));
    String stillRunning =
        aJob().in(JobState.RUNNING).createdAt(CUTOFF.minus(Duration.ofDays(30))).storedIn(jdbc);
    for (String id : List.of(deletedElsewhere, tooYoungToJudge, stillRunning)) {
      directoriesOf(id);
    }
    Path notAJob = layout.work().resolve("lost+found");
    directory(notAJob);

    retaining(WEEK).runOnce();

    assertThat(layout.work().resolve(deletedElsewhere)).doesNotExist();
    assertThat(layout.jobs().resolve(deletedElsewhere)).doesNotExist();
    assertThat(layout.work().resolve(tooYoungToJudge)).isDirectory();
    assertThat(layout.work().resolve(stillRunning)).isDirectory();
    assertThat(notAJob).isDirectory();
  }

  private RetentionDuty retaining(Duration retention) {
    return new RetentionDuty(
        new RetentionTable(jdbc),
        new JobDirectories(layout),
        retention,
        Duration.ofMinutes(10),
        Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private List<String> jobIds() {
    return jdbc.queryForList("select id from jobs", String.class);
  }

  private void directoriesOf(String id) {
    directory(layout.jobs().resolve(id));
    directory(layout.work().resolve(id).resolve("checkpoints"));
    try {
      Files.writeString(layout.jobs().resolve(id).resolve("output.log"), "epoch 1\n");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void directory(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String idCreatedAt(Instant created) {
    return new JobIds(Clock.fixed(created, ZoneOffset.UTC)).next();
  }
}

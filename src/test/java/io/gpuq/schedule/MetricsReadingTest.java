package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.StopReason;
import io.gpuq.reported.MetricsCaps;
import io.gpuq.reported.MetricsFileReader;
import io.gpuq.reported.ReportedMetrics;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.SweepObjective;
import io.gpuq.support.SettableClock;
import io.gpuq.sweep.Asha;
import io.gpuq.sweep.EarlyStopping;
import io.gpuq.sweep.MedianStopping;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Reading the metrics files of this node's jobs, each poll")
class MetricsReadingTest {

  private static final String MEDIAN = "{\"type\":\"median\",\"startupTrials\":1}";
  private static final String ASHA = "{\"type\":\"asha\",\"minSteps\":1,\"reductionFactor\":2}";
  private static final Function<String, Optional<EarlyStopping>> RULES =
      json ->
          switch (json) {
            case MEDIAN -> Optional.of(new MedianStopping(1, 0));
            case ASHA -> Optional.of(new Asha(1, 2));
            default -> Optional.empty();
          };

  @TempDir Path dataDir;
  private final InMemoryJobStore store = new InMemoryJobStore();
  private final SettableClock clock = new SettableClock(T0);
  private JobFiles files;
  private LocalWorkers local;

  @BeforeEach
  void node1() {
    files = new JobFiles(dataDir);
    local = new LocalWorkers(dataDir, clock);
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  /** A gpuq on node-1, just started: it knows only what the store knows. */
  private MetricsReading gpuqOnNode1() {
    return gpuqOn("node-1", files);
  }

  private MetricsReading gpuqOn(String node, JobFiles itsFiles) {
    return new MetricsReading(
        store,
        itsFiles,
        new MetricsFileReader(),
        new TrialPruning(store, local.workers(), RULES, clock, node),
        clock,
        node,
        java.time.Duration.ofSeconds(1));
  }

  private void append(String jobId, String text) throws IOException {
    append(files, jobId, text);
  }

  private static void append(JobFiles itsFiles, String jobId, String text) throws IOException {
    Path file = itsFiles.metricsFile(jobId);
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        text,
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND,
        StandardOpenOption.WRITE);
  }

  private List<Long> steps(String jobId) {
    return store.metricsOf(jobId, 1000).stream().map(ReportedPoint::step).toList();
  }

  private Job job(String id) {
    return store.find(id).orElseThrow();
  }

  @Test
  void each_poll_stores_the_lines_completed_since_the_last_with_when_they_were_read()
      throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    MetricsReading reading = gpuqOnNode1();
    append(id, "{\"step\": 1, \"loss\": 0.9}\n{\"loss\": 0.8, \"acc\": 0.5}\n{\"step\": 3, \"lo");

    reading.runOnce();
    Instant firstPoll = clock.instant();
    clock.advance(Duration.ofSeconds(5));
    append(id, "ss\": 0.7}\nnot json\n");
    reading.runOnce();

    assertThat(store.metricsOf(id, 1000))
        .containsExactly(
            new ReportedPoint(1, 1, Map.of("loss", 0.9), firstPoll),
            new ReportedPoint(1, 2, Map.of("loss", 0.8, "acc", 0.5), firstPoll),
            new ReportedPoint(1, 3, Map.of("loss", 0.7), clock.instant()));
    assertThat(job(id).reportedMetrics())
        .contains(new ReportedMetrics(Map.of("loss", 0.7, "acc", 0.5), 3L, null, null));
    assertThat(store.jobsReportingOn("node-1").get(0).cursor().skippedLines()).isEqualTo(1);
  }

  @Test
  void a_job_that_reported_nothing_shows_no_metrics_and_is_read_again_next_poll() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    MetricsReading reading = gpuqOnNode1();

    reading.runOnce();

    assertThat(job(id).reportedMetrics()).isEmpty();
    assertThat(store.jobsReportingOn("node-1")).hasSize(1);
    append(id, "{\"loss\": 1}\n");
    reading.runOnce();
    assertThat(steps(id)).containsExactly(0L);
  }

  @Test
  void an_ended_job_is_read_to_its_end_last_line_included_and_then_no_longer() throws Exception {
    String id = aSucceededJob().on("node-1").in(store).id();
    append(id, "{\"loss\": 0.5}\n{\"loss\": 0.4}");

    gpuqOnNode1().runOnce();

    assertThat(steps(id)).containsExactly(0L, 1L);
    assertThat(store.jobsReportingOn("node-1")).isEmpty();
  }

  @Test
  void a_restarted_gpuq_reads_on_where_the_last_stopped_including_what_came_meanwhile()
      throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    append(id, "{\"step\": 1, \"loss\": 0.9}\n{\"step\": 2, \"loss\": 0.8}\n");
    gpuqOnNode1().runOnce();

    append(id, "{\"step\": 3, \"loss\": 0.7}\n");
    gpuqOnNode1().runOnce();

    assertThat(steps(id)).containsExactly(1L, 2L, 3L);
  }

  /** Its running attempt fails, and the retry starts on {@code node}. */
  private void retryOn(String jobId, String node) {
    store
        .endAttempt(
            new AttemptEnd(
                jobId,
                1,
                new AttemptOutcome(FailureReason.EXIT_CODE, "it failed", 1),
                1,
                clock.instant()))
        .join();
    assertThat(store.claim(Map.of(jobId, JobPlacement.cpuOnly(node)), clock.instant())).hasSize(1);
  }

  /**
   * A job whose first attempt reported steps 1-3 (read) and failed, and whose retry was then
   * claimed on the same node, its launch not yet under way: the file is still the first attempt's.
   */
  private String aRetryClaimedHereAfterThreeSteps() throws IOException {
    String id = aRunningJob().spec(s -> s.attempts(2)).on("node-1").in(store).id();
    append(id, lines(1, 3));
    gpuqOnNode1().runOnce();
    lastWritten(id, clock.instant().minusSeconds(1));
    retryOn(id, "node-1");
    return id;
  }

  /** When the job's metrics file was last written, as its run would have set it. */
  private void lastWritten(String jobId, java.time.Instant at) throws IOException {
    Files.setLastModifiedTime(files.metricsFile(jobId), java.nio.file.attribute.FileTime.from(at));
  }

  private static String lines(int fromStep, int toStep) {
    StringBuilder lines = new StringBuilder();
    for (int step = fromStep; step <= toStep; step++) {
      lines.append("{\"step\": ").append(step).append(", \"loss\": 0.5}\n");
    }
    return lines.toString();
  }

  @Test
  void a_retry_on_another_node_reads_that_nodes_file_from_its_start() throws Exception {
    String id = aRunningJob().spec(s -> s.attempts(2)).on("node-1").in(store).id();
    append(id, lines(1, 3));
    gpuqOnNode1().runOnce();

    retryOn(id, "node-2");
    JobFiles node2 = new JobFiles(dataDir.resolve("node-2"));
    // Longer than what node-1 had read: read on from there, its first lines would be lost.
    append(node2, id, lines(1, 5));
    gpuqOn("node-2", node2).runOnce();

    assertThat(store.metricsOf(id, 1000))
        .extracting(ReportedPoint::attempt, ReportedPoint::step)
        .containsExactly(
            tuple(1, 1L),
            tuple(1, 2L),
            tuple(1, 3L),
            tuple(2, 1L),
            tuple(2, 2L),
            tuple(2, 3L),
            tuple(2, 4L),
            tuple(2, 5L));
    assertThat(job(id).reportedMetrics().orElseThrow().step()).isEqualTo(5L);
  }

  /**
   * A retry claimed on the same node is RUNNING before its launch moves the earlier attempt's file
   * aside; a poll in between used to read that file from its start as the retry's (CI saw it once
   * under load: seven points where four were written).
   */
  @Test
  void a_retry_on_the_same_node_reads_nothing_of_the_earlier_attempts_file_before_its_launch()
      throws Exception {
    String id = aRetryClaimedHereAfterThreeSteps();

    gpuqOnNode1().runOnce();
    assertThat(store.metricsOf(id, 1000))
        .as("nothing of the earlier attempt's file is the retry's")
        .extracting(ReportedPoint::attempt)
        .containsOnly(1);

    // Its launch moves the earlier file aside; the retry writes its own, read from its start.
    Files.move(files.metricsFile(id), files.earlierMetricsFile(id, 2));
    append(id, lines(1, 1));
    lastWritten(id, clock.instant().plusSeconds(1));
    gpuqOnNode1().runOnce();
    assertThat(store.metricsOf(id, 1000))
        .extracting(ReportedPoint::attempt, ReportedPoint::step)
        .containsExactly(tuple(1, 1L), tuple(1, 2L), tuple(1, 3L), tuple(2, 1L));
  }

  @Test
  void a_retry_ended_before_its_launch_moved_the_earlier_file_aside_shows_none_of_it()
      throws Exception {
    String id = aRetryClaimedHereAfterThreeSteps();
    store
        .endAttempt(
            new AttemptEnd(
                id,
                2,
                new AttemptOutcome(FailureReason.EXIT_CODE, "it failed", 1),
                1,
                clock.instant()))
        .join();

    gpuqOnNode1().runOnce();

    assertThat(store.metricsOf(id, 1000)).extracting(ReportedPoint::attempt).containsOnly(1);
    assertThat(job(id).reportedMetrics()).as("the retry's view: nothing").isEmpty();
  }

  @Test
  void a_retry_shows_none_of_the_failed_attempts_metrics_once_it_runs() throws Exception {
    store.defineSweep(new SweepObjective("sweep-r", "loss", "minimize", null));
    String id =
        aRunningJob()
            .spec(s -> s.attempts(2))
            .trialOf(new SweepTrial("sweep-r", 0, "{}"))
            .on("node-1")
            .in(store)
            .id();
    append(id, "{\"loss\": 0.1}\n");
    gpuqOnNode1().runOnce();

    retryOn(id, "node-2");
    gpuqOn("node-2", new JobFiles(dataDir.resolve("node-2"))).runOnce();

    assertThat(job(id).reportedMetrics()).isEmpty();
    assertThat(store.sweepSeries("sweep-r", "loss").get(0).values()).isEmpty();
  }

  @Test
  void a_file_a_job_replaced_by_a_link_is_given_up_without_following_it() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    Path secret = Files.writeString(dataDir.resolve("secret"), "{\"stolen\": 1}\n");
    Files.createDirectories(files.metricsFile(id).getParent());
    Files.createSymbolicLink(files.metricsFile(id), secret);

    gpuqOnNode1().runOnce();

    assertThat(store.metricsOf(id, 10)).isEmpty();
    assertThat(store.jobsReportingOn("node-1")).isEmpty();
  }

  @Test
  void a_trial_keeps_its_metrics_last_value_and_best_by_the_goal_never_a_nan_or_infinity()
      throws Exception {
    store.defineSweep(new SweepObjective("sweep-1", "acc", "maximize", null));
    String id =
        aRunningJob().trialOf(new SweepTrial("sweep-1", 0, "{}")).on("node-1").in(store).id();
    append(id, "{\"acc\": 0.5}\n{\"acc\": 0.75}\n{\"acc\": Infinity}\n{\"acc\": 0.6}\n");

    gpuqOnNode1().runOnce();

    assertThat(store.jobsReportingOn("node-1").get(0).value()).isEqualTo(0.6);
    assertThat(store.jobsReportingOn("node-1").get(0).best()).isEqualTo(0.75);
    assertThat(job(id).reportedMetrics().orElseThrow().best()).isEqualTo(0.75);
    assertThat(job(id).reportedMetrics().orElseThrow().metric()).isEqualTo("acc");
  }

  @Test
  void each_value_is_judged_once_against_the_trials_completed_when_it_was_read() throws Exception {
    store.defineSweep(new SweepObjective("sweep-4", "loss", "minimize", MEDIAN));
    String late =
        aRunningJob().trialOf(new SweepTrial("sweep-4", 1, "{}")).on("node-1").in(store).id();
    local.launch(late, "sleep", "60");
    MetricsReading gpuq = gpuqOnNode1();
    append(late, "{\"step\": 1, \"loss\": 0.9}\n");
    gpuq.runOnce(); // no trial has completed: step 1 goes on

    String done =
        aSucceededJob().trialOf(new SweepTrial("sweep-4", 0, "{}")).on("node-1").in(store).id();
    append(done, "{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, \"loss\": 0.3}\n");
    append(late, "{\"step\": 2, \"loss\": 0.1}\n");
    gpuq.runOnce();

    // As in Optuna, step 1 (0.9, worse than trial 0's 0.5) is not judged again now that trial 0
    // has completed; step 2 (best 0.1 against 0.3) goes on.
    assertThat(job(late).state()).isEqualTo(JobState.RUNNING);
    assertThat(local.exitOf(late)).isNotDone();
  }

  @Test
  void a_running_trial_behind_the_median_is_pruned_and_its_worker_stopped() throws Exception {
    store.defineSweep(new SweepObjective("sweep-2", "loss", "minimize", MEDIAN));
    String good =
        aSucceededJob().trialOf(new SweepTrial("sweep-2", 0, "{}")).on("node-1").in(store).id();
    String bad =
        aRunningJob().trialOf(new SweepTrial("sweep-2", 1, "{}")).on("node-1").in(store).id();
    String fine =
        aRunningJob().trialOf(new SweepTrial("sweep-2", 2, "{}")).on("node-1").in(store).id();
    local.launch(bad, "sleep", "60");
    local.launch(fine, "sleep", "60");
    append(good, "{\"step\": 1, \"loss\": 0.5}\n{\"step\": 2, \"loss\": 0.3}\n");
    append(bad, "{\"step\": 1, \"loss\": 0.9}\n{\"step\": 2, \"loss\": 0.8}\n");
    append(fine, "{\"step\": 1, \"loss\": 0.4}\n{\"step\": 2, \"loss\": 0.2}\n");

    gpuqOnNode1().runOnce();

    assertThat(job(bad).state()).isEqualTo(JobState.PRUNED);
    // Steps 1 and 2 came in one read: step 1 (0.9 against the median 0.5) prunes it already.
    assertThat(job(bad).attempts().get(0).failureMessage())
        .isEqualTo("stopped by the sweep's early-stopping rule (median) at step 1");
    assertThat(job(bad).failureMessage())
        .isEqualTo("stopped by the sweep's early-stopping rule (median) at step 1");
    assertThat(local.exitOf(bad).get(30, TimeUnit.SECONDS).stopReason())
        .isEqualTo(StopReason.PRUNED);
    assertThat(job(fine).state()).isEqualTo(JobState.RUNNING);
    assertThat(local.exitOf(fine)).isNotDone();
  }

  @Test
  void asha_compares_a_trial_at_a_rung_with_the_values_read_there_before_it() throws Exception {
    store.defineSweep(new SweepObjective("sweep-4", "loss", "minimize", ASHA));
    String first =
        aSucceededJob().trialOf(new SweepTrial("sweep-4", 0, "{}")).on("node-1").in(store).id();
    String second =
        aSucceededJob().trialOf(new SweepTrial("sweep-4", 1, "{}")).on("node-1").in(store).id();
    append(first, "{\"step\": 1, \"loss\": 0.1}\n");
    append(second, "{\"step\": 1, \"loss\": 0.2}\n");
    MetricsReading reading = gpuqOnNode1();
    reading.runOnce();
    clock.advance(Duration.ofSeconds(5));
    String behind =
        aRunningJob().trialOf(new SweepTrial("sweep-4", 2, "{}")).on("node-1").in(store).id();
    String ahead =
        aRunningJob().trialOf(new SweepTrial("sweep-4", 3, "{}")).on("node-1").in(store).id();
    append(behind, "{\"step\": 1, \"loss\": 0.9}\n");
    append(ahead, "{\"step\": 1, \"loss\": 0.05}\n");

    reading.runOnce();

    // Rung 0 (step 1), reduction factor 2: of 0.9, 0.1 and 0.2 only the best one goes on; of
    // 0.05, 0.1, 0.2 and 0.9 (trial 2 read at the same time, before it by number) the best two.
    assertThat(job(behind).state()).isEqualTo(JobState.PRUNED);
    assertThat(job(behind).attempts().get(0).failureMessage())
        .isEqualTo("stopped by the sweep's early-stopping rule (asha) at step 1");
    assertThat(job(ahead).state()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void a_plain_job_and_a_sweep_without_a_rule_prune_nothing() throws Exception {
    store.defineSweep(new SweepObjective("sweep-3", "loss", "minimize", null));
    aSucceededJob().trialOf(new SweepTrial("sweep-3", 0, "{}")).on("node-1").in(store);
    String trial =
        aRunningJob().trialOf(new SweepTrial("sweep-3", 1, "{}")).on("node-1").in(store).id();
    append(trial, "{\"step\": 1, \"loss\": 1e9}\n");

    gpuqOnNode1().runOnce();

    assertThat(job(trial).state()).isEqualTo(JobState.RUNNING);
  }

  // --- the caps: whatever a run writes, bounded names, points and bytes
  // ---------------------------

  /** One line with {@code count} metrics named {@code prefix0}, {@code prefix1}, ... */
  private static String wideLine(String prefix, int from, int count) {
    StringBuilder line = new StringBuilder("{");
    for (int i = from; i < from + count; i++) {
      line.append(i == from ? "" : ", ").append('"').append(prefix).append(i).append("\": 1");
    }
    return line.append("}\n").toString();
  }

  private io.gpuq.reported.MetricsPage page(String jobId) {
    return store.metricsPage(jobId, -1, 100_000, Long.MAX_VALUE);
  }

  @Test
  void an_attempt_keeps_its_first_64_names_and_counts_the_values_of_later_ones_it_skips()
      throws Exception {
    store.defineSweep(new SweepObjective("sweep-n", "val_loss", "minimize", null));
    String id =
        aRunningJob().trialOf(new SweepTrial("sweep-n", 0, "{}")).on("node-1").in(store).id();
    MetricsReading reading = gpuqOnNode1();
    append(id, wideLine("m", 0, 50) + wideLine("m", 40, 50));
    reading.runOnce();
    // Past the cap: only values of the 64 kept names, and the sweep's metric, whenever it comes.
    append(id, wideLine("late", 0, 100) + "{\"m0\": 2, \"late1\": 2, \"val_loss\": 0.5}\n");
    reading.runOnce();

    Map<String, Double> latest = job(id).reportedMetrics().orElseThrow().latest();
    assertThat(latest).hasSize(MetricsCaps.MAX_NAMES + 1).containsEntry("val_loss", 0.5);
    assertThat(latest.keySet()).contains("m0", "m63").doesNotContain("m64", "m89", "late0");
    assertThat(store.metricsOf(id, 10))
        .extracting(ReportedPoint::values)
        .satisfiesExactly(
            first -> assertThat(first).hasSize(50),
            second -> assertThat(second.keySet()).hasSize(24).contains("m40", "m63"),
            last -> assertThat(last).containsOnlyKeys("m0", "val_loss"));
    // 26 of the second line (m64 to m89), 100 of the third line and late1 of the last.
    assertThat(page(id).skippedValues()).isEqualTo(26 + 100 + 1);
    assertThat(steps(id))
        .as("a line of skipped names only is no point")
        .containsExactly(0L, 1L, 3L);
  }

  @Test
  void an_attempt_keeps_its_first_1000_points_then_evenly_spaced_ones_never_more_than_5000()
      throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    MetricsReading reading = gpuqOnNode1();
    int total = 0;
    // Over several polls, so that the points stored by earlier polls are thinned too.
    for (int poll = 0; poll < 6; poll++) {
      StringBuilder lines = new StringBuilder();
      for (int i = 0; i < 7_000; i++, total++) {
        lines.append("{\"loss\": ").append(total).append("}\n");
      }
      append(id, lines.toString());
      reading.runOnce();
      assertThat(store.metricsOf(id, 100_000).size()).isLessThanOrEqualTo(MetricsCaps.MAX_POINTS);
    }

    List<Long> kept = store.metricsOf(id, 100_000).stream().map(ReportedPoint::step).toList();
    assertThat(kept.subList(0, MetricsCaps.FIRST_POINTS))
        .as("the first 1,000 points, every one")
        .containsExactlyElementsOf(
            java.util.stream.LongStream.range(0, MetricsCaps.FIRST_POINTS).boxed().toList());
    List<Long> rest = kept.subList(MetricsCaps.FIRST_POINTS, kept.size());
    long stride = rest.get(1) - rest.get(0);
    assertThat(stride).isEqualTo(16);
    for (int i = 1; i < rest.size(); i++) {
      assertThat(rest.get(i) - rest.get(i - 1)).as("evenly spaced").isEqualTo(stride);
    }
    assertThat(rest.get(rest.size() - 1))
        .as("reaching the last stride's worth of the %d points", total)
        .isGreaterThan(total - 1 - stride);
    assertThat(job(id).reportedMetrics().orElseThrow().latest())
        .as("the latest value is kept apart, whatever was thinned")
        .containsEntry("loss", (double) total - 1);
  }

  @Test
  void each_poll_reads_at_most_4_mib_of_a_jobs_file_and_the_next_poll_reads_on() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    String line = "{\"a\": 1}\n";
    append(id, line.repeat(10 * 1024 * 1024 / line.length()));
    MetricsReading reading = gpuqOnNode1();

    reading.runOnce();
    long afterOne = store.jobsReportingOn("node-1").get(0).cursor().offset();
    reading.runOnce();
    long afterTwo = store.jobsReportingOn("node-1").get(0).cursor().offset();

    assertThat(afterOne).isPositive().isLessThanOrEqualTo(MetricsCaps.MAX_BYTES_PER_POLL);
    assertThat(afterTwo - afterOne)
        .isPositive()
        .isLessThanOrEqualTo(MetricsCaps.MAX_BYTES_PER_POLL);
  }

  @Test
  void an_ended_jobs_huge_sparse_file_is_read_64_mib_more_then_no_longer_and_says_so()
      throws Exception {
    String id = aSucceededJob().on("node-1").in(store).id();
    append(id, "{\"loss\": 1}\n");
    try (var file = new java.io.RandomAccessFile(files.metricsFile(id).toFile(), "rw")) {
      file.setLength(100L * 1024 * 1024 * 1024);
    }
    MetricsReading reading = gpuqOnNode1();

    int polls = 0;
    while (!store.jobsReportingOn("node-1").isEmpty() && polls < 100) {
      reading.runOnce();
      polls++;
    }

    assertThat(store.jobsReportingOn("node-1")).as("done reading").isEmpty();
    assertThat(polls)
        .isEqualTo((int) (MetricsCaps.MAX_BYTES_AFTER_END / MetricsCaps.MAX_BYTES_PER_POLL));
    assertThat(steps(id)).containsExactly(0L);
    assertThat(page(id).cut()).isTrue();
  }

  @Test
  void an_ended_job_read_to_its_end_within_the_bound_is_not_cut() throws Exception {
    String id = aSucceededJob().on("node-1").in(store).id();
    append(id, "{\"loss\": 1}\n");

    gpuqOnNode1().runOnce();

    assertThat(store.jobsReportingOn("node-1")).isEmpty();
    assertThat(page(id).cut()).isFalse();
  }

  @Test
  void a_poll_reads_every_job_of_the_node_batch_after_batch() throws Exception {
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < MetricsReading.BATCH * 2 + 5; i++) {
      String id = aRunningJob().on("node-1").in(store).id();
      append(id, "{\"loss\": " + i + "}\n");
      ids.add(id);
    }

    gpuqOnNode1().runOnce();

    assertThat(ids).allSatisfy(id -> assertThat(steps(id)).containsExactly(0L));
  }

  // --- a job's end and the poll: neither waits for the other's jobs, nothing is stored twice -----

  /**
   * The store, except that storing a read of {@code jobId} signals {@code storing} and waits for
   * {@code release}: a read caught in the middle.
   */
  private io.gpuq.job.JobStore holdingTheStoreOf(
      String jobId,
      java.util.concurrent.CountDownLatch storing,
      java.util.concurrent.CountDownLatch release) {
    return (io.gpuq.job.JobStore)
        java.lang.reflect.Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {io.gpuq.job.JobStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("recordMetrics")
                  && ((io.gpuq.reported.MetricsUpdate) args[0]).jobId().equals(jobId)) {
                storing.countDown();
                assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
              }
              try {
                return method.invoke(store, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private MetricsReading gpuqOnNode1Over(io.gpuq.job.JobStore itsStore) {
    return new MetricsReading(
        itsStore,
        files,
        new MetricsFileReader(),
        new TrialPruning(store, local.workers(), RULES, clock, "node-1"),
        clock,
        "node-1",
        java.time.Duration.ofSeconds(1));
  }

  @Test
  void a_jobs_end_is_read_while_the_poll_is_still_storing_another_jobs_metrics() throws Exception {
    String chatty = aRunningJob().on("node-1").in(store).id();
    String neighbour = aRunningJob().on("node-1").in(store).id();
    assertThat(chatty).as("the poll reads the chatty job first").isLessThan(neighbour);
    append(chatty, "{\"a\": 1}\n");
    append(neighbour, "{\"b\": 2}\n");
    var storing = new java.util.concurrent.CountDownLatch(1);
    var release = new java.util.concurrent.CountDownLatch(1);
    MetricsReading reading = gpuqOnNode1Over(holdingTheStoreOf(chatty, storing, release));
    Thread poll = new Thread(reading::runOnce);
    poll.start();
    try {
      assertThat(storing.await(60, TimeUnit.SECONDS)).isTrue();

      org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
          java.time.Duration.ofSeconds(30), () -> reading.readBeforeEnd(neighbour));

      assertThat(steps(neighbour)).containsExactly(0L);
    } finally {
      release.countDown();
      poll.join(60_000);
    }
    assertThat(steps(chatty)).containsExactly(0L);
    assertThat(steps(neighbour)).as("read once, not again by the poll").containsExactly(0L);
  }

  @Test
  void a_poll_that_loads_a_job_while_its_end_is_being_read_leaves_it_to_that_read()
      throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    append(id, "{\"loss\": 1}\n{\"loss\": 2}\n");
    var storing = new java.util.concurrent.CountDownLatch(1);
    var release = new java.util.concurrent.CountDownLatch(1);
    MetricsReading reading = gpuqOnNode1Over(holdingTheStoreOf(id, storing, release));
    Thread end = new Thread(() -> reading.readBeforeEnd(id));
    end.start();
    try {
      assertThat(storing.await(60, TimeUnit.SECONDS)).isTrue();
      // Loaded before the end's read is stored: its copy of the job is stale.
      Thread poll = new Thread(reading::runOnce);
      poll.start();
      poll.join(60_000);
      assertThat(poll.isAlive()).as("the poll waits for no job's end").isFalse();
    } finally {
      release.countDown();
      end.join(60_000);
    }

    assertThat(steps(id)).as("each line stored once").containsExactly(0L, 1L);
  }
}

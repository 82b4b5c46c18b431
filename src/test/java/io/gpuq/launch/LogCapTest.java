package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.support.Gate;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's log under its cap (gpuq.worker.max-log-size): real workers, whose wrapper's log keeper
 * cuts the log's middle out while they write, and readers that read it meanwhile.
 */
@DisplayName("A job's log past its cap keeps its beginning and its latest part, with a marker")
class LogCapTest {

  private static final long CAP = 64 * 1024;
  private static final int HEAD = (int) CAP / 4;
  private static final Pattern MARKER =
      Pattern.compile("\n=== gpuq: (\\d+) bytes of this log dropped here \\(max-log-size\\) ===");

  private static final Pattern MARKER_LINE = Pattern.compile(MARKER.pattern() + " *\n");

  @TempDir Path dataDir;
  private JobFiles files;
  private WorkerLauncher launcher;
  private final List<RunningWorker> started = new ArrayList<>();

  @BeforeEach
  void launcher() {
    files = new JobFiles(dataDir);
    launcher = new WorkerLauncher(files, Clock.systemUTC(), CAP);
  }

  @AfterEach
  void killWhatIsLeft() {
    started.forEach(w -> ProcessSignals.signalGroup(w.pid(), ProcessSignals.SIGKILL));
  }

  @Test
  void a_job_that_writes_far_more_than_the_cap_runs_to_its_end_and_its_log_stays_under_it()
      throws Exception {
    RunningWorker worker = launch("seq 1 200000; echo done");

    assertThat(exitCodeOf(worker)).as("the job is not stopped for writing").isZero();
    byte[] log = Files.readAllBytes(files.log("job"));
    assertThat((long) log.length).isLessThanOrEqualTo(CAP);
    String text = new String(log, StandardCharsets.US_ASCII);
    String output = seq(1, 200000) + "done\n";

    assertThat(text).startsWith(output.substring(0, HEAD));
    Matcher marker = MARKER.matcher(text);
    assertThat(marker.find()).as("the log says what was dropped").isTrue();
    assertThat(marker.start()).isEqualTo(HEAD);
    long dropped = Long.parseLong(marker.group(1));
    String latest = text.substring(HEAD + LogCut.MARKER_BYTES);
    assertThat(output).endsWith(latest);
    assertThat(HEAD + dropped + latest.length())
        .as("head, dropped and latest part are the whole output")
        .isEqualTo(output.length());
    assertThat(LogCut.of(LogCut.stateFileOf(files.log("job"))))
        .isEqualTo(new LogCut(HEAD, dropped));
  }

  @Test
  void a_job_that_writes_less_than_the_cap_keeps_all_of_its_log() throws Exception {
    RunningWorker worker = launch("seq 1 1000");

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(Files.readString(files.log("job"))).isEqualTo(seq(1, 1000));
    assertThat(LogCut.stateFileOf(files.log("job"))).doesNotExist();
  }

  /**
   * The wrapper waits a few seconds at most for what holds the job's output once the job ended (a
   * process it left behind), through a watchdog it stops as soon as the log is complete. When the
   * output was closed before the job ended (here; and in every warm trial, whose output its client
   * holds until the end), the keeper is done before the watchdog starts, and the watchdog was
   * stopped in its first moment: a stop sent then was lost, and nearly every such job held its
   * place 5 s longer.
   */
  @Test
  void a_job_that_closed_its_output_before_its_end_ends_without_the_watchdogs_wait()
      throws Exception {
    for (int run = 1; run <= 5; run++) {
      RunningWorker worker = launch(run, "echo before; exec >/dev/null 2>&1; sleep 0.05");

      assertThat(worker.exitCode().get(4, TimeUnit.SECONDS))
          .as("run %d ends long before the watchdog's 5 s", run)
          .isZero();
    }
    assertThat(Files.readString(files.log("job")).lines().filter("before"::equals))
        .as("each run's output is in the log")
        .hasSize(5);
  }

  @Test
  void a_later_attempt_goes_on_counting_in_the_same_log() throws Exception {
    assertThat(exitCodeOf(launch("seq 1 100000"))).isZero();
    long first = LogCut.of(LogCut.stateFileOf(files.log("job"))).dropped();

    assertThat(exitCodeOf(launch(2, "seq 1 100000"))).isZero();

    String text = Files.readString(files.log("job"));
    Matcher marker = MARKER.matcher(text);
    assertThat(marker.find()).isTrue();
    assertThat(marker.start()).isEqualTo(HEAD);
    assertThat(Long.parseLong(marker.group(1))).isGreaterThan(first);
    assertThat(marker.find()).as("one marker").isFalse();
    assertThat(text).endsWith(seq(99000, 100000));
  }

  @Test
  void a_reader_whose_next_bytes_were_cut_out_gets_the_marker_then_the_latest_part()
      throws Exception {
    Gate gate = Gate.in(dataDir, "more");
    RunningWorker worker =
        launch("seq 1 30000; " + gate.shellWait() + "; seq 30001 200000; echo done");
    Path log = files.log("job");
    LogCursor cursor = LogCursor.at(log, null);
    ByteArrayOutputStream before = new ByteArrayOutputStream();
    // All of the first part, cut already once, read to its end.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              before.write(cursor.read(1 << 20));
              String read = before.toString(StandardCharsets.US_ASCII);
              return read.endsWith("\n30000\n");
            });

    gate.open();
    assertThat(exitCodeOf(worker)).isZero();
    ByteArrayOutputStream after = new ByteArrayOutputStream();
    for (byte[] bytes = cursor.read(4096); bytes.length > 0; bytes = cursor.read(4096)) {
      after.write(bytes);
    }

    String rest = after.toString(StandardCharsets.US_ASCII);
    Matcher marker = MARKER.matcher(rest);
    assertThat(marker.lookingAt()).as("the marker comes first: " + rest.substring(0, 100)).isTrue();
    assertThat(Long.parseLong(marker.group(1)))
        .isEqualTo(LogCut.of(LogCut.stateFileOf(log)).dropped());
    String latest = rest.substring(LogCut.MARKER_BYTES);
    assertThat(seq(30001, 200000) + "done\n").endsWith(latest);
    assertThat(latest).hasSizeGreaterThanOrEqualTo(HEAD);
  }

  @Test
  void reading_the_whole_log_while_it_is_cut_never_repeats_or_mixes_lines() throws Exception {
    RunningWorker worker = launch("seq 1 300000");
    Path log = files.log("job");
    List<String> reads = new ArrayList<>();
    while (worker.exitCode().getNow(null) == null || reads.isEmpty()) {
      LogCursor cursor = LogCursor.at(log, null);
      long end = cursor.outputEnd();
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      while (cursor.outputPosition() < end) {
        byte[] bytes = cursor.read(1000);
        if (bytes.length == 0) {
          break;
        }
        read.write(bytes);
      }
      reads.add(read.toString(StandardCharsets.US_ASCII));
    }
    assertThat(exitCodeOf(worker)).isZero();
    for (String read : reads) {
      // Between markers (a reader whose next bytes were dropped is sent the marker again), every
      // whole line follows the one before it: the first and last of each part may be partial.
      for (String part : MARKER_LINE.split(read)) {
        List<String> lines = part.lines().collect(Collectors.toList());
        for (int i = 2; i < lines.size() - 1; i++) {
          assertThat(Long.parseLong(lines.get(i)))
              .as("in " + read.length() + " bytes read")
              .isEqualTo(Long.parseLong(lines.get(i - 1)) + 1);
        }
      }
    }
  }

  @Test
  void the_last_lines_of_a_log_being_written_and_cut_are_at_most_as_many_as_asked()
      throws Exception {
    RunningWorker worker = launch("yes 'a line of a job that never stops'");
    Path log = files.log("job");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> LogCut.of(LogCut.stateFileOf(log)).dropped() > 0);
    // As the API's tail reads it (JobLogs.stream): the lines found, then up to where the log ended.
    int tooMany = 0;
    String example = "";
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    int reads = 0;
    while (System.nanoTime() < until || reads < 200) {
      reads++;
      LogCursor cursor = LogCursor.at(log, 2);
      long end = cursor.outputEnd();
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      while (cursor.outputPosition() < end) {
        byte[] bytes = cursor.read((int) Math.min(64 * 1024, end - cursor.outputPosition()));
        if (bytes.length == 0) {
          break;
        }
        read.write(bytes);
      }
      long lines = read.toString(StandardCharsets.US_ASCII).lines().count();
      if (lines > 2 || lines == 0) {
        tooMany++;
        example = lines + " lines";
      }
    }
    ProcessSignals.signalGroup(worker.pid(), ProcessSignals.SIGKILL);
    assertThat(tooMany)
        .as("reads of other than 1-2 lines among " + reads + ", e.g. " + example)
        .isZero();
  }

  private RunningWorker launch(String script) throws LaunchException {
    return launch(1, script);
  }

  private RunningWorker launch(int attempt, String script) throws LaunchException {
    RunningWorker worker =
        launcher.launch(
            new LaunchRequest(
                "job",
                attempt,
                List.of("/bin/sh", "-c", script),
                null,
                Map.of("PATH", "/usr/local/bin:/usr/bin:/bin"),
                null,
                List.of(),
                null,
                JobPlacement.cpuOnly("node-1"),
                HostResources.ONE_CORE,
                false));
    started.add(worker);
    return worker;
  }

  private static Integer exitCodeOf(RunningWorker worker) throws Exception {
    return worker.exitCode().get(120, TimeUnit.SECONDS);
  }

  private static String seq(int from, int to) {
    return IntStream.rangeClosed(from, to).mapToObj(i -> i + "\n").collect(Collectors.joining());
  }
}

package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.gpuq.isolation.Account;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.WorkerProcess;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.OsAccounts;
import io.gpuq.support.Tmpfs;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a launched worker gets, whichever mechanism starts it: real processes writing real files
 * under a temporary data directory. Each subclass names a mechanism.
 */
abstract class WorkerLauncherContract {

  static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  static final String PATH = "/usr/local/bin:/usr/bin:/bin";

  @TempDir Path dataDir;
  JobFiles files;
  WorkerLauncher launcher;
  final List<RunningWorker> started = new ArrayList<>();

  abstract SpawnMechanism mechanism();

  @BeforeEach
  void newLauncher() {
    files = new JobFiles(dataDir);
    launcher = new WorkerLauncher(files, Clock.fixed(T0, ZoneOffset.UTC), mechanism());
  }

  @AfterEach
  void killWhatIsLeft() {
    started.forEach(w -> ProcessSignals.signalGroup(w.pid(), ProcessSignals.SIGKILL));
    started.forEach(WorkerLauncherContract::exitCodeOf);
  }

  @Test
  void usesTheMechanismItWasGiven() {
    assertThat(launcher.mechanism()).isEqualTo(mechanism());
  }

  @Test
  void theWorkerLeadsANewSessionAndProcessGroup() throws IOException {
    RunningWorker worker = launch(aJob().command("/bin/sleep", "30"));

    // ProcessBuilder's path reaches setsid only after jspawnhelper has exec'd it.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(statOf(worker.pid()))
                    .isEqualTo(
                        new SessionIds(ProcessHandle.current().pid(), worker.pid(), worker.pid())));
    assertThat(statOf(ProcessHandle.current().pid()).sid()).isNotEqualTo(worker.pid());
  }

  @Test
  void theWorkerSeesExactlyTheGivenEnvironment() {
    Path workDir = newDir("work");
    // dash exports PWD whether or not it was given; giving it makes the comparison exact.
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", PATH);
    env.put("PWD", workDir.toString());
    env.put("GPUQ_SPACES", "a b  c");
    env.put("GPUQ_EQUALS", "x=y=z");
    env.put("GPUQ_EMPTY", "");

    RunningWorker worker =
        launch(aJob().command("/usr/bin/env").workingDir(workDir).environment(env));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines())
        .containsExactlyInAnyOrderElementsOf(
            env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    assertThat(System.getenv()).containsKey("HOME"); // which the worker did not inherit
  }

  @Test
  void theWorkerEntersItsCgroupBeforeTheJobRuns() throws IOException {
    // Regular files stand in for a group's cgroup.procs: what the wrapper writes, and when.
    Path cpuset = Files.createFile(dataDir.resolve("cpuset.procs"));
    Path memory = Files.createFile(dataDir.resolve("memory.procs"));
    WorkerConfinement.Confined confined =
        new WorkerConfinement.Confined(
            "job", 1, List.of(cpuset, memory), java.util.Optional.empty(), null);

    RunningWorker worker =
        launchConfined(aJob().command("/bin/cat", cpuset.toString(), memory.toString()), confined);

    assertThat(exitCodeOf(worker)).isZero();
    String pid = Long.toString(worker.pid());
    assertThat(logLines()).containsExactly(pid, pid);
    assertThat(launcher.cgroupNotEntered("job", 1)).isFalse();
  }

  @Test
  void aWorkerThatCannotEnterItsCgroupNeverRunsTheJobAndSaysSo() {
    Path missing = dataDir.resolve("no-such-group/cgroup.procs");
    WorkerConfinement.Confined confined =
        new WorkerConfinement.Confined(
            "job", 1, List.of(missing), java.util.Optional.empty(), null);

    RunningWorker worker = launchConfined(aJob().command("/bin/echo", "the job ran"), confined);

    assertThat(exitCodeOf(worker)).isEqualTo(125);
    assertThat(logLines()).containsExactly("gpuq: cannot enter the worker's cgroup: " + missing);
    assertThat(launcher.cgroupNotEntered("job", 1)).isTrue();
    assertThat(launcher.recordedExitCode("job", 1)).isEmpty();
  }

  @Test
  void aWorkerBoundAtBirthRunsOnlyOnItsCoresAndTheSpawningThreadKeepsItsOwn() {
    io.gpuq.cgroup.CpuList mine = io.gpuq.cgroup.Affinity.ofThisProcess();
    io.gpuq.cgroup.CpuList one = mine.first(1);
    WorkerConfinement.Confined confined =
        new WorkerConfinement.Confined("job", 1, List.of(), java.util.Optional.of(one), one);

    RunningWorker worker =
        launchConfined(
            aJob().command("/bin/grep", "Cpus_allowed_list", "/proc/self/status"), confined);

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines()).containsExactly("Cpus_allowed_list:\t" + one);
    assertThat(io.gpuq.cgroup.Affinity.ofThread(0)).isEqualTo(mine);
  }

  @Test
  void theWorkerRunsInTheRequestedDirectory() {
    Path workDir = newDir("my work dir");

    RunningWorker worker =
        launch(aJob().command("/usr/bin/readlink", "/proc/self/cwd").workingDir(workDir));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines()).containsExactly(realPath(workDir).toString());
  }

  @Test
  void withoutAWorkingDirectoryTheWorkerRunsInItsWorkDirectory() {
    RunningWorker worker = launch(aJob().command("/usr/bin/readlink", "/proc/self/cwd"));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines()).containsExactly(realPath(files.workDir("job")).toString());
  }

  @Test
  @IntegrationTier // creates an OS account
  @EnabledIf(value = "io.gpuq.support.OsAccounts#canCreate", disabledReason = OsAccounts.SKIPPED)
  void aWorkerOfAnotherAccountRunsItsProgramAsThatAccountWhileItsWrapperStaysGpuqs()
      throws IOException {
    int uid = OsAccounts.ensure("gpuq-it-alice");
    int gid = OsAccounts.gid("gpuq-it-alice");
    Account alice = new Account("gpuq-it-alice", uid, gid, java.util.Optional.empty(), true);
    Path cache = newDir("jax-cache").resolve(Integer.toString(uid));
    Files.setPosixFilePermissions(
        dataDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));

    RunningWorker worker =
        launch(
            aJob()
                .command(
                    "/bin/sh",
                    "-c",
                    "echo $(id -u):$(id -g) $(pwd) $(awk '/^Uid:/{print $2}' /proc/$PPID/status);"
                        + " touch tmp/mine")
                .runningAs(alice)
                .accountDirectories(files.tmpDir("job"), cache));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines())
        .containsExactly(uid + ":" + gid + " " + realPath(files.workDir("job")) + " 0");
    for (Path dir : List.of(files.workDir("job"), files.tmpDir("job"), cache)) {
      assertThat(Files.getAttribute(dir, "unix:uid")).as("owner of %s", dir).isEqualTo(uid);
      assertThat(Files.getPosixFilePermissions(dir))
          .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    }
    assertThat(Files.getAttribute(files.exitFile("job", 1), "unix:uid")).isEqualTo(0);
  }

  @Test
  void theWorkerReadsFromDevNull() {
    RunningWorker worker = launch(aJob().command("/bin/sh", "-c", "readlink /proc/self/fd/0"));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines()).containsExactly("/dev/null");
  }

  @Test
  void stdoutAndStderrAreAppendedToTheLog() throws IOException {
    Files.createDirectories(files.jobDir("job"));
    Files.writeString(files.log("job"), "from before\n");

    RunningWorker worker =
        launch(aJob().command("/bin/sh", "-c", "echo to stdout; echo to stderr >&2; echo again"));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(logLines()).containsExactly("from before", "to stdout", "to stderr", "again");
  }

  @Test
  void aRetriedAttemptAppendsItsMetricsToAFileOfItsOwnTheEarlierOneSetAside() throws IOException {
    String report = "echo '{\"step\": 1, \"loss\": '$1'}' >> \"$GPUQ_METRICS_FILE\"";
    Map<String, String> env =
        Map.of("PATH", PATH, "GPUQ_METRICS_FILE", files.metricsFile("job").toString());
    assertThat(
            exitCodeOf(
                launch(aJob().environment(env).command("/bin/sh", "-c", report, "sh", "0.9"))))
        .isZero();

    RunningWorker second =
        launch(aJob().attempt(2).environment(env).command("/bin/sh", "-c", report, "sh", "0.5"));

    assertThat(exitCodeOf(second)).isZero();
    assertThat(Files.readString(files.metricsFile("job")))
        .isEqualTo("{\"step\": 1, \"loss\": 0.5}\n");
    assertThat(Files.readString(files.earlierMetricsFile("job", 2)))
        .isEqualTo("{\"step\": 1, \"loss\": 0.9}\n");
  }

  @Test
  void aRetriedAttemptStartsItsPartOfTheLogWithASeparator() {
    assertThat(exitCodeOf(launch(aJob().command("/bin/echo", "first")))).isZero();

    RunningWorker second = launch(aJob().attempt(2).command("/bin/echo", "second"));

    assertThat(exitCodeOf(second)).isZero();
    assertThat(logLines())
        .containsExactly("first", WorkerLauncher.ATTEMPT_SEPARATOR + "2 ===", "second");
  }

  @Test
  void theWorkerInheritsNoneOfGpuqsOtherDescriptors() throws IOException {
    Path marker = Files.writeString(dataDir.resolve("held-open-by-gpuq"), "x");
    // The JDK opens files without O_CLOEXEC: only closing them in the child keeps them out.
    try (FileInputStream heldOpen = new FileInputStream(marker.toFile())) {
      RunningWorker worker = launch(aJob().command("/bin/ls", "-l", "/proc/self/fd"));

      assertThat(exitCodeOf(worker)).isZero();
    }
    String listing = String.join("\n", logLines());
    assertThat(listing).contains("/dev/null", files.log("job").toString());
    assertThat(listing).doesNotContain("held-open-by-gpuq", "socket:");
    assertThat(fdNumbers(listing)).containsOnly(0, 1, 2, 3); // 3: ls reading /proc/self/fd
  }

  @Test
  void exitCodeZeroIsReportedAndRecorded() {
    RunningWorker worker = launch(aJob().command("/bin/true"));

    assertThat(exitCodeOf(worker)).isZero();
    assertThat(launcher.recordedExitCode("job", 1)).contains(0);
  }

  @Test
  void aWorkersProcessIsRecordedOnDiskPerAttemptAndReadBack() throws IOException {
    Files.createDirectories(files.jobDir("job"));

    launcher.recordProcess(new WorkerProcess("job", 1, 4242, 987_654));
    launcher.recordProcess(new WorkerProcess("job", 2, 4343, 987_700));

    assertThat(launcher.recordedProcess("job", 1))
        .contains(new WorkerProcess("job", 1, 4242, 987_654));
    assertThat(launcher.recordedProcess("job", 2))
        .contains(new WorkerProcess("job", 2, 4343, 987_700));
    assertThat(launcher.recordedProcess("job", 3)).isEmpty();
  }

  @Test
  void aDamagedProcessFileReadsAsNoRecord() throws IOException {
    Files.createDirectories(files.jobDir("job"));
    Files.writeString(files.processFile("job", 1), "4242");

    assertThat(launcher.recordedProcess("job", 1)).isEmpty();
  }

  @Test
  void aNonZeroExitCodeIsReportedAndRecorded() throws IOException {
    RunningWorker worker = launch(aJob().command("/bin/sh", "-c", "exit 3"));

    assertThat(exitCodeOf(worker)).isEqualTo(3);
    // Written over the placeholder gpuq left there: the code's line, then the placeholder's rest.
    assertThat(Files.readString(files.exitFile("job", 1))).startsWith("3\n");
    assertThat(launcher.recordedExitCode("job", 1)).contains(3);
  }

  @Test
  @IntegrationTier // mounts a tmpfs
  @EnabledIf(
      value = "io.gpuq.support.Tmpfs#canMount",
      disabledReason = "mounting a tmpfs needs root")
  void aJobThatFillsTheDiskStillHasItsExitCodeRecorded() throws Exception {
    try (Tmpfs disk = Tmpfs.mount("full-exit", 4)) {
      onDataDir(disk.root());

      RunningWorker worker =
          launch(aJob().command("/bin/sh", "-c", "head -c 8M /dev/zero > fill; exit 3"));

      assertThat(exitCodeOf(worker)).isEqualTo(3);
      assertThat(disk.root().toFile().getUsableSpace()).isZero();
      assertThat(launcher.recordedExitCode("job", 1)).contains(3);
      assertThat(launcher.exitCodeUnwritten("job", 1)).isFalse();
    } finally {
      killWhatIsLeft();
      started.clear();
    }
  }

  @Test
  @IntegrationTier // mounts a tmpfs
  @EnabledIf(
      value = "io.gpuq.support.Tmpfs#canMount",
      disabledReason = "mounting a tmpfs needs root")
  void aWrapperThatCannotWriteTheCodeLeavesAnEmptyExitFileAndStillExitsWithIt() throws Exception {
    try (Tmpfs disk = Tmpfs.mount("unwritable-exit", 4)) {
      onDataDir(disk.root());
      // The placeholder taken away (the job runs as the test's account, which may), then no byte
      // left: the wrapper's write needs space it cannot get.
      String exitFile = files.exitFile("job", 1).toString();

      RunningWorker worker =
          launch(
              aJob()
                  .command(
                      "/bin/sh",
                      "-c",
                      ": > " + exitFile + "; head -c 8M /dev/zero > fill; exit 5"));

      assertThat(exitCodeOf(worker)).isEqualTo(5);
      assertThat(launcher.recordedExitCode("job", 1)).isEmpty();
      assertThat(launcher.exitCodeUnwritten("job", 1)).isTrue();
    } finally {
      killWhatIsLeft();
      started.clear();
    }
  }

  private void onDataDir(Path root) {
    files = new JobFiles(root);
    launcher = new WorkerLauncher(files, Clock.fixed(T0, ZoneOffset.UTC), mechanism());
  }

  @Test
  void deathBySigkillIs137AndLeavesNoExitCode() throws IOException {
    Files.createDirectories(files.jobDir("job"));
    Files.writeString(files.exitFile("job", 1), "0\n"); // stale, from a crashed earlier gpuq
    RunningWorker worker = launch(aJob().command("/bin/sleep", "30"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> ProcessHandle.of(worker.pid()).map(h -> h.children().count() > 0).orElse(false));

    assertThat(ProcessSignals.signalGroup(worker.pid(), ProcessSignals.SIGKILL)).isTrue();

    assertThat(exitCodeOf(worker)).isEqualTo(137);
    assertThat(launcher.recordedExitCode("job", 1)).isEmpty();
    // The wrapper died with its job: lost, not "ran to its end without a recorded code".
    assertThat(launcher.exitCodeUnwritten("job", 1)).isFalse();
  }

  @Test
  void anExitedWorkerIsReapedNotLeftAZombie() {
    RunningWorker worker = launch(aJob().command("/bin/sh", "-c", "exit 5"));
    Path proc = Path.of("/proc", Long.toString(worker.pid()));

    assertThat(exitCodeOf(worker)).isEqualTo(5);
    assertThat(proc).doesNotExist();
  }

  @Test
  void theTimeoutSetsTheDeadlineFromTheClock() {
    RunningWorker worker = launch(aJob().command("/bin/true").timeout(Duration.ofMinutes(5)));

    assertThat(worker.startedAt()).isEqualTo(T0);
    assertThat(worker.deadline()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
    assertThat(launch(aJob().attempt(2).command("/bin/true")).deadline()).isNull();
  }

  @Test
  void aProgramMissingFromThePathIsALaunchException() {
    assertThatThrownBy(() -> launcher.launch(aJob().command("no-such-program-gpuq").build()))
        .isInstanceOf(LaunchException.class)
        .hasMessage("program \"no-such-program-gpuq\" not found on the worker's PATH")
        .message()
        .as("gpuq's own PATH is none of the job owner's business")
        .doesNotContain(PATH);
  }

  @Test
  void aMissingProgramPathIsALaunchException() {
    assertThatThrownBy(() -> launcher.launch(aJob().command("./missing.sh").build()))
        .isInstanceOf(LaunchException.class)
        .hasMessage("program ./missing.sh does not exist");
  }

  @Test
  void aMissingWorkingDirectoryIsALaunchException() {
    Path nowhere = dataDir.resolve("nowhere");

    assertThatThrownBy(
            () -> launcher.launch(aJob().command("/bin/true").workingDir(nowhere).build()))
        .isInstanceOf(LaunchException.class)
        .hasMessage("working directory " + nowhere + " does not exist");
  }

  @Test
  void aLogThatCannotBeOpenedIsALaunchException() throws IOException {
    // A directory where the log should be: the open for writing fails, in the child or in the JVM.
    Files.createDirectories(files.log("job"));

    assertThatThrownBy(() -> launcher.launch(aJob().command("/bin/true").build()))
        .isInstanceOf(LaunchException.class)
        .hasMessageStartingWith("cannot start /bin/true: ")
        .hasMessageContaining("directory");
  }

  @Test
  void aFifoInPlaceOfTheLogFailsTheLaunchInsteadOfBlockingIt() throws Exception {
    Files.createDirectories(files.jobDir("job"));
    assertThat(new ProcessBuilder("mkfifo", files.log("job").toString()).start().waitFor())
        .isZero();

    // A deadline against hanging forever in open(2), not a measure of speed.
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () ->
            assertThatThrownBy(() -> launcher.launch(aJob().command("/bin/true").build()))
                .isInstanceOf(LaunchException.class)
                .hasMessageStartingWith("cannot start /bin/true: "));
  }

  @Test
  void aLinkInPlaceOfTheLogFailsTheLaunchAndItsTargetIsUntouched() throws IOException {
    Path elsewhere = Files.writeString(dataDir.resolve("not-a-log"), "untouched\n");
    Files.createDirectories(files.jobDir("job"));
    Files.createSymbolicLink(files.log("job"), elsewhere);

    assertThatThrownBy(() -> launcher.launch(aJob().command("/bin/echo", "written").build()))
        .isInstanceOf(LaunchException.class);
    assertThat(Files.readString(elsewhere)).isEqualTo("untouched\n");
  }

  @Test
  void fiftyConcurrentLaunchesEachGetTheirOwnExitCode() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<RunningWorker>> launches = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        int code = i;
        launches.add(
            threads.submit(
                () ->
                    launch(
                        aJob()
                            .jobId("job-" + code)
                            .command(
                                "/bin/sh", "-c", "echo job $0; exit $0", Integer.toString(code)))));
      }
      for (int i = 0; i < 50; i++) {
        RunningWorker worker = launches.get(i).get(30, TimeUnit.SECONDS);
        assertThat(worker.jobId()).isEqualTo("job-" + i);
        assertThat(exitCodeOf(worker)).isEqualTo(i);
        assertThat(launcher.recordedExitCode("job-" + i, 1)).contains(i);
        assertThat(Files.readString(files.log("job-" + i))).isEqualTo("job " + i + "\n");
      }
    } finally {
      threads.shutdownNow();
    }
  }

  // --- helpers ---

  record SessionIds(long ppid, long pgid, long sid) {}

  /** Fields 4, 5 and 6 of /proc/PID/stat (after the command name, which may hold spaces). */
  static SessionIds statOf(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new SessionIds(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
  }

  static Integer exitCodeOf(RunningWorker worker) {
    try {
      return worker.exitCode().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("worker " + worker.pid() + " did not exit", e);
    }
  }

  static List<Integer> fdNumbers(String lsListing) {
    return lsListing
        .lines()
        .filter(line -> line.contains(" -> "))
        .map(line -> line.substring(0, line.indexOf(" -> ")))
        .map(left -> Integer.parseInt(left.substring(left.lastIndexOf(' ') + 1)))
        .collect(Collectors.toList());
  }

  RunningWorker launch(Launch launch) {
    try {
      RunningWorker worker = launcher.launch(launch.build());
      synchronized (started) {
        started.add(worker);
      }
      return worker;
    } catch (LaunchException e) {
      throw new AssertionError(e);
    }
  }

  RunningWorker launchConfined(Launch launch, WorkerConfinement.Confined confined) {
    try {
      RunningWorker worker = launcher.launch(launch.build(), confined);
      synchronized (started) {
        started.add(worker);
      }
      return worker;
    } catch (LaunchException e) {
      throw new AssertionError(e);
    }
  }

  List<String> logLines() {
    try {
      return Files.readAllLines(files.log("job"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path newDir(String name) {
    try {
      return Files.createDirectories(dataDir.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path realPath(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Launch aJob() {
    return new Launch();
  }

  /** A launch request, CPU-only, of job "job" attempt 1 with only PATH set, unless told. */
  final class Launch {
    private String jobId = "job";
    private int attempt = 1;
    private List<String> command = List.of("/bin/true");
    private Path workingDir;
    private Map<String, String> environment = Map.of("PATH", PATH);
    private Duration timeout;
    private Account switchTo;
    private List<Path> accountDirectories = List.of();

    Launch runningAs(Account value) {
      switchTo = value;
      return this;
    }

    Launch accountDirectories(Path... value) {
      accountDirectories = List.of(value);
      return this;
    }

    Launch jobId(String value) {
      jobId = value;
      return this;
    }

    Launch attempt(int value) {
      attempt = value;
      return this;
    }

    Launch command(String... value) {
      command = Arrays.asList(value);
      return this;
    }

    Launch workingDir(Path value) {
      workingDir = value;
      return this;
    }

    Launch environment(Map<String, String> value) {
      environment = value;
      return this;
    }

    Launch timeout(Duration value) {
      timeout = value;
      return this;
    }

    LaunchRequest build() {
      return new LaunchRequest(
          jobId,
          attempt,
          command,
          workingDir,
          environment,
          switchTo,
          accountDirectories,
          timeout,
          JobPlacement.cpuOnly("node-1"),
          io.gpuq.job.HostResources.ONE_CORE,
          false);
    }
  }
}

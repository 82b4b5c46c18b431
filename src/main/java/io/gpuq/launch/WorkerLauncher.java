package io.gpuq.launch;

import io.gpuq.cgroup.Affinity;
import io.gpuq.cgroup.OomScoreAdj;
import io.gpuq.fs.DataDirectory;
import io.gpuq.fs.SafeFiles;
import io.gpuq.isolation.Account;
import io.gpuq.isolation.Reachability;
import io.gpuq.job.WorkerProcess;
import io.gpuq.proc.ProcFs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts one attempt of a job as its own process: argv without a shell, in its own session (so its
 * process group holds the whole tree), output appended to the job's log, stdin from /dev/null, and
 * exactly the environment it was given. The process is {@code /bin/sh} running the worker wrapper,
 * which runs the command and writes its exit code to a file that outlives gpuq.
 *
 * <p>It is started with one {@code posix_spawn} call ({@link PosixSpawn}) where the libc allows it,
 * else with {@link ProcessBuilder} behind {@code setsid}, which costs two more execs per worker.
 */
public final class WorkerLauncher {

  private static final Logger log = LoggerFactory.getLogger(WorkerLauncher.class);
  private static final String WRAPPER_RESOURCE = "/gpuq/worker-wrapper.sh";

  /**
   * What an exit file holds until the wrapper writes the code over it: blank lines, longer than any
   * code ("255\n"), which read as no code.
   */
  static final byte[] EXIT_PLACEHOLDER = "\n".repeat(8).getBytes(StandardCharsets.US_ASCII);

  private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> WRAPPER_MODE =
      PosixFilePermissions.fromString("rwx------");
  private static final Path ROOT = Path.of("/");
  private static final String SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin";
  private static final int SMALL_FILE_BYTES = 256;

  /** Precedes, in the wrapper's arguments, the oom_score_adj its job gets (OomScoreAdj). */
  static final String OOM_SCORE_ARGUMENT = "--oom-score-adj";

  /** Precedes, in the wrapper's arguments, each cgroup.procs file it enters. */
  static final String CGROUP_ARGUMENT = "--cgroup";

  /** What the wrapper writes in its exit file when it could not enter the worker's cgroup. */
  static final String NOT_ENTERED = "cgroup";

  /** Precedes, in the wrapper's arguments, the cap of the job's log and the log's name. */
  static final String LOG_CAP_ARGUMENT = "--log-cap";

  /** {@code gpuq.worker.max-log-size}'s default: 64 MiB (docs/configuration.md). */
  public static final long DEFAULT_MAX_LOG_BYTES = 64L * 1024 * 1024;

  /**
   * The least cap a log may have: its head and latest part are each a quarter of it, and the marker
   * between them takes {@link LogCut#MARKER_BYTES}.
   */
  public static final long MIN_MAX_LOG_BYTES = 64L * 1024;

  /** Starts the line that opens each retried attempt's part of the log. */
  public static final String ATTEMPT_SEPARATOR = "=== gpuq: attempt ";

  private final JobFiles files;
  private final Clock clock;
  private final Path wrapper;
  // Null when workers are started with ProcessBuilder.
  private final PosixSpawn posixSpawn;
  // Used by PROCESS_BUILDER only.
  private final Optional<Path> setsid;
  // Needed only by jobs that run as another account than gpuq's.
  private final Optional<Path> setpriv;
  private final long maxLogBytes;

  /**
   * The time by the clock a worker's start is read from: an end read from it never comes before a
   * start it records afterwards.
   */
  public Instant now() {
    return clock.instant();
  }

  /** Starts workers with posix_spawn where this system allows it, else with ProcessBuilder. */
  public WorkerLauncher(JobFiles files, Clock clock) {
    this(files, clock, bindPosixSpawn(), DEFAULT_MAX_LOG_BYTES);
  }

  /**
   * Starts workers with the given mechanism.
   *
   * @throws IllegalStateException when it is {@link SpawnMechanism#POSIX_SPAWN} and this system
   *     lacks it
   */
  public WorkerLauncher(JobFiles files, Clock clock, SpawnMechanism mechanism) {
    this(
        files,
        clock,
        mechanism == SpawnMechanism.POSIX_SPAWN ? requirePosixSpawn() : null,
        DEFAULT_MAX_LOG_BYTES);
  }

  /**
   * Starts workers with posix_spawn where this system allows it, and keeps each job's log under
   * {@code maxLogBytes} ({@code gpuq.worker.max-log-size}).
   */
  public WorkerLauncher(JobFiles files, Clock clock, long maxLogBytes) {
    this(files, clock, bindPosixSpawn(), maxLogBytes);
  }

  /** As {@link #WorkerLauncher(JobFiles, Clock, SpawnMechanism)}, with a log cap. */
  public WorkerLauncher(JobFiles files, Clock clock, SpawnMechanism mechanism, long maxLogBytes) {
    this(
        files,
        clock,
        mechanism == SpawnMechanism.POSIX_SPAWN ? requirePosixSpawn() : null,
        maxLogBytes);
  }

  private WorkerLauncher(JobFiles files, Clock clock, PosixSpawn posixSpawn, long maxLogBytes) {
    if (maxLogBytes < MIN_MAX_LOG_BYTES) {
      throw new IllegalArgumentException(
          "gpuq.worker.max-log-size must be at least 64KiB, not " + maxLogBytes + " bytes");
    }
    this.maxLogBytes = maxLogBytes;
    this.files = files;
    this.clock = clock;
    files.layout().prepare();
    this.wrapper = installWrapper(files.binDir());
    this.posixSpawn = posixSpawn;
    this.setpriv = findOnPath("setpriv", SYSTEM_PATH + ":" + System.getenv("PATH"));
    if (posixSpawn != null) {
      this.setsid = Optional.empty();
      log.info("workers are started with posix_spawn ({})", posixSpawn.libcVersion());
    } else {
      this.setsid = findOnPath("setsid", System.getenv("PATH"));
      log.info("workers are started with ProcessBuilder");
      if (setsid.isEmpty()) {
        log.warn(
            "'setsid' (util-linux) not found: workers share gpuq's process group, and stopping one"
                + " signals its process tree only");
      }
    }
  }

  public SpawnMechanism mechanism() {
    return posixSpawn != null ? SpawnMechanism.POSIX_SPAWN : SpawnMechanism.PROCESS_BUILDER;
  }

  public RunningWorker launch(LaunchRequest request) throws LaunchException {
    return launch(request, WorkerConfinement.Confined.none(request.jobId(), request.attempt()));
  }

  /**
   * Starts a worker confined as {@code confined} says: its wrapper enters the cgroup before it runs
   * anything, or it is born bound to its cores.
   */
  public RunningWorker launch(LaunchRequest request, WorkerConfinement.Confined confined)
      throws LaunchException {
    Path jobDir = files.jobDir(request.jobId());
    Account switchTo = request.switchTo();
    try {
      Files.createDirectories(jobDir);
      prepareDirectories(files.workDir(request.jobId()), request.accountDirectories(), switchTo);
    } catch (IOException e) {
      throw new LaunchException("cannot create the job's directories: " + e, e);
    }
    Path workingDir =
        request.workingDir() == null ? files.workDir(request.jobId()) : request.workingDir();
    Path program;
    if (switchTo == null) {
      if (!Files.isDirectory(workingDir)) {
        throw new LaunchException("working directory " + workingDir + " does not exist");
      }
      program = resolveProgram(request.command().get(0), request.environment(), workingDir);
    } else {
      // One answer for "missing" and "closed to the job": gpuq's own rights must not tell.
      if (!Reachability.canEnter(workingDir, switchTo)) {
        throw new LaunchException(
            "working directory "
                + workingDir
                + " does not exist or is closed to the job's account "
                + switchTo.name());
      }
      program =
          resolveProgramFor(switchTo, request.command().get(0), request.environment(), workingDir);
    }
    Path logFile = files.log(request.jobId());
    if (request.attempt() > 1) {
      appendLine(logFile, ATTEMPT_SEPARATOR + request.attempt() + " ===");
      setAsideEarlierMetrics(request.jobId(), request.attempt());
    }
    Path exitFile = files.exitFile(request.jobId(), request.attempt());
    try {
      Files.deleteIfExists(exitFile);
      // The wrapper overwrites these bytes with the exit code: written now, while there is room,
      // they leave it room for the code on a disk the job has filled meanwhile.
      Files.write(exitFile, EXIT_PLACEHOLDER, StandardOpenOption.CREATE_NEW);
    } catch (IOException e) {
      throw new LaunchException("cannot prepare " + exitFile + ": " + e, e);
    }
    List<String> argv = new ArrayList<>();
    argv.add("/bin/sh");
    argv.add(wrapper.toString());
    argv.add(exitFile.toString());
    argv.add(OOM_SCORE_ARGUMENT);
    argv.add(Integer.toString(OomScoreAdj.forWorker(request.host().memoryBytes() != null)));
    argv.add(LOG_CAP_ARGUMENT);
    argv.add(Long.toString(maxLogBytes));
    argv.add(logFile.toString());
    for (Path procs : confined.cgroupProcs()) {
      argv.add(CGROUP_ARGUMENT);
      argv.add(procs.toString());
      if (request.warmStart() && switchTo != null) {
        letEnter(procs, switchTo);
      }
    }
    List<String> command = new ArrayList<>();
    command.add(program.toString());
    command.addAll(request.command().subList(1, request.command().size()));
    Path spawnDir;
    Map<String, String> environment = request.environment();
    if (switchTo == null) {
      argv.addAll(command);
      spawnDir = workingDir;
    } else {
      DeferredEnvironment split = DeferredEnvironment.of(environment);
      environment = split.environment();
      if (request.workingDir() == null && split.deferred().isEmpty()) {
        // The job's own work directory, which gpuq made and the job cannot replace (it lies in
        // gpuq's work/): entering it first costs the job nothing, and saves a shell per start.
        argv.addAll(dropTo(switchTo, command));
        spawnDir = workingDir;
      } else {
        // A directory the user named is entered only as the job's account: gpuq's own rights must
        // not reach a directory the job could not reach itself. The same shell restores what
        // had to wait until after the drop.
        List<String> restoreThenRun = new ArrayList<>();
        restoreThenRun.add("/bin/sh");
        restoreThenRun.add("-c");
        restoreThenRun.add(DeferredEnvironment.RESTORE_SCRIPT);
        restoreThenRun.add(request.workingDir() == null ? "" : workingDir.toString());
        restoreThenRun.addAll(command);
        argv.addAll(dropTo(switchTo, restoreThenRun));
        spawnDir = request.workingDir() == null ? workingDir : ROOT;
      }
    }
    Instant now = clock.instant();
    Instant deadline = request.timeout() == null ? null : now.plus(request.timeout());
    try {
      Spawn spawn = new Spawn(argv, environment, spawnDir, logFile);
      Started started;
      if (confined.bindAtBirth().isPresent()) {
        started = Affinity.spawnBound(confined.bindAtBirth().get(), () -> spawn(request, spawn));
      } else {
        started = spawn(request, spawn);
      }
      return new RunningWorker(
          request.jobId(),
          request.attempt(),
          started.handle().pid(),
          started.exitCode(),
          now,
          deadline,
          request.placement(),
          new StopMark(),
          request.host());
    } catch (IOException e) {
      throw new LaunchException("cannot start " + program + ": " + e.getMessage(), e);
    } catch (LaunchException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new LaunchException("cannot start " + program + ": " + e.getMessage(), e);
    }
  }

  private Started spawn(LaunchRequest request, Spawn spawn) throws IOException {
    return posixSpawn != null ? spawnDirectly(request, spawn) : spawnWithProcessBuilder(spawn);
  }

  /** The argv that runs {@code command} as {@code account} ({@link Setpriv}). */
  private List<String> dropTo(Account account, List<String> command) throws LaunchException {
    Path setpriv =
        this.setpriv.orElseThrow(
            () ->
                new LaunchException(
                    "cannot run the job as "
                        + account
                        + ": 'setpriv' (util-linux) is not installed"));
    List<String> argv = Setpriv.runAs(setpriv, account);
    argv.addAll(command);
    return argv;
  }

  /**
   * Lets a warm start's fork, a process of the job's account forked by its zygote, enter this
   * worker's group (issue 36): cgroup v1 lets a process move one of its own account's into a group
   * whose {@code cgroup.procs} it may write. Only this worker's own groups are given, and only for
   * as long as they live; v2 also asks for the common ancestor's file, which stays gpuq's, so there
   * the fork cannot enter and the trial starts cold. The way to the file (the worker's group and
   * gpuq's parent group, which gpuq made 0700) is opened to pass through, not to list.
   */
  private static void letEnter(Path procs, Account account) {
    try {
      Path group = procs.getParent();
      for (Path dir : List.of(group, group.getParent())) {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> mode =
            Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (mode.add(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
          Files.setPosixFilePermissions(dir, mode);
        }
      }
      Files.setAttribute(procs, "unix:uid", account.uid(), LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | UnsupportedOperationException e) {
      log.warn("cannot give {} to {}: {}", procs, account.name(), e.toString());
    }
  }

  /**
   * Moves the metrics file an earlier attempt left on this node aside, so that this attempt's file
   * starts empty, as on any other node: gpuq reads each attempt's file from its start. A rename
   * inside the job's work directory, which the job cannot replace; a link there moves as a link.
   */
  private void setAsideEarlierMetrics(String jobId, int attempt) {
    Path metrics = files.metricsFile(jobId);
    try {
      Files.move(metrics, files.earlierMetricsFile(jobId, attempt), StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      // No earlier attempt reported here.
    } catch (IOException e) {
      // Only the job itself can have made this impossible; it starts anyway.
      log.warn(
          "job {}: cannot move its earlier metrics file aside for attempt {}: {}",
          jobId,
          attempt,
          e.toString());
    }
  }

  /**
   * Creates the job's directories, mode 0700, and gives them to its account. Those inside its work
   * directory are made only with it, while it is still gpuq's: once the job's account owns it, a
   * process of that account could swap a link in between gpuq's mkdir and chown. A work directory
   * that exists is the job's (from an earlier attempt) and is left exactly as it is. Those outside
   * it (the account's JAX cache) lie in directories only gpuq may write.
   */
  private static void prepareDirectories(Path work, List<Path> forTheJob, Account account)
      throws IOException {
    if (createPrivate(work)) {
      for (Path dir : forTheJob) {
        if (dir.startsWith(work) && createPrivate(dir)) {
          give(dir, account);
        }
      }
      give(work, account);
    }
    for (Path dir : forTheJob) {
      if (!dir.startsWith(work) && createPrivate(dir)) {
        give(dir, account);
      }
    }
  }

  /** Makes a directory mode 0700 (umask permitting less); false if anything is there already. */
  private static boolean createPrivate(Path dir) throws IOException {
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DataDirectory.PRIVATE_DIR));
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    }
  }

  private static void give(Path dir, Account account) throws IOException {
    if (account != null) {
      Files.setAttribute(dir, "unix:gid", account.gid(), LinkOption.NOFOLLOW_LINKS);
      Files.setAttribute(dir, "unix:uid", account.uid(), LinkOption.NOFOLLOW_LINKS);
    }
  }

  private record Started(ProcessHandle handle, CompletableFuture<Integer> exitCode) {}

  /** The process to start: its argv, its whole environment, where, and the log it writes. */
  private record Spawn(
      List<String> argv, Map<String, String> environment, Path workingDir, Path log) {}

  private Started spawnDirectly(LaunchRequest request, Spawn spawn) throws IOException {
    int pid = posixSpawn.spawn(spawn.argv(), spawn.environment(), spawn.workingDir(), spawn.log());
    // Before the reaper starts: until it reaps the child, the pid cannot name another process.
    Optional<ProcessHandle> handle = ProcessHandle.of(pid);
    CompletableFuture<Integer> exitCode =
        posixSpawn
            .exitOf(pid)
            // Only if something else reaped it first; the wrapper may still have said.
            .thenApply(
                code ->
                    code != null
                        ? code
                        : recordedExitCode(request.jobId(), request.attempt()).orElse(null));
    return new Started(
        handle.orElseThrow(() -> new IllegalStateException("worker " + pid + " vanished unreaped")),
        exitCode);
  }

  private Started spawnWithProcessBuilder(Spawn spawn) throws IOException {
    List<String> command = new ArrayList<>();
    setsid.ifPresent(p -> command.add(p.toString()));
    command.addAll(spawn.argv());
    // The JDK opens a redirect's file by name; it gets the descriptor's /proc/self/fd name, so that
    // it opens the very file checked not to be a link or a FIFO.
    Process process =
        SafeFiles.withAppendable(
            spawn.log(),
            opened -> {
              ProcessBuilder builder =
                  new ProcessBuilder(command)
                      .directory(spawn.workingDir().toFile())
                      .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                      .redirectErrorStream(true)
                      .redirectOutput(ProcessBuilder.Redirect.appendTo(opened.toFile()));
              Map<String, String> env = builder.environment();
              env.clear();
              env.putAll(spawn.environment());
              return builder.start();
            });
    return new Started(process.toHandle(), process.onExit().thenApply(Process::exitValue));
  }

  /**
   * Takes back a worker that outlived an earlier gpuq: the same PID with the same kernel start time
   * (so not a recycled PID). Its exit code will come from its wrapper's exit file.
   */
  public Optional<RunningWorker> adopt(AdoptRequest request, ProcFs procFs) {
    Optional<ProcessHandle> handle =
        ProcessHandle.of(request.pid())
            .filter(h -> procFs.isSameProcess(request.pid(), request.pidStartTicks()));
    return handle.map(
        h ->
            new RunningWorker(
                request.jobId(),
                request.attempt(),
                h.pid(),
                h.onExit()
                    .thenApply(
                        gone -> recordedExitCode(request.jobId(), request.attempt()).orElse(null)),
                request.startedAt(),
                request.deadline(),
                request.placement(),
                new StopMark(),
                request.host()));
  }

  /**
   * Writes a worker's PID and kernel start time next to its exit file. The database learns them a
   * few milliseconds later, with other workers' events: a gpuq killed in between would otherwise
   * find the job RUNNING with no process to re-adopt, declare it lost and run it again while its
   * worker still runs. Written aside and renamed into place: a rename replaces whatever is there
   * without following or opening it.
   *
   * @throws IOException when the file cannot be written; the caller decides what that costs
   */
  public void recordProcess(WorkerProcess process) throws IOException {
    Path target = files.processFile(process.jobId(), process.attempt());
    Path tmp = Files.createTempFile(target.getParent(), ".pid", ".tmp");
    try {
      Files.writeString(tmp, process.pid() + " " + process.startTicks() + "\n");
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The worker process recorded for an attempt, if any. */
  public Optional<WorkerProcess> recordedProcess(String jobId, int attempt) {
    try {
      String[] fields =
          SafeFiles.readSmall(files.processFile(jobId, attempt), SMALL_FILE_BYTES)
              .orElse("")
              .trim()
              .split(" ");
      return Optional.of(
          new WorkerProcess(jobId, attempt, Long.parseLong(fields[0]), Long.parseLong(fields[1])));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Whether the wrapper of an attempt ran its job to the end but could not write its exit code: it
   * emptied the file to say so (a wrapper killed before the end leaves the placeholder).
   */
  public boolean exitCodeUnwritten(String jobId, int attempt) {
    Path exitFile = files.exitFile(jobId, attempt);
    try {
      return Files.isRegularFile(exitFile, LinkOption.NOFOLLOW_LINKS) && Files.size(exitFile) == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether the wrapper of an attempt could not enter the worker's cgroup (the job never ran). */
  public boolean cgroupNotEntered(String jobId, int attempt) {
    return SafeFiles.readSmall(files.exitFile(jobId, attempt), SMALL_FILE_BYTES)
        .map(text -> text.trim().equals(NOT_ENTERED))
        .orElse(false);
  }

  /** The exit code the wrapper wrote for an attempt, if it got that far. */
  public Optional<Integer> recordedExitCode(String jobId, int attempt) {
    return recordedExit(jobId, attempt).map(RecordedExit::exitCode);
  }

  /** The exit code the wrapper wrote for an attempt, and when, if it got that far. */
  public Optional<RecordedExit> recordedExit(String jobId, int attempt) {
    try {
      return SafeFiles.readSmallFile(files.exitFile(jobId, attempt), SMALL_FILE_BYTES)
          .map(file -> new RecordedExit(Integer.parseInt(file.text().trim()), file.modifiedAt()));
    } catch (NumberFormatException e) {
      // Empty: the wrapper opened it but died before it could write.
      return Optional.empty();
    }
  }

  /**
   * The program as an absolute path, looked up like execvp would (on the worker's PATH), so that a
   * missing program is a clear launch error instead of exit code 127 in a log.
   */
  private static Path resolveProgram(String program, Map<String, String> env, Path workingDir)
      throws LaunchException {
    if (program.contains("/")) {
      Path path = workingDir.resolve(program).normalize();
      if (!Files.isRegularFile(path)) {
        throw new LaunchException("program " + program + " does not exist");
      }
      if (!Files.isExecutable(path)) {
        throw new LaunchException("program " + program + " is not executable");
      }
      return path;
    }
    return findOnPath(program, env.get("PATH"))
        .orElseThrow(
            () ->
                // Not the PATH itself: it is gpuq's own unless the job set one, and the
                // message is shown to the job's owner.
                new LaunchException("program \"" + program + "\" not found on the worker's PATH"));
  }

  /** As {@link #resolveProgram}, with the rights of the account the job runs as. */
  private static Path resolveProgramFor(
      Account account, String program, Map<String, String> env, Path workingDir)
      throws LaunchException {
    String missing =
        "program \""
            + program
            + "\" does not exist or is not executable by the job's account "
            + account.name();
    if (program.contains("/")) {
      Path path = workingDir.resolve(program).normalize();
      if (!Reachability.canExecute(path, account)) {
        throw new LaunchException(missing);
      }
      return path;
    }
    return ProgramLookup.onPathFor(program, env.get("PATH"), account)
        .orElseThrow(() -> new LaunchException(missing + " on the worker's PATH"));
  }

  private static PosixSpawn bindPosixSpawn() {
    try {
      return PosixSpawn.bind();
    } catch (UnsupportedOperationException e) {
      log.info("posix_spawn is not available ({}); falling back to ProcessBuilder", e.getMessage());
      return null;
    }
  }

  private static PosixSpawn requirePosixSpawn() {
    try {
      return PosixSpawn.bind();
    } catch (UnsupportedOperationException e) {
      throw new IllegalStateException("posix_spawn is not available: " + e.getMessage(), e);
    }
  }

  private static Optional<Path> findOnPath(String program, String pathVariable) {
    return ProgramLookup.onPath(program, pathVariable);
  }

  private static void appendLine(Path file, String line) throws LaunchException {
    try {
      SafeFiles.appendLine(file, line);
    } catch (IOException e) {
      throw new LaunchException("cannot write the log " + file + ": " + e.getMessage(), e);
    }
  }

  private static Path installWrapper(Path binDir) {
    try (InputStream in = WorkerLauncher.class.getResourceAsStream(WRAPPER_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(WRAPPER_RESOURCE + " is missing from the classpath");
      }
      byte[] script = in.readAllBytes();
      Files.createDirectories(binDir);
      Path target = binDir.resolve("gpuq-worker-wrapper.sh");
      // gpuq's alone: a job that could change it would run its code in every later job.
      Files.setPosixFilePermissions(binDir, DataDirectory.PRIVATE_DIR);
      if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
          || !java.util.Arrays.equals(Files.readAllBytes(target), script)
          || !Files.getPosixFilePermissions(target).equals(WRAPPER_MODE)) {
        Path tmp = Files.createTempFile(binDir, "wrapper", ".tmp");
        Files.write(tmp, script);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Files.move(
            tmp,
            target,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the worker wrapper into " + binDir, e);
    }
  }
}

package io.gpuq.launch;

import io.gpuq.job.WorkerProcess;
import io.gpuq.proc.ProcFs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

  /** Starts the line that opens each retried attempt's part of the log. */
  public static final String ATTEMPT_SEPARATOR = "=== gpuq: attempt ";

  private final JobFiles files;
  private final Clock clock;
  private final Path wrapper;
  // Null when workers are started with ProcessBuilder.
  private final PosixSpawn posixSpawn;
  // Used by PROCESS_BUILDER only.
  private final Optional<Path> setsid;

  /** Starts workers with posix_spawn where this system allows it, else with ProcessBuilder. */
  public WorkerLauncher(JobFiles files, Clock clock) {
    this(files, clock, bindPosixSpawn());
  }

  /**
   * Starts workers with the given mechanism.
   *
   * @throws IllegalStateException when it is {@link SpawnMechanism#POSIX_SPAWN} and this system
   *     lacks it
   */
  public WorkerLauncher(JobFiles files, Clock clock, SpawnMechanism mechanism) {
    this(files, clock, mechanism == SpawnMechanism.POSIX_SPAWN ? requirePosixSpawn() : null);
  }

  private WorkerLauncher(JobFiles files, Clock clock, PosixSpawn posixSpawn) {
    this.files = files;
    this.clock = clock;
    this.wrapper = installWrapper(files.binDir());
    this.posixSpawn = posixSpawn;
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
    Path jobDir = files.jobDir(request.jobId());
    Path workingDir = request.workingDir() == null ? jobDir : request.workingDir();
    try {
      Files.createDirectories(files.tmpDir(request.jobId()));
    } catch (IOException e) {
      throw new LaunchException("cannot create the job directory " + jobDir + ": " + e, e);
    }
    if (!Files.isDirectory(workingDir)) {
      throw new LaunchException("working directory " + workingDir + " does not exist");
    }
    Path program = resolveProgram(request.command().get(0), request.environment(), workingDir);
    Path logFile = files.log(request.jobId());
    if (request.attempt() > 1) {
      appendLine(logFile, ATTEMPT_SEPARATOR + request.attempt() + " ===");
    }
    Path exitFile = files.exitFile(request.jobId(), request.attempt());
    try {
      Files.deleteIfExists(exitFile);
    } catch (IOException e) {
      throw new LaunchException("cannot clear " + exitFile + ": " + e, e);
    }
    List<String> argv = new ArrayList<>();
    argv.add("/bin/sh");
    argv.add(wrapper.toString());
    argv.add(exitFile.toString());
    argv.add(program.toString());
    argv.addAll(request.command().subList(1, request.command().size()));
    Instant now = clock.instant();
    Instant deadline = request.timeout() == null ? null : now.plus(request.timeout());
    try {
      Started started =
          posixSpawn != null
              ? spawnDirectly(request, argv, workingDir, logFile)
              : spawnWithProcessBuilder(request, argv, workingDir, logFile);
      return new RunningWorker(
          request.jobId(),
          request.attempt(),
          started.handle(),
          started.exitCode(),
          now,
          deadline,
          request.placement());
    } catch (IOException e) {
      throw new LaunchException("cannot start " + program + ": " + e.getMessage(), e);
    }
  }

  private record Started(ProcessHandle handle, CompletableFuture<Integer> exitCode) {}

  private Started spawnDirectly(
      LaunchRequest request, List<String> argv, Path workingDir, Path logFile) throws IOException {
    int pid = posixSpawn.spawn(argv, request.environment(), workingDir, logFile);
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

  private Started spawnWithProcessBuilder(
      LaunchRequest request, List<String> argv, Path workingDir, Path logFile) throws IOException {
    List<String> command = new ArrayList<>();
    setsid.ifPresent(p -> command.add(p.toString()));
    command.addAll(argv);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(workingDir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    Map<String, String> env = builder.environment();
    env.clear();
    env.putAll(request.environment());
    Process process = builder.start();
    return new Started(process.toHandle(), process.onExit().thenApply(Process::exitValue));
  }

  /**
   * Takes back a worker that outlived an earlier gpuq: the same PID with the same kernel start time
   * (so not a recycled PID). Its exit code will come from its wrapper's exit file.
   */
  public Optional<RunningWorker> adopt(AdoptRequest request, ProcFs procFs) {
    Optional<ProcessHandle> handle =
        ProcessHandle.of(request.pid())
            .filter(
                h ->
                    procFs
                        .stat(request.pid())
                        .map(stat -> stat.startTimeTicks() == request.pidStartTicks())
                        .orElse(false));
    return handle.map(
        h ->
            new RunningWorker(
                request.jobId(),
                request.attempt(),
                h,
                h.onExit()
                    .thenApply(
                        gone -> recordedExitCode(request.jobId(), request.attempt()).orElse(null)),
                request.startedAt(),
                request.deadline(),
                request.placement()));
  }

  /**
   * Writes a worker's PID and kernel start time next to its exit file. The database learns them a
   * few milliseconds later, with other workers' events: a gpuq killed in between would otherwise
   * find the job RUNNING with no process to re-adopt, declare it lost and run it again while its
   * worker still runs.
   *
   * @throws IOException when the file cannot be written; the caller decides what that costs
   */
  public void recordProcess(WorkerProcess process) throws IOException {
    Files.writeString(
        files.processFile(process.jobId(), process.attempt()),
        process.pid() + " " + process.startTicks() + "\n");
  }

  /** The worker process recorded for an attempt, if any. */
  public Optional<WorkerProcess> recordedProcess(String jobId, int attempt) {
    try {
      String[] fields = Files.readString(files.processFile(jobId, attempt)).trim().split(" ");
      return Optional.of(
          new WorkerProcess(jobId, attempt, Long.parseLong(fields[0]), Long.parseLong(fields[1])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The exit code the wrapper wrote for an attempt, if it got that far. */
  public Optional<Integer> recordedExitCode(String jobId, int attempt) {
    Path exitFile = files.exitFile(jobId, attempt);
    try {
      return Optional.of(Integer.parseInt(Files.readString(exitFile).trim()));
    } catch (IOException | NumberFormatException e) {
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
                new LaunchException(
                    "program \""
                        + program
                        + "\" not found on the worker's PATH "
                        + env.get("PATH")));
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
    if (pathVariable == null) {
      return Optional.empty();
    }
    for (String dir : pathVariable.split(":")) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir).resolve(program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate.toAbsolutePath());
      }
    }
    return Optional.empty();
  }

  private static void appendLine(Path file, String line) throws LaunchException {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(
          file,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new LaunchException("cannot write the log " + file + ": " + e, e);
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
      if (!Files.exists(target) || !java.util.Arrays.equals(Files.readAllBytes(target), script)) {
        Path tmp = Files.createTempFile(binDir, "wrapper", ".tmp");
        Files.write(tmp, script);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
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

package io.gpuq.warm;

import io.gpuq.fs.DataDirectory;
import io.gpuq.isolation.Account;
import io.gpuq.isolation.Reachability;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.PythonCommand;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.ProgramLookup;
import io.gpuq.launch.Setpriv;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm starts (issue 36): a job with {@code preload} runs, inside gpuq's usual worker wrapper (its
 * cgroup, account, log and exit file unchanged), a small client in place of its command; the client
 * has a zygote, which imported the preload once, fork the trial, and exits as the trial did.
 *
 * <p>One zygote per {@link ZygoteKey} (owner, account, interpreter and options, preload, working
 * directory, first path entry, {@code PYTHONPATH}): its directory under {@code <data-dir>/warm/} is
 * the account's own, mode 0700, so that no other account reaches its socket, and the zygote serves
 * only its own uid. gpuq starts it, as that account, when a trial needs it and none runs; it exits
 * after {@code idle-exit} with no trial, or once it forked {@code max-forks}. One that cannot start
 * (an import that raised, CUDA initialised at import) leaves why in its directory: its trials start
 * cold with that reason in their log, and gpuq does not try it again for {@code idle-exit}.
 */
public final class WarmStarts implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WarmStarts.class);

  static final String CLIENT = "gpuq_warm_client.py";
  static final String ZYGOTE = "gpuq_warm_zygote.py";
  static final String OWNERS_DIR = "owners";
  private static final String RESOURCE_DIR = "/gpuq/warm/";

  private final Path root;
  private final Path bin;
  private final Duration idleExit;
  private final int maxForks;
  private final Duration readyWait;
  private final Optional<Path> setpriv;
  private final Optional<Path> setsid;
  private final Clock clock;
  private final ZygoteGroups groups;
  private volatile WarmFallbacks fallbacks = WarmFallbacks.NONE;
  // The attempts prepared while their zygote had not served yet: if it then fails, they start cold.
  private final Map<Path, java.util.Set<Attempt>> awaitingZygote =
      new java.util.concurrent.ConcurrentHashMap<>();

  private record Attempt(String jobId, int attempt) {}

  private final Path owners;
  // The zygotes this gpuq started, to retire when it stops.
  private final Map<Path, Process> started = new java.util.concurrent.ConcurrentHashMap<>();
  // The sweeps whose trials each zygote ran; a zygote that also ran a job of its own is kept
  // until its idle time ends it.
  private final Map<Path, java.util.Set<String>> sweepsOf =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Set<Path> standalone = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // The interpreter each serving zygote runs, which its trials' clients run too.
  private final Map<Path, Path> interpreters = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param root where the zygotes' directories and the scripts live ({@code <data-dir>/warm})
   */
  public WarmStarts(Path root, Duration idleExit, int maxForks, Duration readyWait, Clock clock) {
    this(root, idleExit, maxForks, readyWait, clock, ZygoteGroups.none(root));
  }

  /**
   * @param root where the zygotes' directories and the scripts live ({@code <data-dir>/warm})
   * @param groups the zygotes' own cgroups, where workers have cgroups
   */
  public WarmStarts(
      Path root,
      Duration idleExit,
      int maxForks,
      Duration readyWait,
      Clock clock,
      ZygoteGroups groups) {
    if (maxForks < 1) {
      throw new IllegalArgumentException("gpuq.warm.max-forks must be at least 1");
    }
    this.root = root;
    this.bin = root.resolve("bin");
    this.idleExit = idleExit;
    this.maxForks = maxForks;
    this.readyWait = readyWait;
    this.clock = clock;
    this.groups = groups;
    this.owners = root.resolve(OWNERS_DIR);
    String path = "/usr/bin:/bin:/usr/sbin:/sbin:" + System.getenv("PATH");
    this.setpriv = ProgramLookup.onPath("setpriv", path);
    this.setsid = ProgramLookup.onPath("setsid", path);
    install();
  }

  /**
   * The launch of a claimed job: for a job with {@code preload}, the same launch running the warm
   * client, its zygote started if none runs; any other job's, unchanged.
   */
  public LaunchRequest prepare(ClaimedJob job, LaunchRequest setup) {
    if (job.preload().isEmpty()) {
      return setup;
    }
    Optional<PythonCommand> python = PythonCommand.parse(job.command());
    if (python.isEmpty()) {
      return setup;
    }
    ZygoteKey key = ZygoteKey.of(job, python.get(), setup);
    Path dir = root.resolve(key.id());
    if (job.trial() == null) {
      standalone.add(dir);
    } else {
      sweepsOf
          .computeIfAbsent(dir, d -> java.util.concurrent.ConcurrentHashMap.newKeySet())
          .add(job.trial().sweepId());
    }
    try {
      ensureZygote(key, dir, setup, job.host() == null ? null : job.host().memoryBytes());
      Optional<String> failed = failedReason(dir);
      if (failed.isPresent()) {
        recordFallback(job.id(), job.attempt(), "the zygote could not start: " + failed.get());
      } else if (!Files.exists(dir.resolve("served"), LinkOption.NOFOLLOW_LINKS)) {
        awaitingZygote
            .computeIfAbsent(dir, d -> java.util.concurrent.ConcurrentHashMap.newKeySet())
            .add(new Attempt(job.id(), job.attempt()));
      }
    } catch (IOException | RuntimeException e) {
      // The client finds no zygote and starts the trial cold, saying so in its log.
      log.warn("job {}: cannot start a warm-start zygote: {}", job.id(), e.toString());
      recordFallback(job.id(), job.attempt(), "cannot start a zygote: " + e.getMessage());
    }
    List<String> command = new ArrayList<>();
    command.add(clientInterpreter(dir, job.command().get(0)));
    // Isolated and without site: the client imports only the standard library, and the site
    // packages' .pth files cost as much as the rest of its start (0.36 s against 0.72 s here under
    // load): paid on every trial.
    command.add("-I");
    command.add("-S");
    command.add(bin.resolve(CLIENT).toString());
    command.add(dir.toString());
    command.add(Long.toString(Math.max(1, readyWait.toSeconds())));
    command.add("--");
    command.addAll(job.command());
    return setup.running(command);
  }

  /**
   * The interpreter the key's zygote runs, once it serves: the client needs nothing but it (no
   * site, no virtual environment), and a {@code python3} found on PATH may be a wrapper that costs
   * more than the whole warm start (pyenv's shim, a bash script: 56 ms of CPU against 9 ms for the
   * interpreter itself on the development VM), paid on every trial. The job's own program until
   * then, or where the zygote's cannot be read.
   */
  private String clientInterpreter(Path dir, String given) {
    Path known = interpreters.get(dir);
    if (known != null) {
      return known.toString();
    }
    if (!Files.exists(dir.resolve("served"), LinkOption.NOFOLLOW_LINKS)) {
      return given;
    }
    Process ours = started.get(dir);
    Optional<Long> pid =
        ours != null && ours.isAlive()
            ? Optional.of(ours.pid())
            : recordedPid(dir).filter(WarmStarts::isZygote);
    if (pid.isEmpty()) {
      return given;
    }
    try {
      // The process's own binary: no wrapper left in between once it serves.
      Path exe = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid.get()), "exe"));
      if (exe.isAbsolute()
          && exe.getFileName().toString().startsWith("python")
          && Files.isExecutable(exe)) {
        interpreters.put(dir, exe);
        return exe.toString();
      }
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      log.debug("cannot read the interpreter of zygote {}: {}", dir.getFileName(), e.toString());
    }
    return given;
  }

  /** Where the fallbacks to a cold start are recorded, for the sweep's and the job's answers. */
  public void recordFallbacksIn(WarmFallbacks fallbacks) {
    this.fallbacks = fallbacks;
  }

  /**
   * Records, for the attempts prepared while their zygote was still importing, that they started
   * cold if it then failed; forgets them once it serves. Run by the retirement duty.
   */
  public void recordFailedStarts() {
    for (Map.Entry<Path, java.util.Set<Attempt>> entry : List.copyOf(awaitingZygote.entrySet())) {
      Path dir = entry.getKey();
      Optional<String> failed = failedReason(dir);
      if (failed.isPresent()) {
        awaitingZygote.remove(dir);
        for (Attempt attempt : entry.getValue()) {
          recordFallback(
              attempt.jobId(), attempt.attempt(), "the zygote could not start: " + failed.get());
        }
      } else if (Files.exists(dir.resolve("served"), LinkOption.NOFOLLOW_LINKS)
          || !started.containsKey(dir)) {
        awaitingZygote.remove(dir);
      }
    }
  }

  private void recordFallback(String jobId, int attempt, String reason) {
    try {
      fallbacks.record(jobId, attempt, reason, clock.instant());
      log.info("job {} attempt {} starts cold: {}", jobId, attempt, reason);
    } catch (RuntimeException e) {
      log.warn("cannot record that job {} starts cold ({}): {}", jobId, reason, e.toString());
    }
  }

  private static Optional<String> failedReason(Path dir) {
    try {
      String text = Files.readString(dir.resolve("failed"), StandardCharsets.UTF_8).trim();
      return text.isEmpty() ? Optional.empty() : Optional.of(text);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Starts the key's zygote unless one runs, is starting, or failed within {@code idle-exit}. */
  private synchronized void ensureZygote(
      ZygoteKey key, Path dir, LaunchRequest setup, Long memoryBytes) throws IOException {
    Account account = setup.switchTo();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DataDirectory.PRIVATE_DIR));
      if (account != null) {
        Files.setAttribute(dir, "unix:gid", account.gid(), LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(dir, "unix:uid", account.uid(), LinkOption.NOFOLLOW_LINKS);
      }
    }
    Path failed = dir.resolve("failed");
    if (Files.exists(failed, LinkOption.NOFOLLOW_LINKS)) {
      FileTime at = Files.getLastModifiedTime(failed, LinkOption.NOFOLLOW_LINKS);
      if (at.toInstant().plus(idleExit).isAfter(clock.instant())) {
        return;
      }
      Files.delete(failed);
    }
    Optional<Long> pid = recordedPid(dir);
    // One this gpuq started is judged by its process: for its first moments its command line is
    // not yet the zygote's (the JVM's spawn helper runs first, then setsid, the interpreter), and
    // a second trial claimed in the same pass then started a second zygote.
    Process ours = started.get(dir);
    boolean running =
        ours != null && pid.equals(Optional.of(ours.pid()))
            ? ours.isAlive()
            : pid.map(WarmStarts::isZygote).orElse(false);
    if (running) {
      // Serving, or still importing: its socket appears once it is ready. A retiring one (past
      // max-forks, or told to stop) removed its socket and only waits for its trials.
      if (Files.exists(dir.resolve("z.sock"), LinkOption.NOFOLLOW_LINKS)
          || !Files.exists(dir.resolve("served"), LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
    }
    start(key, dir, setup, memoryBytes);
  }

  private void start(ZygoteKey key, Path dir, LaunchRequest setup, Long memoryBytes)
      throws IOException {
    Account account = setup.switchTo();
    if (account != null
        && !key.workingDir().isEmpty()
        && !Reachability.canEnter(Path.of(key.workingDir()), account)) {
      // gpuq's own rights must not enter a directory the job could not: the trial starts cold,
      // and its own launch says what is wrong with the directory.
      throw new IOException("the working directory is closed to " + account.name());
    }
    List<String> argv = new ArrayList<>();
    setsid.ifPresent(p -> argv.add(p.toString()));
    if (account != null) {
      Path drop =
          setpriv.orElseThrow(() -> new IOException("'setpriv' (util-linux) is not installed"));
      argv.addAll(Setpriv.runAs(drop, account));
    }
    argv.add(interpreter(key.interpreter(), setup.environment(), account));
    argv.addAll(key.options());
    argv.add(bin.resolve(ZYGOTE).toString());
    argv.add(dir.toString());
    argv.add(Long.toString(Math.max(1, idleExit.toSeconds())));
    argv.add(Integer.toString(maxForks));
    argv.add(key.pathEntry());
    argv.addAll(key.preload());
    Path logFile = dir.resolve("zygote.log");
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(key.workingDir().isEmpty() ? dir.toFile() : new File(key.workingDir()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().clear();
    builder.environment().putAll(setup.environment());
    Files.deleteIfExists(dir.resolve("z.sock"));
    interpreters.remove(dir);
    Process process = builder.start();
    started.put(dir, process);
    writePid(dir, process.pid());
    writeOwner(key);
    try {
      // At once: the interpreter has barely started, its imports not.
      groups.place(key.id(), process.pid(), memoryBytes);
    } catch (IOException | RuntimeException e) {
      log.warn(
          "warm-start zygote {} runs in gpuq's own group: cannot give it its own: {}",
          key.id(),
          e.toString());
    }
    log.info(
        "started warm-start zygote {} (pid {}) for {} importing {}",
        key.id(),
        process.pid(),
        key.owner(),
        key.preload());
  }

  /**
   * Retires the zygotes this gpuq started whose trials all belong to sweeps that have ended: they
   * stop taking trials, and exit once the trials they forked have ended.
   *
   * @param sweepEnded whether a sweep is done or cancelled (or gone)
   * @return how many it retired
   */
  public synchronized int retireEnded(java.util.function.Predicate<String> sweepEnded) {
    int retired = 0;
    for (Map.Entry<Path, Process> entry : List.copyOf(started.entrySet())) {
      Path dir = entry.getKey();
      java.util.Set<String> sweeps = sweepsOf.getOrDefault(dir, java.util.Set.of());
      if (!entry.getValue().isAlive()) {
        started.remove(dir);
        sweepsOf.remove(dir);
        standalone.remove(dir);
      } else if (!standalone.contains(dir)
          && !sweeps.isEmpty()
          && sweeps.stream().allMatch(sweepEnded)) {
        entry.getValue().destroy();
        started.remove(dir);
        sweepsOf.remove(dir);
        retired++;
        log.info(
            "retired warm-start zygote {}: its sweeps {} have ended", dir.getFileName(), sweeps);
      }
    }
    return retired;
  }

  /**
   * Retires the zygotes this gpuq started: SIGTERM makes each stop taking trials and exit once the
   * trials it forked have ended, so that a running trial keeps its zygote, which tells its client
   * how it ended, across gpuq's restart.
   */
  @Override
  public void close() {
    started.values().forEach(Process::destroy);
    started.clear();
  }

  /**
   * Whose zygote a key's is, where only gpuq writes (the key's own directory is the account's):
   * what its group holds is counted towards that owner.
   */
  private void writeOwner(ZygoteKey key) throws IOException {
    Path tmp = Files.createTempFile(owners, ".owner", ".tmp");
    try {
      Files.writeString(tmp, key.owner() + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, owners.resolve(key.id()), StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The zygotes' groups: counted in fair share and capacity, removed once empty. */
  public ZygoteGroups groups() {
    return groups;
  }

  /** Written by gpuq, readable by the account: the client tells a zygote still importing. */
  private static void writePid(Path dir, long pid) throws IOException {
    Path tmp = Files.createTempFile(dir, ".pid", ".tmp");
    try {
      Files.writeString(tmp, pid + "\n");
      Files.setPosixFilePermissions(tmp, DataDirectory.PUBLIC_FILE);
      Files.move(tmp, dir.resolve("pid"), StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
    // A new zygote has not served yet: until it has, no socket means "still importing".
    Files.deleteIfExists(dir.resolve("served"));
  }

  private static Optional<Long> recordedPid(Path dir) {
    try {
      return Optional.of(
          Long.parseLong(Files.readString(dir.resolve("pid"), StandardCharsets.US_ASCII).trim()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** Whether this pid is a zygote still (not a later process that got its number). */
  private static boolean isZygote(long pid) {
    try {
      byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return new String(cmdline, StandardCharsets.UTF_8).contains(ZYGOTE);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The interpreter as the worker's PATH finds it for the job's account, looked up as the launcher
   * looks up a cold start's program: the client and the zygote run the same one.
   */
  private static String interpreter(
      String program, Map<String, String> environment, Account account) {
    if (program.contains("/")) {
      return program;
    }
    return ProgramLookup.onPathFor(
            program, environment.getOrDefault("PATH", "/usr/bin:/bin"), account)
        .map(Path::toString)
        .orElse(program);
  }

  /** The scripts, readable by every account; the zygotes' directories beside them. */
  private void install() {
    try {
      Files.createDirectories(root);
      Files.setPosixFilePermissions(root, DataDirectory.PASS_THROUGH);
      Files.createDirectories(bin);
      Files.setPosixFilePermissions(bin, DataDirectory.PUBLIC_DIR);
      Files.createDirectories(owners);
      Files.setPosixFilePermissions(owners, DataDirectory.PRIVATE_DIR);
      for (String name : List.of(CLIENT, ZYGOTE)) {
        byte[] script = resource(name);
        Path target = bin.resolve(name);
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
            && java.util.Arrays.equals(Files.readAllBytes(target), script)) {
          continue;
        }
        Path tmp = Files.createTempFile(bin, "." + name, ".tmp");
        Files.write(tmp, script);
        Files.setPosixFilePermissions(tmp, DataDirectory.PUBLIC_FILE);
        Files.move(
            tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the warm-start scripts into " + bin, e);
    }
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = WarmStarts.class.getResourceAsStream(RESOURCE_DIR + name)) {
      if (in == null) {
        throw new IOException(RESOURCE_DIR + name + " is missing from the classpath");
      }
      return in.readAllBytes();
    }
  }

  static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The warm-start settings' defaults (docs/configuration.md). */
  public static final Duration DEFAULT_IDLE_EXIT = Duration.ofMinutes(2);

  public static final int DEFAULT_MAX_FORKS = 1000;
}

package io.gpuq.support;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * How {@link GpuqProcess} starts gpuq's JVM: from the build's classes, or, where the build has just
 * packaged gpuq (failsafe runs after {@code package}, and says so with the system property {@value
 * #PACKAGED_JAR}), the way the Docker image starts it: the jar extracted, the bean definitions
 * generated ahead of time, and a class-data-sharing archive made once per build and shared by every
 * test JVM. That saves most of each start's CPU time (docs/benchmarks.md, "Start-up"). A plain
 * {@code -Dtest=} run in surefire gets no such property, because its {@code target/} may hold a jar
 * and AOT output from an older build.
 *
 * <p>Nothing here may fail a test: when the jar cannot be extracted or the archive not made, gpuq
 * starts from the classes; a stale or unreadable archive the JVM itself ignores (it then loads the
 * classes as usual).
 */
public final class PackagedGpuq {

  /** The path of the jar {@code package} has just built; set by failsafe (pom.xml). */
  static final String PACKAGED_JAR = "gpuq.it.packaged-jar";

  private static List<String> launcher;

  private PackagedGpuq() {}

  /** The JVM options, class path and main class to start gpuq with, after {@code java}. */
  static synchronized List<String> launcher() {
    if (launcher == null) {
      launcher = List.copyOf(prepare());
    }
    return launcher;
  }

  /** The jar that {@code package} has just built, where failsafe names one. */
  public static Optional<Path> packagedJar() {
    String packagedJar = System.getProperty(PACKAGED_JAR, "");
    return packagedJar.isEmpty() || !Files.isRegularFile(Path.of(packagedJar))
        ? Optional.empty()
        : Optional.of(Path.of(packagedJar));
  }

  private static List<String> prepare() {
    if (packagedJar().isEmpty()) {
      return fromClasses(false);
    }
    Path jar = packagedJar().get();
    try {
      return fromExtractedJar(jar);
    } catch (IOException | RuntimeException e) {
      System.err.println("gpuq tests: starting gpuq from its classes, CDS not ready: " + e);
      // The AOT output in target/classes is as fresh as the jar that was built from it.
      return fromClasses(true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fromClasses(true);
    }
  }

  private static List<String> fromClasses(boolean aot) {
    List<String> options = new ArrayList<>(commonOptions());
    if (aot) {
      options.add("-Dspring.aot.enabled=true");
    }
    options.add("-cp");
    options.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    options.add("io.gpuq.GpuqApplication");
    return options;
  }

  /**
   * Extracts the jar and makes the archive under {@code target/gpuq-it-start/}, once per jar: test
   * JVMs that race for it (failsafe forks) take turns through a file lock, and the later ones find
   * it made. The archive is made from a start that stops once the context is refreshed (every
   * bean's class is loaded), as the Docker build makes its own.
   */
  private static List<String> fromExtractedJar(Path jar) throws IOException, InterruptedException {
    Path dir = jar.resolveSibling("gpuq-it-start");
    Files.createDirectories(dir);
    Path extracted = dir.resolve("app");
    Path extractedJar = extracted.resolve(jar.getFileName());
    Path archive = dir.resolve("gpuq.jsa");
    Path made = dir.resolve("made-from");
    // By content, not time: `package` rewrites the jar on every build, with new entry times even
    // when nothing in it changed, and then the archive made from the extracted copy still fits.
    String stamp = contentDigest(jar);
    try (FileChannel lockFile =
            FileChannel.open(
                dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      if (!Files.isRegularFile(made) || !Files.readString(made).equals(stamp)) {
        Files.deleteIfExists(made);
        Files.deleteIfExists(archive);
        run(
            List.of(
                java(),
                "-Djarmode=tools",
                "-jar",
                jar.toString(),
                "extract",
                "--force",
                "--destination",
                extracted.toString()),
            dir.resolve("extract.log"));
        Path trainingData = Files.createTempDirectory(dir, "training-data-");
        List<String> training = new ArrayList<>();
        training.add(java());
        training.addAll(commonOptions());
        training.add("-XX:ArchiveClassesAtExit=" + archive);
        training.add("-Dspring.context.exit=onRefresh");
        training.add("-jar");
        training.add(extractedJar.toString());
        training.add("--server.port=0");
        training.add("--gpuq.data-dir=" + trainingData);
        training.add("--gpuq.gpu.backend=emulated");
        training.add("--gpuq.auth.tokens[0].name=cds");
        training.add("--gpuq.auth.tokens[0].token=cds-training-token-0123456789");
        training.add("--gpuq.auth.tokens[0].role=ADMIN");
        training.add(TestAccounts.runAsSelfArgument());
        run(training, dir.resolve("training.log"));
        // The JVM writes it owner-only; gpuqs started as another account must map it too.
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("r--r--r--"));
        Files.writeString(made, stamp);
      }
    }
    List<String> options = new ArrayList<>(commonOptions());
    options.add("-XX:SharedArchiveFile=" + archive);
    // From a jar GpuqApplication.main turns AOT on itself; said here so the command line tells.
    options.add("-Dspring.aot.enabled=true");
    options.add("-jar");
    options.add(extractedJar.toString());
    return options;
  }

  /**
   * As the Dockerfile runs gpuq: C1 only, since a test's gpuq never runs long enough for C2, and an
   * {@code OutOfMemoryError} ends it.
   */
  static List<String> commonOptions() {
    return List.of("-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError");
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(300, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("still running after 300 s: " + command + "; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new IOException("exit " + process.exitValue() + ": " + command + "; see " + log);
    }
  }

  /** A digest of each entry's name, size and CRC: what the jar holds, not when it was written. */
  private static String contentDigest(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      zip.stream()
          .sorted(Comparator.comparing(ZipEntry::getName))
          .forEach(
              entry ->
                  digest.update(
                      (entry.getName() + " " + entry.getSize() + " " + entry.getCrc() + "\n")
                          .getBytes(StandardCharsets.UTF_8)));
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}

package io.gpuq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * gpuq's jar extracted by Spring Boot's own tooling, with a class-data-sharing archive of the
 * classes one start loads: what {@code StartupBench launch=cds} starts. The JVM then maps those
 * classes already parsed and verified instead of reading them from nested jars.
 *
 * @param jar the extracted application jar, whose manifest names its libraries beside it
 * @param archive the CDS archive the training run left
 */
record CdsArchive(Path jar, Path archive) {

  /**
   * Extracts {@code packagedJar} ({@code java -Djarmode=tools -jar ... extract}) and runs it once
   * with {@code -XX:ArchiveClassesAtExit} and {@code -Dspring.context.exit=onRefresh}: it starts up
   * to a refreshed context (so every bean's class is loaded), then exits, leaving the archive.
   */
  static CdsArchive prepare(Path packagedJar, List<String> jvmOptions, List<String> gpuqArgs)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("gpuq-cds-");
    Path extracted = dir.resolve("app");
    run(
        List.of(
            java(),
            "-Djarmode=tools",
            "-jar",
            packagedJar.toString(),
            "extract",
            "--destination",
            extracted.toString()),
        dir.resolve("extract.log"));
    Path jar = extracted.resolve(packagedJar.getFileName());
    Path archive = dir.resolve("gpuq.jsa");
    List<String> training = new ArrayList<>(jvmOptions);
    training.add("-XX:ArchiveClassesAtExit=" + archive);
    training.add("-Dspring.context.exit=onRefresh");
    Path dataDir = Files.createDirectories(dir.resolve("training-data"));
    long t0 = System.nanoTime();
    run(
        GpuqServer.command(jar, GpuqServer.freePort(), dataDir, 8, training, gpuqArgs),
        dir.resolve("training.log"));
    System.out.printf(
        "CDS: extracted to %s, training run %.1f s, archive %d MB%n",
        extracted, (System.nanoTime() - t0) / 1e9, Files.size(archive) / 1_000_000);
    return new CdsArchive(jar, archive);
  }

  /** Adds the option that maps the archive to {@code jvmOptions}; returns the jar to start. */
  Path applyTo(List<String> jvmOptions) {
    jvmOptions.add("-XX:SharedArchiveFile=" + archive);
    return jar;
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(300, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("still running after 300 s: " + command + "; log: " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          "exit " + process.exitValue() + ": " + command + "\n" + GpuqServer.tail(log, 40));
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}

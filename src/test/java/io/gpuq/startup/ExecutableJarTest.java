package io.gpuq.startup;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PackagedGpuq;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The README's {@code java -jar} command, on the jar the build has just made: gpuq starts again in
 * the package-indexed class loader and everything that reads classes or resources from the jar's
 * libraries works there (Flyway's migrations, Hibernate, springdoc, the Prometheus registry, JNA's
 * native part for the process launcher).
 */
@IntegrationTier
@DisplayName("gpuq started with java -jar")
class ExecutableJarTest {

  private static final String TOKEN = "executable-jar-token-0123456789";

  @Test
  void runs_in_the_package_indexed_class_loader_and_serves_and_runs_jobs() throws Exception {
    Optional<Path> jar = PackagedGpuq.packagedJar();
    assumeTrue(jar.isPresent(), "only failsafe, after package, has a freshly built jar");
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "jar-");

    try (GpuqProcess gpuq = GpuqProcess.startFromJar(jar.get(), dataDir, TOKEN)) {
      assertThat(gpuq.output()).contains("Starting AOT-processed GpuqApplication");
      assertThat(classLoaders(gpuq.pid()))
          .contains("org.springframework.boot.loader.launch.LaunchedClassLoader")
          .contains(PackageIndexedClassLoader.class.getName());

      HttpApi api = gpuq.api(TOKEN);
      String id = api.submit(aJob().shell("echo from the jar").json());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> api.state(id), state -> state.equals("SUCCEEDED"));
      assertThat(api.get("/api/v1/jobs/" + id + "/logs").body()).contains("from the jar");
      assertThat(api.get("/v3/api-docs").body()).contains("/api/v1/jobs");
      assertThat(api.get("/actuator/prometheus").body()).contains("gpuq_jobs{");
    }
  }

  /** The JVM's class loader tree, as {@code jcmd VM.classloaders} prints it. */
  private static String classLoaders(long pid) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process process =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "VM.classloaders")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return output;
  }
}

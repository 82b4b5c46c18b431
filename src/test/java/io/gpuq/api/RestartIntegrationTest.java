package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.GpuqApplication;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestAccounts;
import io.gpuq.support.TestCores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("The queue and the history survive a restart of gpuq")
class RestartIntegrationTest {

  private static final String TOKEN = "restart-token-0123456789";

  @Test
  void history_is_intact_and_queued_jobs_run_after_a_restart() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "restart-");
    String succeeded;
    String failed;
    String queued1;
    String queued2;

    try (ConfigurableApplicationContext first = start(dataDir, 2)) {
      HttpApi api = api(first);
      succeeded =
          api.post("/api/v1/jobs", aJob().shell("echo done").json(), "Idempotency-Key", "once")
              .json()
              .get("id")
              .asString();
      failed = api.submit(aJob().shell("exit 7").maxAttempts(2).json());
      await().atMost(Duration.ofSeconds(20)).until(() -> api.state(succeeded).equals("SUCCEEDED"));
      await().atMost(Duration.ofSeconds(20)).until(() -> api.state(failed).equals("FAILED"));
    }
    try (ConfigurableApplicationContext noSlots = start(dataDir, 0)) {
      HttpApi api = api(noSlots);
      queued1 = api.submit(aJob().shell("echo after restart 1").json());
      queued2 = api.submit(aJob().shell("echo after restart 2").json());
      Thread.sleep(500);
      assertThat(api.state(queued1)).isEqualTo("QUEUED");
    }

    try (ConfigurableApplicationContext restarted = start(dataDir, 2)) {
      HttpApi api = api(restarted);

      var resubmitted =
          api.post("/api/v1/jobs", aJob().shell("echo done").json(), "Idempotency-Key", "once");
      assertThat(resubmitted.status()).isEqualTo(200);
      assertThat(resubmitted.json().get("id").asString()).isEqualTo(succeeded);
      JsonNode ok = api.job(succeeded);
      assertThat(ok.get("state").asString()).isEqualTo("SUCCEEDED");
      assertThat(ok.get("exitCode").asInt()).isZero();
      JsonNode bad = api.job(failed);
      assertThat(bad.get("state").asString()).isEqualTo("FAILED");
      assertThat(bad.get("exitCode").asInt()).isEqualTo(7);
      assertThat(bad.get("attempts")).hasSize(2);
      assertThat(bad.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(7);
      assertThat(api.get("/api/v1/jobs/" + succeeded + "/logs").body()).isEqualTo("done\n");

      await().atMost(Duration.ofSeconds(20)).until(() -> api.state(queued1).equals("SUCCEEDED"));
      await().atMost(Duration.ofSeconds(20)).until(() -> api.state(queued2).equals("SUCCEEDED"));
      assertThat(api.get("/api/v1/jobs/" + queued2 + "/logs").body())
          .isEqualTo("after restart 2\n");
    }
  }

  private static ConfigurableApplicationContext start(Path dataDir, int cpuSlots) {
    return new SpringApplicationBuilder(GpuqApplication.class)
        .run(
            "--server.port=0",
            "--gpuq.data-dir=" + dataDir,
            "--gpuq.gpu.backend=emulated",
            "--gpuq.scheduler.cpu-slots=" + cpuSlots,
            "--" + TestCores.CPUS_PROPERTY,
            "--" + TestCores.NONE_RESERVED_PROPERTY,
            "--gpuq.auth.tokens[0].name=restarter",
            "--gpuq.auth.tokens[0].token=" + TOKEN,
            "--gpuq.auth.tokens[0].role=ADMIN",
            TestAccounts.runAsSelfArgument());
  }

  private static HttpApi api(ConfigurableApplicationContext context) {
    int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    return new HttpApi(port, TOKEN);
  }
}

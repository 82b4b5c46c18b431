package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("Metrics reported while gpuq was down (kill -9) are read when it comes back")
class MetricsAcrossRestartTest {

  private static final String TOKEN = "metrics-restart-token-01234";
  private static final Duration LONG = Duration.ofMinutes(2);

  @Test
  void a_restarted_gpuq_reads_on_where_it_stopped_with_no_point_twice_and_none_lost()
      throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "metrics-");
    Path whileDown = dataDir.resolve("while-down");
    Path release = dataDir.resolve("release");
    String script =
        "import os, time\n"
            + "def report(step):\n"
            + "    with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "        f.write('{\"step\": %d, \"loss\": %f}\\n' % (step, 1.0 / step))\n"
            + "def wait_for(path):\n"
            + "    while not os.path.exists(path): time.sleep(0.1)\n"
            + "for step in (1, 2, 3): report(step)\n"
            + "wait_for('"
            + whileDown
            + "')\n"
            + "for step in (4, 5, 6): report(step)\n"
            + "wait_for('"
            + release
            + "')\n"
            + "report(7)\n";
    String id;

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = first.api(TOKEN);
      id = api.submit(aJob().command("python3", "-c", script).json());
      await().atMost(LONG).until(() -> steps(api, id).equals(List.of(1L, 2L, 3L)));
      first.crash();
    }

    Files.writeString(whileDown, "");
    Path metricsFile = dataDir.resolve("work").resolve(id).resolve("metrics.jsonl");
    await().atMost(LONG).until(() -> Files.readAllLines(metricsFile).size() == 6);

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = second.api(TOKEN);
      await().atMost(LONG).until(() -> steps(api, id).size() == 6);
      Files.writeString(release, "");
      await().atMost(LONG).until(() -> api.state(id).equals("SUCCEEDED"));
      await().atMost(LONG).until(() -> steps(api, id).size() >= 7);

      assertThat(steps(api, id)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
      assertThat(api.job(id).get("metrics").get("step").asLong()).isEqualTo(7);
    }
  }

  private static List<Long> steps(HttpApi api, String id) {
    List<Long> steps = new ArrayList<>();
    for (JsonNode point : api.get("/api/v1/jobs/" + id + "/metrics").json().get("series")) {
      steps.add(point.get("step").asLong());
    }
    return steps;
  }
}

package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.cgroup.MeasuredHost;
import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.cgroup.Reservation;
import io.gpuq.support.Gate;
import io.gpuq.support.HttpApi;
import io.gpuq.support.TestCores;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A node's cores and host memory (issue 27): allocatable, allocated and used, in {@code GET
 * /api/v1/nodes} and as {@code gpuq_node_cpus} and {@code gpuq_node_memory_bytes}, on the H2
 * database of the shared test context (its default reservation).
 */
@DisplayName("A node's cores and memory in /api/v1/nodes and /actuator/prometheus")
class NodeFiguresIntegrationTest extends MetricsIntegrationSupport {

  private static final String NODE = "test-node";

  /** What the context's node gives its jobs: measured here less the default reservation. */
  /** The test node offers TestCores.CPUS, none reserved; its memory is measured. */
  private static NodeCapacity expectedAllocatable() throws Exception {
    MeasuredHost measured = MeasuredHost.measure();
    return new NodeCapacity(
        TestCores.CPUS, measured.memoryBytes() - Reservation.defaultsFor(measured).memoryBytes());
  }

  private static JsonNode self(HttpApi caller) {
    HttpApi.Response response = caller.get("/api/v1/nodes");
    assertThat(response.status()).isEqualTo(200);
    JsonNode nodes = response.json();
    assertThat(nodes).hasSize(1);
    assertThat(nodes.get(0).get("name").asString()).isEqualTo(NODE);
    return nodes.get(0);
  }

  @Test
  void a_running_job_counts_as_allocated_and_its_worker_as_used_and_a_submitter_sees_no_use()
      throws Exception {
    NodeCapacity allocatable = expectedAllocatable();
    assertThat(admin.as(null).get("/api/v1/nodes").status()).isEqualTo(401);
    Gate release = aReleaseGate();
    String id =
        alice.submit(
            aJob()
                .command("python3", "-c", holdingCode(release))
                .cpuOnly()
                .cpus(1)
                .memory("300MiB")
                .json());
    awaitState(id, "RUNNING");
    try {
      AtomicReference<JsonNode> seen = new AtomicReference<>();
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> {
                JsonNode node = self(admin);
                assertThat(node.get("cpus").get("allocated").asLong()).isGreaterThanOrEqualTo(1);
                assertThat(node.get("memory").get("allocated").asLong())
                    .isGreaterThanOrEqualTo(300 * MIB);
                assertThat(node.get("memory").get("used").asLong())
                    .isGreaterThanOrEqualTo(100 * MIB);
                assertThat(node.get("cpus").get("used").isNumber()).isTrue();
                seen.set(node);
              });
      JsonNode node = seen.get();
      assertThat(node.get("cpus").get("allocatable").asInt()).isEqualTo(allocatable.cpus());
      assertThat(node.get("memory").get("allocatable").asLong())
          .isEqualTo(allocatable.memoryBytes());
      assertThat(node.get("labels").isObject()).isTrue();
      assertThat(Instant.parse(node.get("heartbeatAt").asString()))
          .isAfter(Instant.now().minus(Duration.ofMinutes(1)));

      JsonNode bobs = self(bob);
      assertThat(bobs.get("cpus").get("allocatable").asInt()).isEqualTo(allocatable.cpus());
      assertThat(bobs.get("cpus").get("allocated").asLong()).isGreaterThanOrEqualTo(1);
      assertThat(bobs.get("memory").get("allocated").asLong()).isGreaterThanOrEqualTo(300 * MIB);
      assertThat(bobs.get("cpus").get("used").isNull()).isTrue();
      assertThat(bobs.get("memory").get("used").isNull()).isTrue();

      Exposition scrape =
          awaitScrape(
              s -> {
                assertThat(value(s, "gpuq_node_cpus", "allocated")).isGreaterThanOrEqualTo(1);
                assertThat(value(s, "gpuq_node_memory_bytes", "allocated"))
                    .isGreaterThanOrEqualTo(300 * MIB);
                assertThat(value(s, "gpuq_node_memory_bytes", "used"))
                    .isGreaterThanOrEqualTo(100 * MIB);
              });
      assertThat(value(scrape, "gpuq_node_cpus", "allocatable")).isEqualTo(allocatable.cpus());
      assertThat(value(scrape, "gpuq_node_memory_bytes", "allocatable"))
          .isEqualTo(allocatable.memoryBytes());
      assertThat(value(scrape, "gpuq_node_cpus", "used")).isGreaterThanOrEqualTo(0);
      assertThat(scrape.types())
          .containsEntry("gpuq_node_cpus", "gauge")
          .containsEntry("gpuq_node_memory_bytes", "gauge");
      // Next to the per-job host series they sum.
      assertThat(
              scrape.samples("gpuq_job_resident_memory_bytes", s -> id.equals(s.label("job_id"))))
          .isNotEmpty();
    } finally {
      release.open();
    }
    awaitState(id, "SUCCEEDED");
  }

  private static double value(Exposition scrape, String name, String kind) {
    return scrape
        .sample(name, Map.of("node", NODE, "kind", kind))
        .orElseThrow(() -> new AssertionError("no " + name + "{kind=\"" + kind + "\"}"))
        .value();
  }
}

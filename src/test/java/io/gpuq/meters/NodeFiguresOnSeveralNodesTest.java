package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.cgroup.MeasuredHost;
import io.gpuq.support.Gate;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import io.gpuq.text.MemorySize;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Two gpuq nodes on one PostgreSQL, each with its own reservation: every node's {@code GET
 * /api/v1/nodes} shows both with their own figures (written by each node's heartbeat into the
 * {@code nodes} table, allocated from one grouped query over the jobs), and each node exports its
 * own {@code gpuq_node_*} series.
 */
@IntegrationTier
@DisplayName("Several nodes' cores and memory, each with its own figures")
class NodeFiguresOnSeveralNodesTest {

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final Duration SOON = Duration.ofSeconds(60);

  @Test
  void each_node_lists_both_with_their_own_allocatable_allocated_and_used() throws Exception {
    MeasuredHost measured = MeasuredHost.measure();
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "node-figures-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    Gate release = Gate.in(root, "release");
    try (GpuqCluster.Node a =
            cluster.start(
                "node-a",
                "--gpuq.node-labels.pool=a",
                "--gpuq.node.reserved-cpus=0",
                "--gpuq.node.reserved-memory=256MiB");
        GpuqCluster.Node b =
            cluster.start(
                "node-b",
                "--gpuq.node-labels.pool=b",
                "--gpuq.node.reserved-cpus=0",
                "--gpuq.node.reserved-memory=512MiB")) {
      HttpApi apiA = a.api();
      HttpApi apiB = b.api();
      // Submitted to node-a, runs on node-b. Node-a admits it once it has read node-b's first
      // heartbeat: until then no live node it knows carries pool=b (a 422, which stores nothing).
      String job =
          aJob()
              .command("python3", "-c", "b = b'x' * (100 << 20)\n" + release.pythonWait())
              .cpuOnly()
              .cpus(1)
              .memory("300MiB")
              .field("nodeSelector", Map.of("pool", "b"))
              .json();
      AtomicReference<String> submitted = new AtomicReference<>();
      await()
          .atMost(SOON)
          .until(
              () -> {
                HttpApi.Response response = apiA.post("/api/v1/jobs", job);
                assertThat(response.status()).isIn(201, 422);
                if (response.status() == 201) {
                  submitted.set(response.json().get("id").asString());
                }
                return submitted.get() != null;
              });
      String id = submitted.get();
      try {
        await()
            .atMost(SOON)
            .untilAsserted(
                () -> {
                  JsonNode nodes = apiA.get("/api/v1/nodes").json();
                  assertThat(names(nodes)).containsExactly("node-a", "node-b");
                  JsonNode nodeA = nodes.get(0);
                  JsonNode nodeB = nodes.get(1);
                  assertThat(nodeA.get("labels").get("pool").asString()).isEqualTo("a");
                  assertThat(nodeB.get("labels").get("pool").asString()).isEqualTo("b");
                  assertThat(nodeA.get("cpus").get("allocatable").asInt())
                      .isEqualTo(measured.cpus());
                  assertThat(nodeB.get("cpus").get("allocatable").asInt())
                      .isEqualTo(measured.cpus());
                  assertThat(nodeA.get("memory").get("allocatable").asLong())
                      .isEqualTo(measured.memoryBytes() - 256 * MIB);
                  assertThat(nodeB.get("memory").get("allocatable").asLong())
                      .isEqualTo(measured.memoryBytes() - 512 * MIB);
                  assertThat(nodeA.get("cpus").get("allocated").asLong()).isZero();
                  assertThat(nodeA.get("memory").get("allocated").asLong()).isZero();
                  assertThat(nodeB.get("cpus").get("allocated").asLong()).isEqualTo(1);
                  assertThat(nodeB.get("memory").get("allocated").asLong()).isEqualTo(300 * MIB);
                  // node-b's workers' use, as node-b reported it in its heartbeat.
                  assertThat(nodeB.get("memory").get("used").asLong()).isBetween(100 * MIB, GIB);
                  assertThat(nodeB.get("cpus").get("used").isNumber()).isTrue();
                  assertThat(nodeA.get("memory").get("used").asLong()).isZero();
                });
        assertThat(apiA.job(id).get("placement").get("node").asString()).isEqualTo("node-b");

        // node-b's figures, read from the nodes table by node-a at submit: more host memory than
        // node-b gives is a 422 for a job only node-b may run, though node-a would hold it.
        long nodeBGives = measured.memoryBytes() - 512 * MIB;
        HttpApi.Response refused =
            apiA.post(
                "/api/v1/jobs",
                aJob()
                    .shell("true")
                    .cpuOnly()
                    .memory(((nodeBGives >> 20) + 1) + "MiB")
                    .field("nodeSelector", Map.of("pool", "b"))
                    .json());
        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.body())
            .contains(
                "no live node with the labels {pool=b} gives its jobs more than "
                    + MemorySize.format(nodeBGives));

        JsonNode fromB = apiB.get("/api/v1/nodes").json();
        assertThat(names(fromB)).containsExactly("node-b", "node-a");
        assertThat(fromB.get(1).get("memory").get("allocatable").asLong())
            .isEqualTo(measured.memoryBytes() - 256 * MIB);

        await()
            .atMost(SOON)
            .untilAsserted(
                () -> {
                  Exposition scrapeB = scrape(apiB);
                  assertThat(value(scrapeB, "gpuq_node_cpus", "node-b", "allocated")).isEqualTo(1);
                  assertThat(value(scrapeB, "gpuq_node_memory_bytes", "node-b", "allocated"))
                      .isEqualTo(300 * MIB);
                  assertThat(value(scrapeB, "gpuq_node_memory_bytes", "node-b", "allocatable"))
                      .isEqualTo(measured.memoryBytes() - 512 * MIB);
                  assertThat(value(scrapeB, "gpuq_node_memory_bytes", "node-b", "used"))
                      .isGreaterThanOrEqualTo(100 * MIB);
                });
        Exposition scrapeA = scrape(apiA);
        assertThat(value(scrapeA, "gpuq_node_cpus", "node-a", "allocated")).isZero();
        assertThat(value(scrapeA, "gpuq_node_memory_bytes", "node-a", "allocatable"))
            .isEqualTo(measured.memoryBytes() - 256 * MIB);
        assertThat(scrapeA.samples("gpuq_node_cpus", s -> "node-b".equals(s.label("node"))))
            .as("each node exports only its own")
            .isEmpty();
      } finally {
        release.open();
      }
      await().atMost(SOON).until(() -> apiA.state(id).equals("SUCCEEDED"));
      await()
          .atMost(SOON)
          .untilAsserted(
              () ->
                  assertThat(
                          apiA.get("/api/v1/nodes")
                              .json()
                              .get(1)
                              .get("cpus")
                              .get("allocated")
                              .asLong())
                      .isZero());
    }
  }

  private static List<String> names(JsonNode nodes) {
    List<String> names = new ArrayList<>();
    nodes.forEach(n -> names.add(n.get("name").asString()));
    return names;
  }

  private static Exposition scrape(HttpApi api) {
    HttpApi.Response response = api.as(null).get("/actuator/prometheus");
    assertThat(response.status()).isEqualTo(200);
    return Exposition.parse(response.body());
  }

  private static double value(Exposition scrape, String name, String node, String kind) {
    return scrape
        .sample(name, Map.of("node", node, "kind", kind))
        .orElseThrow(() -> new AssertionError("no " + name + " of " + node + ", " + kind))
        .value();
  }
}

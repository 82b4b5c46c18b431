package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /api/v1/owners} over real jobs on the two emulated GPUs: alice runs two jobs of a
 * quarter GPU and one queued for both GPUs whole; bob runs one with a 2 GiB budget. Other test
 * classes share this gpuq: jobs they leave queued stay (so queued jobs are counted from what was
 * there before), their running jobs end before this test starts its own.
 */
@DisplayName(
    "GET /api/v1/owners: who holds the GPUs, all of it to an admin, their own to a submitter")
class OwnersIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(60);
  private static final long GIB = 1L << 30;

  @Test
  void an_admin_sees_every_owner_and_a_submitter_only_their_own_row_and_the_totals()
      throws Exception {
    await().atMost(SOON).until(() -> running("alice") == 0 && running("bob") == 0);
    long alicesQueuedBefore = row(admin, "alice").path("queuedJobs").asLong();
    Gate gate = Gate.in(dataDir(), "owners");
    List<String> alices = new ArrayList<>();
    String bobs = null;
    try {
      for (int i = 0; i < 2; i++) {
        alices.add(alice.submit(aJob().shell(gate.shellWait()).gpus(1).gpuFraction(0.25).json()));
      }
      bobs = bob.submit(aJob().shell(gate.shellWait()).gpus(1).gpuMemory("2GiB").json());
      await().atMost(SOON).until(() -> running("alice") == 2 && running("bob") == 1);
      // Both GPUs whole, while three jobs hold parts of them: it stays queued.
      alices.add(alice.submit(aJob().command("true").gpus(2).json()));

      JsonNode all = admin.get("/api/v1/owners").json();
      assertThat(names(all)).contains("root", "alice", "bob");
      assertThat(positions(all)).isSorted();

      JsonNode alicesRow = row(admin, "alice");
      assertThat(alicesRow.path("share").asDouble()).isEqualTo(1.0);
      assertThat(alicesRow.path("runningJobs").asLong()).isEqualTo(2);
      assertThat(alicesRow.path("queuedJobs").asLong()).isEqualTo(alicesQueuedBefore + 1);
      assertThat(alicesRow.path("gpus").asDouble()).isCloseTo(0.5, within(1e-9));
      assertThat(alicesRow.path("wholeGpus").asLong()).isZero();
      assertThat(alicesRow.path("gpuMemoryBytes").asLong())
          .isEqualTo(budget(alices.get(0)) + budget(alices.get(1)));

      JsonNode bobsRow = row(admin, "bob");
      assertThat(bobsRow.path("runningJobs").asLong()).isEqualTo(1);
      assertThat(bobsRow.path("gpuMemoryBytes").asLong()).isEqualTo(2 * GIB);
      assertThat(bobsRow.path("gpus").asDouble())
          .isCloseTo((double) (2 * GIB) / gpuTotal(bobs), within(1e-9));

      // The standing is the scheduler's: (dominant share + recent usage) / share, where the
      // dominant share here is the GPU memory held over the cluster's.
      JsonNode totals = all.path("totals");
      long clusterMemory = totals.path("capacity").path("gpuMemoryBytes").asLong();
      assertThat(totals.path("capacity").path("gpus").asLong()).isEqualTo(2);
      JsonNode standing = alicesRow.path("standing");
      assertThat(standing.path("dominantResource").asString()).isEqualTo("GPU_MEMORY");
      assertThat(standing.path("dominantShare").asDouble())
          .isCloseTo(
              (double) alicesRow.path("gpuMemoryBytes").asLong() / clusterMemory, within(1e-9));
      assertThat(standing.path("position").asDouble())
          .isCloseTo(
              standing.path("dominantShare").asDouble() + alicesRow.path("recentUsage").asDouble(),
              within(1e-9));
      assertThat(totals.path("runningJobs").asLong())
          .isEqualTo(sum(all, "runningJobs"))
          .isGreaterThanOrEqualTo(3);

      // alice: her own row, the same figures, and the totals, which name no one.
      HttpApi.Response hers = alice.get("/api/v1/owners");
      assertThat(hers.status()).isEqualTo(200);
      assertThat(names(hers.json())).containsExactly("alice");
      JsonNode herRow = hers.json().path("owners").get(0);
      for (String field : List.of("runningJobs", "queuedJobs", "gpus", "gpuMemoryBytes")) {
        assertThat(herRow.path(field)).as(field).isEqualTo(alicesRow.path(field));
      }
      assertThat(hers.json().path("totals").path("runningJobs"))
          .isEqualTo(totals.path("runningJobs"));
      assertThat(hers.json().path("totals").path("gpuMemoryBytes"))
          .isEqualTo(totals.path("gpuMemoryBytes"));
      assertThat(hers.body()).doesNotContain("bob", "root");

      assertThat(names(bob.get("/api/v1/owners").json())).containsExactly("bob");
    } finally {
      // The queued job first, so that it does not start as the others end.
      for (int i = alices.size() - 1; i >= 0; i--) {
        alice.post("/api/v1/jobs/" + alices.get(i) + "/cancel");
      }
      if (bobs != null) {
        bob.post("/api/v1/jobs/" + bobs + "/cancel");
      }
      gate.open();
    }
  }

  @Test
  void without_a_token_is_401_and_a_query_parameter_is_a_400_problem() {
    assertThat(alice.as(null).get("/api/v1/owners").status()).isEqualTo(401);

    HttpApi.Response filtered = admin.get("/api/v1/owners?owner=alice");
    assertThat(filtered.status()).isEqualTo(400);
    assertThat(filtered.contentType()).startsWith("application/problem+json");
    assertThat(filtered.json().path("errors").get(0).path("field").asString()).isEqualTo("owner");
  }

  private long running(String owner) {
    return row(admin, owner).path("runningJobs").asLong();
  }

  private static JsonNode row(HttpApi api, String owner) {
    for (JsonNode row : api.get("/api/v1/owners").json().path("owners")) {
      if (row.path("owner").asString().equals(owner)) {
        return row;
      }
    }
    throw new AssertionError("no row of " + owner);
  }

  private static List<String> names(JsonNode owners) {
    List<String> names = new ArrayList<>();
    owners.path("owners").forEach(row -> names.add(row.path("owner").asString()));
    return names;
  }

  private static List<Double> positions(JsonNode owners) {
    List<Double> positions = new ArrayList<>();
    owners
        .path("owners")
        .forEach(row -> positions.add(row.path("standing").path("position").asDouble()));
    return positions;
  }

  private static long sum(JsonNode owners, String field) {
    long sum = 0;
    for (JsonNode row : owners.path("owners")) {
      sum += row.path(field).asLong();
    }
    return sum;
  }

  /** The job's budget on its one GPU, from its placement. */
  private long budget(String id) {
    return admin.job(id).path("placement").path("gpus").get(0).path("memoryBytes").asLong();
  }

  private long gpuTotal(String id) {
    return admin.job(id).path("placement").path("gpus").get(0).path("totalBytes").asLong();
  }
}

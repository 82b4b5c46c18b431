package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("The usage report (issue 37) gives the figures the jobs held, computed by hand here")
class UsageIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);
  private static final double HOUR_MILLIS = 3_600_000.0;

  /** What a group's jobs held, computed here from their views. */
  private static final class Expected {
    double gpuHours;
    double gpuMemoryGiBHours;
    double coreHours;
    long succeeded;
    long failed;
    final List<Double> waits = new ArrayList<>();

    void add(JsonNode job) {
      if (job.get("state").asString().equals("SUCCEEDED")) {
        succeeded++;
      } else if (job.get("state").asString().equals("FAILED")) {
        failed++;
      }
      Instant created = Instant.parse(job.get("createdAt").asString());
      waits.add(
          (Instant.parse(job.get("attempts").get(0).get("startedAt").asString()).toEpochMilli()
                  - created.toEpochMilli())
              / 1000.0);
      for (JsonNode attempt : job.get("attempts")) {
        double hours =
            Duration.between(
                        Instant.parse(attempt.get("startedAt").asString()),
                        Instant.parse(attempt.get("finishedAt").asString()))
                    .toMillis()
                / HOUR_MILLIS;
        int gpus = job.get("resources").get("gpus").asInt();
        coreHours += job.get("resources").get("cpus").asDouble() * hours;
        if (gpus > 0) {
          long budget = attempt.get("budgetBytes").asLong();
          long total = job.get("placement").get("gpus").get(0).get("totalBytes").asLong();
          gpuHours += gpus * ((double) budget / total) * hours;
          gpuMemoryGiBHours += gpus * budget / (1024.0 * 1024 * 1024) * hours;
        }
      }
    }
  }

  private String finished(HttpApi api, String json) {
    String id = api.submit(json);
    await().atMost(SOON).until(() -> api.job(id).get("finishedAt").isString());
    return id;
  }

  @Test
  @DisplayName(
      "two owners' GPU-, core- and GPU-memory-hours, jobs by state and waits; a submitter sees"
          + " only their own group")
  void figures_equal_the_jobs_holdings_for_two_owners() {
    Instant from = Instant.now().minusSeconds(5);
    String run = UUID.randomUUID().toString();
    String aliceGroup = run + "-alice";
    String bobGroup = run + "-bob";
    List<JsonNode> alices =
        List.of(
            alice.job(
                finished(
                    alice,
                    aJob()
                        .shell("sleep 0.3")
                        .gpus(1)
                        .gpuFraction(0.25)
                        .label("usage", aliceGroup)
                        .json())),
            alice.job(
                finished(
                    alice,
                    aJob().shell("sleep 0.2; exit 1").cpus(2).label("usage", aliceGroup).json())));
    List<JsonNode> bobs =
        List.of(bob.job(finished(bob, aJob().shell("sleep 0.2").label("usage", bobGroup).json())));
    Instant to = Instant.now().plusSeconds(5);
    String query = "/api/v1/usage?by=label:usage&from=" + from + "&to=" + to;

    Response asAdmin = admin.get(query);

    assertThat(asAdmin.status()).as(asAdmin.body()).isEqualTo(200);
    assertGroup(asAdmin.json(), aliceGroup, alices);
    assertGroup(asAdmin.json(), bobGroup, bobs);

    JsonNode asAlice = alice.get(query).json();
    assertGroup(asAlice, aliceGroup, alices);
    assertThat(asAlice.get("groups").findValuesAsString("key")).doesNotContain(bobGroup);
    assertThat(asAlice.get("total").get("coreHours").asDouble())
        .isGreaterThanOrEqualTo(asAdmin.json().get("total").get("coreHours").asDouble() - 1e-9);
  }

  @Test
  @DisplayName("a malformed window or grouping is a 400 naming the parameter")
  void bad_parameters_are_400s() {
    assertThat(alice.get("/api/v1/usage?by=colour").status()).isEqualTo(400);
    assertThat(alice.get("/api/v1/usage?from=yesterday").status()).isEqualTo(400);
    assertThat(alice.get("/api/v1/usage?from=2026-12-02&to=2026-12-01").status()).isEqualTo(400);
    assertThat(alice.get("/api/v1/usage?owner=bob").status())
        .as("a submitter names only themselves")
        .isEqualTo(400);
    assertThat(alice.get("/api/v1/usage?owner=alice").status()).isEqualTo(200);
    assertThat(admin.get("/api/v1/usage?by=day&owner=bob").status()).isEqualTo(200);
    Response byDay = alice.get("/api/v1/usage?by=day");
    assertThat(byDay.status()).as(byDay.body()).isEqualTo(200);
    assertThat(byDay.json().get("by").asString()).isEqualTo("day");
  }

  private static void assertGroup(JsonNode report, String key, List<JsonNode> jobs) {
    Expected expected = new Expected();
    jobs.forEach(expected::add);
    JsonNode group = null;
    for (JsonNode g : report.get("groups")) {
      if (key.equals(g.path("key").asString(null))) {
        group = g;
      }
    }
    assertThat(group).as("group " + key + " in " + report).isNotNull();
    assertThat(group.get("jobs").get("SUCCEEDED").asLong()).isEqualTo(expected.succeeded);
    assertThat(group.get("jobs").get("FAILED").asLong()).isEqualTo(expected.failed);
    assertThat(group.get("gpuHours").asDouble()).isCloseTo(expected.gpuHours, within(1e-9));
    assertThat(group.get("gpuMemoryGiBHours").asDouble())
        .isCloseTo(expected.gpuMemoryGiBHours, within(1e-9));
    assertThat(group.get("coreHours").asDouble()).isCloseTo(expected.coreHours, within(1e-9));
    double max = expected.waits.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    assertThat(group.get("waitSeconds").get("max").asDouble()).isCloseTo(max, within(1e-3));
  }
}

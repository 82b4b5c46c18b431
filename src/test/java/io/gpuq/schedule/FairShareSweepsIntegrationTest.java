package io.gpuq.schedule;

import static io.gpuq.support.SweepJson.aRandomSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 26, end to end with real processes on the two emulated GPUs (16 GiB, 5% headroom): alice
 * and bob each run the same 200-trial sweep (same seed: the same trials, of the same lengths),
 * submitted at the same time. Each trial sleeps 0.8 to 2.2 s with a 3 GiB budget, so five fit on a
 * GPU and ten run at once. The GPU memory is what they compete for: fewer than ten starts a second
 * keep it full, well within what start spacing (100 ms a GPU here) and a loaded machine allow. When
 * starts cannot keep up, places stand free and ties between owners holding the same decide, in
 * favour of whoever used less before this test; with the memory full, each place that frees goes
 * back to the owner whose job ended, and both hold five.
 *
 * <p>What each owner got is measured from the attempts, as the API shows them: the budget times the
 * run time of each attempt ({@code startedAt} to {@code finishedAt}), counted over the period when
 * both owners were backlogged, from the later of the two sweeps' creation (from then on both have
 * queued trials) to the earlier of the two owners' last trial start (until then both still have
 * some). Outside it one owner has the GPUs to themselves, as they should. The whole takes about a
 * minute: 400 trials of 1.5 s on average, ten at a time.
 */
@DisplayName("Fair share: two owners' sweeps on the same GPUs get even GPU memory over time")
class FairShareSweepsIntegrationTest extends IntegrationTest {

  private static final int TRIALS = 200;
  private static final Duration LONG = Duration.ofMinutes(6);

  /** An attempt's budget on each GPU and when it ran. */
  record Ran(long budgetBytes, Instant startedAt, Instant finishedAt) {

    /** Its GPU-memory-seconds within {@code [from, to]}. */
    double gpuMemorySecondsWithin(Instant from, Instant to) {
      Instant start = startedAt.isAfter(from) ? startedAt : from;
      Instant end = finishedAt.isBefore(to) ? finishedAt : to;
      if (!end.isAfter(start)) {
        return 0;
      }
      return budgetBytes * (Duration.between(start, end).toNanos() / 1e9);
    }
  }

  /** One owner's sweep once done: when it was created and how its trials ran. */
  record SweepRun(Instant createdAt, List<Ran> attempts) {

    Instant lastStart() {
      return attempts.stream().map(Ran::startedAt).max(Instant::compareTo).orElseThrow();
    }

    double gpuMemorySecondsWithin(Instant from, Instant to) {
      return attempts.stream().mapToDouble(a -> a.gpuMemorySecondsWithin(from, to)).sum();
    }
  }

  @Test
  void two_200_trial_sweeps_get_gpu_memory_seconds_within_ten_percent_of_even() {
    // The same sweep for both, seed and all: the same trials, of the same lengths, in one order.
    String sweep =
        aRandomSweep(TRIALS)
            .name("fair-share-even")
            .command("sleep", "{seconds}")
            .range("seconds", 0.8, 2.2, "linear", "float")
            .seed(26)
            .field("resources", Map.of("gpus", 1, "gpuMemory", "3GiB"))
            .json();
    String alices = null;
    String bobs = null;
    try {
      CompletableFuture<String> alicesCreation =
          CompletableFuture.supplyAsync(() -> create(alice, sweep));
      CompletableFuture<String> bobsCreation =
          CompletableFuture.supplyAsync(() -> create(bob, sweep));
      alices = alicesCreation.join();
      bobs = bobsCreation.join();
      String a = alices;
      String b = bobs;
      await()
          .atMost(LONG)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> done(alice, a) && done(bob, b));

      SweepRun alicesRun = ran(alice, a);
      SweepRun bobsRun = ran(bob, b);
      assertThat(alicesRun.attempts()).hasSize(TRIALS);
      assertThat(bobsRun.attempts()).hasSize(TRIALS);
      Instant from = latest(alicesRun.createdAt(), bobsRun.createdAt());
      Instant to = earliest(alicesRun.lastStart(), bobsRun.lastStart());
      // Long enough to mean something: many times a trial's length.
      assertThat(Duration.between(from, to)).isGreaterThan(Duration.ofSeconds(20));

      double alicesShare = alicesRun.gpuMemorySecondsWithin(from, to);
      double bobsShare = bobsRun.gpuMemorySecondsWithin(from, to);
      double even = (alicesShare + bobsShare) / 2;
      System.out.printf(
          "fair share: from %s to %s (%s), alice %.0f GiB·s, bob %.0f GiB·s%n",
          from, to, Duration.between(from, to), alicesShare / (1L << 30), bobsShare / (1L << 30));
      assertThat(alicesShare)
          .as(
              "alice's GPU-memory-seconds from %s to %s, bob's being %.0f GiB·s",
              from, to, bobsShare / (1L << 30))
          .isBetween(0.9 * even, 1.1 * even);
      assertThat(bobsShare).isBetween(0.9 * even, 1.1 * even);
    } finally {
      if (alices != null) {
        alice.post("/api/v1/sweeps/" + alices + "/cancel");
      }
      if (bobs != null) {
        bob.post("/api/v1/sweeps/" + bobs + "/cancel");
      }
    }
  }

  private static String create(HttpApi owner, String sweep) {
    HttpApi.Response response = owner.post("/api/v1/sweeps", sweep);
    assertThat(response.status()).as(response.body()).isEqualTo(201);
    return response.json().get("id").asString();
  }

  private static boolean done(HttpApi owner, String sweep) {
    return owner.get("/api/v1/sweeps/" + sweep).json().get("state").asString().equals("DONE");
  }

  /** The sweep's trials, every attempt of each, read from the jobs listing. */
  private static SweepRun ran(HttpApi owner, String sweep) {
    Instant createdAt =
        Instant.parse(owner.get("/api/v1/sweeps/" + sweep).json().get("createdAt").asString());
    List<Ran> attempts = new ArrayList<>();
    JsonNode page = owner.get("/api/v1/jobs?label=sweep:" + sweep + "&limit=1000").json();
    assertThat(page.get("nextCursor").isNull()).isTrue();
    for (JsonNode job : page.get("items")) {
      assertThat(job.get("state").asString()).as(job.get("id").asString()).isEqualTo("SUCCEEDED");
      for (JsonNode attempt : job.get("attempts")) {
        attempts.add(
            new Ran(
                attempt.get("budgetBytes").asLong(),
                Instant.parse(attempt.get("startedAt").asString()),
                Instant.parse(attempt.get("finishedAt").asString())));
      }
    }
    return new SweepRun(createdAt, attempts);
  }

  private static Instant latest(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static Instant earliest(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}

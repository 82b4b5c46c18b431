package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("A job submitted over HTTP runs as a real process")
class JobLifecycleIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(20);

  private void awaitState(String id, String state) {
    await().atMost(SOON).untilAsserted(() -> assertThat(alice.state(id)).isEqualTo(state));
  }

  @Test
  void succeeds_with_exit_code_zero_and_keeps_its_output() {
    String id = alice.submit(aJob().shell("echo hello from $GPUQ_JOB_ID").name("hello").json());

    awaitState(id, "SUCCEEDED");

    JsonNode job = alice.job(id);
    assertThat(job.get("exitCode").asInt()).isZero();
    assertThat(job.get("owner").asString()).isEqualTo("alice");
    assertThat(job.get("startedAt").isNull()).isFalse();
    assertThat(job.get("finishedAt").isNull()).isFalse();
    assertThat(job.get("placement").get("node").asString()).isEqualTo("test-node");
    assertThat(job.get("attempts")).hasSize(1);
    assertThat(job.get("attempts").get(0).get("outcome").asString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("attempts").get(0).get("pid").asLong()).isPositive();
    assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body())
        .isEqualTo("hello from " + id + "\n");
  }

  @Test
  void runs_in_its_own_session_with_its_own_tmpdir_and_without_gpuq_secrets() throws Exception {
    String id =
        alice.submit(
            aJob()
                .shell(
                    "echo sid=$(cut -d' ' -f6 /proc/$$/stat); echo tmp=$TMPDIR; echo pwd=$(pwd);"
                        + " echo cuda=[$CUDA_VISIBLE_DEVICES]; env | grep -c '^GPUQ_AUTH' ||"
                        + " true")
                .json());
    awaitState(id, "SUCCEEDED");

    List<String> lines = alice.get("/api/v1/jobs/" + id + "/logs").body().lines().toList();
    String ownSession = Files.readString(Path.of("/proc/self/stat")).split(" ")[5];
    Path workDir = dataDir().resolve("work").resolve(id);
    assertThat(lines.get(0)).startsWith("sid=").isNotEqualTo("sid=" + ownSession);
    assertThat(lines.get(1)).isEqualTo("tmp=" + workDir.resolve("tmp"));
    assertThat(lines.get(2)).isEqualTo("pwd=" + workDir);
    assertThat(lines.get(3)).isEqualTo("cuda=[]");
    assertThat(Files.isDirectory(workDir.resolve("tmp"))).isTrue();
  }

  @Test
  void no_more_cpu_only_jobs_run_at_once_than_there_are_slots() throws Exception {
    Path record = Files.createTempDirectory("gpuq-slots-").resolve("intervals");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      ids.add(
          alice.submit(
              aJob()
                  .shell(
                      "echo \"$GPUQ_JOB_ID start $(date +%s%N)\" >> "
                          + record
                          + "; sleep 0.3; echo \"$GPUQ_JOB_ID end $(date +%s%N)\" >> "
                          + record)
                  .json()));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(ids)
                    .allSatisfy(id -> assertThat(alice.state(id)).isEqualTo("SUCCEEDED")));

    // Each line is "<job> start|end <nanos>"; walk them in time order, counting open intervals.
    List<String[]> events =
        Files.readAllLines(record).stream()
            .map(line -> line.split(" "))
            .sorted((a, b) -> Long.compare(Long.parseLong(a[2]), Long.parseLong(b[2])))
            .toList();
    assertThat(events).hasSize(2 * ids.size());
    int running = 0;
    int most = 0;
    for (String[] event : events) {
      running += event[1].equals("start") ? 1 : -1;
      most = Math.max(most, running);
    }
    // 8 slots (IntegrationTest); the jobs of other tests can only lower what these reach.
    assertThat(most).isBetween(2, 8);
  }

  @Test
  void shows_the_cores_and_host_memory_it_asked_for_and_one_core_when_it_asked_for_none() {
    String asked = alice.submit(aJob().cpuOnly().cpus(2).memory("512MiB").name("asked").json());
    String plain = alice.submit(aJob().cpuOnly().name("plain").json());

    JsonNode resources = alice.job(asked).get("resources");
    assertThat(resources.get("cpus").asInt()).isEqualTo(2);
    assertThat(resources.get("memory").asLong()).isEqualTo(512L << 20);
    assertThat(alice.job(asked).get("effectiveResources").get("cpus").asInt()).isEqualTo(2);
    assertThat(alice.job(plain).get("resources").get("cpus").asInt()).isEqualTo(1);
    assertThat(alice.job(plain).get("resources").has("memory")).isFalse();
  }

  @Test
  void fails_with_the_exit_code_of_its_process() {
    String id = alice.submit(aJob().shell("echo about to fail >&2; exit 3").json());

    awaitState(id, "FAILED");

    JsonNode job = alice.job(id);
    assertThat(job.get("failureReason").asString()).isEqualTo("EXIT_CODE");
    assertThat(job.get("exitCode").asInt()).isEqualTo(3);
    assertThat(job.get("failureMessage").asString()).isEqualTo("exited with code 3");
    assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body()).contains("about to fail");
  }

  @Test
  void a_program_that_does_not_exist_is_a_launch_error_with_the_reason() {
    String id = alice.submit(aJob().command("no-such-program-gpuq-test", "--flag").json());

    awaitState(id, "FAILED");

    JsonNode job = alice.job(id);
    assertThat(job.get("failureReason").asString()).isEqualTo("LAUNCH_ERROR");
    assertThat(job.get("failureMessage").asString()).contains("no-such-program-gpuq-test");
  }

  @Test
  void a_missing_working_directory_is_a_launch_error() {
    String id = alice.submit(aJob().workingDir("/nonexistent/gpuq/dir").json());

    awaitState(id, "FAILED");

    assertThat(alice.job(id).get("failureReason").asString()).isEqualTo("LAUNCH_ERROR");
    assertThat(alice.job(id).get("failureMessage").asString()).contains("/nonexistent/gpuq/dir");
  }

  @Test
  void cancel_stops_the_whole_process_tree_even_children_that_ignore_sigterm_or_leave_the_group()
      throws Exception {
    String id =
        alice.submit(
            aJob()
                .shell(
                    "sleep 300 & (trap '' TERM; while true; do sleep 1; done) & setsid sleep 301 &"
                        + " echo started; wait")
                .json());
    awaitState(id, "RUNNING");
    await()
        .atMost(SOON)
        .until(() -> alice.get("/api/v1/jobs/" + id + "/logs").body().contains("started"));
    long pid = alice.job(id).get("attempts").get(0).get("pid").asLong();
    List<ProcessHandle> tree = treeOf(pid);
    assertThat(tree).hasSizeGreaterThanOrEqualTo(5);

    var cancelled = alice.post("/api/v1/jobs/" + id + "/cancel");

    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(cancelled.json().get("state").asString()).isEqualTo("CANCELLED");
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () ->
                assertThat(tree.stream().filter(ProcessHandle::isAlive).map(ProcessHandle::pid))
                    .isEmpty());
    assertThat(alice.state(id)).isEqualTo("CANCELLED");
    // Its log says why its output stops, once gpuq has seen the worker exit.
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body())
                    .endsWith("=== gpuq: stopped: cancelled by the user ===\n"));
  }

  @Test
  void cancelling_a_queued_job_is_immediate_and_cancelling_a_finished_one_is_a_conflict() {
    String done = alice.submit(aJob().json());
    awaitState(done, "SUCCEEDED");

    var conflict = alice.post("/api/v1/jobs/" + done + "/cancel");

    assertThat(conflict.status()).isEqualTo(409);
    assertThat(conflict.contentType()).startsWith("application/problem+json");
    assertThat(conflict.json().get("detail").asString()).contains("already finished");
  }

  @Test
  void a_job_past_its_timeout_fails_with_TIMEOUT() {
    String id = alice.submit(aJob().command("sleep", "60").timeout("PT1S").json());

    awaitState(id, "FAILED");

    JsonNode job = alice.job(id);
    assertThat(job.get("failureReason").asString()).isEqualTo("TIMEOUT");
    assertThat(
            Duration.between(
                java.time.Instant.parse(job.get("startedAt").asString()),
                java.time.Instant.parse(job.get("finishedAt").asString())))
        .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(10));
  }

  @Test
  void logs_tail_gives_the_last_lines() {
    String id = alice.submit(aJob().shell("for i in $(seq 1 50); do echo line $i; done").json());
    awaitState(id, "SUCCEEDED");

    String tail = alice.get("/api/v1/jobs/" + id + "/logs?tail=3").body();

    assertThat(tail).isEqualTo("line 48\nline 49\nline 50\n");
  }

  @Test
  void logs_follow_streams_lines_as_they_come_and_ends_with_the_job() {
    String id =
        alice.submit(aJob().shell("for i in 1 2 3; do echo tick $i; sleep 0.4; done").json());

    List<String> lines = alice.streamLines("/api/v1/jobs/" + id + "/logs?follow=true", 100, SOON);

    assertThat(lines).containsExactly("tick 1", "tick 2", "tick 3");
    assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
  }

  @Test
  void a_repeated_submission_with_the_same_idempotency_key_creates_nothing_new() {
    String body = aJob().label("suite", "idempotency").json();

    var first = alice.post("/api/v1/jobs", body, "Idempotency-Key", "sweep-42-seed-1");
    var second = alice.post("/api/v1/jobs", body, "Idempotency-Key", "sweep-42-seed-1");
    var otherOwner = bob.post("/api/v1/jobs", body, "Idempotency-Key", "sweep-42-seed-1");

    assertThat(first.status()).isEqualTo(201);
    assertThat(first.headers().firstValue("Location"))
        .hasValue("/api/v1/jobs/" + first.json().get("id").asString());
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.json().get("id").asString()).isEqualTo(first.json().get("id").asString());
    assertThat(otherOwner.status()).isEqualTo(201);
    assertThat(admin.get("/api/v1/jobs?label=suite:idempotency").json().get("items")).hasSize(2);
  }

  @Test
  void listing_filters_by_state_and_label_and_pages_newest_first() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(alice.submit(aJob().label("sweep", "paging").label("seed", "s" + i).json()));
    }
    ids.forEach(id -> awaitState(id, "SUCCEEDED"));

    List<String> seen = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      String query = "/api/v1/jobs?label=sweep:paging&state=SUCCEEDED&limit=2";
      JsonNode page = alice.get(cursor == null ? query : query + "&cursor=" + cursor).json();
      page.get("items").forEach(item -> seen.add(item.get("id").asString()));
      cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
      pages++;
    } while (cursor != null);

    assertThat(pages).isEqualTo(3);
    List<String> newestFirst = new ArrayList<>(ids);
    java.util.Collections.reverse(newestFirst);
    assertThat(seen).containsExactlyElementsOf(newestFirst);
    assertThat(alice.get("/api/v1/jobs?label=sweep:paging&label=seed:s3").json().get("items"))
        .hasSize(1);
    assertThat(alice.get("/api/v1/jobs?label=sweep:paging&state=QUEUED").json().get("items"))
        .isEmpty();
  }

  private static List<ProcessHandle> treeOf(long pid) {
    ProcessHandle root = ProcessHandle.of(pid).orElseThrow();
    List<ProcessHandle> tree = new ArrayList<>();
    tree.add(root);
    root.descendants().forEach(tree::add);
    Set<Long> pids = tree.stream().map(ProcessHandle::pid).collect(Collectors.toSet());
    assertThat(pids).contains(pid);
    return tree;
  }
}

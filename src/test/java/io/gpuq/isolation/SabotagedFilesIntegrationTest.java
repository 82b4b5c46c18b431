package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.JobJson;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Jobs that share gpuq's account (as every job of the shared test context does) can reach their own
 * log under {@code <data-dir>/jobs/<id>/}, and replace it. Whatever they put there, the job fails
 * alone and says why, no gpuq thread blocks, and gpuq neither serves nor appends to anything but a
 * regular file.
 */
@DisplayName("A job that replaces its own log with a FIFO or a link harms nothing but itself")
class SabotagedFilesIntegrationTest extends IntegrationTest {

  private static final Duration JOBS = Duration.ofSeconds(120);

  /** Far more than an answer that reads no file needs, far less than a blocked thread takes. */
  private static final Duration PROMPTLY = Duration.ofSeconds(15);

  /** Enough of a body for any problem document; a log of /dev/zero is never read to its end. */
  private static final int BODY_BYTES = 16 * 1024;

  /** The job's log, from the data directory ($1) and the job's id. */
  private static final String LOG = "LOG=\"$1/jobs/$GPUQ_JOB_ID/output.log\"; ";

  /**
   * A job running {@code script} with {@code $1} the data directory, {@code $2}... {@code args}.
   */
  private static JobJson aSaboteur(String script, String... args) {
    List<String> argv = new ArrayList<>(List.of("sh", "-c", LOG + script, "sh"));
    argv.add(dataDir().toString());
    argv.addAll(List.of(args));
    return aJob().command(argv.toArray(String[]::new));
  }

  @Test
  void four_jobs_that_put_a_fifo_in_place_of_their_log_fail_alone_and_gpuq_runs_on() {
    // As many as gpuq has threads to handle worker exits: before the fix each blocked one forever.
    List<String> saboteurs =
        IntStream.range(0, 4)
            .mapToObj(
                i -> alice.submit(aSaboteur("rm -f \"$LOG\"; mkfifo \"$LOG\"; exit 1").json()))
            .toList();

    awaitState(alice, saboteurs, "FAILED");
    for (String id : saboteurs) {
      assertThat(Files.isRegularFile(log(id), LinkOption.NOFOLLOW_LINKS)).as(id).isFalse();
      assertThat(Files.exists(log(id), LinkOption.NOFOLLOW_LINKS)).as(id).isTrue();
      JsonNode job = alice.job(id);
      assertThat(job.get("exitCode").asInt()).as(id).isEqualTo(1);
      assertThat(job.get("failureReason").asString()).as(id).isEqualTo("EXIT_CODE");
      assertThat(job.get("failureMessage").asString()).as(id).contains("FIFO");
    }

    String healthy = alice.submit(aJob().shell("echo still here").json());
    awaitState(alice, List.of(healthy), "SUCCEEDED");

    for (String id : saboteurs) {
      assertLogNotReadable(alice, id, "?tail=5", "FIFO");
    }
    assertLogNotReadable(alice, saboteurs.get(0), "", "FIFO");
    assertLogNotReadable(alice, saboteurs.get(1), "?follow=true", "FIFO");

    HttpApi.Response log = alice.getBounded(logs(healthy, "?tail=5"), BODY_BYTES);
    assertThat(log.status()).as(log.body()).isEqualTo(200);
    assertThat(log.body()).isEqualTo("still here\n");
  }

  @Test
  void a_running_job_whose_log_links_to_dev_zero_gets_a_prompt_409_never_an_endless_log() {
    String id =
        alice.submit(aSaboteur("rm -f \"$LOG\"; ln -s /dev/zero \"$LOG\"; exec sleep 600").json());
    await().atMost(JOBS).until(() -> Files.isSymbolicLink(log(id)));
    assertThat(alice.state(id)).isEqualTo("RUNNING");

    assertLogNotReadable(alice, id, "?tail=5", "symbolic link");
    assertLogNotReadable(alice, id, "", "symbolic link");
    assertLogNotReadable(alice, id, "?follow=true", "symbolic link");
    assertLogNotReadable(admin, id, "?tail=5", "symbolic link");

    assertThat(alice.post("/api/v1/jobs/" + id + "/cancel").status()).isEqualTo(200);
    awaitState(alice, List.of(id), "CANCELLED");
    assertLogNotReadable(alice, id, "?tail=5", "symbolic link");
  }

  @Test
  void a_job_that_links_its_log_to_dev_zero_and_fails_says_so() {
    String id = alice.submit(aSaboteur("rm -f \"$LOG\"; ln -s /dev/zero \"$LOG\"; exit 1").json());

    awaitState(alice, List.of(id), "FAILED");
    JsonNode job = alice.job(id);
    assertThat(job.get("exitCode").asInt()).isEqualTo(1);
    assertThat(job.get("failureReason").asString()).isEqualTo("EXIT_CODE");
    assertThat(job.get("failureMessage").asString()).contains("symbolic link");
    assertLogNotReadable(alice, id, "?tail=5", "symbolic link");
  }

  @Test
  void a_job_that_links_its_log_to_another_owners_log_can_neither_have_it_served_nor_appended_to()
      throws Exception {
    String victim = alice.submit(aJob().shell("echo alice was here").json());
    awaitState(alice, List.of(victim), "SUCCEEDED");
    Path victimLog = log(victim);
    byte[] before = Files.readAllBytes(victimLog);
    assertThat(new String(before)).isEqualTo("alice was here\n");

    // Its second attempt would start with gpuq's attempt line, appended to the log.
    String saboteur =
        bob.submit(
            aSaboteur("rm -f \"$LOG\"; ln -s \"$2\" \"$LOG\"; exit 1", victimLog.toString())
                .maxAttempts(2)
                .json());

    awaitState(bob, List.of(saboteur), "FAILED");
    assertThat(Files.isSymbolicLink(log(saboteur))).isTrue();
    JsonNode job = bob.job(saboteur);
    JsonNode attempts = job.get("attempts");
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).get("exitCode").asInt()).isEqualTo(1);
    assertThat(attempts.get(0).get("failureReason").asString()).isEqualTo("EXIT_CODE");
    assertThat(attempts.get(0).get("failureMessage").asString()).contains("symbolic link");
    assertThat(job.get("failureReason").asString()).isEqualTo("LAUNCH_ERROR");
    assertThat(job.get("failureMessage").asString()).contains("symbolic link");

    assertThat(Files.readAllBytes(victimLog)).isEqualTo(before);
    assertLogNotReadable(bob, saboteur, "?tail=5", "symbolic link");
    assertLogNotReadable(bob, saboteur, "", "symbolic link");
    assertThat(alice.getBounded(logs(victim, ""), BODY_BYTES).body()).isEqualTo("alice was here\n");
  }

  /** 409 as problem+json, promptly, and without the client ever getting more than a problem. */
  private static void assertLogNotReadable(
      HttpApi api, String id, String query, String replacedBy) {
    long start = System.nanoTime();
    HttpApi.Response response = api.getBounded(logs(id, query), BODY_BYTES);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(response.status()).as(query + ": " + response.body()).isEqualTo(409);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(response.json().get("title").asString()).isEqualTo("Log not readable");
    assertThat(response.json().get("detail").asString()).contains(replacedBy);
    assertThat(took).as("answered in " + took).isLessThan(PROMPTLY);
  }

  private static void awaitState(HttpApi api, List<String> ids, String state) {
    await()
        .atMost(JOBS)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> assertThat(ids).allSatisfy(id -> assertThat(api.state(id)).isEqualTo(state)));
  }

  private static String logs(String id, String query) {
    return "/api/v1/jobs/" + id + "/logs" + query;
  }

  private static Path log(String id) {
    return dataDir().resolve("jobs").resolve(id).resolve("output.log");
  }
}

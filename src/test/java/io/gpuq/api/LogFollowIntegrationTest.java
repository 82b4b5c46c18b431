package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.FollowedLog;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * {@code logs?follow=true} streams: the headers come at once, each line as soon as it is written,
 * and the answer ends with the job. Jobs here print a line only once the test has created its
 * release file, so every check waits for an event, never for a time.
 */
@DisplayName("Following a job's log streams each line as it is written")
class LogFollowIntegrationTest extends IntegrationTest {

  /** Far longer than anything here takes on a loaded machine. */
  private static final Duration SOON = Duration.ofSeconds(60);

  @Autowired LogFollowers followers;

  private final Path releases = newReleaseDirectory();
  private final List<FollowedLog> follows = new ArrayList<>();
  private final List<String> jobs = new ArrayList<>();

  @AfterEach
  void endEverything() {
    follows.forEach(FollowedLog::close);
    for (String id : jobs) {
      if (!admin.job(id).get("state").asString().matches("SUCCEEDED|FAILED|CANCELLED")) {
        admin.post("/api/v1/jobs/" + id + "/cancel");
      }
    }
  }

  @Test
  void the_headers_come_before_the_job_has_printed_anything() {
    String id = submit(alice, "line 1");

    FollowedLog log = follow(alice, id, "");

    await().atMost(SOON).until(log::hasHeaders);
    assertThat(log.status()).isEqualTo(200);
    assertThat(log.contentType()).isEqualTo("text/plain;charset=UTF-8");
    assertThat(log.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(alice.get(logsOf(id, "")).body()).isEmpty();
    assertThat(log.lines()).isEmpty();

    release(1);
    await().atMost(SOON).until(log::ended);
    assertThat(log.lines()).containsExactly("line 1");
  }

  @Test
  void each_line_arrives_before_the_next_is_written_and_the_answer_ends_with_the_job() {
    String id = submit(alice, "epoch 1", "epoch 2", "epoch 3", "epoch 4");
    FollowedLog log = follow(alice, id, "");

    for (int line = 1; line <= 4; line++) {
      release(line);
      int read = line;
      // The job writes line N+1 only once the test saw line N on the open stream.
      await().atMost(SOON).until(() -> log.lines().size() >= read);
      assertThat(log.lines()).hasSize(read).last().isEqualTo("epoch " + read);
    }

    await().atMost(SOON).until(log::ended);
    assertThat(log.lines()).containsExactly("epoch 1", "epoch 2", "epoch 3", "epoch 4");
    assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
  }

  @Test
  void tail_and_follow_send_the_last_lines_then_the_new_ones() {
    List<String> script = new ArrayList<>();
    IntStream.rangeClosed(1, 5).forEach(i -> script.add("echo early " + i));
    String id = alice.submit(aJob().command(argv(String.join("; ", script), "after")).json());
    jobs.add(id);
    await().atMost(SOON).until(() -> alice.get(logsOf(id, "")).body().endsWith("early 5\n"));

    FollowedLog log = follow(alice, id, "?tail=2");
    await().atMost(SOON).until(() -> log.lines().size() >= 2);
    assertThat(log.lines()).containsExactly("early 4", "early 5");

    release(1);
    await().atMost(SOON).until(log::ended);
    assertThat(log.lines()).containsExactly("early 4", "early 5", "after");
  }

  @Test
  void following_a_job_that_has_ended_sends_its_log_and_ends() {
    String id = alice.submit(aJob().shell("echo one; echo two; echo three").json());
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));

    FollowedLog log = follow(alice, id, "?tail=2");

    await().atMost(SOON).until(log::ended);
    assertThat(log.status()).isEqualTo(200);
    assertThat(log.lines()).containsExactly("two", "three");
  }

  @Test
  void a_caller_past_its_limit_of_followers_gets_429_others_do_not_and_a_freed_place_is_taken() {
    String alicesJob = submit(alice, "done");
    String bobsJob = submit(bob, "done");
    List<FollowedLog> alices = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      alices.add(follow(alice, alicesJob, ""));
    }
    for (FollowedLog log : alices) {
      await().atMost(SOON).until(log::hasHeaders);
      assertThat(log.status()).isEqualTo(200);
    }

    FollowedLog ninth = follow(alice, alicesJob, "");
    await().atMost(SOON).until(ninth::ended);
    assertThat(ninth.status()).isEqualTo(429);
    assertThat(ninth.contentType()).startsWith("application/problem+json");
    assertThat(ninth.header("Retry-After")).isEqualTo("5");
    assertThat(HttpApi.JSON.readTree(ninth.body()).get("title").asString())
        .isEqualTo("Too many log followers");

    FollowedLog bobs = follow(bob, bobsJob, "");
    await().atMost(SOON).until(bobs::hasHeaders);
    assertThat(bobs.status()).isEqualTo(200);

    alices.get(0).close();
    await()
        .atMost(SOON)
        .until(
            () -> {
              FollowedLog again = follow(alice, alicesJob, "");
              if (again.awaitHeaders(Duration.ofSeconds(20)) && again.status() == 200) {
                return true;
              }
              again.close();
              return false;
            });

    release(1);
    for (FollowedLog log : alices.subList(1, alices.size())) {
      await().atMost(SOON).until(log::ended);
      assertThat(log.lines()).containsExactly("done");
    }
    await().atMost(SOON).until(bobs::ended);
    assertThat(bobs.lines()).containsExactly("done");
  }

  @Test
  void ten_followers_share_one_watcher_thread_and_hold_no_request_thread() {
    String alicesJob = submit(alice, "finished");
    String bobsJob = submit(bob, "finished");
    int before = followers.count();
    List<FollowedLog> logs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      logs.add(follow(alice, alicesJob, ""));
      logs.add(follow(bob, bobsJob, ""));
    }
    for (FollowedLog log : logs) {
      await().atMost(SOON).until(log::hasHeaders);
      assertThat(log.status()).isEqualTo(200);
    }

    assertThat(followers.count()).isEqualTo(before + 10);
    assertThat(threadsNamed(LogFollowers.THREAD_NAME)).isEqualTo(1);
    // A thread that served a follower by waiting would stay in gpuq's code for as long as the
    // job runs, and these jobs run until the test releases them.
    await().atMost(SOON).until(() -> threadsHeldByFollowers().isEmpty());

    release(1);
    for (FollowedLog log : logs) {
      await().atMost(SOON).until(log::ended);
      assertThat(log.lines()).containsExactly("finished");
    }
    await().atMost(SOON).until(() -> followers.count() == before);
    assertThat(threadsNamed(LogFollowers.THREAD_NAME)).isEqualTo(1);
  }

  /** A job that prints each line once the test has released it (release file 1, 2, ...). */
  private String submit(HttpApi api, String... lines) {
    String id = api.submit(aJob().command(argv("true", lines)).json());
    jobs.add(id);
    return id;
  }

  /**
   * {@code sh -c}: runs {@code before}, then prints each of {@code lines} once its release file
   * ({@code $1/1}, {@code $1/2}, ...) exists.
   */
  private String[] argv(String before, String... lines) {
    StringBuilder script = new StringBuilder(before).append("; ");
    for (int i = 0; i < lines.length; i++) {
      script
          .append("while [ ! -e \"$1/")
          .append(i + 1)
          .append("\" ]; do sleep 0.05; done; echo '")
          .append(lines[i])
          .append("'; ");
    }
    return new String[] {"sh", "-c", script.toString(), "sh", releases.toString()};
  }

  private void release(int line) {
    try {
      Files.writeString(releases.resolve(Integer.toString(line)), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private FollowedLog follow(HttpApi api, String id, String query) {
    FollowedLog log =
        api.follow(logsOf(id, query.isEmpty() ? "?follow=true" : query + "&follow=true"));
    follows.add(log);
    return log;
  }

  private static String logsOf(String id, String query) {
    return "/api/v1/jobs/" + id + "/logs" + query;
  }

  private static long threadsNamed(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(name))
        .count();
  }

  /**
   * Threads other than the watcher now in gpuq's log code, or Tomcat's request threads now in any
   * of gpuq's code, each with where.
   */
  private static List<String> threadsHeldByFollowers() {
    List<String> held = new ArrayList<>();
    for (Map.Entry<Thread, StackTraceElement[]> entry : Thread.getAllStackTraces().entrySet()) {
      String name = entry.getKey().getName();
      if (name.equals(LogFollowers.THREAD_NAME)) {
        continue;
      }
      for (StackTraceElement frame : entry.getValue()) {
        String type = frame.getClassName();
        if (type.startsWith(JobLogs.class.getName())
            || type.startsWith(LogFollower.class.getName())
            || (name.startsWith("http-nio-") && type.startsWith("io.gpuq."))) {
          held.add(name + " at " + frame);
          break;
        }
      }
    }
    return held;
  }

  private static Path newReleaseDirectory() {
    try {
      return Files.createDirectories(dataDir().resolve("releases-" + UUID.randomUUID()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

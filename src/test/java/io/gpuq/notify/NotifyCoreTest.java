package io.gpuq.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobRequest.Notify;
import io.gpuq.job.NotifyEvent;
import io.gpuq.job.NotifyFormat;
import io.gpuq.job.NotifyTarget;
import io.gpuq.notify.NotificationBody.JobFacts;
import io.gpuq.notify.NotificationBody.SweepFacts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Notifications' core (issue 37): checks, backoff, signature, body")
class NotifyCoreTest {

  private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

  @Nested
  @DisplayName("A submission's notify")
  class Checks {

    private final NotifyChecks checks = new NotifyChecks(List.of("hooks.example", " 127.0.0.1 "));

    private List<String> fieldsOf(List<Notify> notify, boolean sweep) {
      try {
        checks.check(notify, sweep);
        return List.of();
      } catch (InvalidJobRequestException e) {
        return e.errors().stream().map(FieldError::field).toList();
      }
    }

    @Test
    void defaults_to_ended_in_json_and_keeps_the_url_as_given() {
      assertThat(
              checks.check(List.of(new Notify("https://HOOKS.example/a?b=c", null, null)), false))
          .containsExactly(
              new NotifyTarget(
                  "https://HOOKS.example/a?b=c", List.of(NotifyEvent.ENDED), NotifyFormat.JSON));
      assertThat(checks.check(List.of(new Notify("http://127.0.0.1:9/x", null, "Slack")), true))
          .containsExactly(
              new NotifyTarget(
                  "http://127.0.0.1:9/x", List.of(NotifyEvent.DONE), NotifyFormat.SLACK));
      assertThat(checks.check(null, false)).isEmpty();
    }

    @Test
    void names_each_wrong_field() {
      assertThat(
              fieldsOf(
                  List.of(
                      new Notify("https://elsewhere.example/", null, null),
                      new Notify("file:///etc/passwd", null, null),
                      new Notify("https://user:pw@hooks.example/", null, null),
                      new Notify("https://hooks.example/", List.of("ENDED", "LATE"), "xml"),
                      new Notify("https://hooks.example/", List.of(), null)),
                  false))
          .containsExactly(
              "notify[0].url",
              "notify[1].url",
              "notify[2].url",
              "notify[3].on[1]",
              "notify[3].format",
              "notify[4].on");
      assertThat(
              fieldsOf(List.of(new Notify("https://hooks.example/", List.of("DONE"), null)), false))
          .containsExactly("notify[0].on[0]");
      assertThat(
              fieldsOf(List.of(new Notify("https://hooks.example/", List.of("ENDED"), null)), true))
          .containsExactly("notify[0].on[0]");
      List<Notify> nine = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        nine.add(new Notify("https://hooks.example/", null, null));
      }
      assertThat(fieldsOf(nine, false)).containsExactly("notify");
    }

    @Test
    void with_no_host_allowed_says_the_operator_must_allow_it() {
      assertThatThrownBy(
              () ->
                  new NotifyChecks(List.of())
                      .check(List.of(new Notify("https://hooks.example/", null, null)), false))
          .isInstanceOf(InvalidJobRequestException.class)
          .hasMessageContaining("notify[0].url")
          .hasMessageContaining("gpuq.notifications.allowed-hosts");
    }
  }

  @Test
  @DisplayName("the backoff doubles from the first wait up to its most, and gives up at its bound")
  void backoff() {
    Backoff backoff =
        new Backoff(Duration.ofSeconds(5), Duration.ofMinutes(1), Duration.ofHours(1));
    assertThat(List.of(1, 2, 3, 4, 5, 6, 40).stream().map(backoff::delayAfter))
        .containsExactly(
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(20),
            Duration.ofSeconds(40),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1));
    assertThat(backoff.nextTry(T0, 1, T0)).isEqualTo(T0.plusSeconds(5));
    assertThat(backoff.nextTry(T0, 9, T0.plus(Duration.ofMinutes(59))))
        .isEqualTo(T0.plus(Duration.ofHours(1)));
    assertThat(backoff.nextTry(T0, 9, T0.plus(Duration.ofSeconds(3541)))).isNull();
  }

  @Test
  @DisplayName("the signature is HMAC-SHA256 of the timestamp, a dot and the body")
  void signature() {
    String body = "{\"a\":1}";
    String signed = Signature.of("secret", 1700000000L, body);
    assertThat(signed).startsWith("sha256=").hasSize(7 + 64);
    assertThat(signed).isEqualTo(Signature.of("secret", 1700000000L, body));
    assertThat(signed).isNotEqualTo(Signature.of("secret", 1700000001L, body));
    assertThat(signed).isNotEqualTo(Signature.of("other", 1700000000L, body));
    // Known answer: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
    assertThat(signed).isEqualTo("sha256=" + KnownHmac.OF_SECRET_1700000000_A1);
  }

  /** Computed with openssl, outside gpuq. */
  static final class KnownHmac {
    static final String OF_SECRET_1700000000_A1 =
        "49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686";
  }

  @Test
  @DisplayName("a job's body carries its figures, escaped; Slack's is one text")
  void job_body() {
    JobFacts job =
        new JobFacts(
            "01J", "train \"big\"", "alice", "FAILED", 3, "line\nnext", T0, T0.plusSeconds(9));
    assertThat(NotificationBody.ofJob("d-1", NotifyEvent.FAILED, T0, job, NotifyFormat.JSON))
        .isEqualTo(
            "{\"id\":\"d-1\",\"event\":\"FAILED\",\"time\":\"2026-12-05T10:00:00Z\",\"job\":{"
                + "\"id\":\"01J\",\"name\":\"train \\\"big\\\"\",\"owner\":\"alice\","
                + "\"state\":\"FAILED\",\"exitCode\":3,\"failureMessage\":\"line\\nnext\","
                + "\"startedAt\":\"2026-12-05T10:00:00Z\",\"finishedAt\":\"2026-12-05T10:00:09Z\"}}");
    assertThat(NotificationBody.ofJob("d-1", NotifyEvent.FAILED, T0, job, NotifyFormat.SLACK))
        .isEqualTo(
            "{\"text\":\"gpuq: job train \\\"big\\\" (01J) of alice ended FAILED, exit code 3:"
                + " line\\nnext\"}");
    JobFacts started = new JobFacts("01K", null, "bob", "RUNNING", null, null, T0, null);
    assertThat(NotificationBody.ofJob("d-2", NotifyEvent.STARTED, T0, started, NotifyFormat.JSON))
        .contains("\"name\":null", "\"exitCode\":null", "\"finishedAt\":null");
  }

  @Test
  @DisplayName("a sweep's body carries its counts and its best trial")
  void sweep_body() {
    Map<String, Long> counts = new LinkedHashMap<>();
    counts.put("SUCCEEDED", 3L);
    counts.put("PRUNED", 1L);
    SweepFacts sweep = new SweepFacts("01S", "lr", "alice", "DONE", counts, "01T", 2, 0.25);
    assertThat(NotificationBody.ofSweep("d-3", NotifyEvent.DONE, T0, sweep, NotifyFormat.JSON))
        .endsWith(
            "\"sweep\":{\"id\":\"01S\",\"name\":\"lr\",\"owner\":\"alice\",\"state\":\"DONE\","
                + "\"counts\":{\"SUCCEEDED\":3,\"PRUNED\":1},"
                + "\"best\":{\"jobId\":\"01T\",\"trial\":2,\"value\":0.25}}}");
    assertThat(NotificationBody.ofSweep("d-3", NotifyEvent.DONE, T0, sweep, NotifyFormat.SLACK))
        .isEqualTo(
            "{\"text\":\"gpuq: sweep lr (01S) of alice is DONE: 3 SUCCEEDED, 1 PRUNED; best trial"
                + " 2 (01T) at 0.25\"}");
  }
}

package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.storage.JobRepository;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.JobJson;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

@DisplayName("Bad input is a 4xx problem that names the field, and stores nothing")
class BadInputIntegrationTest extends IntegrationTest {

  @Autowired JobRepository repository;

  static Stream<Arguments> invalidSubmissions() {
    return Stream.of(
        Arguments.of("missing command", "{\"name\":\"x\"}", "command"),
        Arguments.of("empty command", "{\"command\":[]}", "command"),
        Arguments.of("blank program", "{\"command\":[\" \"]}", "command[0]"),
        Arguments.of("null argument", "{\"command\":[\"echo\",null]}", "command[1]"),
        Arguments.of("command not a list", "{\"command\":\"echo hi\"}", "command"),
        Arguments.of("unknown framework", aJob().framework("caffe").json(), "framework"),
        Arguments.of("bad timeout", aJob().timeout("2 hours").json(), "timeout"),
        Arguments.of("negative timeout", aJob().timeout("-PT5S").json(), "timeout"),
        Arguments.of(
            "bad memory unit", aJob().gpus(1).gpuMemory("6 parsecs").json(), "resources.gpuMemory"),
        Arguments.of("negative memory", aJob().gpus(1).gpuMemory(-5).json(), "resources.gpuMemory"),
        Arguments.of(
            "both gpuMemory and gpuFraction",
            aJob().gpus(1).gpuMemory("1GiB").gpuFraction(0.5).json(),
            "resources"),
        Arguments.of(
            "fraction zero", aJob().gpus(1).gpuFraction(0).json(), "resources.gpuFraction"),
        Arguments.of(
            "fraction above one", aJob().gpus(1).gpuFraction(1.5).json(), "resources.gpuFraction"),
        Arguments.of("negative gpus", aJob().gpus(-1).json(), "resources.gpus"),
        Arguments.of("no cores", aJob().cpus(0).json(), "resources.cpus"),
        Arguments.of("a ten-thousandth of a core", aJob().cpus(1.0005).json(), "resources.cpus"),
        Arguments.of("bad host memory", aJob().memory("lots").json(), "resources.memory"),
        Arguments.of(
            "gpus not a number",
            "{\"command\":[\"true\"],\"resources\":{\"gpus\":\"two\"}}",
            "resources.gpus"),
        Arguments.of(
            "reserved variable in env",
            aJob().env("CUDA_VISIBLE_DEVICES", "0").json(),
            "env.CUDA_VISIBLE_DEVICES"),
        Arguments.of("bad env name", aJob().env("1BAD", "x").json(), "env.1BAD"),
        Arguments.of("max attempts zero", aJob().maxAttempts(0).json(), "retry.maxAttempts"),
        Arguments.of("oom growth below one", aJob().oomGrowth(0.5).json(), "retry.oomGrowth"),
        Arguments.of("bad label key", aJob().label("bad key", "v").json(), "labels.bad key"),
        Arguments.of("unknown field", "{\"command\":[\"true\"],\"comand\":[\"x\"]}", "comand"),
        Arguments.of("relative working dir", aJob().workingDir("data/exp").json(), "workingDir"));
  }

  /** Bodies that issue 12 found stored as jobs, coerced, or answered with a 500. */
  static Stream<Arguments> bodiesThatWereOnceAccepted() {
    return Stream.of(
        Arguments.of("gpus 1.5 (was 1)", aJob().resource("gpus", 1.5).json(), "resources.gpus"),
        Arguments.of("gpus 1.0", aJob().resource("gpus", 1.0).json(), "resources.gpus"),
        Arguments.of("gpus as a string", aJob().resource("gpus", "1").json(), "resources.gpus"),
        Arguments.of("priority 1.5 (was 1)", aJob().field("priority", 1.5).json(), "priority"),
        Arguments.of(
            "priority beyond an int", aJob().field("priority", 99_999_999_999L).json(), "priority"),
        Arguments.of(
            "command of numbers", aJob().field("command", List.of(1, 2)).json(), "command[0]"),
        Arguments.of("name a number", aJob().field("name", 5).json(), "name"),
        Arguments.of(
            "label value a number", aJob().labelOfAnyType("team", 5).json(), "labels.team"),
        Arguments.of(
            "label value a boolean", aJob().labelOfAnyType("team", true).json(), "labels.team"),
        Arguments.of(
            "gpuFraction as a string",
            aJob().gpus(1).resource("gpuFraction", "0.5").json(),
            "resources.gpuFraction"),
        Arguments.of("timeout a number", aJob().field("timeout", 3600).json(), "timeout"),
        Arguments.of("duplicate key", withFields("\"name\":\"a\",\"name\":\"b\""), "name"),
        Arguments.of(
            "duplicate label key",
            withFields("\"labels\":{\"team\":\"a\",\"team\":\"b\"}"),
            "labels.team"),
        Arguments.of("NUL in name", withFields("\"name\":\"a\\u0000b\""), "name"),
        Arguments.of("newline in name", aJob().name("a\nb").json(), "name"),
        Arguments.of("lone surrogate in name", withFields("\"name\":\"a\\ud800b\""), "name"),
        Arguments.of("NUL in a label", aJob().label("team", "a\u0000b").json(), "labels.team"),
        Arguments.of("newline in a label", aJob().label("team", "a\nb").json(), "labels.team"),
        Arguments.of(
            "lone surrogate in a label",
            withFields("\"labels\":{\"team\":\"\\udc00\"}"),
            "labels.team"),
        Arguments.of("NUL in an argument", aJob().command("echo", "a\u0000b").json(), "command[1]"),
        Arguments.of(
            "lone surrogate in an argument",
            "{\"command\":[\"echo\",\"\\ud800\"],\"resources\":{\"gpus\":0}}",
            "command[1]"),
        Arguments.of(
            "lone surrogate in a variable",
            withFields("\"env\":{\"NOTE\":\"\\ud800\"}"),
            "env.NOTE"),
        Arguments.of(
            "lone surrogate in a node selector",
            withFields("\"nodeSelector\":{\"gpu\":\"\\ud800\"}"),
            "nodeSelector.gpu"),
        Arguments.of("65 labels", aJob().labels(65).json(), "labels"),
        Arguments.of(
            "1025 arguments",
            aJob().command(Collections.nCopies(1025, "x").toArray(String[]::new)).json(),
            "command"),
        Arguments.of(
            "300 KiB of arguments",
            aJob().command("echo", "x".repeat(150_000), "y".repeat(150_000)).json(),
            "command"),
        Arguments.of("257 variables", aJob().variables(257).json(), "env"),
        Arguments.of(
            "timeout beyond what Java holds in milliseconds (was 500)",
            aJob().timeout("PT9999999999999H").json(),
            "timeout"),
        Arguments.of(
            "timeout under a second (the job failed at once)",
            aJob().timeout("PT0.0001S").json(),
            "timeout"),
        Arguments.of("timeout over a year", aJob().timeout("P366D").json(), "timeout"),
        Arguments.of(
            "gpuMemory beyond a double",
            "{\"command\":[\"true\"],\"resources\":{\"gpus\":1,\"gpuMemory\":1e400}}",
            "resources.gpuMemory"),
        Arguments.of(
            "gpuMemory beyond a long",
            aJob().gpus(1).gpuMemory("99999999999999999999").json(),
            "resources.gpuMemory"));
  }

  /**
   * Issue 34: shown on a terminal or the page, each reorders the text after it, as ESC recolours.
   */
  static Stream<Arguments> bidirectionalControls() {
    String controls = "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C";
    Stream.Builder<Arguments> cases = Stream.builder();
    for (char c : controls.toCharArray()) {
      String seen = String.format("U+%04X", (int) c);
      String text = "train" + c + "gnp.exe";
      cases.add(Arguments.of(seen + " in name", aJob().name(text).json(), "name"));
      cases.add(
          Arguments.of(seen + " in a label", aJob().label("team", text).json(), "labels.team"));
      cases.add(
          Arguments.of(
              seen + " in a node selector",
              aJob().field("nodeSelector", java.util.Map.of("pool", text)).json(),
              "nodeSelector.pool"));
      cases.add(
          Arguments.of(
              seen + " in workingDir", aJob().workingDir("/tmp/" + text).json(), "workingDir"));
    }
    cases.add(Arguments.of("ESC in name", aJob().name("a\u001b[31mb").json(), "name"));
    return cases.build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bidirectionalControls")
  @DisplayName("a bidirectional control in a name, label, selector or directory is 400 as ESC is")
  void a_bidirectional_control_is_refused_as_escape_is(String why, String body, String field) {
    an_invalid_submission_is_400_naming_the_field(why, body, field);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bodiesThatWereOnceAccepted")
  void a_body_of_the_wrong_type_or_form_is_400_naming_the_field(
      String why, String body, String field) {
    an_invalid_submission_is_400_naming_the_field(why, body, field);
  }

  @Test
  void a_huge_gpu_memory_string_is_refused_unparsed_and_not_repeated() {
    long before = repository.count();
    String digits = "9".repeat(1_000_000);

    var response = alice.post("/api/v1/jobs", aJob().gpus(1).gpuMemory(digits).json());

    assertThat(response.status()).isEqualTo(400);
    assertThat(fields(response.json())).containsExactly("resources.gpuMemory");
    assertThat(response.body()).hasSizeLessThan(2_000).doesNotContain("9".repeat(101));
    assertThat(repository.count()).isEqualTo(before);
  }

  @Test
  void an_answer_quotes_at_most_100_characters_of_any_value() {
    String framework = "f".repeat(10_000);
    String key = "k".repeat(10_000);

    var response = alice.post("/api/v1/jobs", aJob().framework(framework).label(key, "v").json());

    assertThat(response.status()).isEqualTo(400);
    assertThat(response.body()).doesNotContain("f".repeat(101)).doesNotContain("k".repeat(101));
    assertThat(fields(response.json())).hasSize(2);
  }

  @Test
  void many_mistakes_are_listed_up_to_twenty_and_counted() {
    JobJson job = aJob();
    for (int i = 0; i < 30; i++) {
      job.label("bad key " + i, "v");
    }

    var response = alice.post("/api/v1/jobs", job.json());

    assertThat(fields(response.json())).hasSize(21).last().isEqualTo("");
    assertThat(response.json().get("errors").get(20).get("message").asString())
        .isEqualTo("10 more mistakes are not listed");
  }

  @Test
  void an_idempotency_key_reused_with_another_request_is_422_and_creates_nothing() {
    String key = "reused-" + UUID.randomUUID();
    var first =
        alice.post("/api/v1/jobs", aJob().label("seed", "1").json(), "Idempotency-Key", key);
    long before = repository.count();

    var retry =
        alice.post("/api/v1/jobs", aJob().label("seed", "1").json(), "Idempotency-Key", key);
    var other =
        alice.post("/api/v1/jobs", aJob().label("seed", "2").json(), "Idempotency-Key", key);

    assertThat(first.status()).isEqualTo(201);
    assertThat(retry.status()).isEqualTo(200);
    assertThat(other.status()).isEqualTo(422);
    assertThat(other.contentType()).startsWith("application/problem+json");
    assertThat(fields(other.json())).containsExactly("Idempotency-Key");
    assertThat(other.json().get("detail").asString()).contains("different request");
    assertThat(other.json().get("jobId").asString()).isEqualTo(first.json().get("id").asString());
    assertThat(repository.count()).isEqualTo(before);
  }

  @Test
  void an_idempotency_key_must_be_printable_ascii() {
    var response = alice.post("/api/v1/jobs", aJob().json(), "Idempotency-Key", "tab\tin key");

    assertThat(response.status()).isEqualTo(400);
    assertThat(fields(response.json())).containsExactly("Idempotency-Key");
  }

  /** A valid CPU-only job with these raw JSON fields added, for what a builder cannot write. */
  private static String withFields(String fields) {
    return "{\"command\":[\"true\"],\"resources\":{\"gpus\":0}," + fields + "}";
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSubmissions")
  void an_invalid_submission_is_400_naming_the_field(String why, String body, String field) {
    long before = repository.count();

    var response = alice.post("/api/v1/jobs", body);

    assertThat(response.status()).as(response.body()).isEqualTo(400);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(fields(response.json())).contains(field);
    assertThat(response.json().get("detail").asString()).isNotBlank();
    assertThat(repository.count()).isEqualTo(before);
  }

  @Test
  void every_mistake_of_one_request_is_reported_at_once() {
    var response =
        alice.post(
            "/api/v1/jobs",
            "{\"command\":[],\"framework\":\"caffe\",\"timeout\":\"soon\",\"resources\":{\"gpus\":-2}}");

    assertThat(fields(response.json()))
        .containsExactlyInAnyOrder("command", "framework", "timeout", "resources.gpus");
  }

  @Test
  void malformed_json_is_400() {
    long before = repository.count();

    var response = alice.post("/api/v1/jobs", "{\"command\": [\"true\"");

    assertThat(response.status()).isEqualTo(400);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(response.json().get("title").asString()).isEqualTo("Malformed JSON");
    assertThat(repository.count()).isEqualTo(before);
  }

  @Test
  void a_body_over_the_configured_size_is_413() {
    long before = repository.count();
    String huge = aJob().env("BIG", "x".repeat(2 * 1024 * 1024)).json();

    var response = alice.post("/api/v1/jobs", huge);

    assertThat(response.status()).isEqualTo(413);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(repository.count()).isEqualTo(before);
  }

  @Test
  void an_unknown_job_is_404() {
    var response = alice.get("/api/v1/jobs/01ZZZZZZZZZZZZZZZZZZZZZZZZ");

    assertThat(response.status()).isEqualTo(404);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(alice.post("/api/v1/jobs/nope/cancel").status()).isEqualTo(404);
    assertThat(alice.get("/api/v1/jobs/nope/logs").status()).isEqualTo(404);
  }

  @Test
  void bad_listing_parameters_are_400_naming_them() {
    assertThat(fields(alice.get("/api/v1/jobs?state=DONE").json())).contains("state");
    assertThat(fields(alice.get("/api/v1/jobs?limit=0").json())).contains("limit");
    assertThat(fields(alice.get("/api/v1/jobs?label=nocolon").json())).contains("label");
    assertThat(fields(alice.get("/api/v1/jobs?cursor=bm90LWFuLWlk").json())).contains("cursor");
    assertThat(fields(alice.get("/api/v1/jobs?limit=many").json())).contains("limit");
    assertThat(fields(alice.get("/api/v1/jobs?limit=1.5").json())).contains("limit");
    String manyLabels =
        IntStream.range(0, 65).mapToObj(i -> "label=k" + i + ":v").collect(joining("&"));
    assertThat(fields(alice.get("/api/v1/jobs?" + manyLabels).json())).contains("label");
  }

  private static List<String> fields(JsonNode problem) {
    List<String> fields = new ArrayList<>();
    JsonNode errors = problem.get("errors");
    if (errors != null) {
      errors.forEach(e -> fields.add(e.get("field").asString()));
    }
    return fields;
  }
}

package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobRepository;
import io.gpuq.support.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
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

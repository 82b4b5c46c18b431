package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.IntegrationTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The API needs a bearer token, and submitters see only their own jobs")
class AuthenticationIntegrationTest extends IntegrationTest {

  @Test
  void a_request_without_a_token_is_401_problem_json() {
    var response = alice.as(null).get("/api/v1/jobs");

    assertThat(response.status()).isEqualTo(401);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(response.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(h -> assertThat(h).startsWith("Bearer"));
  }

  @Test
  void a_wrong_token_is_401_and_submits_nothing() {
    var response = alice.as("not-a-real-token-at-all").post("/api/v1/jobs", aJob().json());

    assertThat(response.status()).isEqualTo(401);
    assertThat(response.json().get("detail").asString()).contains("not valid");
  }

  @Test
  void another_submitters_job_is_403_to_read_cancel_or_tail() {
    String id = alice.submit(aJob().command("sleep", "30").json());

    assertThat(bob.get("/api/v1/jobs/" + id).status()).isEqualTo(403);
    assertThat(bob.post("/api/v1/jobs/" + id + "/cancel").status()).isEqualTo(403);
    assertThat(bob.get("/api/v1/jobs/" + id + "/logs").status()).isEqualTo(403);
    assertThat(bob.get("/api/v1/jobs/" + id).contentType()).startsWith("application/problem+json");

    assertThat(admin.get("/api/v1/jobs/" + id).status()).isEqualTo(200);
    assertThat(admin.post("/api/v1/jobs/" + id + "/cancel").json().get("state").asString())
        .isEqualTo("CANCELLED");
  }

  @Test
  void listings_show_submitters_their_own_jobs_and_admins_everything() {
    String mine = alice.submit(aJob().label("suite", "owners").json());
    String theirs = bob.submit(aJob().label("suite", "owners").json());

    assertThat(ids(alice.get("/api/v1/jobs?label=suite:owners").json())).containsExactly(mine);
    assertThat(ids(bob.get("/api/v1/jobs?label=suite:owners").json())).containsExactly(theirs);
    assertThat(ids(admin.get("/api/v1/jobs?label=suite:owners").json()))
        .containsExactly(theirs, mine);
  }

  @Test
  void health_and_prometheus_need_no_token_but_other_actuator_endpoints_do() {
    HttpApiAnonymous anonymous = new HttpApiAnonymous(alice.as(null));

    assertThat(anonymous.status("/actuator/health")).isEqualTo(200);
    assertThat(anonymous.status("/actuator/prometheus")).isEqualTo(200);
    assertThat(anonymous.status("/actuator/info")).isEqualTo(401);
    assertThat(anonymous.status("/v3/api-docs")).isEqualTo(200);
  }

  private static java.util.List<String> ids(tools.jackson.databind.JsonNode page) {
    java.util.List<String> ids = new java.util.ArrayList<>();
    page.get("items").forEach(item -> ids.add(item.get("id").asString()));
    return ids;
  }

  private record HttpApiAnonymous(io.gpuq.support.HttpApi api) {
    int status(String path) {
      return api.get(path).status();
    }
  }
}

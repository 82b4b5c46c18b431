package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("The OpenAPI document and Swagger UI describe the API")
class OpenApiDocumentIntegrationTest extends IntegrationTest {

  private static final String MEDIA_PROBLEM = "application/problem+json";

  @Test
  void every_endpoint_with_its_errors_and_the_bearer_scheme_is_documented() {
    JsonNode doc = alice.as(null).get("/v3/api-docs").json();

    List<String> paths = new ArrayList<>();
    doc.get("paths").propertyNames().forEach(paths::add);
    assertThat(paths)
        .contains(
            "/api/v1/jobs",
            "/api/v1/jobs/{id}",
            "/api/v1/jobs/{id}/cancel",
            "/api/v1/jobs/{id}/logs",
            "/api/v1/gpus",
            "/api/v1/nodes",
            "/api/v1/owners");
    List<String> submitAnswers = new ArrayList<>();
    doc.get("paths")
        .get("/api/v1/jobs")
        .get("post")
        .get("responses")
        .propertyNames()
        .forEach(submitAnswers::add);
    assertThat(submitAnswers).contains("201", "200", "400", "401", "413", "422");
    assertThat(
            doc.get("paths")
                .get("/api/v1/jobs/{id}/cancel")
                .get("post")
                .get("responses")
                .has("409"))
        .isTrue();
    for (String path : List.of("/api/v1/jobs/{id}", "/api/v1/sweeps/{id}")) {
      JsonNode notFound = doc.get("paths").get(path).get("get").get("responses").get("404");
      assertThat(notFound.get("description").asString()).as(path).startsWith("no such");
      assertThat(
              notFound
                  .get("content")
                  .get("application/problem+json")
                  .get("schema")
                  .get("$ref")
                  .asString())
          .as(path)
          .isEqualTo("#/components/schemas/ProblemDetail");
    }
    assertThat(
            doc.get("components")
                .get("schemas")
                .get("ProblemDetail")
                .get("properties")
                .has("detail"))
        .isTrue();
    doc.get("paths")
        .properties()
        .forEach(
            path -> {
              if (path.getKey().startsWith("/api/")) {
                path.getValue()
                    .properties()
                    .forEach(
                        operation -> {
                          JsonNode answers = operation.getValue().get("responses");
                          String named = operation.getKey() + " " + path.getKey();
                          assertThat(answers.get("401").get("content").has(MEDIA_PROBLEM))
                              .as(named)
                              .isTrue();
                          // The request size filter answers any body too large, before any
                          // controller: every operation with a body says so.
                          if (operation.getValue().has("requestBody")) {
                            assertThat(answers.get("413").get("content").has(MEDIA_PROBLEM))
                                .as(named)
                                .isTrue();
                          }
                        });
              }
            });
    // What each may answer past its owner's max-queued-jobs, or of another owner's job.
    for (String path : List.of("/api/v1/jobs", "/api/v1/sweeps", "/api/v1/sweeps/{id}/trials")) {
      assertThat(doc.get("paths").get(path).get("post").get("responses").has("429"))
          .as(path)
          .isTrue();
    }
    assertThat(
            doc.get("paths")
                .get("/api/v1/sweeps/{id}/trials")
                .get("post")
                .get("responses")
                .has("413"))
        .isTrue();
    // Each operation on one job answers another user's job 403 and an unknown one 404, and says so.
    for (String[] operation :
        new String[][] {
          {"/api/v1/jobs/{id}", "get"},
          {"/api/v1/jobs/{id}/cancel", "post"},
          {"/api/v1/jobs/{id}/requeue", "post"},
          {"/api/v1/jobs/{id}/logs", "get"},
          {"/api/v1/jobs/{id}/metrics", "get"}
        }) {
      assertThat(
              doc.get("paths").get(operation[0]).get(operation[1]).get("responses").propertyNames())
          .as(operation[1] + " " + operation[0])
          .contains("403", "404");
    }
    JsonNode job = doc.get("components").get("schemas").get("Job").get("properties");
    assertThat(job.has("state")).isTrue();
    assertThat(job.has("failureReason")).isTrue();
    assertThat(job.has("placement")).isTrue();
    assertThat(job.has("attempts")).isTrue();
    assertThat(doc.get("components").get("securitySchemes").get("bearer").get("scheme").asString())
        .isEqualTo("bearer");
    assertThat(alice.as(null).get("/swagger-ui/index.html").status()).isEqualTo(200);
  }
}

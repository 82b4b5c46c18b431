package io.gpuq.support;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The whole gpuq on PostgreSQL, configured as in production: the {@code postgres} profile with the
 * database given by {@code GPUQ_DB_URL}, {@code GPUQ_DB_USER} and {@code GPUQ_DB_PASSWORD}.
 */
@DisplayName("gpuq on PostgreSQL")
@ActiveProfiles("postgres")
class PostgresApplicationTest extends IntegrationTest {

  private static final PostgresDatabase DB = PostgresSupport.freshDatabase();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("GPUQ_DB_URL", DB::jdbcUrl);
    registry.add("GPUQ_DB_USER", DB::username);
    registry.add("GPUQ_DB_PASSWORD", DB::password);
  }

  @Test
  void submitted_jobs_run_to_success_and_are_stored_in_postgresql() throws SQLException {
    List<String> ids =
        IntStream.range(0, 3)
            .mapToObj(
                i -> alice.submit(aJob().shell("echo run-" + i).label("suite", "pg-smoke").json()))
            .toList();

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(ids)
                    .allSatisfy(id -> assertThat(alice.state(id)).isEqualTo("SUCCEEDED")));

    JsonNode listed = alice.get("/api/v1/jobs?label=suite:pg-smoke").json().get("items");
    List<String> newestFirst = new ArrayList<>(ids);
    Collections.reverse(newestFirst);
    assertThat(listed)
        .extracting(job -> job.get("id").asString())
        .containsExactlyElementsOf(newestFirst);
    assertThat(countInDatabase("select count(*) from jobs where state = 'SUCCEEDED'")).isEqualTo(3);
    assertThat(countInDatabase("select count(*) from job_attempts where exit_code = 0"))
        .isEqualTo(3);
  }

  @Test
  void a_repeated_submission_with_one_idempotency_key_creates_one_job() throws SQLException {
    String body = aJob().label("suite", "pg-idempotency").json();

    var first = alice.post("/api/v1/jobs", body, "Idempotency-Key", "pg-key-1");
    var second = alice.post("/api/v1/jobs", body, "Idempotency-Key", "pg-key-1");
    var otherOwner = bob.post("/api/v1/jobs", body, "Idempotency-Key", "pg-key-1");

    assertThat(first.status()).isEqualTo(201);
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.json().get("id").asString()).isEqualTo(first.json().get("id").asString());
    assertThat(otherOwner.status()).isEqualTo(201);
    assertThat(countInDatabase("select count(*) from jobs where idempotency_key = 'pg-key-1'"))
        .isEqualTo(2);
  }

  // Straight to the database, past gpuq: proves the rows are in PostgreSQL, not in a fallback H2.
  private static int countInDatabase(String sql) throws SQLException {
    try (Connection c = DB.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}

package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("A job listing the database cannot answer in time")
@ActiveProfiles("postgres")
class QueryTimeoutIntegrationTest extends IntegrationTest {

  private static final PostgresDatabase DB = PostgresSupport.freshDatabase();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("GPUQ_DB_URL", DB::jdbcUrl);
    registry.add("GPUQ_DB_USER", DB::username);
    registry.add("GPUQ_DB_PASSWORD", DB::password);
    registry.add("gpuq.api.query-timeout", () -> "1s");
  }

  @Test
  void is_cancelled_at_the_query_timeout_and_answered_503_to_try_again() throws Exception {
    HttpApi.Response answer;
    // Another session holds the table, as a long migration would: the listing waits for it.
    try (Connection holder = DB.connect();
        Statement lock = holder.createStatement()) {
      holder.setAutoCommit(false);
      lock.execute("lock table jobs in access exclusive mode");

      answer = admin.get("/api/v1/jobs?state=SUCCEEDED");

      holder.rollback();
    }

    assertThat(answer.status()).isEqualTo(503);
    assertThat(answer.contentType()).startsWith("application/problem+json");
    assertThat(answer.headers().firstValue("Retry-After")).contains("5");
    assertThat(answer.json().get("title").asString()).isEqualTo("Query timed out");
    assertThat(admin.get("/api/v1/jobs?state=SUCCEEDED").status())
        .as("once the lock is gone")
        .isEqualTo(200);
  }
}

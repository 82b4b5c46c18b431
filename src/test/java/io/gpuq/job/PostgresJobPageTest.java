package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.support.PostgresSupport;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("A page of the job list on PostgreSQL")
@ActiveProfiles("postgres")
class PostgresJobPageTest extends JobPageContract {

  @Autowired DataSource dataSource;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    PostgresSupport.freshDatabase().applyTo(registry);
    registry.add("gpuq.api.query-timeout", () -> "1s");
  }

  @Test
  void a_listing_the_database_cannot_answer_within_the_query_timeout_is_cancelled()
      throws Exception {
    // Another session holds the table exclusively, as a long migration or a stuck VACUUM FULL
    // would: the listing waits for it until the timeout cancels the statement.
    try (Connection holder = dataSource.getConnection();
        Statement lock = holder.createStatement()) {
      holder.setAutoCommit(false);
      lock.execute("lock table jobs in access exclusive mode");

      assertThatThrownBy(() -> service.list(ADMIN, null, Map.of(), null, 10))
          .isInstanceOf(StoreTimeoutException.class)
          .hasCauseInstanceOf(QueryTimeoutException.class);

      holder.rollback();
    }
    assertThat(service.list(ADMIN, null, Map.of(), null, 10).items())
        .as("the next listing, once the lock is gone")
        .hasSize(10);
  }
}

package io.gpuq.job;

import io.gpuq.support.PostgresSupport;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The contract on a real PostgreSQL, configured by the {@code postgres} profile as in production.
 */
@DisplayName("The job store on PostgreSQL")
@ActiveProfiles("postgres")
class PostgresJobStoreContractTest extends JpaJobStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    PostgresSupport.freshDatabase().applyTo(registry);
  }

  @Override
  String databaseProductName() {
    return "PostgreSQL";
  }

  @Override
  String sessionsWaitingForALockSql() {
    return "select count(*) from pg_stat_activity"
        + " where datname = current_database() and wait_event_type = 'Lock'";
  }
}

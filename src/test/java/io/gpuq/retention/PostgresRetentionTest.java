package io.gpuq.retention;

import io.gpuq.support.PostgresSupport;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("Retention of finished jobs on PostgreSQL")
@ActiveProfiles("postgres")
class PostgresRetentionTest extends RetentionContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    PostgresSupport.freshDatabase().applyTo(registry);
  }
}

package io.gpuq.storage;

import io.gpuq.support.PostgresSupport;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("The node store on PostgreSQL")
@ActiveProfiles("postgres")
class PostgresNodeStoreTest extends NodeStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    PostgresSupport.freshDatabase().applyTo(registry);
  }
}

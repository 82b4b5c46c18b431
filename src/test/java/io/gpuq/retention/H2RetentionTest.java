package io.gpuq.retention;

import io.gpuq.support.TestDataDirs;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("Retention of finished jobs on H2")
class H2RetentionTest extends RetentionContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> TestDataDirs.fresh("retention-h2-").toString());
  }
}

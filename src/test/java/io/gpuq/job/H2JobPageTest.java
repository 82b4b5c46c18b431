package io.gpuq.job;

import io.gpuq.support.TestDataDirs;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("A page of the job list on H2")
class H2JobPageTest extends JobPageContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> TestDataDirs.fresh("page-h2-").toString());
  }
}

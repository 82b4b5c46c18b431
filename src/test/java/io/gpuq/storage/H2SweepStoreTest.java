package io.gpuq.storage;

import io.gpuq.support.TestDataDirs;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("The sweep store on H2")
class H2SweepStoreTest extends SweepStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> TestDataDirs.fresh("sweeps-h2-").toString());
  }
}

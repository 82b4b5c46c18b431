package io.gpuq.storage;

import io.gpuq.support.TestDataDirs;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("The node store on H2")
class H2NodeStoreTest extends NodeStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> TestDataDirs.fresh("nodes-h2-").toString());
  }
}

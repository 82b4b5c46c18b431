package io.gpuq.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("The sweep store on H2")
class H2SweepStoreTest extends SweepStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> freshDataDir().toString());
  }

  private static Path freshDataDir() {
    try {
      Path base = Files.createDirectories(Path.of("target", "test-data").toAbsolutePath());
      return Files.createTempDirectory(base, "sweeps-h2-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

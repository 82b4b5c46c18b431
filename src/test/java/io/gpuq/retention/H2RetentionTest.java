package io.gpuq.retention;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@DisplayName("Retention of finished jobs on H2")
class H2RetentionTest extends RetentionContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> freshDatabaseDir().toString());
  }

  private static Path freshDatabaseDir() {
    try {
      Path base = Files.createDirectories(Path.of("target", "test-data").toAbsolutePath());
      return Files.createTempDirectory(base, "retention-h2-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

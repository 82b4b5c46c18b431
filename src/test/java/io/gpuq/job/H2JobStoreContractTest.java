package io.gpuq.job;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The contract on H2 in PostgreSQL mode: the URL of application.yml, in a data dir of its own. */
@DisplayName("The job store on H2")
class H2JobStoreContractTest extends JpaJobStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> freshDataDir().toString());
  }

  @Override
  String databaseProductName() {
    return "H2";
  }

  @Override
  String sessionsWaitingForALockSql() {
    return "select count(*) from information_schema.sessions where blocker_id is not null";
  }

  private static Path freshDataDir() {
    try {
      Path base = Path.of("target", "test-data").toAbsolutePath();
      Files.createDirectories(base);
      return Files.createTempDirectory(base, "contract-h2-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

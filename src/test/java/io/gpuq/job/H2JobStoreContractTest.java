package io.gpuq.job;

import io.gpuq.support.TestDataDirs;
import org.junit.jupiter.api.DisplayName;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The contract on H2 in PostgreSQL mode: the URL of application.yml, in a data dir of its own. */
@DisplayName("The job store on H2")
class H2JobStoreContractTest extends JpaJobStoreContract {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", () -> TestDataDirs.fresh("contract-h2-").toString());
  }

  @Override
  String databaseProductName() {
    return "H2";
  }

  @Override
  String sessionsWaitingForALockSql() {
    return "select count(*) from information_schema.sessions where blocker_id is not null";
  }
}

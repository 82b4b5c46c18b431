package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestCores;
import io.gpuq.support.Tmpfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

@IntegrationTier
@EnabledIf(
    value = "io.gpuq.support.Tmpfs#canMount",
    disabledReason = "mounting a tmpfs needs root (CI runs as root)")
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "gpuq.auth.tokens[0].name=root",
      "gpuq.auth.tokens[0].token=" + ClosedDatabaseAnswerIntegrationTest.ADMIN,
      "gpuq.auth.tokens[0].role=ADMIN",
      "gpuq.auth.tokens[0].run-as=root",
      "gpuq.scheduler.cpu-slots=1",
      "gpuq.worker.allow-shared-account=true",
      "gpuq.storage.min-free=1MiB",
      TestCores.CPUS_PROPERTY,
      TestCores.NONE_RESERVED_PROPERTY,
      // As application.yml has it, with a lock timeout long enough for the test's fill and
      // writes on a loaded machine (H2's default is one second).
      "spring.datasource.url=jdbc:h2:file:${gpuq.data-dir}/db/gpuq;MODE=PostgreSQL;"
          + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0;PAGE_SIZE=4096;"
          + "LOCK_TIMEOUT=30000",
    })
@DirtiesContext
@DisplayName(
    "A request whose database connection H2 closed under it (a full disk) is answered 503 with"
        + " Retry-After, and succeeds once there is space")
class ClosedDatabaseAnswerIntegrationTest {

  static final String ADMIN = "closed-db-admin-0123456789";
  private static final Duration SOON = Duration.ofSeconds(30);

  private static Tmpfs disk;

  @Value("${local.server.port}")
  int port;

  @Autowired DataSource dataSource;

  @DynamicPropertySource
  static void dataDirOnASmallDisk(DynamicPropertyRegistry registry)
      throws IOException, InterruptedException {
    disk = Tmpfs.mount("closed-db", 48);
    registry.add("gpuq.data-dir", () -> disk.root().resolve("data").toString());
  }

  @AfterAll
  static void unmount() throws IOException, InterruptedException {
    if (disk != null) {
      disk.close();
    }
  }

  @Test
  void a_cancel_waiting_on_a_row_when_h2_closes_its_database_is_a_503_with_retry_after()
      throws Exception {
    HttpApi admin = new HttpApi(port, ADMIN);
    String id = admin.submit(aJob().cpuOnly().command("sleep", "600").json());
    await().atMost(SOON).until(() -> admin.state(id).equals("RUNNING"));
    Path fill = disk.root().resolve("fill");

    HttpApi.Response answer;
    try (Connection locker = dataSource.getConnection()) {
      locker.setAutoCommit(false);
      try (PreparedStatement lock =
          locker.prepareStatement("update jobs set name = name where id = ?")) {
        lock.setString(1, id);
        assertThat(lock.executeUpdate()).isEqualTo(1);
      }
      // The cancel's transaction takes a connection, and waits for the job's row.
      CompletableFuture<HttpApi.Response> cancel =
          CompletableFuture.supplyAsync(() -> admin.post("/api/v1/jobs/" + id + "/cancel"));
      await().atMost(SOON).until(() -> blockedSessions() > 0);

      // The disk fills, and the lock holder's write fails: H2 closes its database.
      Tmpfs.fill(fill);
      // Its writes need more than the space left in H2's file, and the disk has none: H2 closes
      // its database.
      try (PreparedStatement write =
          locker.prepareStatement("update jobs set command = repeat('x', ?) where id = ?")) {
        for (int i = 0; i < 6; i++) {
          write.setInt(1, 4_000_000 + i);
          write.setString(2, id);
          write.executeUpdate();
        }
        locker.commit();
      } catch (SQLException expected) {
        // the write that closed the database
      }
      answer = cancel.get(60, TimeUnit.SECONDS);
    }

    assertThat(answer.status()).as(answer.body()).isEqualTo(503);
    assertThat(answer.contentType()).startsWith("application/problem+json");
    assertThat(answer.json().get("title").asString()).isEqualTo("Database unavailable");
    assertThat(answer.headers().firstValue("Retry-After")).isPresent();

    Files.delete(fill);
    await()
        .atMost(SOON)
        .ignoreExceptions()
        .until(() -> admin.post("/api/v1/jobs/" + id + "/cancel").status() == 200);
    await().atMost(SOON).until(() -> admin.state(id).equals("CANCELLED"));
  }

  private int blockedSessions() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rows =
            s.executeQuery(
                "select count(*) from information_schema.sessions where blocker_id is not null")) {
      rows.next();
      return rows.getInt(1);
    }
  }
}

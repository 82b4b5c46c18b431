package io.gpuq.support;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A real gpuq on a random port with its own H2 file and data directory, shared by every test class
 * that extends this one (one Spring context for all). Three tokens: an admin and two submitters.
 */
@IntegrationTier
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "gpuq.auth.tokens[0].name=root",
      "gpuq.auth.tokens[0].token=" + IntegrationTest.ADMIN_TOKEN,
      "gpuq.auth.tokens[0].role=ADMIN",
      "gpuq.auth.tokens[1].name=alice",
      "gpuq.auth.tokens[1].token=" + IntegrationTest.ALICE_TOKEN,
      "gpuq.auth.tokens[2].name=bob",
      "gpuq.auth.tokens[2].token=" + IntegrationTest.BOB_TOKEN,
      "gpuq.scheduler.cpu-slots=8",
      TestCores.CPUS_PROPERTY,
      TestCores.NONE_RESERVED_PROPERTY,
      "gpuq.worker.kill-grace=2s",
      "gpuq.gpu.backend=emulated",
      "gpuq.node-name=test-node",
      "gpuq.placement.start-spacing=100ms",
      "gpuq.gpu.poll-interval=250ms",
      "gpuq.guard.tolerance-bytes=64MiB",
      // Preemption tests (issue 35) need not wait the default 5 minutes; only preemptible jobs,
      // which no other test submits, are ever preempted.
      "gpuq.preemption.min-runtime=2s",
      // Opted in, so that the metrics tests see gpuq_job_info's names; LessForOthersToSeeTest
      // checks the default, no names.
      "gpuq.metrics.job-names=true",
      // Notifications (issue 37) to the tests' own receiver, on the loopback address only (a
      // "localhost" URL is refused), retried soon.
      "gpuq.notifications.allowed-hosts=127.0.0.1",
      "gpuq.notifications.secret=" + IntegrationTest.NOTIFICATIONS_SECRET,
      "gpuq.notifications.first-retry=1s",
      "gpuq.notifications.interval=250ms",
      // Longer than the default 10 s: a test measures that nothing waits for a hung POST, with
      // room for a slow machine below this bound.
      "gpuq.notifications.timeout=20s",
    })
public abstract class IntegrationTest {

  public static final String ADMIN_TOKEN = "admin-token-0123456789";
  public static final String ALICE_TOKEN = "alice-token-0123456789";
  public static final String BOB_TOKEN = "bob-token-0123456789ab";
  public static final String NOTIFICATIONS_SECRET = "notifications-secret-0123456789";

  private static final Path DATA_DIR = TestDataDirs.fresh("it-");

  @Value("${local.server.port}")
  protected int port;

  protected HttpApi alice;
  protected HttpApi bob;
  protected HttpApi admin;

  /**
   * Jobs run as the tests' own account, so that they can write where the tests read: the three
   * owners share it, which needs saying. {@code io.gpuq.isolation} tests jobs under other accounts.
   */
  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) {
    registry.add("gpuq.data-dir", DATA_DIR::toString);
    registry.add("gpuq.worker.run-as", TestAccounts::self);
    registry.add("gpuq.worker.allow-shared-account", () -> "true");
  }

  @BeforeEach
  void clients() {
    alice = new HttpApi(port, ALICE_TOKEN);
    bob = alice.as(BOB_TOKEN);
    admin = alice.as(ADMIN_TOKEN);
  }

  protected static Path dataDir() {
    return DATA_DIR;
  }
}

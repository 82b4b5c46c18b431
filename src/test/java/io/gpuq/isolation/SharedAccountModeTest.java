package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * gpuq started as a process that cannot switch accounts (neither root with CAP_SETUID and
 * CAP_SETGID nor holding them as ambient capabilities): every job runs as gpuq's own account, and
 * gpuq says so, and refuses to let several owners share that account unless told to.
 *
 * <p>Run as root (as in CI), each gpuq is started under {@code setpriv}, which drops CAP_SETUID and
 * CAP_SETGID from its bounding and inheritable sets, so that neither gpuq nor any of its workers
 * can have them; run as an ordinary user, gpuq lacks them already and starts as it is.
 */
@IntegrationTier
@DisplayName("gpuq without the rights to switch accounts runs every job as itself")
class SharedAccountModeTest {

  private static final String ADMIN_TOKEN = "shared-admin-token-0123456789";
  private static final String OTHER_TOKEN = "shared-other-token-0123456789";
  private static final String OTHER_OWNER = "second-owner";
  private static final String ISOLATION_COMPONENT = "isolation";
  private static final Duration START = Duration.ofSeconds(180);
  private static final Duration JOB = Duration.ofSeconds(90);

  private static List<String> withoutSwitchingRights;

  @BeforeAll
  static void commandPrefix() {
    withoutSwitchingRights = prefixWithoutSwitchingRights();
  }

  @Test
  void with_one_owner_it_starts_reports_shared_account_to_admins_only_and_runs_jobs_as_itself()
      throws Exception {
    Path dataDir = newDataDir("one-owner-");
    try (GpuqProcess gpuq = GpuqProcess.start(withoutSwitchingRights, dataDir, ADMIN_TOKEN)) {
      assertLacksSwitchingRights(gpuq.pid());
      HttpApi admin = gpuq.api(ADMIN_TOKEN);

      JsonNode health = admin.get("/actuator/health").json();
      assertThat(health.get("status").asString()).isEqualTo("UP");
      JsonNode isolation = isolationComponent(health);
      assertThat(isolation.get("status").asString()).isEqualTo("UP");
      assertThat(isolation.get("details").get("isolation").asString()).isEqualTo("shared-account");
      int gpuqUid = effectiveUid(gpuq.pid());
      assertThat(isolation.get("details").get("gpuqAccount").asString())
          .contains("(" + gpuqUid + ":");
      assertThat(isolation.get("details").get("defaultJobAccount").asString())
          .isEqualTo(isolation.get("details").get("gpuqAccount").asString());

      HttpApi.Response anonymous = admin.as(null).get("/actuator/health");
      assertThat(anonymous.status()).isEqualTo(200);
      JsonNode publicHealth = anonymous.json();
      assertThat(publicHealth.get("status").asString()).isEqualTo("UP");
      assertThat(publicHealth.has("components")).as(anonymous.body()).isFalse();
      assertThat(publicHealth.has("details")).as(anonymous.body()).isFalse();
      assertThat(anonymous.body()).doesNotContain("shared-account").doesNotContain("isolation");

      String id =
          admin.submit(aJob().shell("echo uid=$(id -u); grep '^CapEff:' /proc/self/status").json());
      await().atMost(JOB).untilAsserted(() -> assertThat(admin.state(id)).isEqualTo("SUCCEEDED"));
      List<String> lines = admin.get("/api/v1/jobs/" + id + "/logs").body().lines().toList();
      assertThat(lines).contains("uid=" + gpuqUid);
      // The worker cannot have gained what its gpuq lacks.
      String capEff =
          lines.stream().filter(line -> line.startsWith("CapEff:")).findFirst().orElseThrow();
      long jobCaps = Long.parseUnsignedLong(capEff.split("\\s+")[1], 16);
      assertThat(jobCaps & (1L << Privileges.CAP_SETUID | 1L << Privileges.CAP_SETGID))
          .as(capEff)
          .isZero();
    }
  }

  @Test
  void with_two_owners_it_refuses_to_start_and_names_the_setting_that_would_allow_it()
      throws Exception {
    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            withoutSwitchingRights, newDataDir("two-owners-"), ADMIN_TOKEN, START, secondOwner());

    assertThat(exited.exitCode()).as(exited.output()).isNotZero();
    assertThat(exited.output())
        .contains("several owners would run as one account")
        .contains("gpuq.worker.allow-shared-account");
  }

  @Test
  void with_two_owners_it_starts_when_shared_accounts_are_allowed() throws Exception {
    Path dataDir = newDataDir("two-owners-allowed-");
    String[] args = append(secondOwner(), "--gpuq.worker.allow-shared-account=true");
    try (GpuqProcess gpuq = GpuqProcess.start(withoutSwitchingRights, dataDir, ADMIN_TOKEN, args)) {
      assertLacksSwitchingRights(gpuq.pid());
      JsonNode details =
          isolationComponent(gpuq.api(ADMIN_TOKEN).get("/actuator/health").json()).get("details");
      assertThat(details.get("isolation").asString()).isEqualTo("shared-account");
      assertThat(details.get("jobAccounts").has("crash")).isTrue();
      assertThat(details.get("jobAccounts").has(OTHER_OWNER)).isTrue();
      assertThat(gpuq.output()).contains("owners share an account");

      // A submitter is no admin: it sees the status only.
      HttpApi.Response submitterHealth = gpuq.api(OTHER_TOKEN).get("/actuator/health");
      assertThat(submitterHealth.status()).isEqualTo(200);
      assertThat(submitterHealth.json().has("components")).as(submitterHealth.body()).isFalse();

      HttpApi other = gpuq.api(OTHER_TOKEN);
      String id = other.submit(aJob().shell("echo from $GPUQ_JOB_ID").json());
      await().atMost(JOB).untilAsserted(() -> assertThat(other.state(id)).isEqualTo("SUCCEEDED"));
    }
  }

  @Test
  void a_token_shorter_than_the_minimum_makes_it_refuse_to_start_and_say_how_to_make_one()
      throws Exception {
    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            withoutSwitchingRights, newDataDir("short-token-"), "too-short-tok", START);

    assertThat(exited.exitCode()).as(exited.output()).isNotZero();
    assertThat(exited.output())
        .contains("gpuq.auth.min-token-length")
        .contains("openssl rand -base64 32");
  }

  /**
   * What to put before {@code java} so that gpuq cannot switch accounts: nothing when this JVM
   * cannot either; else {@code setpriv}, dropping CAP_SETUID and CAP_SETGID.
   */
  private static List<String> prefixWithoutSwitchingRights() {
    Privileges self = Privileges.current();
    if (!self.canSwitchAccounts()) {
      return List.of();
    }
    Optional<Path> setpriv =
        List.of("/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv", "/sbin/setpriv").stream()
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst();
    assumeTrue(
        setpriv.isPresent(), "these tests run as a privileged account and need util-linux setpriv");
    if (self.effectiveUid() == 0) {
      // Root's capabilities after exec are its bounding set: take the two out of it, and out of
      // the inheritable set, so that no exec below can bring them back.
      return List.of(
          setpriv.get().toString(),
          "--bounding-set=-setuid,-setgid",
          "--inh-caps=-setuid,-setgid",
          "--");
    }
    // Anyone else keeps only ambient capabilities across exec; they cannot outlive inheritable.
    return List.of(setpriv.get().toString(), "--inh-caps=-setuid,-setgid", "--");
  }

  /** The {@code isolation} health component, whose details admins see. */
  private static JsonNode isolationComponent(JsonNode health) {
    JsonNode components = health.get("components");
    assertThat(components).as("health with details: %s", health).isNotNull();
    assertThat(components.has(ISOLATION_COMPONENT))
        .as("an '%s' component in %s", ISOLATION_COMPONENT, health)
        .isTrue();
    return components.get(ISOLATION_COMPONENT);
  }

  /** The gpuq JVM itself, not only gpuq's own verdict, lacks the rights. */
  private static void assertLacksSwitchingRights(long pid) throws IOException {
    Privileges gpuq = Privileges.parse(status(pid));
    assertThat(gpuq.canSwitchAccounts())
        .as("gpuq (pid %d) must not be able to switch accounts: %s", pid, gpuq)
        .isFalse();
  }

  private static int effectiveUid(long pid) throws IOException {
    return Privileges.parse(status(pid)).effectiveUid();
  }

  private static String status(long pid) throws IOException {
    return Files.readString(Path.of("/proc", Long.toString(pid), "status"));
  }

  private static String[] secondOwner() {
    return new String[] {
      "--gpuq.auth.tokens[1].name=" + OTHER_OWNER, "--gpuq.auth.tokens[1].token=" + OTHER_TOKEN
    };
  }

  private static String[] append(String[] args, String... more) {
    String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
    System.arraycopy(more, 0, all, args.length, more.length);
    return all;
  }

  private static Path newDataDir(String prefix) throws IOException {
    return Files.createTempDirectory(
        Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "shared-" + prefix);
  }
}

package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.OsAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@EnabledIf(value = "io.gpuq.support.OsAccounts#canCreate", disabledReason = OsAccounts.SKIPPED)
@DisplayName("A gpuq killed with SIGKILL re-adopts workers that run as other accounts")
class IsolatedCrashRecoveryTest {

  private static final String ALICE_TOKEN = "crash-alice-0123456789";
  private static final String BOB_TOKEN = "crash-bob-0123456789ab";
  private static final String ALICE = "gpuq-it-alice";
  private static final String BOB = "gpuq-it-bob";
  private static final Duration SOON = Duration.ofMinutes(3);

  @Test
  void each_job_of_two_accounts_ends_exactly_once_with_its_real_exit_code() throws Exception {
    OsAccounts.ensure(ALICE);
    OsAccounts.ensure(BOB);
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-isolated-crash-");
    String[] args = {
      "--gpuq.scheduler.cpu-slots=16",
      "--gpuq.auth.tokens[0].run-as=" + ALICE,
      "--gpuq.auth.tokens[1].name=bob",
      "--gpuq.auth.tokens[1].token=" + BOB_TOKEN,
      "--gpuq.auth.tokens[1].run-as=" + BOB,
    };
    // The jobs end when the test says so, not after fixed sleeps that a slow start could outlast:
    // half while no gpuq runs (the wrapper, gpuq's, records their exit), half under the second.
    Path signals = Files.createTempDirectory(Path.of("/tmp"), "gpuq-isolated-crash-signals-");
    Files.setPosixFilePermissions(signals, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path whileDown = signals.resolve("while-down");
    Path underSecond = signals.resolve("under-second");
    Map<String, Integer> expectedCode = new LinkedHashMap<>();
    Map<String, Integer> expectedUid = new LinkedHashMap<>();
    List<String> endingWhileDown = new ArrayList<>();

    try (GpuqProcess first = GpuqProcess.start(dataDir, ALICE_TOKEN, args)) {
      HttpApi alice = first.api(ALICE_TOKEN);
      HttpApi bob = first.api(BOB_TOKEN);
      for (int i = 0; i < 8; i++) {
        HttpApi owner = i % 2 == 0 ? alice : bob;
        Path release = i % 4 < 2 ? whileDown : underSecond;
        int code = i % 3 == 0 ? 0 : 3;
        String id =
            owner.submit(
                aJob()
                    .shell(
                        "while [ ! -e "
                            + release
                            + " ]; do sleep 0.1; done; echo ran as $(id -u); exit "
                            + code)
                    .json());
        expectedCode.put(id, code);
        expectedUid.put(id, OsAccounts.uid(i % 2 == 0 ? ALICE : BOB));
        if (release.equals(whileDown)) {
          endingWhileDown.add(id);
        }
      }
      await()
          .atMost(SOON)
          .until(() -> expectedCode.keySet().stream().allMatch(id -> hasProcess(alice, id)));
      first.crash();
    }
    await()
        .atMost(SOON)
        .until(
            () ->
                expectedCode.keySet().stream()
                    .allMatch(
                        id -> Files.exists(dataDir.resolve("jobs/" + id + "/attempt-1.pid"))));
    Files.createFile(whileDown);
    await()
        .atMost(SOON)
        .until(
            () ->
                endingWhileDown.stream()
                    .allMatch(
                        id -> Files.exists(dataDir.resolve("jobs/" + id + "/attempt-1.exit"))));

    try (GpuqProcess second = GpuqProcess.start(dataDir, ALICE_TOKEN, args)) {
      HttpApi admin = second.api(ALICE_TOKEN);
      Files.createFile(underSecond);
      await()
          .atMost(SOON)
          .until(
              () ->
                  expectedCode.keySet().stream()
                      .allMatch(
                          id ->
                              List.of("SUCCEEDED", "FAILED")
                                  .contains(admin.job(id).get("state").asString())));
      for (Map.Entry<String, Integer> expected : expectedCode.entrySet()) {
        String id = expected.getKey();
        JsonNode job = admin.job(id);
        assertThat(job.get("attempts").size()).as("attempts of %s", id).isEqualTo(1);
        assertThat(job.get("exitCode").asInt())
            .as("exit code of %s", id)
            .isEqualTo(expected.getValue());
        assertThat(admin.get("/api/v1/jobs/" + id + "/logs").body().lines().toList())
            .as("log of %s", id)
            .containsExactly("ran as " + expectedUid.get(id));
      }
    }
  }

  private static boolean hasProcess(HttpApi api, String id) {
    JsonNode attempts = api.job(id).get("attempts");
    if (attempts.isEmpty()) {
      return false;
    }
    JsonNode pid = attempts.get(attempts.size() - 1).get("pid");
    return pid != null && !pid.isNull();
  }
}

package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.OsAccounts;
import io.gpuq.support.TestCores;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Every attack of the isolation issue, as a job that now fails to attack: a real gpuq running as
 * root, whose owners' jobs run as two real OS accounts created for the test.
 */
@IntegrationTier
@EnabledIf(value = "io.gpuq.support.OsAccounts#canCreate", disabledReason = OsAccounts.SKIPPED)
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "gpuq.auth.tokens[0].name=root",
      "gpuq.auth.tokens[0].token=" + IsolationIntegrationTest.ADMIN_TOKEN,
      "gpuq.auth.tokens[0].role=ADMIN",
      "gpuq.auth.tokens[0].run-as=root",
      "gpuq.auth.tokens[1].name=alice",
      "gpuq.auth.tokens[1].token=" + IsolationIntegrationTest.ALICE_TOKEN,
      "gpuq.auth.tokens[1].run-as=" + IsolationIntegrationTest.ALICE,
      "gpuq.auth.tokens[2].name=bob",
      "gpuq.auth.tokens[2].token=" + IsolationIntegrationTest.BOB_TOKEN,
      "gpuq.auth.tokens[2].run-as=" + IsolationIntegrationTest.BOB,
      "gpuq.scheduler.cpu-slots=8",
      "gpuq.worker.kill-grace=1s",
      "gpuq.gpu.backend=emulated",
      "gpuq.node-name=isolation-node",
      TestCores.CPUS_PROPERTY,
      TestCores.NONE_RESERVED_PROPERTY,
      "gpuq.placement.start-spacing=100ms",
      "gpuq.gpu.poll-interval=250ms",
      "gpuq.guard.tolerance-bytes=64MiB",
    })
@DisplayName("A job runs as its owner's account, away from gpuq's secrets and other owners' jobs")
class IsolationIntegrationTest {

  static final String ADMIN_TOKEN = "isolation-admin-0123456789";
  static final String ALICE_TOKEN = "isolation-alice-0123456789";
  static final String BOB_TOKEN = "isolation-bob-0123456789ab";
  static final String ALICE = "gpuq-it-alice";
  static final String BOB = "gpuq-it-bob";
  static final Duration SOON = Duration.ofMinutes(2);

  private static Path dataDir;

  @Value("${local.server.port}")
  int port;

  HttpApi alice;
  HttpApi bob;
  HttpApi admin;

  /**
   * Runs before the context starts: the accounts must exist when gpuq resolves them, and the data
   * directory sits where any account may pass through, as {@code /var/lib} does in production.
   */
  @DynamicPropertySource
  static void accountsAndDataDir(DynamicPropertyRegistry registry) throws IOException {
    OsAccounts.ensure(ALICE);
    OsAccounts.ensure(BOB);
    dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-isolation-");
    // As an earlier gpuq left it: readable by every account of the machine.
    Path token = dataDir.resolve("admin.token");
    Files.writeString(token, "an-older-generated-admin-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    registry.add("gpuq.data-dir", dataDir::toString);
  }

  @BeforeEach
  void clients() {
    alice = new HttpApi(port, ALICE_TOKEN);
    bob = alice.as(BOB_TOKEN);
    admin = alice.as(ADMIN_TOKEN);
  }

  @Test
  void a_job_runs_as_its_owners_account_while_what_watches_it_stays_gpuqs() {
    String id =
        alice.submit(
            aJob()
                .shell(
                    "echo uid=$(id -u) gid=$(id -g); echo user=$USER logname=$LOGNAME home=$HOME;"
                        + " echo pwd=$(pwd) tmp=$TMPDIR;"
                        + " echo watcher=$(awk '/^Uid:/{print $2}' /proc/$PPID/status)")
                .json());

    JsonNode job = awaitEnd(alice, id);

    Path work = dataDir.resolve("work").resolve(id);
    assertThat(job.get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(logOf(alice, id))
        .containsExactly(
            "uid=" + OsAccounts.uid(ALICE) + " gid=" + OsAccounts.gid(ALICE),
            "user=" + ALICE + " logname=" + ALICE + " home=" + work,
            "pwd=" + work + " tmp=" + work.resolve("tmp"),
            "watcher=0");
  }

  @Test
  void a_job_cannot_read_gpuqs_environment_token_database_or_another_owners_job() {
    String bobs =
        bob.submit(aJob().shell("echo bob-secret > secret.txt; echo bob-log-secret").json());
    assertThat(awaitEnd(bob, bobs).get("state").asString()).isEqualTo("SUCCEEDED");
    List<Path> secrets =
        List.of(
            Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "environ"),
            dataDir.resolve("admin.token"),
            dataDir.resolve("db").resolve("gpuq.mv.db"),
            dataDir.resolve("jobs").resolve(bobs).resolve("output.log"),
            dataDir.resolve("work").resolve(bobs).resolve("secret.txt"));
    StringBuilder script =
        new StringBuilder(
            "ls \"$0\" >/dev/null 2>&1 && echo \"LISTED $0\" || echo \"NOT LISTED $0\";"
                + " for f in \"$@\"; do cat \"$f\" >/dev/null 2>&1 && echo \"READ $f\" ||"
                + " echo \"DENIED $f\"; done");

    String id =
        alice.submit(
            aJob()
                .command(
                    argv(
                        "sh",
                        "-c",
                        script.toString(),
                        dataDir.toString(),
                        secrets.stream().map(Path::toString).toArray(String[]::new)))
                .json());

    awaitEnd(alice, id);
    List<String> expected = new java.util.ArrayList<>(List.of("NOT LISTED " + dataDir));
    secrets.forEach(secret -> expected.add("DENIED " + secret));
    assertThat(logOf(alice, id)).containsExactlyElementsOf(expected);
  }

  @Test
  void a_job_cannot_change_the_wrapper_forge_its_exit_code_or_signal_its_watcher()
      throws IOException {
    Path wrapper = dataDir.resolve("bin").resolve("gpuq-worker-wrapper.sh");

    String id =
        alice.submit(
            aJob()
                .command(
                    "sh",
                    "-c",
                    "echo 'echo pwned' >> \"$0\" 2>/dev/null && echo CHANGED;"
                        + " echo 0 > \"$1/jobs/$GPUQ_JOB_ID/attempt-1.exit\" 2>/dev/null && echo FORGED;"
                        + " kill -KILL $PPID 2>/dev/null && echo SIGNALLED;"
                        + " echo done; exit 3",
                    wrapper.toString(),
                    dataDir.toString())
                .json());

    JsonNode job = awaitEnd(alice, id);
    assertThat(job.get("state").asString()).isEqualTo("FAILED");
    assertThat(job.get("exitCode").asInt()).isEqualTo(3);
    assertThat(logOf(alice, id))
        .contains("done")
        .noneMatch(
            line -> line.equals("CHANGED") || line.equals("FORGED") || line.equals("SIGNALLED"));
    assertThat(Files.readAllBytes(wrapper)).isEqualTo(resource("/gpuq/worker-wrapper.sh"));
  }

  @Test
  void one_owners_job_cannot_signal_another_owners_running_job() {
    String bobs = bob.submit(aJob().command("sleep", "300").json());
    long bobsProgram = programOf(bob, bobs);

    String id =
        alice.submit(
            aJob()
                .command(
                    "sh",
                    "-c",
                    "kill -TERM \"$0\" 2>/dev/null && echo SIGNALLED || echo REFUSED",
                    Long.toString(bobsProgram))
                .json());

    awaitEnd(alice, id);
    assertThat(logOf(alice, id)).containsExactly("REFUSED");
    assertThat(bob.state(bobs)).isEqualTo("RUNNING");
    assertThat(uidOf(bobsProgram)).isEqualTo(OsAccounts.uid(BOB));
    bob.post("/api/v1/jobs/" + bobs + "/cancel");
    assertThat(awaitEnd(bob, bobs).get("state").asString()).isEqualTo("CANCELLED");
  }

  @Nested
  @DisplayName("stops a whole tree of another account, a child that ignores SIGTERM included")
  class Stopping {

    private static final String STUBBORN_CHILD =
        "(trap '' TERM; exec sleep 600) & echo child=$!; wait";

    @Test
    void on_cancel() {
      String id = alice.submit(aJob().shell(STUBBORN_CHILD).json());
      long child = childOf(id);

      alice.post("/api/v1/jobs/" + id + "/cancel");

      assertThat(awaitEnd(alice, id).get("state").asString()).isEqualTo("CANCELLED");
      await().atMost(SOON).until(() -> isGone(child));
    }

    @Test
    void on_timeout() {
      String id = alice.submit(aJob().shell(STUBBORN_CHILD).timeout("PT3S").json());
      long child = childOf(id);

      JsonNode job = awaitEnd(alice, id);

      assertThat(job.get("failureReason").asString()).isEqualTo("TIMEOUT");
      await().atMost(SOON).until(() -> isGone(child));
    }

    @Test
    void when_it_outgrows_its_gpu_budget() {
      String id =
          alice.submit(
              aJob()
                  .command(
                      "/usr/bin/python3",
                      "-c",
                      "import subprocess, sys, time\n"
                          + "child = subprocess.Popen(['sh', '-c', \"trap '' TERM; exec sleep"
                          + " 600\"])\n"
                          + "print('child=%d' % child.pid, flush=True)\n"
                          + "hog = b'x' * (512 << 20)\n"
                          + "time.sleep(600)\n")
                  .gpus(1)
                  .gpuMemory("64MiB")
                  .json());
      long child = childOf(id);

      JsonNode job = awaitEnd(alice, id);

      assertThat(job.get("failureReason").asString()).isEqualTo("OVER_BUDGET");
      await().atMost(SOON).until(() -> isGone(child));
    }

    private long childOf(String id) {
      Pattern line = Pattern.compile("child=(\\d+)");
      long[] pid = new long[1];
      await()
          .atMost(SOON)
          .until(
              () -> {
                Optional<Long> found =
                    logOf(alice, id).stream()
                        .map(line::matcher)
                        .filter(Matcher::matches)
                        .map(m -> Long.parseLong(m.group(1)))
                        .findFirst();
                found.ifPresent(p -> pid[0] = p);
                return found.isPresent();
              });
      assertThat(uidOf(pid[0])).isEqualTo(OsAccounts.uid(ALICE));
      return pid[0];
    }
  }

  @Test
  void every_file_and_directory_gpuq_creates_has_the_mode_and_owner_it_must_have()
      throws IOException {
    String id =
        alice.submit(aJob().shell("echo hello").framework("jax").gpus(1).gpuFraction(0.1).json());
    assertThat(awaitEnd(alice, id).get("state").asString()).isEqualTo("SUCCEEDED");
    int gpuq = 0;
    int aliceUid = OsAccounts.uid(ALICE);
    Path jobs = dataDir.resolve("jobs");
    Path work = dataDir.resolve("work");

    assertMode(dataDir, "rwx--x--x", gpuq);
    assertMode(dataDir.resolve("admin.token"), "rw-------", gpuq);
    assertMode(dataDir.resolve("db"), "rwx------", gpuq);
    try (var files = Files.list(dataDir.resolve("db"))) {
      files.forEach(file -> assertMode(file, "rw-------", gpuq));
    }
    assertMode(dataDir.resolve("bin"), "rwx------", gpuq);
    assertMode(dataDir.resolve("bin").resolve("gpuq-worker-wrapper.sh"), "rwx------", gpuq);
    assertMode(jobs, "rwx------", gpuq);
    assertMode(jobs.resolve(id), "rwx------", gpuq);
    assertMode(jobs.resolve(id).resolve("output.log"), "rw-------", gpuq);
    assertMode(jobs.resolve(id).resolve("attempt-1.exit"), "rw-------", gpuq);
    assertMode(jobs.resolve(id).resolve("attempt-1.pid"), "rw-------", gpuq);
    assertMode(work, "rwx--x--x", gpuq);
    assertMode(work.resolve(id), "rwx------", aliceUid);
    assertMode(work.resolve(id).resolve("tmp"), "rwx------", aliceUid);
    assertMode(dataDir.resolve("jax-cache"), "rwx--x--x", gpuq);
    assertMode(
        dataDir.resolve("jax-cache").resolve(Integer.toString(aliceUid)), "rwx------", aliceUid);
    assertMode(dataDir.resolve("python"), "rwxr-xr-x", gpuq);
    assertMode(dataDir.resolve("python").resolve("sitecustomize.py"), "rw-r--r--", gpuq);
  }

  @Test
  void a_link_a_job_leaves_in_its_own_directory_is_never_followed_with_gpuqs_rights()
      throws IOException {
    Path target = Files.createTempDirectory(Path.of("/tmp"), "gpuq-not-the-jobs-");
    String id =
        alice.submit(
            aJob()
                .command(
                    "sh",
                    "-c",
                    "if [ -e marker ]; then echo second; exit 0; fi; touch marker;"
                        + " rm -rf \"$TMPDIR\"; ln -s \"$0\" \"$TMPDIR\"; exit 1",
                    target.toString())
                .maxAttempts(2)
                .json());

    JsonNode job = awaitEnd(alice, id);

    assertThat(job.get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(job.get("attempt").asInt()).isEqualTo(2);
    assertThat(Files.getAttribute(target, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rwx------");
  }

  @Test
  void a_working_directory_the_user_names_is_entered_as_the_job_and_never_given_to_it()
      throws IOException {
    Path open = Files.createTempDirectory(Path.of("/tmp"), "gpuq-shared-project-");
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));

    String entered = alice.submit(aJob().command("pwd").workingDir(open.toString()).json());

    assertThat(awaitEnd(alice, entered).get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(logOf(alice, entered)).containsExactly(open.toString());
    assertThat(Files.getAttribute(open, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0);
  }

  @Test
  void gpuq_tells_a_job_nothing_about_files_its_account_cannot_see() throws IOException {
    Path closed = Files.createTempDirectory(Path.of("/tmp"), "gpuq-roots-own-");
    Path program = Files.writeString(closed.resolve("tool"), "#!/bin/sh\necho ran\n");
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));

    String closedDir = alice.submit(aJob().command("pwd").workingDir(closed.toString()).json());
    String missingDir =
        alice.submit(aJob().command("pwd").workingDir(closed + "/no-such-dir").json());
    String closedProgram = alice.submit(aJob().command(program.toString()).json());
    String missingProgram = alice.submit(aJob().command(closed + "/no-such-tool").json());

    assertThat(launchErrorOf(closedDir))
        .isEqualTo(
            "working directory "
                + closed
                + " does not exist or is closed to the job's account "
                + ALICE);
    assertThat(launchErrorOf(missingDir))
        .isEqualTo(
            "working directory "
                + closed
                + "/no-such-dir does not exist or is closed to the"
                + " job's account "
                + ALICE);
    assertThat(launchErrorOf(closedProgram))
        .isEqualTo(
            "program \""
                + program
                + "\" does not exist or is not executable by the job's account "
                + ALICE);
    assertThat(launchErrorOf(missingProgram))
        .isEqualTo(
            "program \""
                + closed
                + "/no-such-tool\" does not exist or is not executable by the"
                + " job's account "
                + ALICE);
    assertThat(Files.getAttribute(closed, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0);
  }

  @Test
  void a_loader_variable_of_the_job_reaches_its_program_and_never_gpuqs_processes()
      throws Exception {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-preload-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path source =
        Files.writeString(
            dir.resolve("tell.c"),
            "#include <stdio.h>\n#include <unistd.h>\n"
                + "__attribute__((constructor)) static void tell(void) {\n"
                + "  fprintf(stderr, \"preloaded as uid %d\\n\", (int) getuid());\n}\n");
    Path library = dir.resolve("tell.so");
    Process gcc =
        new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", library.toString(), source.toString())
            .inheritIO()
            .start();
    assertThat(gcc.waitFor()).isZero();
    Files.setPosixFilePermissions(library, PosixFilePermissions.fromString("rwxr-xr-x"));

    String id =
        alice.submit(
            aJob()
                .command("/bin/echo", "program ran")
                .env("LD_PRELOAD", library.toString())
                .env("GCONV_PATH", "/nonexistent/gconv")
                .json());

    assertThat(awaitEnd(alice, id).get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(logOf(alice, id))
        .containsExactly("preloaded as uid " + OsAccounts.uid(ALICE), "program ran");
  }

  @Test
  void health_tells_admins_that_jobs_run_as_their_owners_accounts() {
    JsonNode health = admin.get("/actuator/health").json();

    JsonNode details = health.get("components").get("isolation").get("details");
    assertThat(details.get("isolation").asString()).isEqualTo("per-account");
    assertThat(details.get("jobAccounts").get("alice").asString()).startsWith(ALICE + " (");
    assertThat(new HttpApi(port, null).get("/actuator/health").json().has("components")).isFalse();
  }

  // --- helpers -----------------------------------------------------------------------------

  private String launchErrorOf(String id) {
    JsonNode job = awaitEnd(alice, id);
    assertThat(job.get("failureReason").asString()).isEqualTo("LAUNCH_ERROR");
    return job.get("failureMessage").asString();
  }

  @Test
  void a_job_reports_metrics_as_its_owners_account_and_gpuq_reads_them() {
    String id =
        alice.submit(
            aJob()
                .shell(
                    "echo '{\"step\": 1, \"loss\": 0.5}' >> \"$GPUQ_METRICS_FILE\";"
                        + " stat -c %U \"$GPUQ_METRICS_FILE\"")
                .json());

    assertThat(awaitEnd(alice, id).get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(logOf(alice, id)).containsExactly(ALICE);
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(alice.get("/api/v1/jobs/" + id + "/metrics").json().get("series"))
                    .singleElement()
                    .satisfies(
                        p -> assertThat(p.get("values").get("loss").asDouble()).isEqualTo(0.5)));
  }

  @Test
  void a_metrics_file_replaced_by_a_link_to_gpuqs_token_or_a_fifo_is_never_read() {
    String link =
        alice.submit(
            aJob()
                .shell("ln -s " + dataDir.resolve("admin.token") + " \"$GPUQ_METRICS_FILE\"")
                .json());
    String fifo = alice.submit(aJob().shell("mkfifo \"$GPUQ_METRICS_FILE\"").json());
    awaitEnd(alice, link);
    awaitEnd(alice, fifo);
    // Read after both: a poll blocked on the FIFO would never get to it.
    String after =
        alice.submit(aJob().shell("echo '{\"loss\": 1}' >> \"$GPUQ_METRICS_FILE\"").json());
    awaitEnd(alice, after);

    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(alice.get("/api/v1/jobs/" + after + "/metrics").json().get("series"))
                    .hasSize(1));
    assertThat(alice.get("/api/v1/jobs/" + link + "/metrics").json().get("series")).isEmpty();
    assertThat(alice.get("/api/v1/jobs/" + fifo + "/metrics").json().get("series")).isEmpty();
    assertThat(alice.job(link).get("metrics").isNull()).isTrue();
  }

  @Test
  @DisplayName(
      "a warm start (issue 36) forks from a zygote of the owner's account, into the trial's"
          + " cgroups")
  void a_warm_trial_forks_from_its_accounts_zygote_into_its_cgroup() throws IOException {
    String code =
        "import os\n"
            + "zygote = [l.split()[1] for l in open('/proc/%d/status' % os.getppid())"
            + " if l.startswith('Uid:')][0]\n"
            + "print('uid', os.getuid(), 'zygote', zygote, flush=True)\n"
            + "print(open('/proc/self/cgroup').read(), flush=True)\n";
    String id =
        alice.submit(
            aJob()
                .command("python3", "-c", code)
                .cpus(1)
                .memory("256MiB")
                .field("preload", List.of("json"))
                .json());

    JsonNode job = awaitEnd(alice, id);

    List<String> log = logOf(alice, id);
    assertThat(job.get("state").asString()).as("%s", log).isEqualTo("SUCCEEDED");
    JsonNode boundBy = job.at("/attempts/0/cores/boundBy");
    boolean inCgroups = !boundBy.isMissingNode() && "cgroup".equals(boundBy.asString());
    if (inCgroups
        && io.gpuq.cgroup.CgroupSupport.detect().version() == io.gpuq.cgroup.CgroupVersion.V2) {
      // v2 asks for the common ancestor's cgroup.procs too, which stays gpuq's: a cold start.
      assertThat(log).anyMatch(l -> l.contains("warm start unavailable"));
      return;
    }
    assertThat(log).as("a fork, not a cold start").noneMatch(l -> l.contains("warm start"));
    int uid = OsAccounts.ensure(ALICE);
    assertThat(log).contains("uid " + uid + " zygote " + uid);
    if (inCgroups) {
      assertThat(log.stream().filter(l -> l.contains(":memory:")))
          .singleElement()
          .asString()
          .endsWith("/" + id + "@1");
    }
  }

  private static JsonNode awaitEnd(HttpApi api, String id) {
    await()
        .atMost(SOON)
        .until(() -> List.of("SUCCEEDED", "FAILED", "CANCELLED").contains(api.state(id)));
    return api.job(id);
  }

  private static List<String> logOf(HttpApi api, String id) {
    return api.get("/api/v1/jobs/" + id + "/logs").body().lines().toList();
  }

  /** The user's program under the job's root process (the wrapper, which is gpuq's). */
  private static long programOf(HttpApi api, String id) {
    long[] pid = new long[1];
    await()
        .atMost(SOON)
        .until(
            () -> {
              JsonNode attempts = api.job(id).get("attempts");
              JsonNode last = attempts.get(attempts.size() - 1);
              if (last.get("pid") == null || last.get("pid").isNull()) {
                return false;
              }
              // The wrapper has two children: the job's program, and the log keeper, which is
              // gpuq's like the wrapper.
              Optional<ProcessHandle> child =
                  ProcessHandle.of(last.get("pid").asLong())
                      .flatMap(root -> root.children().filter(c -> uidOf(c.pid()) > 0).findFirst());
              child.ifPresent(c -> pid[0] = c.pid());
              return child.isPresent();
            });
    return pid[0];
  }

  private static int uidOf(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
          .filter(line -> line.startsWith("Uid:"))
          .map(line -> Integer.parseInt(line.split("\\s+")[1]))
          .findFirst()
          .orElse(-1);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Gone, or a zombie waiting for whoever adopted it: either way it runs no more. */
  private static boolean isGone(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return true;
    }
  }

  private static void assertMode(Path path, String mode, int owner) {
    try {
      assertThat(
              PosixFilePermissions.toString(
                  Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)))
          .as("mode of %s", path)
          .isEqualTo(mode);
      assertThat(Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS))
          .as("owner of %s", path)
          .isEqualTo(owner);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = IsolationIntegrationTest.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }

  private static String[] argv(
      String first, String second, String third, String fourth, String... rest) {
    String[] all = new String[4 + rest.length];
    all[0] = first;
    all[1] = second;
    all[2] = third;
    all[3] = fourth;
    System.arraycopy(rest, 0, all, 4, rest.length);
    return all;
  }
}

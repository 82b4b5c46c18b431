package io.gpuq.warm;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.JobJson;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Warm starts for real (issue 36): gpuq's own wrapper, a real zygote, real forks, through the API.
 * Where this machine runs workers in cgroups (root, v1 here), each fork is checked to be in its
 * trial's groups.
 */
@DisplayName("Warm starts (issue 36)")
class WarmStartsIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(45);

  /** Appends its pid to imports.count beside it each time it is imported. */
  private static final String COUNTED_MODULE =
      "import os\n"
          + "with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),"
          + " 'imports.count'), 'a') as f:\n"
          + "    f.write('%d\\n' % os.getpid())\n"
          + "mark = None\n";

  /** Says what it sees, marks the module (which no other trial may see), exits with $CODE. */
  private static final String TRIAL =
      "import json, os, sys, countme\n"
          + "info = {'argv': sys.argv, 'pid': os.getpid(), 'ppid': os.getppid(),"
          + " 'cwd': os.getcwd(), 'trial': os.environ.get('TRIAL'),"
          + " 'job': os.environ.get('GPUQ_JOB_ID'), 'main': __name__,"
          + " 'cores': len(os.sched_getaffinity(0)), 'mark': countme.mark,"
          + " 'cgroup': open('/proc/self/cgroup').read()}\n"
          + "countme.mark = os.environ.get('TRIAL')\n"
          + "print('INFO ' + json.dumps(info), flush=True)\n"
          + "if __name__ == '__main__':\n"
          + "    sys.exit(int(os.environ.get('CODE', '0')))\n";

  @Autowired WarmStarts warmStarts;
  @Autowired io.gpuq.launch.Workers workers;

  private Path dir;

  @BeforeEach
  void scripts() throws IOException {
    dir = Files.createTempDirectory(dataDir(), "warm-");
    Files.setPosixFilePermissions(
        dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(dir.resolve("countme.py"), COUNTED_MODULE);
    Files.writeString(dir.resolve("trial.py"), TRIAL);
  }

  /** The zygotes exit after their idle time; the tests' own go at once (gracefully). */
  @AfterAll
  static void retireZygotes() throws IOException {
    Path warm = dataDir().resolve("warm");
    if (!Files.isDirectory(warm)) {
      return;
    }
    try (DirectoryStream<Path> keys = Files.newDirectoryStream(warm)) {
      for (Path key : keys) {
        Path pid = key.resolve("pid");
        if (Files.isRegularFile(pid)) {
          ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
              .filter(h -> h.info().commandLine().orElse("").contains(WarmStarts.ZYGOTE))
              .ifPresent(ProcessHandle::destroy);
        }
      }
    }
  }

  @Test
  @DisplayName(
      "trials are separate forks of one zygote that imported once, each with its own argv, env,"
          + " cwd, module state and exit code")
  void forks_of_one_zygote() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      ids.add(
          alice.submit(
              warmJob("arg-" + i, "countme")
                  .env("TRIAL", "t" + i)
                  .env("CODE", Integer.toString(i - 1))
                  .json()));
    }
    List<JsonNode> infos = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      awaitEnd(alice, id);
      JsonNode job = alice.job(id);
      assertThat(job.get("preload").get(0).asString()).isEqualTo("countme");
      assertThat(job.get("state").asString()).isEqualTo(i == 0 ? "SUCCEEDED" : "FAILED");
      assertThat(job.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(i);
      JsonNode info = info(alice, id);
      assertThat(info.get("trial").asString()).isEqualTo("t" + (i + 1));
      assertThat(info.get("job").asString()).isEqualTo(id);
      assertThat(info.get("main").asString()).isEqualTo("__main__");
      assertThat(info.get("argv").get(0).asString()).isEqualTo("trial.py");
      assertThat(info.get("argv").get(1).asString()).isEqualTo("arg-" + (i + 1));
      assertThat(info.get("cwd").asString()).isEqualTo(dir.toString());
      assertThat(info.get("mark").isNull()).as("no other trial's module state").isTrue();
      assertThat(log(alice, id)).doesNotContain("warm start unavailable");
      infos.add(info);
    }
    assertThat(Files.readAllLines(dir.resolve("imports.count"))).hasSize(1);
    Set<Long> parents = new HashSet<>();
    Set<Long> pids = new HashSet<>();
    for (JsonNode info : infos) {
      parents.add(info.get("ppid").asLong());
      pids.add(info.get("pid").asLong());
    }
    assertThat(parents).as("one zygote").hasSize(1);
    assertThat(pids).as("a process each").hasSize(3);
    long zygote = Long.parseLong(Files.readAllLines(dir.resolve("imports.count")).get(0).trim());
    assertThat(parents).containsExactly(zygote);
  }

  @Test
  @DisplayName(
      "a sweep's template preload: its trials fork from one zygote, retired once the sweep is"
          + " done")
  void a_sweeps_trials() throws Exception {
    String body =
        """
        {"name": "warm", "command": ["python3", "trial.py", "{x}"], "workingDir": "%s",
         "resources": {"gpus": 0}, "preload": ["countme"], "method": "grid",
         "parameters": {"x": {"values": [1, 2, 3]}}}
        """
            .formatted(dir);
    HttpApi.Response created = alice.post("/api/v1/sweeps", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    await()
        .atMost(SOON)
        .until(
            () -> alice.get("/api/v1/sweeps/" + sweep).json().get("state").asString(),
            "DONE"::equals);
    JsonNode trials = alice.get("/api/v1/sweeps/" + sweep + "/trials").json();
    Set<Long> parents = new HashSet<>();
    for (JsonNode trial : trials.get("items")) {
      String id = trial.get("jobId").asString();
      assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
      parents.add(info(alice, id).get("ppid").asLong());
    }
    assertThat(parents).hasSize(1);
    assertThat(Files.readAllLines(dir.resolve("imports.count"))).hasSize(1);
    long zygote = parents.iterator().next();
    await().atMost(SOON).until(() -> ProcessHandle.of(zygote).map(h -> !h.isAlive()).orElse(true));
  }

  @Test
  @DisplayName("a fork runs in its trial's own cgroups, bound to its cores")
  void in_the_trials_cgroup() throws Exception {
    String id = alice.submit(warmJob("x", "countme").cpus(1).memory("256MiB").json());
    awaitEnd(alice, id);
    assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
    JsonNode info = info(alice, id);
    JsonNode bound = alice.job(id).at("/attempts/0/cores/boundBy");
    String boundBy = bound.isMissingNode() || bound.isNull() ? "" : bound.asString();
    assumeTrue(!boundBy.isEmpty(), "workers are not bound to cores on this machine");
    assertThat(info.get("cores").asInt()).isEqualTo(1);
    String cgroups = info.get("cgroup").asString();
    assumeTrue(boundBy.equals("cgroup"), "workers are not in cgroups on this machine");
    assertThat(cgroups.lines().filter(l -> l.contains(":memory:")))
        .singleElement()
        .asString()
        .endsWith("/" + id + "@1");
    assertThat(cgroups.lines().filter(l -> l.contains(":cpuset:")))
        .singleElement()
        .asString()
        .endsWith("/" + id + "@1");
  }

  @Test
  @DisplayName(
      "the zygote runs in a cgroup of its own, capped at its first trial's memory, and what it"
          + " holds counts towards its owner on the node")
  void the_zygotes_own_cgroup() throws Exception {
    String code = "import time, countme\nprint('ready', flush=True)\ntime.sleep(60)\n";
    String id = alice.submit(warmCode(code, "countme").cpus(1).memory("256MiB").json());
    await().atMost(SOON).until(() -> log(alice, id).contains("ready"));
    long zygote = Long.parseLong(Files.readAllLines(dir.resolve("imports.count")).get(0).trim());
    String cgroups = Files.readString(Path.of("/proc", Long.toString(zygote), "cgroup"));
    String memoryLine =
        cgroups
            .lines()
            .filter(l -> l.contains(":memory:") || l.startsWith("0::"))
            .findFirst()
            .orElse("");
    boolean confined = warmStarts.groups().confines();
    try {
      assumeTrue(confined, "workers are not in cgroups on this machine");
      String group = memoryLine.substring(memoryLine.lastIndexOf('/') + 1);
      assertThat(group).startsWith("warm-");
      String key = group.substring("warm-".length());
      var zygoteGroup = warmStarts.groups().groupOf(key).orElseThrow();
      assertThat(zygoteGroup.processes()).contains(zygote);
      assertThat(zygoteGroup.memoryLimit()).hasValue(256L * 1024 * 1024);
      String owner = alice.job(id).get("owner").asString();
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> {
                var held = workers.heldBesideWorkers();
                assertThat(held).containsKey(owner);
                assertThat(held.get(owner).memoryBytes()).isPositive();
                assertThat(workers.hostHeld().memoryBytes())
                    .isGreaterThanOrEqualTo(256L * 1024 * 1024 + held.get(owner).memoryBytes());
                // The owners' report counts it as theirs too: the trial's memory and more.
                JsonNode row = ownersRow(alice, owner);
                assertThat(row.path("memoryBytes").asLong()).isGreaterThan(256L * 1024 * 1024);
              });
    } finally {
      alice.post("/api/v1/jobs/" + id + "/cancel");
      awaitEnd(alice, id);
    }
    // Retired (its idle time is long): its group goes with it.
    ProcessHandle.of(zygote).ifPresent(ProcessHandle::destroy);
    await().atMost(SOON).until(() -> ProcessHandle.of(zygote).map(h -> !h.isAlive()).orElse(true));
    String key = memoryLine.substring(memoryLine.lastIndexOf('/') + 1).substring("warm-".length());
    warmStarts.groups().removeEmpty();
    assertThat(warmStarts.groups().groupOf(key)).isEmpty();
  }

  @Test
  @DisplayName(
      "a warm trial that imported many modules its zygote had not names them in its log, to"
          + " preload")
  void names_what_to_preload() {
    String code = "import countme, http.server, xml.dom.minidom\nprint('done', flush=True)\n";
    String id = alice.submit(warmCode(code, "countme").json());
    awaitEnd(alice, id);
    assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
    assertThat(log(alice, id))
        .doesNotContain("warm start unavailable")
        .contains("done")
        .contains("gpuq: this warm trial imported")
        .contains("http");
  }

  @Test
  @DisplayName("a cancel's SIGTERM reaches the forked trial, which may save its work")
  void cancel_reaches_the_trial() throws Exception {
    Path saved = dir.resolve("saved");
    String code =
        "import signal, sys, time, countme\n"
            + "def stop(*_):\n"
            + "    open('"
            + saved
            + "', 'w').write('saved')\n"
            + "    sys.exit(0)\n"
            + "signal.signal(signal.SIGTERM, stop)\n"
            + "print('ready', flush=True)\n"
            + "time.sleep(60)\n";
    String id = alice.submit(warmCode(code, "countme").json());
    await().atMost(SOON).until(() -> log(alice, id).contains("ready"));

    assertThat(alice.post("/api/v1/jobs/" + id + "/cancel").status()).isEqualTo(200);

    awaitEnd(alice, id);
    assertThat(alice.state(id)).isEqualTo("CANCELLED");
    assertThat(saved).hasContent("saved");
  }

  @Test
  @DisplayName("a warm trial over its host memory cap is killed and ends HOST_OUT_OF_MEMORY")
  void host_oom() {
    String code =
        "import countme\nprint('pid', flush=True)\nb = bytearray(600 * 1024 * 1024)\n"
            + "print('survived', flush=True)\n";
    String id = alice.submit(warmCode(code, "countme").cpus(1).memory("128MiB").json());
    awaitEnd(alice, id);
    JsonNode job = alice.job(id);
    assumeTrue(
        warmStarts.groups().confines(), "workers are not in cgroups: no host memory cap here");
    assertThat(log(alice, id)).doesNotContain("warm start unavailable").doesNotContain("survived");
    assertThat(job.get("state").asString()).isEqualTo("FAILED");
    assertThat(job.get("failureReason").asString())
        .as(job.toString())
        .isEqualTo("HOST_OUT_OF_MEMORY");
  }

  @Test
  @DisplayName("a warm trial past its timeout is stopped, its fork gone, and ends TIMEOUT")
  void timeout() {
    String code =
        "import os, time, countme\nprint('PID', os.getpid(), flush=True)\ntime.sleep(60)\n";
    String id = alice.submit(warmCode(code, "countme").timeout("PT3S").json());
    await().atMost(SOON).until(() -> log(alice, id).contains("PID "));
    long fork = pidIn(log(alice, id));
    awaitEnd(alice, id);
    JsonNode job = alice.job(id);
    assertThat(log(alice, id)).doesNotContain("warm start unavailable");
    assertThat(job.get("failureReason").asString()).isEqualTo("TIMEOUT");
    await().atMost(SOON).until(() -> ProcessHandle.of(fork).map(h -> !h.isAlive()).orElse(true));
  }

  @Test
  @DisplayName("a running warm trial pruned by its sweep's driver is stopped, its fork gone")
  void pruned() throws Exception {
    String code =
        "import os, sys, time, countme\nprint('PID', os.getpid(), sys.argv[1], flush=True)\n"
            + "time.sleep(60)\n";
    java.util.Map<String, Object> sweep = new java.util.LinkedHashMap<>();
    sweep.put("name", "warm-prune");
    sweep.put("command", List.of("python3", "-c", code, "{s}"));
    sweep.put("workingDir", dir.toString());
    sweep.put("resources", java.util.Map.of("gpus", 0));
    sweep.put("preload", List.of("countme"));
    sweep.put("method", "external");
    sweep.put("parameters", java.util.Map.of("s", java.util.Map.of("values", List.of(1, 2))));
    HttpApi.Response created = alice.post("/api/v1/sweeps", HttpApi.JSON.writeValueAsString(sweep));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweepId = created.json().get("id").asString();
    String trial =
        alice
            .post("/api/v1/sweeps/" + sweepId + "/trials", "{\"parameters\": {\"s\": 1}}")
            .json()
            .get("id")
            .asString();
    await().atMost(SOON).until(() -> log(alice, trial).contains("PID "));
    long fork = pidIn(log(alice, trial));

    HttpApi.Response pruned =
        alice.post(
            "/api/v1/sweeps/" + sweepId + "/trials/" + trial + "/prune",
            "{\"reason\": \"pruned at step 3\"}");

    assertThat(pruned.status()).as(pruned.body()).isEqualTo(200);
    await().atMost(SOON).until(() -> ProcessHandle.of(fork).map(h -> !h.isAlive()).orElse(true));
    await()
        .atMost(SOON)
        .untilAsserted(() -> assertThat(alice.job(trial).get("finishedAt").isNull()).isFalse());
    assertThat(alice.state(trial)).isEqualTo("PRUNED");
    assertThat(log(alice, trial)).doesNotContain("warm start unavailable");
    alice.post("/api/v1/sweeps/" + sweepId + "/cancel");
  }

  @Test
  @DisplayName(
      "a warm trial ends as Python ends: its threads joined, its atexit handlers run, the files it"
          + " left open flushed, its exit code kept")
  void ends_as_python_does() throws Exception {
    String code =
        String.join(
            "\n",
            "import atexit, countme, os, sys, threading, time",
            "d = os.environ['OUT']",
            "left_open = open(os.path.join(d, 'left-open.txt'), 'w')",
            "left_open.write('buffered, never closed')",
            "def late():",
            "    time.sleep(0.5)",
            "    with open(os.path.join(d, 'thread.txt'), 'w') as f:",
            "        f.write('joined')",
            "threading.Thread(target=late).start()",
            "atexit.register(lambda: open(os.path.join(d, 'atexit.txt'), 'w').write('ran'))",
            "print('unflushed line', end='')",
            "sys.exit(3)",
            "");
    String id = alice.submit(warmCode(code, "countme").env("OUT", dir.toString()).json());

    awaitEnd(alice, id);
    JsonNode job = alice.job(id);
    assertThat(job.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(3);
    assertThat(log(alice, id)).contains("unflushed line").doesNotContain("warm start unavailable");
    assertThat(Files.readString(dir.resolve("thread.txt"))).isEqualTo("joined");
    assertThat(Files.readString(dir.resolve("atexit.txt"))).isEqualTo("ran");
    assertThat(Files.readString(dir.resolve("left-open.txt"))).isEqualTo("buffered, never closed");
  }

  @Test
  @DisplayName(
      "what the zygote's imports made is the zygote's: a trial's end does not clean it up from"
          + " under the next trial")
  void the_zygotes_finalizers_stay_the_zygotes() throws Exception {
    Files.writeString(
        dir.resolve("maketmp.py"),
        "import tempfile\nholder = tempfile.TemporaryDirectory(prefix='zygote-')\n");
    String trial =
        "import maketmp, os\nprint('TMP', maketmp.holder.name, os.path.isdir(maketmp.holder.name))\n";
    String first = alice.submit(warmCode(trial, "maketmp").json());
    awaitEnd(alice, first);
    String second = alice.submit(warmCode(trial, "maketmp").json());
    awaitEnd(alice, second);

    String line =
        log(alice, second).lines().filter(l -> l.startsWith("TMP ")).findFirst().orElseThrow();
    assertThat(line).as("the second trial still finds the zygote's directory").endsWith(" True");
    assertThat(alice.state(first)).isEqualTo("SUCCEEDED");
    assertThat(log(alice, first)).doesNotContain("warm start unavailable");
    assertThat(Path.of(line.split(" ")[1])).isDirectory();
  }

  @Test
  @DisplayName("a trial killed by SIGKILL ends with 137, as a cold one")
  void sigkill_is_137() {
    String id =
        alice.submit(warmCode("import os, countme\nos.kill(os.getpid(), 9)\n", "countme").json());
    awaitEnd(alice, id);
    JsonNode job = alice.job(id);
    assertThat(job.get("state").asString()).isEqualTo("FAILED");
    assertThat(job.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(137);
  }

  @Test
  @DisplayName("a preload that fails to import gives cold trials that succeed, saying why")
  void falls_back_to_cold() {
    String id =
        alice.submit(
            warmCode("print('ran cold')\n", "countme", "no_such_module_for_gpuq_tests").json());
    awaitEnd(alice, id);
    assertThat(alice.state(id)).isEqualTo("SUCCEEDED");
    String log = log(alice, id);
    assertThat(log).contains("ran cold");
    assertThat(log).contains("warm start unavailable").contains("no_such_module_for_gpuq_tests");
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              JsonNode fallbacks =
                  alice.get("/api/v1/jobs/" + id + "/warm-starts").json().get("fallbacks");
              assertThat(fallbacks).hasSize(1);
              assertThat(fallbacks.get(0).get("reason").asString())
                  .contains("no_such_module_for_gpuq_tests");
            });
    assertThat(bob.get("/api/v1/jobs/" + id + "/warm-starts").status()).isIn(403, 404);
  }

  @Test
  @DisplayName("a sweep whose preload fails to import runs its trials cold, and says which and why")
  void a_sweeps_fallback_is_on_the_sweep() throws Exception {
    String body =
        """
        {"name": "warm-fails", "command": ["python3", "trial.py", "{x}"], "workingDir": "%s",
         "resources": {"gpus": 0}, "preload": ["countme", "no_such_module_for_gpuq_tests"],
         "method": "grid", "parameters": {"x": {"values": [1, 2]}}}
        """
            .formatted(dir);
    HttpApi.Response created = alice.post("/api/v1/sweeps", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    await()
        .atMost(SOON)
        .until(
            () -> alice.get("/api/v1/sweeps/" + sweep).json().get("state").asString(),
            "DONE"::equals);
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              JsonNode fallbacks =
                  alice.get("/api/v1/sweeps/" + sweep + "/warm-starts").json().get("fallbacks");
              assertThat(fallbacks).hasSize(2);
              for (JsonNode fallback : fallbacks) {
                assertThat(fallback.get("reason").asString())
                    .contains("the zygote could not start")
                    .contains("no_such_module_for_gpuq_tests");
                assertThat(alice.state(fallback.get("jobId").asString())).isEqualTo("SUCCEEDED");
              }
            });
  }

  @Test
  @DisplayName("two owners never share a zygote")
  void one_zygote_per_owner() throws Exception {
    String mine = alice.submit(warmJob("x", "countme").json());
    String theirs = bob.submit(warmJob("x", "countme").json());
    awaitEnd(alice, mine);
    awaitEnd(bob, theirs);
    long aliceZygote = info(alice, mine).get("ppid").asLong();
    long bobZygote = info(bob, theirs).get("ppid").asLong();
    assertThat(aliceZygote).isNotEqualTo(bobZygote);
    assertThat(Files.readAllLines(dir.resolve("imports.count"))).hasSize(2);
  }

  @Test
  @DisplayName("with real PyTorch, a fork's torch.get_num_threads() follows its trial's cores")
  void torch_threads_follow_cores() throws Exception {
    assumeTrue(hasTorch(), "PyTorch is not installed");
    String code = "import torch\nprint('THREADS', torch.get_num_threads(), flush=True)\n";
    String id = alice.submit(warmCode(code, "torch").cpus(1).json());
    awaitEnd(alice, id);
    assertThat(alice.state(id)).as(log(alice, id)).isEqualTo("SUCCEEDED");
    assertThat(log(alice, id)).contains("THREADS 1").doesNotContain("warm start unavailable");
  }

  @Test
  @DisplayName("preload on a command that is not a Python interpreter is a 400 naming the field")
  void refused_for_other_commands() {
    HttpApi.Response response =
        alice.post("/api/v1/jobs", aJob().shell("true").field("preload", List.of("torch")).json());
    assertThat(response.status()).isEqualTo(400);
    assertThat(response.body()).contains("\"preload\"");
  }

  private JobJson warmJob(String argument, String... preload) {
    return aJob()
        .command("python3", "trial.py", argument)
        .workingDir(dir.toString())
        .field("preload", List.of(preload));
  }

  private JobJson warmCode(String code, String... preload) {
    return aJob()
        .command("python3", "-c", code)
        .workingDir(dir.toString())
        .field("preload", List.of(preload));
  }

  private static void awaitEnd(HttpApi api, String id) {
    await()
        .atMost(SOON)
        .until(() -> Set.of("SUCCEEDED", "FAILED", "CANCELLED").contains(api.state(id)));
  }

  private static String log(HttpApi api, String id) {
    return api.get("/api/v1/jobs/" + id + "/logs").body();
  }

  private static JsonNode info(HttpApi api, String id) {
    String line =
        log(api, id)
            .lines()
            .filter(l -> l.startsWith("INFO "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no INFO line in " + log(api, id)));
    return HttpApi.JSON.readTree(line.substring(5));
  }

  /** The pid a trial printed as {@code PID <pid>}. */
  private static long pidIn(String log) {
    return log.lines()
        .filter(l -> l.startsWith("PID "))
        .map(l -> Long.parseLong(l.split(" ")[1]))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no PID line in " + log));
  }

  private static boolean hasTorch() throws Exception {
    Process p =
        new ProcessBuilder("python3", "-c", "import torch")
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return false;
    }
    return p.exitValue() == 0;
  }

  /** The owner's row of {@code GET /api/v1/owners}, as this client sees it. */
  private static JsonNode ownersRow(HttpApi client, String owner) {
    for (JsonNode row : client.get("/api/v1/owners").json().path("owners")) {
      if (row.path("owner").asString().equals(owner)) {
        return row;
      }
    }
    throw new AssertionError("no row for " + owner + " in GET /api/v1/owners");
  }
}

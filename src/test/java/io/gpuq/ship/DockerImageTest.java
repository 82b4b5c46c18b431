package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile, read (no Docker engine here: the image itself is built and run by hand, see
 * docs/deploy.md).
 */
@DisplayName("Dockerfile")
class DockerImageTest {

  static final String BUILD_COMMAND = "./mvnw -B package -DskipTests";

  private final Dockerfile dockerfile = Dockerfile.parse(Repo.read("Dockerfile"));
  private final Dockerfile.Stage build = dockerfile.stage("eclipse-temurin:17-jdk");
  private final Dockerfile.Stage runtime = dockerfile.last();

  @Test
  void buildsTheJarWithTheSameMavenCommandAsCi() {
    String mavenRun =
        build.arguments("RUN").stream()
            .filter(run -> run.contains("./mvnw"))
            .findFirst()
            .orElseThrow();
    Matcher command = Pattern.compile("\\./mvnw [^&;|]*[^&;| ]").matcher(mavenRun);
    assertThat(command.find()).isTrue();

    Path ci = Repo.path(".ci/run");
    if (Files.isRegularFile(ci)) {
      assertThat(Repo.read(".ci/run")).contains(command.group());
    } else {
      assertThat(command.group()).isEqualTo(BUILD_COMMAND);
    }
  }

  @Test
  void runsOnAJava17RuntimeAsRootSoThatItCanRunJobsAsOtherAccounts() {
    assertThat(runtime.from()).isEqualTo("eclipse-temurin:17-jre");
    List<String> users = runtime.arguments("USER");
    String user = users.isEmpty() ? "root" : users.get(users.size() - 1);
    // A non-root USER could not use the capabilities that --cap-add grants.
    assertThat(user.split(":")[0]).isIn("root", "0");
  }

  @Test
  void createsAnUnprivilegedAccountForJobsAndRunsThemAsIt() {
    String runs = String.join(" ", runtime.arguments("RUN"));
    String env = String.join(" ", runtime.arguments("ENV"));

    assertThat(runs)
        .contains("groupadd --gid " + Privileges.JOB_UID + " " + Privileges.JOB_ACCOUNT);
    Matcher useradd = Pattern.compile("useradd ([^&;|]*)").matcher(runs);
    assertThat(useradd.find()).isTrue();
    assertThat(useradd.group(1).strip())
        .endsWith(" " + Privileges.JOB_ACCOUNT)
        .contains("--uid " + Privileges.JOB_UID)
        .contains("--gid " + Privileges.JOB_ACCOUNT)
        .contains("--home-dir /home/" + Privileges.JOB_ACCOUNT)
        .contains("--create-home")
        .contains("--shell /usr/sbin/nologin");
    assertThat(runs).contains("chmod 0700 /home/" + Privileges.JOB_ACCOUNT);
    assertThat(env).contains("GPUQ_WORKER_RUN_AS=" + Privileges.JOB_ACCOUNT);
  }

  @Test
  @DisplayName(
      "the docker run commands (Dockerfile, docs/deploy.md) keep only the five capabilities")
  void dockerRunCommandsDropEveryCapabilityButTheFiveGpuqNeeds() {
    List<String> commands = new ArrayList<>(dockerRunCommands(Repo.read("Dockerfile")));
    commands.addAll(dockerRunCommands(Repo.read("docs/deploy.md")));

    assertThat(commands).hasSizeGreaterThanOrEqualTo(2);
    for (String command : commands) {
      assertThat(flagValues(command, "--cap-drop")).as(command).containsExactly("ALL");
      assertThat(flagValues(command, "--cap-add"))
          .as(command)
          .containsExactlyInAnyOrderElementsOf(Privileges.CAPABILITIES);
    }
  }

  @Test
  void runsGpuqsJvmWithTheSameOptionsAsTheReadmeCommandAndTheBenchmark() {
    String env = String.join(" ", runtime.arguments("ENV"));
    String options = "-XX:TieredStopAtLevel=1";
    assertThat(env).contains("JDK_JAVA_OPTIONS=\"" + options + "\"");
    assertThat(Repo.read("pom.xml")).contains("<jvmArguments>" + options + " ");
    assertThat(io.gpuq.bench.GpuqServer.DEFAULT_JVM_OPTIONS).containsExactly(options);
  }

  @Test
  void keepsTheDataDirInAVolumeThatGpuqIsPointedAt() {
    assertThat(String.join(" ", runtime.arguments("VOLUME"))).contains("/var/lib/gpuq");
    assertThat(String.join(" ", runtime.arguments("ENV"))).contains("GPUQ_DATA_DIR=/var/lib/gpuq");
  }

  @Test
  void asksNvidiasContainerToolkitForNvmlAndCuda() {
    String env = String.join(" ", runtime.arguments("ENV"));

    assertThat(env).contains("NVIDIA_VISIBLE_DEVICES=all");
    Matcher capabilities = Pattern.compile("NVIDIA_DRIVER_CAPABILITIES=(\\S+)").matcher(env);
    assertThat(capabilities.find()).isTrue();
    assertThat(capabilities.group(1).split(",")).contains("compute", "utility");
  }

  @Test
  void installsSetprivSetsidAndWhatTheHealthcheckCalls() {
    String installs = String.join(" ", runtime.arguments("RUN"));
    String healthcheck = String.join(" ", runtime.arguments("HEALTHCHECK"));

    assertThat(installs).contains("apt-get install").contains("util-linux").contains("curl");
    assertThat(healthcheck).contains("CMD curl").contains("/actuator/health");
  }

  @Test
  void exposesPort8080() {
    assertThat(runtime.arguments("EXPOSE")).contains("8080");
  }

  @Test
  @DisplayName(".dockerignore keeps what the build copies and leaves local data out")
  void dockerignoreKeepsTheBuildInputsOnly() {
    List<String> patterns =
        Arrays.stream(Repo.read(".dockerignore").split("\n"))
            .map(String::strip)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .toList();
    List<String> copied =
        build.arguments("COPY").stream()
            .flatMap(copy -> Arrays.stream(copy.split(" ")).limit(copy.split(" ").length - 1))
            .map(source -> source.replaceAll("/$", ""))
            .toList();

    assertThat(copied).contains("mvnw", "pom.xml", ".mvn", "src");
    for (String source : copied) {
      assertThat(sentToDocker(patterns, source)).as(source).isTrue();
      assertThat(Repo.path(source)).exists();
    }
    for (String local : List.of("target", "data", ".git", "helm", "clients")) {
      assertThat(sentToDocker(patterns, local)).as(local).isFalse();
    }
  }

  /** Each "docker run" of a text, continued lines joined, comment marks ("# ") dropped. */
  private static List<String> dockerRunCommands(String text) {
    List<String> commands = new ArrayList<>();
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].replaceFirst("^#\\s*", "").strip();
      if (!line.startsWith("docker run")) {
        continue;
      }
      StringBuilder command = new StringBuilder();
      while (line.endsWith("\\") && i + 1 < lines.length) {
        command.append(line, 0, line.length() - 1).append(' ');
        line = lines[++i].replaceFirst("^#\\s*", "").strip();
      }
      commands.add(command.append(line).toString());
    }
    return commands;
  }

  /** The values of every {@code --flag VALUE} and {@code --flag=VALUE} in a command. */
  private static List<String> flagValues(String command, String flag) {
    List<String> values = new ArrayList<>();
    Matcher matcher = Pattern.compile(Pattern.quote(flag) + "[ =](\\S+)").matcher(command);
    while (matcher.find()) {
      values.add(matcher.group(1));
    }
    return values;
  }

  /** Docker's rule: the last pattern that matches decides; '!' re-includes. */
  private static boolean sentToDocker(List<String> patterns, String path) {
    boolean included = true;
    for (String pattern : patterns) {
      boolean negated = pattern.startsWith("!");
      String glob = negated ? pattern.substring(1) : pattern;
      if (FileSystems.getDefault().getPathMatcher("glob:" + glob).matches(Path.of(path))) {
        included = negated;
      }
    }
    return included;
  }

  @Test
  void tiniReapsOrphanedWorkersEvenWhenItIsNotPid1() {
    // With --pid=host (GPU mode) or hostPID, tini is not PID 1 and reaps only as a subreaper.
    List<String> entrypoint = runtime.arguments("ENTRYPOINT");
    assertThat(String.join(" ", entrypoint)).contains("\"/usr/bin/tini\", \"-s\", \"--\"");
  }
}

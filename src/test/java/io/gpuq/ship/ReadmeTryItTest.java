package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.IntegrationTest;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Runs every command of the README's "Try it" section as it is written (issue 38), one after the
 * other, against this real gpuq: the gpuq command installed the way the README says (a venv in
 * HOME, pip with the configured indexes), the curl requests, and the notebook's Python. Only the
 * address changes ({@code http://localhost:8080} becomes this gpuq's), and {@code data/admin.token}
 * holds this gpuq's admin token.
 *
 * <p>Each command runs in a fresh bash (the variables and functions of the commands before it
 * carried over), in a copy of {@code clients/python} standing for the clone, with an empty HOME,
 * stdin from /dev/null and a time limit (pip's own configuration, such as a local package index, is
 * kept), after which its whole process tree is killed and the test fails, naming the command. What
 * the commands submitted and left running is cancelled.
 */
@DisplayName("The README's \"Try it\" commands, run as written")
class ReadmeTryItTest extends IntegrationTest {

  private static final String README_URL = "http://localhost:8080";
  private static final long COMMAND_SECONDS = 60;
  // python3 -m venv and pip install: pip builds the client, offline, from the configured index.
  private static final long INSTALL_SECONDS = 120;

  /** One command of a fenced block, as written (continuation lines and quoted newlines kept). */
  record Command(String language, String text) {}

  @Test
  @DisplayName("every command of \"Try it\" exits 0, from a clone, with an empty HOME")
  void everyCommandRuns() throws IOException, InterruptedException {
    List<Command> commands = tryIt(Repo.read("README.md"));
    assertThat(commands).as("commands found in Try it").hasSizeGreaterThan(30);

    Path scratch = Files.createTempDirectory(dataDir(), "readme-");
    Path clone = Files.createDirectories(scratch.resolve("clone"));
    Path home = Files.createDirectories(scratch.resolve("home"));
    copy(Repo.root().resolve("clients/python"), clone.resolve("clients/python"));
    keepPipConfiguration(home);
    Files.createDirectories(clone.resolve("data"));
    Files.writeString(clone.resolve("data/admin.token"), ADMIN_TOKEN + "\n");
    Path state = scratch.resolve("state.sh");
    Files.writeString(state, "");
    String url = "http://127.0.0.1:" + port;

    try {
      int n = 0;
      for (Command command : commands) {
        n++;
        String text = command.text().replace(README_URL, url);
        boolean install = text.contains("pip install") || text.contains("-m venv");
        run(
            n,
            command.language(),
            text,
            clone,
            home,
            state,
            scratch,
            install ? INSTALL_SECONDS : COMMAND_SECONDS);
      }
    } finally {
      cancelWhatRunsIn(clone);
    }
  }

  private void run(
      int n,
      String language,
      String text,
      Path clone,
      Path home,
      Path state,
      Path scratch,
      long seconds)
      throws IOException, InterruptedException {
    Path script = scratch.resolve("command-" + n + (language.equals("python") ? ".py" : ".sh"));
    Path output = scratch.resolve("command-" + n + ".log");
    Path next = scratch.resolve("state-" + n + ".sh");
    List<String> argv;
    if (language.equals("python")) {
      Files.writeString(script, text);
      // With the python of the venv the README's commands made (the client installed in it).
      argv = List.of(home.resolve(".venvs/gpuq/bin/python").toString(), script.toString());
    } else {
      Files.writeString(
          script,
          String.join(
              "\n",
              "set -a  # what a command assigns is passed on to the next",
              ". " + quote(state),
              text,
              "rc=$?",
              "{ export -p; declare -f; } > " + quote(next),
              "exit $rc",
              ""));
      argv = List.of("bash", script.toString());
    }
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(clone.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("GPUQ_") || name.startsWith("XDG_"));
    env.put("HOME", home.toString());
    env.put("TMPDIR", scratch.toString());
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    if (language.equals("python")) {
      // The state a shell would have had: PATH with the venv in front.
      env.put("PATH", home.resolve(".venvs/gpuq/bin") + File.pathSeparator + env.get("PATH"));
    }
    Process process = builder.start();
    boolean exited = process.waitFor(seconds, TimeUnit.SECONDS);
    if (!exited) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String log = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(exited)
        .as("command %d ran past %d s and was killed:%n%s%n---%n%s", n, seconds, text, log)
        .isTrue();
    assertThat(process.exitValue())
        .as("command %d's exit status:%n%s%n---%n%s", n, text, log)
        .isZero();
    if (!language.equals("python")) {
      Files.move(next, state, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** The commands of the fenced bash and python blocks between "## Try it" and the next "## ". */
  static List<Command> tryIt(String readme) {
    int start = readme.indexOf("\n## Try it\n");
    assertThat(start).as("README has a \"## Try it\" section").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    List<Command> commands = new ArrayList<>();
    String language = null;
    StringBuilder block = new StringBuilder();
    for (String line : section.split("\n", -1)) {
      if (language == null) {
        if (line.startsWith("```bash")) {
          language = "bash";
        } else if (line.startsWith("```python")) {
          language = "python";
        }
        block.setLength(0);
      } else if (line.startsWith("```")) {
        if (language.equals("python")) {
          commands.add(new Command("python", block.toString()));
        } else {
          shellCommands(block.toString()).forEach(c -> commands.add(new Command("bash", c)));
        }
        language = null;
      } else {
        block.append(line).append('\n');
      }
    }
    return commands;
  }

  /**
   * A shell block cut into its commands: a line ends one unless it ends with a backslash or is
   * inside quotes; comment-only lines are none.
   */
  static List<String> shellCommands(String block) {
    List<String> commands = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    char quote = 0;
    for (String line : block.split("\n")) {
      current.append(line).append('\n');
      boolean comment = false;
      for (int i = 0; i < line.length() && !comment; i++) {
        char c = line.charAt(i);
        if (quote == 0) {
          if (c == '\\') {
            i++;
          } else if (c == '\'' || c == '"') {
            quote = c;
          } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
            comment = true;
          }
        } else if (quote == '"' && c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      }
      String code = line.strip();
      boolean continued = quote != 0 || (!comment && code.endsWith("\\"));
      if (!continued) {
        String command = current.toString().strip();
        if (!command.isEmpty() && !command.lines().allMatch(l -> l.strip().startsWith("#"))) {
          commands.add(command);
        }
        current.setLength(0);
      }
    }
    assertThat((int) quote).as("quotes closed in:%n%s", block).isZero();
    return commands;
  }

  /** What the commands left queued or running (their working directory is the clone). */
  private void cancelWhatRunsIn(Path clone) {
    for (String state : List.of("QUEUED", "RUNNING")) {
      JsonNode page = admin.get("/api/v1/jobs?state=" + state + "&limit=1000").json();
      for (JsonNode job : page.path("items")) {
        if (job.path("workingDir").asString("").startsWith(clone.toString())) {
          admin.post("/api/v1/jobs/" + job.path("id").asString() + "/cancel");
        }
      }
    }
  }

  /**
   * The machine's pip configuration where it is the user's (a package index on disk, where there is
   * no network): the empty HOME stands for a user without gpuq's files, not without pip's.
   */
  private static void keepPipConfiguration(Path home) throws IOException {
    Path userHome = Path.of(System.getProperty("user.home"));
    for (String file : List.of(".config/pip/pip.conf", ".pip/pip.conf")) {
      Path config = userHome.resolve(file);
      if (Files.isRegularFile(config)) {
        Files.createDirectories(home.resolve(file).getParent());
        Files.copy(config, home.resolve(file), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static String quote(Path path) {
    return "'" + path.toString().replace("'", "'\\''") + "'";
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : files.sorted(Comparator.naturalOrder()).toList()) {
        String relative = from.relativize(file).toString();
        if (relative.contains("__pycache__")
            || relative.startsWith("build")
            || relative.contains(".egg-info")) {
          continue;
        }
        Path target = to.resolve(relative);
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }
}

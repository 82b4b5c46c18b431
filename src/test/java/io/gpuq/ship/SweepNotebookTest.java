package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.IntegrationTest;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Executes clients/python/examples/sweep.ipynb top to bottom with nbclient against a real gpuq
 * (issue 38): a job and its log, a sweep and its progress, its trials as a DataFrame, a matplotlib
 * plot, an Optuna study through gpuq.optuna. The kernel gets GPUQ_URL and GPUQ_TOKEN from the
 * environment; nothing asks for input. Each cell has 60 s, the whole run 150 s. Skipped, saying so,
 * where python3 lacks nbclient, ipykernel, pandas, matplotlib or optuna (.ci/run installs them).
 */
@DisplayName("The notebook clients/python/examples/sweep.ipynb, executed by nbclient")
class SweepNotebookTest extends IntegrationTest {

  private static final long CELL_TIMEOUT_SECONDS = 60;
  private static final long TIMEOUT_SECONDS = 150;

  @Test
  @DisplayName("runs every cell without an error against a live gpuq")
  void everyCellRuns() throws IOException, InterruptedException {
    Path scratch = Files.createTempDirectory(dataDir(), "notebook-");
    assumeTrue(
        PythonUnittest.imports(
            scratch, "nbclient", "nbformat", "ipykernel", "pandas", "matplotlib", "optuna"),
        "skipped: python3 lacks nbclient, nbformat, ipykernel, pandas, matplotlib or optuna"
            + " (.ci/run installs them)");
    Path root = Repo.root();
    Path executed = scratch.resolve("sweep.executed.ipynb");
    Path log = scratch.resolve("nbclient.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    "python3",
                    root.resolve("src/test/resources/notebook/execute.py").toString(),
                    root.resolve("clients/python/examples/sweep.ipynb").toString(),
                    executed.toString(),
                    Long.toString(CELL_TIMEOUT_SECONDS)))
            .directory(scratch.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    env.put("GPUQ_URL", "http://127.0.0.1:" + port);
    env.put("GPUQ_TOKEN", ALICE_TOKEN);
    env.remove("GPUQ_TOKEN_FILE");
    env.put("PYTHONPATH", root.resolve("clients/python").toString());
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    // Nothing of the developer's: Jupyter's, IPython's and matplotlib's files go to scratch.
    env.put("HOME", scratch.toString());
    env.put("JUPYTER_RUNTIME_DIR", scratch.resolve("jupyter-runtime").toString());
    env.put("JUPYTER_DATA_DIR", scratch.resolve("jupyter-data").toString());
    env.put("JUPYTER_CONFIG_DIR", scratch.resolve("jupyter-config").toString());
    env.put("IPYTHONDIR", scratch.resolve("ipython").toString());
    env.put("MPLCONFIGDIR", scratch.resolve("matplotlib").toString());

    Process python = builder.start();
    boolean exited = python.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      python.descendants().forEach(ProcessHandle::destroyForcibly);
      python.destroyForcibly().waitFor();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);

    assertThat(exited).as("nbclient finished within %d s:%n%s", TIMEOUT_SECONDS, output).isTrue();
    assertThat(python.exitValue()).as("nbclient's exit status:%n%s", output).isZero();
    String notebook = Files.readString(executed, StandardCharsets.UTF_8);
    assertThat(notebook)
        .as("the plot is in the executed notebook")
        .contains("image/png")
        .doesNotContain("\"output_type\": \"error\"");
  }
}

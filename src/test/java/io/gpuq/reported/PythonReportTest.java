package io.gpuq.reported;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two ends of a metrics file, for real: a python3 process reports with the client's {@code
 * gpuq.report()} (clients/python/gpuq/client.py), and gpuq's reader reads what it wrote.
 */
@DisplayName("What gpuq.report() writes, the metrics reader reads")
class PythonReportTest {

  private static final long TIMEOUT_SECONDS = 60;

  @TempDir Path dir;

  @Test
  void everyReportBecomesAPointIncludingANaNLossAndStepsLeftOut() throws Exception {
    Path file = dir.resolve("metrics.jsonl");
    String script =
        String.join(
            "\n",
            "import gpuq",
            "gpuq.report(step=100, val_loss=0.31, val_acc=0.88)",
            "gpuq.report(val_loss=float('nan'))",
            "gpuq.report(step=300, val_loss=0.27, lr=3e-4)",
            "");

    String output = python(script, file);

    MetricsRead read = new MetricsFileReader().read(file, MetricsPosition.START, true);
    assertThat(read.skippedLines()).as(output).isZero();
    assertThat(read.points()).extracting(MetricPoint::step).containsExactly(100L, 101L, 300L);
    assertThat(read.points().get(0).values())
        .containsExactly(entry("val_loss", 0.31), entry("val_acc", 0.88));
    assertThat(read.points().get(1).values().get("val_loss")).isNaN();
    assertThat(read.points().get(2).values()).containsEntry("lr", 3e-4);
    assertThat(read.position().offset()).isEqualTo(Files.size(file));
  }

  private String python(String script, Path metricsFile) throws IOException, InterruptedException {
    Path output = dir.resolve("python.log");
    ProcessBuilder builder =
        new ProcessBuilder(List.of("python3", "-c", script))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().put("PYTHONPATH", Path.of("clients/python").toAbsolutePath().toString());
    builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    builder.environment().put("GPUQ_METRICS_FILE", metricsFile.toString());
    Process python = builder.start();
    boolean exited = python.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      python.destroyForcibly().waitFor();
    }
    String log = Files.readString(output, StandardCharsets.UTF_8);
    assertThat(exited).as("python3 finished:%n%s", log).isTrue();
    assertThat(python.exitValue()).as("python3's exit status:%n%s", log).isZero();
    return log;
  }
}

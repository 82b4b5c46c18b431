package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job's environment on its way through gpuq's own processes")
class DeferredEnvironmentTest {

  @Test
  @DisplayName("keeps what the loader, libc and shells ignore, and hides what they act on")
  void splits() {
    Map<String, String> job = new LinkedHashMap<>();
    job.put("PATH", "/usr/bin:/bin");
    job.put("CUDA_VISIBLE_DEVICES", "GPU-1");
    job.put("LD_PRELOAD", "/tmp/x.so");
    job.put("LD_LIBRARY_PATH", "/opt/cuda/lib64");
    job.put("GCONV_PATH", "/tmp/gconv");
    job.put("BASH_ENV", "/tmp/rc");
    job.put("MALLOC_ARENA_MAX", "2");

    DeferredEnvironment split = DeferredEnvironment.of(job);

    assertThat(split.deferred())
        .containsExactly(
            "LD_PRELOAD", "LD_LIBRARY_PATH", "GCONV_PATH", "BASH_ENV", "MALLOC_ARENA_MAX");
    assertThat(split.environment())
        .containsEntry("PATH", "/usr/bin:/bin")
        .containsEntry("CUDA_VISIBLE_DEVICES", "GPU-1")
        .containsEntry("GPUQ_DEFERRED_LD_PRELOAD", "/tmp/x.so")
        .containsEntry(
            "GPUQ_DEFERRED", "LD_PRELOAD LD_LIBRARY_PATH GCONV_PATH BASH_ENV MALLOC_ARENA_MAX")
        .doesNotContainKeys("LD_PRELOAD", "LD_LIBRARY_PATH", "GCONV_PATH", "BASH_ENV");
  }

  @Test
  @DisplayName(
      "drops a job's own attempt at the deferral's names, and unsafe names no shell can set")
  void dropsWhatItCannotCarry() {
    Map<String, String> job = new LinkedHashMap<>();
    job.put("GPUQ_DEFERRED", "PATH; touch /tmp/pwned");
    job.put("GPUQ_DEFERRED_PATH", "/evil");
    job.put("BASH_FUNC_ls%%", "() { :; }");

    DeferredEnvironment split = DeferredEnvironment.of(job);

    assertThat(split.environment()).isEmpty();
    assertThat(split.deferred()).isEmpty();
  }

  @Test
  @DisplayName("a shell after the drop restores every variable exactly, evaluating no value")
  void restoresExactly() throws Exception {
    Map<String, String> job = new LinkedHashMap<>();
    job.put("PATH", "/usr/bin:/bin");
    job.put("LD_LIBRARY_PATH", "/opt/a b:/opt/$(touch /tmp/gpuq-never)");
    job.put("LD_DEBUG_OUTPUT", "it's \"quoted\" `x` \\ and ${HOME}");
    job.put("IFS", ":");
    job.put("PLAIN", "stays");

    Map<String, String> seen =
        environmentOf(
            List.of("/bin/sh", "-c", DeferredEnvironment.RESTORE_SCRIPT, "", "/usr/bin/env"),
            DeferredEnvironment.of(job).environment());

    assertThat(seen).isEqualTo(new TreeMap<>(withPwd(job, seen)));
  }

  /** dash exports PWD itself; the comparison leaves it to the shell. */
  private static Map<String, String> withPwd(Map<String, String> job, Map<String, String> seen) {
    Map<String, String> expected = new TreeMap<>(job);
    if (seen.containsKey("PWD")) {
      expected.put("PWD", seen.get("PWD"));
    }
    return expected;
  }

  private static Map<String, String> environmentOf(List<String> argv, Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(out).isZero();
    Map<String, String> seen = new TreeMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        seen.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return seen;
  }
}

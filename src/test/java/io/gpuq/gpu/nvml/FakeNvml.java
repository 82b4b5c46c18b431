package io.gpuq.gpu.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The NVML stand-in {@code src/test/c/fake_nvml.c}, compiled with gcc once per JVM into {@code
 * target/fake-nvml/libfake-nvidia-ml.so.1}, and its test-control functions. Without gcc the tests
 * that need it fail: they are the only check of the JNA binding short of a real GPU.
 *
 * <p>The file is deliberately not called {@code libnvidia-ml.so.1}: JNA caches a loaded library
 * under its file name too, and any later {@code GpuBackends.open} with the default library name in
 * the same JVM (a Spring test, say) would then find this stand-in instead of "no NVML here".
 */
public final class FakeNvml {

  /** As numbered in fake_nvml.c. */
  public enum Scenario {
    NORMAL,
    INIT_FAILS,
    GROWING_LIST,
    EVER_GROWING_LIST,
    UTILIZATION_NOT_SUPPORTED,
    MEMORY_NOT_AVAILABLE,
    NO_DEVICES,
    GPU_LOST
  }

  interface Control extends Library {
    void fake_nvml_set_scenario(int scenario);

    int fake_nvml_init_count();

    int fake_nvml_process_calls();
  }

  private static Path library;
  private static Control control;

  private FakeNvml() {}

  /** The absolute path of the compiled stand-in. */
  public static synchronized Path library() {
    if (library == null) {
      library = compile();
      control = Native.load(library.toString(), Control.class);
    }
    return library;
  }

  /** Chooses the stand-in's behaviour; also resets its call counters. */
  public static void scenario(Scenario scenario) {
    library();
    control.fake_nvml_set_scenario(scenario.ordinal());
  }

  /** nvmlInit_v2 calls not yet balanced by nvmlShutdown. */
  public static int initCount() {
    library();
    return control.fake_nvml_init_count();
  }

  /** nvmlDeviceGetComputeRunningProcesses_v3 calls for GPU 0 since the scenario was set. */
  public static int processCalls() {
    library();
    return control.fake_nvml_process_calls();
  }

  private static Path compile() {
    Path base = Path.of(System.getProperty("basedir", "")).toAbsolutePath();
    Path source = base.resolve("src/test/c/fake_nvml.c");
    Path target = base.resolve("target/fake-nvml/libfake-nvidia-ml.so.1");
    try {
      Files.createDirectories(target.getParent());
      // Built beside the target and moved into place, so a copy another JVM has loaded is
      // replaced (new inode), never overwritten under it.
      Path building = Files.createTempFile(target.getParent(), "libfake-nvidia-ml", ".so.building");
      List<String> command =
          List.of(
              "gcc",
              "-Wall",
              "-Werror",
              "-shared",
              "-fPIC",
              "-o",
              building.toString(),
              source.toString());
      Process gcc;
      try {
        gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new IllegalStateException(
            "gcc is needed to build the NVML stand-in " + source + " but could not be run: " + e,
            e);
      }
      String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
        throw new IllegalStateException(
            "gcc failed to build the NVML stand-in: " + String.join(" ", command) + "\n" + output);
      }
      return Files.move(
          building, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new IllegalStateException("cannot build the NVML stand-in into " + target, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while building the NVML stand-in", e);
    }
  }
}

package io.gpuq.launch.env;

import static io.gpuq.launch.env.Workers.GIB;
import static io.gpuq.launch.env.Workers.aGpu;
import static io.gpuq.launch.env.Workers.aWorker;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.Framework;
import io.gpuq.launch.env.PythonProcess.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hook, run by a real python3 with the environment {@link WorkerEnvironment} produces, against
 * stand-in {@code torch} and {@code tensorflow} packages that record what is done to them.
 */
public class PythonHookTest {

  /** A stand-in for torch, shared with the end-to-end hook test. */
  public static final String FAKE_TORCH_INIT = "from torch import cuda\n";

  private static final String FAKE_TORCH_CUDA_COMMON =
      """
      import os

      _initialized = False
      _queued_calls = []


      def _record(line):
          with open(os.environ["FAKE_CALLS"], "a") as calls:
              calls.write(line + "\\n")


      def is_initialized():
          return _initialized


      def device_count():
          visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
          return len(visible.split(",")) if visible else 0


      def set_per_process_memory_fraction(fraction, device=None):
          # as strict as torch's
          if not isinstance(fraction, float):
              raise TypeError("Invalid type for fraction argument, must be `float`")
          if fraction < 0 or fraction > 1:
              raise ValueError("Invalid fraction value: %s" % fraction)
          _record("fraction %s device %d" % (fraction, device))
      """;

  /** Like torch: calls queued with _lazy_call run when CUDA initialises. */
  public static final String FAKE_TORCH_CUDA =
      FAKE_TORCH_CUDA_COMMON
          + """


          def _lazy_call(callable, **kwargs):
              if _initialized:
                  callable()
              else:
                  _queued_calls.append(callable)


          def init():
              global _initialized
              if _initialized:
                  return
              _initialized = True
              _record("init")
              for call in _queued_calls:
                  call()
          """;

  /** A torch without _lazy_call: only _lazy_init, which init() looks up as a global. */
  private static final String FAKE_TORCH_CUDA_WITHOUT_LAZY_CALL =
      FAKE_TORCH_CUDA_COMMON
          + """


          def _lazy_init():
              global _initialized
              if _initialized:
                  return
              _initialized = True
              _record("init")


          def init():
              _lazy_init()
          """;

  private static final String FAKE_TENSORFLOW_INIT = "from tensorflow import config\n";

  private static final String FAKE_TENSORFLOW_CONFIG =
      """
      import collections
      import os

      # Like TensorFlow's: equal when name and type are.
      PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
      _virtual_devices = set()


      class LogicalDeviceConfiguration(object):
          def __init__(self, memory_limit=None):
              self.memory_limit = memory_limit


      def list_physical_devices(device_type=None):
          visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
          count = len(visible.split(",")) if visible else 0
          return [PhysicalDevice("/physical_device:GPU:%d" % i, "GPU") for i in range(count)]


      def set_logical_device_configuration(device, logical_devices):
          _virtual_devices.add(device.name)
          with open(os.environ["FAKE_CALLS"], "a") as calls:
              calls.write("limit %s %d\\n" % (device.name, logical_devices[0].memory_limit))


      from tensorflow.config import experimental
      """;

  private static final String FAKE_TENSORFLOW_CONFIG_EXPERIMENTAL =
      """
      import os


      def set_memory_growth(device, enable):
          from tensorflow import config

          # TensorFlow's own refusal
          if device.name in config._virtual_devices:
              raise ValueError("Cannot set memory growth on device when virtual devices configured")
          with open(os.environ["FAKE_CALLS"], "a") as calls:
              calls.write("growth %s %s\\n" % (device.name, enable))
      """;

  @TempDir Path tmp;
  private Path hookDir;
  private Path packages;
  private Path calls;

  @BeforeEach
  void setUp() throws IOException {
    hookDir = PythonHook.extractTo(tmp.resolve("hook"));
    packages = Files.createDirectories(tmp.resolve("site-packages"));
    calls = tmp.resolve("calls.log");
    writeFakeTorch(FAKE_TORCH_CUDA);
    write(packages.resolve("tensorflow/__init__.py"), FAKE_TENSORFLOW_INIT);
    write(packages.resolve("tensorflow/config/__init__.py"), FAKE_TENSORFLOW_CONFIG);
    write(
        packages.resolve("tensorflow/config/experimental.py"), FAKE_TENSORFLOW_CONFIG_EXPERIMENTAL);
  }

  @Nested
  @DisplayName("in a pytorch job on a 16 GiB and a 32 GiB GPU with a 6 GiB budget")
  class Torch {

    private final WorkerSpec spec =
        aWorker()
            .framework(Framework.PYTORCH)
            .onGpus(aGpu(4, 16 * GIB), aGpu(7, 32 * GIB))
            .budget(6 * GIB)
            .build();

    @Test
    void eachDeviceGetsItsFractionWhenTorchInitialisesCuda() throws Exception {
      Result result = python(spec, "import torch; torch.cuda.init()");

      assertSilentSuccess(result);
      assertThat(calls())
          .containsExactly("init", "fraction 0.375 device 0", "fraction 0.1875 device 1");
    }

    @Test
    @DisplayName(
        "a trial forked by a warm start's zygote gets the budget of its own environment, not the"
            + " zygote's")
    void aForkedTrialGetsTheBudgetOfItsOwnEnvironment() throws Exception {
      // The zygote imported torch with its first trial's environment; the child replaces it.
      Result result =
          python(
              spec,
              "import os, torch; os.environ['GPUQ_TORCH_MEMORY_FRACTION'] = '0.5,0.25';"
                  + " torch.cuda.init()");

      assertSilentSuccess(result);
      assertThat(calls())
          .containsExactly("init", "fraction 0.5 device 0", "fraction 0.25 device 1");
    }

    @Test
    @DisplayName(
        "importing torch initialises nothing and sets nothing; the budget waits in torch's queue")
    void importingTorchAloneTouchesNoDevice() throws Exception {
      Result result = python(spec, "import torch; print(len(torch.cuda._queued_calls))");

      assertSilentSuccess(result);
      assertThat(result.stdoutLines()).containsExactly("1");
      assertThat(calls).doesNotExist();
    }

    @Test
    @DisplayName("torch keeps its own loader once imported")
    void torchLooksUntouched() throws Exception {
      Result result =
          python(
              spec,
              "import sys, torch; print(type(torch.__loader__).__name__,"
                  + " type(torch.__spec__.loader).__name__, len(sys.meta_path))");

      assertSilentSuccess(result);
      Result plain = python(spec, "import sys; print(len(sys.meta_path))");
      int metaPathBeforeImport = Integer.parseInt(plain.stdout().strip());
      assertThat(result.stdout().strip())
          .isEqualTo("SourceFileLoader SourceFileLoader " + (metaPathBeforeImport - 1));
    }

    @Test
    @DisplayName("a library that probes for torch with find_spec before importing it loses nothing")
    void probingWithFindSpecFirst() throws Exception {
      Result result =
          python(
              spec,
              "import importlib.util; assert importlib.util.find_spec('torch') is not None;"
                  + " import torch; torch.cuda.init()");

      assertSilentSuccess(result);
      assertThat(calls())
          .containsExactly("init", "fraction 0.375 device 0", "fraction 0.1875 device 1");
    }

    @Test
    void aProgramThatNeverImportsTorchDoesNotLoadIt() throws Exception {
      Result result = python(spec, "import sys; print('torch' in sys.modules)");

      assertSilentSuccess(result);
      assertThat(result.stdoutLines()).containsExactly("False");
    }

    @Test
    @DisplayName("a torch without _lazy_call gets the budget after its first _lazy_init")
    void fallsBackToWrappingLazyInit() throws Exception {
      writeFakeTorch(FAKE_TORCH_CUDA_WITHOUT_LAZY_CALL);

      Result beforeInit = python(spec, "import torch");
      Result result = python(spec, "import torch; torch.cuda.init(); torch.cuda.init()");

      assertSilentSuccess(beforeInit);
      assertSilentSuccess(result);
      assertThat(calls())
          .containsExactly("init", "fraction 0.375 device 0", "fraction 0.1875 device 1");
    }

    @Test
    @DisplayName("a program that narrows CUDA_VISIBLE_DEVICES itself gets the smallest fraction")
    void narrowedDevicesGetTheSmallestFraction() throws Exception {
      Result result =
          python(
              spec,
              "import os; os.environ['CUDA_VISIBLE_DEVICES'] = 'GPU-4-5e0c';"
                  + " import torch; torch.cuda.init()");

      assertSilentSuccess(result);
      assertThat(calls()).containsExactly("init", "fraction 0.1875 device 0");
    }

    @Test
    @DisplayName("a failure while applying the budget is one gpuq: line, and the program goes on")
    void failureIsOneLineAndTheProgramContinues() throws Exception {
      writeFakeTorch(
          FAKE_TORCH_CUDA
              + "\n\ndef set_per_process_memory_fraction(fraction, device=None):\n"
              + "    raise RuntimeError('no CUDA driver')\n");

      Result result = python(spec, "import torch; torch.cuda.init(); print('trained')");

      assertThat(result.exitCode()).isZero();
      assertThat(result.stdoutLines()).containsExactly("trained");
      assertThat(result.stderrLines())
          .singleElement()
          .asString()
          .startsWith("gpuq: ")
          .contains("RuntimeError: no CUDA driver");
    }

    @Test
    void tensorflowImportedByAPytorchJobIsLeftAlone() throws Exception {
      Result result = python(spec, "import tensorflow");

      assertSilentSuccess(result);
      assertThat(calls).doesNotExist();
    }
  }

  @Test
  void aCpuOnlyPytorchJobSetsNoFraction() throws Exception {
    Result result =
        python(
            aWorker().framework(Framework.PYTORCH).cpuOnly().build(),
            "import torch; torch.cuda.init()");

    assertSilentSuccess(result);
    assertThat(calls()).containsExactly("init");
  }

  @Test
  @DisplayName("a zygote started for a CPU-only trial still budgets a GPU trial it forks later")
  void aGpuTrialForkedFromACpuOnlyZygoteGetsItsBudget() throws Exception {
    Result result =
        python(
            aWorker().framework(Framework.PYTORCH).cpuOnly().build(),
            "import os, torch; os.environ['CUDA_VISIBLE_DEVICES'] = 'GPU-4-5e0c';"
                + " os.environ['GPUQ_TORCH_MEMORY_FRACTION'] = '0.25'; torch.cuda.init()");

    assertSilentSuccess(result);
    assertThat(calls()).containsExactly("init", "fraction 0.25 device 0");
  }

  @Test
  void aJaxJobLeavesTorchAlone() throws Exception {
    Result result =
        python(aWorker().framework(Framework.JAX).build(), "import torch; torch.cuda.init()");

    assertSilentSuccess(result);
    assertThat(calls()).containsExactly("init");
  }

  @Test
  @DisplayName("a tensorflow job gives every GPU a logical device limited to the budget in MiB")
  void tensorflowGetsAMemoryLimitPerGpu() throws Exception {
    var spec =
        aWorker()
            .framework(Framework.TENSORFLOW)
            .onGpus(aGpu(0, 16 * GIB), aGpu(1, 32 * GIB))
            .budget(6 * GIB)
            .build();

    Result result = python(spec, "import tensorflow");

    assertSilentSuccess(result);
    assertThat(calls())
        .containsExactly("limit /physical_device:GPU:0 6144", "limit /physical_device:GPU:1 6144");
  }

  @Test
  @DisplayName("a tensorflow job may still turn on memory growth, as most TF programs do first")
  void tensorflowMemoryGrowthBoilerplateStillRuns() throws Exception {
    var spec = aWorker().framework(Framework.TENSORFLOW).onGpus(aGpu(0, 16 * GIB)).build();

    Result result =
        python(
            spec,
            "import tensorflow as tf\n"
                + "for gpu in tf.config.list_physical_devices('GPU'):\n"
                + "    tf.config.experimental.set_memory_growth(gpu, True)\n"
                + "print('trained')");

    assertSilentSuccess(result);
    assertThat(result.stdoutLines()).containsExactly("trained");
    assertThat(calls()).containsExactly("limit /physical_device:GPU:0 6144");
  }

  @Test
  void aCpuOnlyTensorflowJobConfiguresNothing() throws Exception {
    var spec = aWorker().framework(Framework.TENSORFLOW).cpuOnly().build();

    Result result =
        python(spec, "import tensorflow; print(tensorflow.config.list_physical_devices())");

    assertSilentSuccess(result);
    assertThat(result.stdoutLines()).containsExactly("[]");
    assertThat(calls).doesNotExist();
  }

  @Nested
  @DisplayName("a sitecustomize of the user's, later on PYTHONPATH")
  class UsersSitecustomize {

    private final WorkerSpec spec = aWorker().framework(Framework.PYTORCH).build();
    private Path userSite;

    @BeforeEach
    void writeIt() throws IOException {
      userSite = Files.createDirectories(tmp.resolve("user-site"));
      write(
          userSite.resolve("sitecustomize.py"),
          """
          import os
          with open(os.environ["FAKE_CALLS"], "a") as calls:
              calls.write("user sitecustomize as %s\\n" % __name__)
          MARK = "theirs"
          """);
    }

    @Test
    void stillRunsOnceAndIsTheModuleNamedSitecustomize() throws Exception {
      Result result =
          python(
              spec,
              Map.of("PYTHONPATH", packages + ":" + userSite),
              "import sitecustomize; print(sitecustomize.MARK)");

      assertSilentSuccess(result);
      assertThat(result.stdoutLines()).containsExactly("theirs");
      assertThat(calls()).containsExactly("user sitecustomize as sitecustomize");
    }

    @Test
    @DisplayName("still runs once when gpuq's hook directory is on PYTHONPATH twice")
    void hookTwiceOnThePath() throws Exception {
      Result result =
          python(
              spec,
              Map.of("PYTHONPATH", hookDir + ":" + packages + ":" + userSite),
              "import torch; torch.cuda.init()");

      assertSilentSuccess(result);
      assertThat(calls())
          .containsExactly(
              "user sitecustomize as sitecustomize", "init", "fraction 0.375 device 0");
    }

    @Test
    @DisplayName("that fails is reported in one gpuq: line, and the program goes on")
    void failingOneIsReported() throws Exception {
      write(userSite.resolve("sitecustomize.py"), "raise ValueError('bad config')\n");

      Result result =
          python(spec, Map.of("PYTHONPATH", packages + ":" + userSite), "print('trained')");

      assertThat(result.exitCode()).isZero();
      assertThat(result.stdoutLines()).containsExactly("trained");
      assertThat(result.stderrLines())
          .singleElement()
          .asString()
          .startsWith("gpuq: ")
          .contains(userSite.resolve("sitecustomize.py").toString())
          .contains("ValueError: bad config");
    }
  }

  @Nested
  @DisplayName("extraction")
  class Extraction {

    @Test
    void writesTheShippedHookAndReturnsTheDirectoryForPythonPath() throws IOException {
      Path dir = tmp.resolve("fresh");

      assertThat(PythonHook.extractTo(dir)).isEqualTo(dir);
      assertThat(dir.resolve("sitecustomize.py"))
          .hasBinaryContent(PythonHook.resource("sitecustomize.py"));
    }

    @Test
    void leavesAnUpToDateHookAlone() throws IOException {
      Path file = hookDir.resolve("sitecustomize.py");
      FileTime longAgo = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
      Files.setLastModifiedTime(file, longAgo);

      PythonHook.extractTo(hookDir);

      assertThat(Files.getLastModifiedTime(file)).isEqualTo(longAgo);
    }

    @Test
    @DisplayName(
        "forgets compiled code and rewrites a hook that is writable by others, even when unchanged")
    void trustsNothingItFindsThere() throws IOException {
      Path file = hookDir.resolve("sitecustomize.py");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
      Path planted = write(hookDir.resolve("__pycache__/sitecustomize.cpython-311.pyc"), "planted");

      PythonHook.extractTo(hookDir);

      assertThat(file).hasBinaryContent(PythonHook.resource("sitecustomize.py"));
      assertThat(Files.getPosixFilePermissions(file))
          .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
      assertThat(planted).doesNotExist();
    }

    @Test
    @DisplayName("replaces a changed hook and forgets its compiled form")
    void replacesAChangedHook() throws IOException {
      Path file = hookDir.resolve("sitecustomize.py");
      Files.writeString(file, "print('old hook')\n");
      Path pyc = write(hookDir.resolve("__pycache__/sitecustomize.cpython-311.pyc"), "stale");

      PythonHook.extractTo(hookDir);

      assertThat(file).hasBinaryContent(PythonHook.resource("sitecustomize.py"));
      assertThat(pyc).doesNotExist();
      assertThat(hookDir).isDirectoryNotContaining("glob:**.tmp");
    }
  }

  private Result python(WorkerSpec spec, String code) throws Exception {
    return python(spec, Map.of("PYTHONPATH", packages.toString()), code);
  }

  private Result python(WorkerSpec spec, Map<String, String> userEnv, String code)
      throws Exception {
    var settings = new WorkerEnvironmentSettings(JaxCompilationCache.OFF, null, hookDir, true);
    Map<String, String> user = new HashMap<>(userEnv);
    user.put("FAKE_CALLS", calls.toString());
    Map<String, String> base = Map.of("PATH", System.getenv("PATH"), "LANG", "C.UTF-8");
    Map<String, String> env = new WorkerEnvironment(settings).environment(spec, base, user);
    return PythonProcess.run(tmp, env, "-c", code);
  }

  private static void assertSilentSuccess(Result result) {
    assertThat(result.stderr()).as("stderr").isEmpty();
    assertThat(result.exitCode()).as("exit code").isZero();
  }

  private List<String> calls() throws IOException {
    return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
  }

  private void writeFakeTorch(String cudaSource) throws IOException {
    write(packages.resolve("torch/__init__.py"), FAKE_TORCH_INIT);
    write(packages.resolve("torch/cuda/__init__.py"), cudaSource);
    // A rewrite within the same second would otherwise run the stale bytecode.
    deleteTree(packages.resolve("torch/cuda/__pycache__"));
  }

  private static Path write(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (var files = Files.list(dir)) {
        for (Path file : files.toList()) {
          Files.delete(file);
        }
      }
      Files.delete(dir);
    }
  }
}

package io.gpuq.launch.env;

import static io.gpuq.launch.env.WorkerEnvironment.*;
import static io.gpuq.launch.env.Workers.BOB;
import static io.gpuq.launch.env.Workers.GIB;
import static io.gpuq.launch.env.Workers.HOOK_DIR;
import static io.gpuq.launch.env.Workers.NODE_CACHE;
import static io.gpuq.launch.env.Workers.WORK_DIR;
import static io.gpuq.launch.env.Workers.aGpu;
import static io.gpuq.launch.env.Workers.aWorker;
import static io.gpuq.launch.env.Workers.settings;
import static io.gpuq.placement.PlacedGpu.memoryFraction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.isolation.Account;
import io.gpuq.job.Framework;
import io.gpuq.job.SweepTrial;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.sweep.TrialEnvironment;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class WorkerEnvironmentTest {

  private final WorkerEnvironment environment = new WorkerEnvironment(settings());

  @Nested
  @DisplayName("every worker")
  class EveryWorker {

    @ParameterizedTest
    @EnumSource(Framework.class)
    void seesExactlyItsGpusByUuidInPciOrder(Framework framework) {
      var spec =
          aWorker()
              .framework(framework)
              .onGpus(
                  new PlacedGpu(3, "GPU-aaa", 0, 16 * GIB),
                  new PlacedGpu(1, "GPU-bbb", 0, 16 * GIB))
              .build();

      var vars = environment.imposedVariables(spec);

      assertThat(vars)
          .containsEntry(CUDA_VISIBLE_DEVICES, "GPU-aaa,GPU-bbb")
          .containsEntry(CUDA_DEVICE_ORDER, "PCI_BUS_ID");
    }

    @ParameterizedTest
    @EnumSource(Framework.class)
    void knowsItsJobItsBudgetAndItsTemporaryDirectory(Framework framework) {
      var spec = aWorker().framework(framework).jobId("01JOB").budget(6 * GIB).build();

      var vars = environment.imposedVariables(spec);

      assertThat(vars)
          .containsEntry(GPUQ_JOB_ID, "01JOB")
          .containsEntry(GPUQ_GPU_MEMORY_BYTES, "6442450944")
          .containsEntry(TMPDIR, WORK_DIR.resolve("tmp").toString())
          .containsEntry(
              WorkerEnvironment.GPUQ_METRICS_FILE, WORK_DIR.resolve("metrics.jsonl").toString());
    }

    @ParameterizedTest
    @EnumSource(Framework.class)
    @DisplayName(
        "knows its checkpoint directory, the same in every attempt, and which attempt it is"
            + " (issue 35)")
    void knowsItsCheckpointDirectoryAndAttempt(Framework framework) {
      var first = environment.imposedVariables(aWorker().framework(framework).build());
      var third = environment.imposedVariables(aWorker().framework(framework).attempt(3).build());

      assertThat(first)
          .containsEntry(GPUQ_CHECKPOINT_DIR, WORK_DIR.resolve("checkpoint").toString())
          .containsEntry(GPUQ_ATTEMPT, "1");
      assertThat(third)
          .containsEntry(GPUQ_CHECKPOINT_DIR, WORK_DIR.resolve("checkpoint").toString())
          .containsEntry(GPUQ_ATTEMPT, "3")
          .containsEntry(GPUQ_REQUEUE_EXIT_CODE, "85");
    }

    @ParameterizedTest
    @EnumSource(Framework.class)
    @DisplayName("a CPU-only worker sees no GPU and has a budget of 0")
    void cpuOnlyWorkerSeesNoGpu(Framework framework) {
      var vars = environment.imposedVariables(aWorker().framework(framework).cpuOnly().build());

      assertThat(vars)
          .containsEntry(CUDA_VISIBLE_DEVICES, "")
          .containsEntry(GPUQ_GPU_MEMORY_BYTES, "0")
          .doesNotContainKeys(
              XLA_PYTHON_CLIENT_MEM_FRACTION, GPUQ_TORCH_MEMORY_FRACTION, GPUQ_TF_MEMORY_LIMIT_MB);
    }

    @Test
    void variablesComeInAStableOrderStartingWithTheDevices() {
      var vars = environment.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars.keySet())
          .startsWith(CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, GPUQ_JOB_ID, GPUQ_GPU_MEMORY_BYTES)
          .isEqualTo(
              environment.imposedVariables(aWorker().framework(Framework.JAX).build()).keySet());
    }
  }

  @Nested
  @DisplayName("jax")
  class Jax {

    @ParameterizedTest(name = "{0} of {1} bytes -> {2}")
    @CsvSource({
      "6442450944, 17179869184, 0.3750",
      "6442450944, 150754820096, 0.0427", // 6 GiB of an H200: 0.042734...
      "11453246122, 17179869184, 0.6666", // two thirds: 0.66666... is not rounded up
      "17179869184, 17179869184, 1.0000",
      "17179869183, 17179869184, 0.9999"
    })
    void memoryFractionIsBudgetOverTotalRoundedDown(long budget, long total, String fraction) {
      var spec = aWorker().framework(Framework.JAX).onGpus(aGpu(0, total)).budget(budget).build();

      assertThat(environment.imposedVariables(spec))
          .containsEntry(XLA_PYTHON_CLIENT_MEM_FRACTION, fraction);
    }

    @Test
    @DisplayName("with GPUs of different sizes, the smallest GPU's fraction holds for all")
    void smallestFractionWins() {
      var spec =
          aWorker()
              .framework(Framework.JAX)
              .onGpus(aGpu(0, 80 * GIB), aGpu(1, 16 * GIB), aGpu(2, 40 * GIB))
              .budget(8 * GIB)
              .build();

      assertThat(environment.imposedVariables(spec))
          .containsEntry(XLA_PYTHON_CLIENT_MEM_FRACTION, "0.1000");
    }

    @Test
    void preallocatesItsBudgetByDefault() {
      var vars = environment.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars).containsEntry(XLA_PYTHON_CLIENT_PREALLOCATE, "true");
    }

    @Test
    void preallocationCanBeTurnedOffForTheNode() {
      var lazy = new WorkerEnvironment(settings().withPreallocateJax(false));

      var vars = lazy.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars).containsEntry(XLA_PYTHON_CLIENT_PREALLOCATE, "false");
    }

    @Test
    void sharesTheNodeCompilationCacheOfItsAccountByDefault() {
      var vars = environment.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars)
          .containsEntry(JAX_COMPILATION_CACHE_DIR, NODE_CACHE.resolve("1001").toString());
    }

    @Test
    @DisplayName(
        "never shares a compilation cache with another account, whose compiled programs it would run")
    void accountsHaveTheirOwnCompilationCaches() {
      var alices = environment.imposedVariables(aWorker().framework(Framework.JAX).build());
      var bobs =
          environment.imposedVariables(aWorker().framework(Framework.JAX).runningAs(BOB).build());

      assertThat(alices.get(JAX_COMPILATION_CACHE_DIR))
          .isNotEqualTo(bobs.get(JAX_COMPILATION_CACHE_DIR));
      assertThat(bobs)
          .containsEntry(JAX_COMPILATION_CACHE_DIR, NODE_CACHE.resolve("1002").toString());
    }

    @Test
    void keepsItsCompilationCacheInTheJobDirectoryWhenToldTo() {
      var perJob =
          new WorkerEnvironment(settings().withJaxCompilationCache(JaxCompilationCache.PER_JOB));

      var vars = perJob.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars)
          .containsEntry(JAX_COMPILATION_CACHE_DIR, WORK_DIR.resolve("jax-cache").toString());
    }

    @Test
    void hasNoCompilationCacheWhenItIsOff() {
      var off = new WorkerEnvironment(settings().withJaxCompilationCache(JaxCompilationCache.OFF));

      var vars = off.imposedVariables(aWorker().framework(Framework.JAX).build());

      assertThat(vars).doesNotContainKey(JAX_COMPILATION_CACHE_DIR);
    }
  }

  @Nested
  @DisplayName("generic")
  class Generic {

    @Test
    @DisplayName("caps XLA at the budget but takes nothing up front")
    void capsXlaWithoutPreallocating() {
      var vars =
          environment.imposedVariables(
              aWorker().framework(Framework.GENERIC).budget(4 * GIB).build());

      assertThat(vars)
          .containsEntry(XLA_PYTHON_CLIENT_MEM_FRACTION, "0.2500")
          .containsEntry(XLA_PYTHON_CLIENT_PREALLOCATE, "false")
          .containsEntry(JAX_COMPILATION_CACHE_DIR, NODE_CACHE.resolve("1001").toString())
          .doesNotContainKeys(GPUQ_TORCH_MEMORY_FRACTION, GPUQ_TF_MEMORY_LIMIT_MB);
    }
  }

  @Nested
  @DisplayName("pytorch")
  class Pytorch {

    @Test
    @DisplayName("tells the hook each device's fraction, in CUDA_VISIBLE_DEVICES order")
    void fractionPerDevice() {
      var spec =
          aWorker()
              .framework(Framework.PYTORCH)
              .onGpus(aGpu(5, 16 * GIB), aGpu(2, 32 * GIB))
              .budget(6 * GIB)
              .build();

      assertThat(environment.imposedVariables(spec))
          .containsEntry(GPUQ_TORCH_MEMORY_FRACTION, "0.3750,0.1875")
          .containsEntry(XLA_PYTHON_CLIENT_PREALLOCATE, "false")
          .doesNotContainKeys(
              XLA_PYTHON_CLIENT_MEM_FRACTION, JAX_COMPILATION_CACHE_DIR, GPUQ_TF_MEMORY_LIMIT_MB);
    }

    @Test
    @DisplayName("gets expandable segments under both allocator variable names")
    void expandableSegmentsByDefault() {
      var env =
          environment.environment(
              aWorker().framework(Framework.PYTORCH).build(), Map.of(), Map.of());

      assertThat(env)
          .containsEntry(PYTORCH_ALLOC_CONF, "expandable_segments:True")
          .containsEntry(PYTORCH_CUDA_ALLOC_CONF, "expandable_segments:True");
    }

    @ParameterizedTest
    @CsvSource({
      "PYTORCH_ALLOC_CONF, 'max_split_size_mb:128'",
      "PYTORCH_CUDA_ALLOC_CONF, 'backend:cudaMallocAsync'",
      "PYTORCH_ALLOC_CONF, ''"
    })
    @DisplayName("keeps a user's own allocator configuration untouched, under either name")
    void userAllocatorConfigurationWins(String name, String value) {
      var env =
          environment.environment(
              aWorker().framework(Framework.PYTORCH).build(), Map.of(), Map.of(name, value));

      assertThat(env).containsEntry(name, value);
      assertThat(env.keySet().stream().filter(k -> k.startsWith("PYTORCH_"))).containsExactly(name);
    }

    @Test
    void inheritedAllocatorConfigurationIsKeptToo() {
      var env =
          environment.environment(
              aWorker().framework(Framework.PYTORCH).build(),
              Map.of(PYTORCH_CUDA_ALLOC_CONF, "garbage_collection_threshold:0.6"),
              Map.of());

      assertThat(env)
          .containsEntry(PYTORCH_CUDA_ALLOC_CONF, "garbage_collection_threshold:0.6")
          .doesNotContainKey(PYTORCH_ALLOC_CONF);
    }

    @ParameterizedTest
    @EnumSource(
        value = Framework.class,
        names = {"JAX", "TENSORFLOW", "GENERIC"})
    void otherFrameworksGetNoTorchAllocatorSetting(Framework framework) {
      var env = environment.environment(aWorker().framework(framework).build(), Map.of(), Map.of());

      assertThat(env).doesNotContainKeys(PYTORCH_ALLOC_CONF, PYTORCH_CUDA_ALLOC_CONF);
    }
  }

  @Nested
  @DisplayName("tensorflow")
  class Tensorflow {

    @Test
    @DisplayName("grows on demand and tells the hook the budget in MiB")
    void growsWithinALimit() {
      var vars =
          environment.imposedVariables(
              aWorker().framework(Framework.TENSORFLOW).budget(6 * GIB + 123).build());

      assertThat(vars)
          .containsEntry(TF_FORCE_GPU_ALLOW_GROWTH, "true")
          .containsEntry(GPUQ_TF_MEMORY_LIMIT_MB, "6144")
          .containsEntry(XLA_PYTHON_CLIENT_PREALLOCATE, "false")
          .doesNotContainKeys(
              XLA_PYTHON_CLIENT_MEM_FRACTION,
              GPUQ_TORCH_MEMORY_FRACTION,
              JAX_COMPILATION_CACHE_DIR);
    }
  }

  @Nested
  @DisplayName("reserved names")
  class Reserved {

    @Test
    @DisplayName("cover every variable imposed on any framework, with any settings, GPUs or not")
    void coverEverythingImposed() {
      for (JaxCompilationCache cache : JaxCompilationCache.values()) {
        for (boolean preallocate : new boolean[] {true, false}) {
          var env =
              new WorkerEnvironment(
                  settings().withJaxCompilationCache(cache).withPreallocateJax(preallocate));
          for (Framework framework : EnumSet.allOf(Framework.class)) {
            assertThat(reservedNames())
                .containsAll(env.imposedVariables(aWorker().framework(framework).build()).keySet())
                .containsAll(
                    env.imposedVariables(aWorker().framework(framework).cpuOnly().build())
                        .keySet());
          }
        }
      }
    }

    @Test
    void includeTheContractsVariables() {
      assertThat(reservedNames())
          .contains(
              "CUDA_VISIBLE_DEVICES",
              "CUDA_DEVICE_ORDER",
              "XLA_PYTHON_CLIENT_MEM_FRACTION",
              "XLA_PYTHON_CLIENT_PREALLOCATE",
              "GPUQ_JOB_ID",
              "GPUQ_GPU_MEMORY_BYTES",
              "GPUQ_METRICS_FILE",
              "GPUQ_CHECKPOINT_DIR",
              "GPUQ_ATTEMPT");
    }

    @Test
    @DisplayName("leave out what is merged: PYTHONPATH and the torch allocator settings")
    void leaveOutMergedVariables() {
      assertThat(reservedNames())
          .doesNotContain(PYTHONPATH, PYTORCH_ALLOC_CONF, PYTORCH_CUDA_ALLOC_CONF);
    }

    @Test
    void cannotBeChanged() {
      assertThatThrownBy(() -> reservedNames().add("HOME"))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Nested
  @DisplayName("the complete environment")
  class Complete {

    private final WorkerSpec spec = aWorker().framework(Framework.JAX).build();

    @Test
    @DisplayName(
        "of a sweep's trial has its sweep, number and parameters, which neither the user's env nor"
            + " gpuq's own environment can set")
    void aTrialHasItsSweepVariables() {
      SweepTrial trial = new SweepTrial("01JD5R0000000000000000SWEEP", 17, "{\"lr\":0.003}");
      Map<String, String> attempt = Map.of("GPUQ_TRIAL", "1", "GPUQ_PARAMS", "{}");

      var env = environment.environment(spec, attempt, attempt, trial);

      assertThat(env)
          .containsEntry("GPUQ_SWEEP_ID", "01JD5R0000000000000000SWEEP")
          .containsEntry("GPUQ_TRIAL", "17")
          .containsEntry("GPUQ_PARAMS", "{\"lr\":0.003}");
      assertThat(reservedNames()).containsAll(TrialEnvironment.NAMES);
      assertThat(environment.environment(spec, attempt, attempt).keySet())
          .doesNotContainAnyElementsOf(TrialEnvironment.NAMES);
    }

    @Test
    @DisplayName(
        "inherits gpuq's environment except its own GPUQ_ and SPRING_ settings and JVM options")
    void dropsGpuqsPrivateSettings() {
      var base =
          Map.of(
              "PATH", "/usr/bin",
              "LANG", "C.UTF-8",
              "GPUQ_AUTH_TOKENS_0_TOKEN", "s3cret",
              "SPRING_DATASOURCE_PASSWORD", "hunter2",
              "spring.datasource.password", "hunter2",
              "gpuq_data_dir", "/var/lib/gpuq",
              "JAVA_TOOL_OPTIONS", "-Xmx1g");

      var env = environment.environment(spec, base, Map.of());

      assertThat(env).containsEntry("PATH", "/usr/bin").containsEntry("LANG", "C.UTF-8");
      assertThat(env).doesNotContainKey("JAVA_TOOL_OPTIONS");
      assertThat(env.keySet())
          .noneMatch(name -> name.toUpperCase().startsWith("SPRING"))
          .filteredOn(name -> name.toUpperCase().startsWith("GPUQ"))
          .containsExactlyInAnyOrder(
              GPUQ_JOB_ID,
              GPUQ_GPU_MEMORY_BYTES,
              WorkerEnvironment.GPUQ_METRICS_FILE,
              GPUQ_CHECKPOINT_DIR,
              GPUQ_ATTEMPT,
              GPUQ_REQUEUE_EXIT_CODE);
    }

    @Test
    void usersEnvOverridesTheInheritedOne() {
      var env =
          environment.environment(
              spec,
              Map.of("WANDB_MODE", "online", "LANG", "C.UTF-8"),
              Map.of("WANDB_MODE", "offline"));

      assertThat(env).containsEntry("WANDB_MODE", "offline").containsEntry("LANG", "C.UTF-8");
    }

    @Test
    @DisplayName("imposed variables win over the inherited and the user's environment")
    void imposedWin() {
      var env =
          environment.environment(
              spec,
              Map.of(CUDA_VISIBLE_DEVICES, "0,1,2,3", TMPDIR, "/tmp"),
              Map.of(XLA_PYTHON_CLIENT_MEM_FRACTION, "0.95"));

      assertThat(env)
          .containsEntry(CUDA_VISIBLE_DEVICES, "GPU-0-5e0c")
          .containsEntry(TMPDIR, WORK_DIR.resolve("tmp").toString())
          .containsEntry(XLA_PYTHON_CLIENT_MEM_FRACTION, "0.3750");
    }

    @Test
    @DisplayName("reserved names gpuq does not impose on this worker are not let through either")
    void reservedButNotImposedAreDropped() {
      var pytorch = aWorker().framework(Framework.PYTORCH).build();

      var env =
          environment.environment(
              pytorch,
              Map.of(JAX_COMPILATION_CACHE_DIR, "/shared/cache"),
              Map.of(XLA_PYTHON_CLIENT_MEM_FRACTION, "0.95"));

      assertThat(env).doesNotContainKeys(JAX_COMPILATION_CACHE_DIR, XLA_PYTHON_CLIENT_MEM_FRACTION);
    }

    @Test
    void pythonPathIsTheHookAloneWhenNobodySetOne() {
      var env = environment.environment(spec, Map.of(), Map.of());

      assertThat(env).containsEntry(PYTHONPATH, HOOK_DIR.toString());
    }

    @Test
    void hookComesBeforeTheUsersPythonPath() {
      var env =
          environment.environment(
              spec,
              Map.of(PYTHONPATH, "/opt/inherited"),
              Map.of(PYTHONPATH, "/data/exp:/data/lib"));

      assertThat(env).containsEntry(PYTHONPATH, HOOK_DIR + ":/data/exp:/data/lib");
    }

    @Test
    void hookComesBeforeTheInheritedPythonPath() {
      var env = environment.environment(spec, Map.of(PYTHONPATH, "/opt/inherited"), Map.of());

      assertThat(env).containsEntry(PYTHONPATH, HOOK_DIR + ":/opt/inherited");
    }

    @Test
    @DisplayName("an empty PYTHONPATH adds no empty entry (which would mean the current directory)")
    void emptyPythonPath() {
      var env = environment.environment(spec, Map.of(), Map.of(PYTHONPATH, ""));

      assertThat(env).containsEntry(PYTHONPATH, HOOK_DIR.toString());
    }

    @Test
    void cannotBeChanged() {
      var env = environment.environment(spec, Map.of(), Map.of());

      assertThatThrownBy(() -> env.put("X", "y")).isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Nested
  @DisplayName("thread counts")
  class ThreadCounts {

    @Test
    @DisplayName("every runtime's thread count is the job's cores")
    void followTheCores() {
      var env = environment.environment(aWorker().cpus(3).build(), Map.of(), Map.of());

      assertThat(env)
          .containsEntry("OMP_NUM_THREADS", "3")
          .containsEntry("MKL_NUM_THREADS", "3")
          .containsEntry("OPENBLAS_NUM_THREADS", "3")
          .containsEntry("TF_NUM_INTRAOP_THREADS", "3")
          .containsEntry("TF_NUM_INTEROP_THREADS", "3");
    }

    @Test
    @DisplayName("a count the job sets itself wins; one inherited from gpuq's environment does not")
    void theJobsOwnWins() {
      var env =
          environment.environment(
              aWorker().cpus(4).build(),
              Map.of("OMP_NUM_THREADS", "64", "MKL_NUM_THREADS", "64"),
              Map.of("OMP_NUM_THREADS", "2"));

      assertThat(env).containsEntry("OMP_NUM_THREADS", "2").containsEntry("MKL_NUM_THREADS", "2");
    }

    @Test
    @DisplayName("OpenMP's count set by the job alone is every runtime's count")
    void openMpAloneIsForAll() {
      var env =
          environment.environment(
              aWorker().cpus(4).build(), Map.of(), Map.of("OMP_NUM_THREADS", "1"));

      assertThat(env)
          .containsEntry("OMP_NUM_THREADS", "1")
          .containsEntry("MKL_NUM_THREADS", "1")
          .containsEntry("TF_NUM_INTEROP_THREADS", "1");
    }

    @Test
    @DisplayName("are no reserved names: a request may set them")
    void areNotReserved() {
      assertThat(WorkerEnvironment.reservedNames())
          .doesNotContainAnyElementsOf(WorkerEnvironment.THREAD_COUNTS);
    }
  }

  @Nested
  @DisplayName("directories to create")
  class Directories {

    @Test
    void areTheTemporaryDirectoryAndTheJaxCache() {
      var perJob =
          new WorkerEnvironment(settings().withJaxCompilationCache(JaxCompilationCache.PER_JOB));

      assertThat(perJob.directoriesToCreate(aWorker().framework(Framework.JAX).build()))
          .containsExactly(
              WORK_DIR.resolve("tmp"),
              WORK_DIR.resolve("checkpoint"),
              WORK_DIR.resolve("jax-cache"));
      assertThat(perJob.directoriesToCreate(aWorker().framework(Framework.PYTORCH).build()))
          .containsExactly(WORK_DIR.resolve("tmp"), WORK_DIR.resolve("checkpoint"));
      assertThat(environment.directoriesToCreate(aWorker().framework(Framework.JAX).build()))
          .containsExactly(
              WORK_DIR.resolve("tmp"), WORK_DIR.resolve("checkpoint"), NODE_CACHE.resolve("1001"));
    }
  }

  @Nested
  @DisplayName("account")
  class AccountVariables {

    @Test
    @DisplayName("HOME, USER and LOGNAME are the worker's account's, not gpuq's")
    void followTheAccount(@TempDir Path home) {
      Account carol = new Account("carol", 1003, 1003, Optional.of(home), true);

      var env =
          environment.environment(
              aWorker().runningAs(carol).build(),
              Map.of("HOME", "/root", "USER", "root", "LOGNAME", "root"),
              Map.of());

      assertThat(env)
          .containsEntry("HOME", home.toString())
          .containsEntry("USER", "carol")
          .containsEntry("LOGNAME", "carol");
    }

    @Test
    @DisplayName("an account without a home directory gets its work directory as HOME")
    void homeless() {
      var env = environment.environment(aWorker().build(), Map.of("HOME", "/root"), Map.of());

      assertThat(env).containsEntry("HOME", WORK_DIR.toString()).containsEntry("USER", "alice");
    }

    @Test
    @DisplayName("the job's own env may still set HOME")
    void theJobMaySetHome() {
      var env =
          environment.environment(aWorker().build(), Map.of(), Map.of("HOME", "/scratch/alice"));

      assertThat(env).containsEntry("HOME", "/scratch/alice");
    }
  }

  @Nested
  @DisplayName("memory fraction")
  class Fraction {

    @Test
    @DisplayName("of a tiny budget keeps two significant digits instead of becoming 0")
    void tinyBudget() {
      BigDecimal fraction = memoryFraction(1L << 20, 150754820096L);

      assertThat(fraction).isEqualByComparingTo("0.0000069");
      assertThat(fraction.toPlainString()).isEqualTo("0.0000069");
    }

    @Test
    void ofNothingIsZero() {
      assertThat(memoryFraction(0, 16 * GIB).toPlainString()).isEqualTo("0.0000");
    }

    @Test
    void refusesABudgetLargerThanTheGpu() {
      assertThatThrownBy(() -> memoryFraction(17 * GIB, 16 * GIB))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Nested
  @DisplayName("a worker spec")
  class Spec {

    @Test
    void refusesABudgetLargerThanAPlacedGpu() {
      assertThatThrownBy(
              () -> aWorker().onGpus(aGpu(0, 80 * GIB), aGpu(1, 16 * GIB)).budget(20 * GIB).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("GPU 1");
    }

    @Test
    void hasNoBudgetWithoutGpus() {
      assertThat(aWorker().cpuOnly().budget(GIB).build().budgetBytesPerGpu()).isZero();
    }

    @Test
    @DisplayName("refuses different budgets on its GPUs: a worker has one")
    void refusesDifferentBudgets() {
      List<PlacedGpu> gpus =
          List.of(
              new PlacedGpu(0, "GPU-a", GIB, 16 * GIB),
              new PlacedGpu(1, "GPU-b", 2 * GIB, 16 * GIB));

      assertThatThrownBy(
              () -> new WorkerSpec("01JD5Q8Z6Y3M", Framework.JAX, gpus, WORK_DIR, Workers.ALICE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("one budget");
    }

    @Test
    void refusesAGpuWorkerWithoutABudget() {
      assertThatThrownBy(() -> aWorker().budget(0).build())
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesARelativeJobDirectory() {
      assertThatThrownBy(() -> aWorker().workDir(Path.of("work/1")).build())
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("refuses a GPU uuid with a comma, which would split CUDA_VISIBLE_DEVICES")
    void refusesCommaInUuid() {
      assertThatThrownBy(() -> aWorker().onGpus(new PlacedGpu(0, "GPU-a,GPU-b", 0, GIB)).build())
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void frameworksAreNamedAsInTheApi() {
    assertThat(Framework.fromWireName("pytorch")).contains(Framework.PYTORCH);
    assertThat(Framework.fromWireName("PyTorch")).isEmpty();
    assertThat(Framework.TENSORFLOW.wireName()).isEqualTo("tensorflow");
  }
}

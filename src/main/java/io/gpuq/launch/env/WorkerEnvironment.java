package io.gpuq.launch.env;

import io.gpuq.job.Framework;
import io.gpuq.job.SweepTrial;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.sweep.TrialEnvironment;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The environment gpuq gives a worker process: which GPUs it sees and how much of their memory each
 * framework may take. Every variable, per framework and with its reason, is listed in {@code
 * docs/worker-environment.md}.
 *
 * <p>Budgets are only requested here: the frameworks cooperate by reading these variables (and
 * gpuq's Python hook for torch and tensorflow). A program that ignores them is stopped by gpuq's
 * budget enforcement, not by anything in its environment.
 *
 * <p>Memory fractions are budget ÷ the GPU's total memory, rounded <em>down</em> to {@value
 * PlacedGpu#FRACTION_DECIMALS} decimals ({@link PlacedGpu#memoryFraction()}), so a framework that
 * honours them never exceeds the budget.
 */
public final class WorkerEnvironment {

  public static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";
  public static final String CUDA_DEVICE_ORDER = "CUDA_DEVICE_ORDER";
  public static final String GPUQ_JOB_ID = "GPUQ_JOB_ID";
  public static final String GPUQ_GPU_MEMORY_BYTES = "GPUQ_GPU_MEMORY_BYTES";
  public static final String TMPDIR = "TMPDIR";

  /**
   * Where the run appends its metrics, one JSON object a line; gpuq reads the file as it polls
   * (docs/sweep-core.md).
   */
  public static final String GPUQ_METRICS_FILE = "GPUQ_METRICS_FILE";

  /**
   * The metrics file's name in the job's work directory: the one directory of the job that its
   * account may write (gpuq's own {@code jobs/<id>/} is closed to it) and that it cannot replace.
   */
  public static final String METRICS_FILE_NAME = "metrics.jsonl";

  /**
   * The job's checkpoint directory (issue 35): one per job, the same in every attempt (on the same
   * node), mode 0700 and owned by the job's account, deleted with the job's files by retention.
   */
  public static final String GPUQ_CHECKPOINT_DIR = "GPUQ_CHECKPOINT_DIR";

  /** The checkpoint directory's name in the job's work directory. */
  public static final String CHECKPOINT_DIR_NAME = "checkpoint";

  /**
   * The exit code with which a job asks to go back to the queue (issue 35), as a preempted one
   * does; always {@link io.gpuq.job.AttemptEnd#REQUEUE_EXIT_CODE}.
   */
  public static final String GPUQ_REQUEUE_EXIT_CODE = "GPUQ_REQUEUE_EXIT_CODE";

  /** Which attempt of the job this is, from 1 (issue 35). */
  public static final String GPUQ_ATTEMPT = "GPUQ_ATTEMPT";

  public static final String HOME = "HOME";
  public static final String USER = "USER";
  public static final String LOGNAME = "LOGNAME";
  public static final String XLA_PYTHON_CLIENT_MEM_FRACTION = "XLA_PYTHON_CLIENT_MEM_FRACTION";
  public static final String XLA_PYTHON_CLIENT_PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE";
  public static final String JAX_COMPILATION_CACHE_DIR = "JAX_COMPILATION_CACHE_DIR";
  public static final String TF_FORCE_GPU_ALLOW_GROWTH = "TF_FORCE_GPU_ALLOW_GROWTH";

  /**
   * Per visible device, comma-separated, in {@code CUDA_VISIBLE_DEVICES} order; read by the hook.
   */
  public static final String GPUQ_TORCH_MEMORY_FRACTION = "GPUQ_TORCH_MEMORY_FRACTION";

  /** The budget in MiB, TensorFlow's unit for a logical device's memory limit; read by the hook. */
  public static final String GPUQ_TF_MEMORY_LIMIT_MB = "GPUQ_TF_MEMORY_LIMIT_MB";

  /** Not reserved: gpuq's hook directory is prepended to the user's or the inherited value. */
  public static final String PYTHONPATH = "PYTHONPATH";

  /** Read by torch 2.9 and later; the older name below by every torch before it. */
  public static final String PYTORCH_ALLOC_CONF = "PYTORCH_ALLOC_CONF";

  public static final String PYTORCH_CUDA_ALLOC_CONF = "PYTORCH_CUDA_ALLOC_CONF";

  /**
   * The allocator setting a pytorch worker gets unless it configures the allocator itself.
   * Expandable segments grow one mapping instead of caching many fixed-size blocks, so a job
   * fragments less and fits its budget with fewer spurious out-of-memory errors. The key is valid
   * under both variable names.
   */
  public static final String DEFAULT_TORCH_ALLOC_CONF = "expandable_segments:True";

  /**
   * The thread-pool sizes of the common numerical runtimes, each set to the job's cores unless the
   * job sets it itself: every one of them otherwise starts a thread per core of the node, and 32
   * small jobs on one node then fight over its CPUs. OpenMP's is read by PyTorch's intra-op pool
   * and by NumPy's and SciPy's BLAS builds; MKL's and OpenBLAS's by those libraries directly;
   * TensorFlow reads its two at start. XLA's CPU client has no such variable (its thread pool is
   * sized from the CPUs the process may run on, which the affinity binding sets), so none is set
   * for it (docs/worker-environment.md, "Thread counts").
   */
  static final String OMP_NUM_THREADS = "OMP_NUM_THREADS";

  static final List<String> THREAD_COUNTS =
      List.of(
          OMP_NUM_THREADS,
          "MKL_NUM_THREADS",
          "OPENBLAS_NUM_THREADS",
          "TF_NUM_INTRAOP_THREADS",
          "TF_NUM_INTEROP_THREADS");

  private static final Set<String> RESERVED =
      Collections.unmodifiableSet(
          new TreeSet<>(
              List.of(
                  CUDA_VISIBLE_DEVICES,
                  CUDA_DEVICE_ORDER,
                  GPUQ_JOB_ID,
                  GPUQ_GPU_MEMORY_BYTES,
                  TMPDIR,
                  GPUQ_METRICS_FILE,
                  GPUQ_CHECKPOINT_DIR,
                  GPUQ_ATTEMPT,
                  GPUQ_REQUEUE_EXIT_CODE,
                  XLA_PYTHON_CLIENT_MEM_FRACTION,
                  XLA_PYTHON_CLIENT_PREALLOCATE,
                  JAX_COMPILATION_CACHE_DIR,
                  TF_FORCE_GPU_ALLOW_GROWTH,
                  GPUQ_TORCH_MEMORY_FRACTION,
                  GPUQ_TF_MEMORY_LIMIT_MB,
                  TrialEnvironment.SWEEP_ID,
                  TrialEnvironment.TRIAL,
                  TrialEnvironment.PARAMS)));

  // gpuq's own configuration arrives through these (tokens, database passwords); a worker is
  // another user's program and must never see them.
  private static final List<String> PRIVATE_PREFIXES =
      List.of("GPUQ_", "GPUQ.", "SPRING_", "SPRING.");

  // Options for gpuq's own JVM (heap size and the like), which a Java training run would
  // otherwise pick up as its own.
  private static final Set<String> PRIVATE_NAMES =
      Set.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS");

  private final WorkerEnvironmentSettings settings;

  public WorkerEnvironment(WorkerEnvironmentSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Every name gpuq may impose on a worker of any framework, sorted. A request whose {@code env}
   * sets one of them is refused; {@code PYTHONPATH} and the torch allocator variables are merged
   * instead and are not in this set.
   */
  public static Set<String> reservedNames() {
    return RESERVED;
  }

  /**
   * The variables gpuq imposes on this worker, in a stable order. They override anything the user
   * or gpuq's own environment says.
   */
  public Map<String, String> imposedVariables(WorkerSpec spec) {
    Map<String, String> vars = new LinkedHashMap<>();
    // Empty for a CPU-only job: CUDA then enumerates no device at all.
    vars.put(
        CUDA_VISIBLE_DEVICES,
        spec.gpus().stream().map(PlacedGpu::uuid).collect(Collectors.joining(",")));
    // The default order is "fastest first", which disagrees with nvidia-smi and NVML indices.
    vars.put(CUDA_DEVICE_ORDER, "PCI_BUS_ID");
    vars.put(GPUQ_JOB_ID, spec.jobId());
    vars.put(GPUQ_GPU_MEMORY_BYTES, Long.toString(spec.budgetBytesPerGpu()));
    vars.put(TMPDIR, tmpDir(spec).toString());
    vars.put(GPUQ_METRICS_FILE, spec.workDir().resolve(METRICS_FILE_NAME).toString());
    vars.put(GPUQ_CHECKPOINT_DIR, checkpointDir(spec).toString());
    vars.put(GPUQ_ATTEMPT, Integer.toString(spec.attempt()));
    vars.put(GPUQ_REQUEUE_EXIT_CODE, Integer.toString(io.gpuq.job.AttemptEnd.REQUEUE_EXIT_CODE));
    switch (spec.framework()) {
      case JAX -> {
        putXlaFraction(vars, spec);
        vars.put(XLA_PYTHON_CLIENT_PREALLOCATE, Boolean.toString(settings.preallocateJax()));
        putJaxCache(vars, spec);
      }
      case GENERIC -> {
        putXlaFraction(vars, spec);
        vars.put(XLA_PYTHON_CLIENT_PREALLOCATE, "false");
        putJaxCache(vars, spec);
      }
      case PYTORCH -> {
        vars.put(XLA_PYTHON_CLIENT_PREALLOCATE, "false");
        if (!spec.gpus().isEmpty()) {
          vars.put(
              GPUQ_TORCH_MEMORY_FRACTION,
              spec.gpus().stream()
                  .map(gpu -> gpu.memoryFraction().toPlainString())
                  .collect(Collectors.joining(",")));
        }
      }
      case TENSORFLOW -> {
        vars.put(XLA_PYTHON_CLIENT_PREALLOCATE, "false");
        vars.put(TF_FORCE_GPU_ALLOW_GROWTH, "true");
        if (!spec.gpus().isEmpty()) {
          // At least 1 MiB: TensorFlow reads 0 as "no memory at all", not "no limit".
          long mib = Math.max(1, spec.budgetBytesPerGpu() >> 20);
          vars.put(GPUQ_TF_MEMORY_LIMIT_MB, Long.toString(mib));
        }
      }
    }
    return Collections.unmodifiableMap(vars);
  }

  /**
   * The worker's complete environment: gpuq's own environment without its private variables, then
   * {@code HOME}, {@code USER} and {@code LOGNAME} of the worker's account, then the user's {@code
   * env}, then the imposed variables; {@code PYTHONPATH} starts with gpuq's hook directory.
   * Reserved names in the user's map are dropped (validation refuses them earlier; this is the
   * second line). A pytorch worker that configures the torch allocator under either name, through
   * its {@code env} or the inherited environment, keeps exactly that configuration; otherwise both
   * names get {@link #DEFAULT_TORCH_ALLOC_CONF}.
   */
  public Map<String, String> environment(
      WorkerSpec spec, Map<String, String> baseEnvironment, Map<String, String> userEnvironment) {
    return environment(spec, baseEnvironment, userEnvironment, null);
  }

  /**
   * The environment of a sweep's trial: every worker's, and the trial's own {@code GPUQ_SWEEP_ID},
   * {@code GPUQ_TRIAL} and {@code GPUQ_PARAMS} ({@link TrialEnvironment}).
   *
   * @param trial null for a job of its own
   */
  public Map<String, String> environment(
      WorkerSpec spec,
      Map<String, String> baseEnvironment,
      Map<String, String> userEnvironment,
      SweepTrial trial) {
    Map<String, String> env = new LinkedHashMap<>();
    baseEnvironment.forEach(
        (name, value) -> {
          if (!isPrivate(name) && !RESERVED.contains(name)) {
            env.put(name, value);
          }
        });
    env.putAll(accountVariables(spec));
    // Before the job's own variables, so that a count the job sets wins; after gpuq's own, which
    // describe gpuq's machine, not the job's cores. A job that sets OpenMP's count alone means it
    // for all: PyTorch reads MKL's after OpenMP's, and would otherwise take the cores.
    String threads = userEnvironment.getOrDefault(OMP_NUM_THREADS, Integer.toString(spec.cpus()));
    THREAD_COUNTS.forEach(name -> env.put(name, threads));
    userEnvironment.forEach(
        (name, value) -> {
          if (!RESERVED.contains(name)) {
            env.put(name, value);
          }
        });
    if (spec.framework() == Framework.PYTORCH
        && !env.containsKey(PYTORCH_ALLOC_CONF)
        && !env.containsKey(PYTORCH_CUDA_ALLOC_CONF)) {
      // Both names: torch versions differ in which one they read first.
      env.put(PYTORCH_ALLOC_CONF, DEFAULT_TORCH_ALLOC_CONF);
      env.put(PYTORCH_CUDA_ALLOC_CONF, DEFAULT_TORCH_ALLOC_CONF);
    }
    env.putAll(imposedVariables(spec));
    if (trial != null) {
      env.putAll(TrialEnvironment.of(trial));
    }
    env.put(PYTHONPATH, pythonPath(env.get(PYTHONPATH)));
    return Collections.unmodifiableMap(env);
  }

  /**
   * Who the worker is: an account without a home directory (such as {@code nobody}) gets its work
   * directory as {@code HOME}, where tools that keep caches under {@code ~} can write.
   */
  private static Map<String, String> accountVariables(WorkerSpec spec) {
    Map<String, String> vars = new LinkedHashMap<>();
    Path home = spec.account().home().filter(Files::isDirectory).orElse(spec.workDir());
    vars.put(HOME, home.toString());
    vars.put(USER, spec.account().name());
    vars.put(LOGNAME, spec.account().name());
    return vars;
  }

  /**
   * Directories named in this worker's environment that must exist before it starts: its {@code
   * TMPDIR} and, when it uses one, its JAX compilation cache.
   */
  public List<Path> directoriesToCreate(WorkerSpec spec) {
    List<Path> dirs = new ArrayList<>();
    dirs.add(tmpDir(spec));
    dirs.add(checkpointDir(spec));
    jaxCacheDir(spec).ifPresent(dirs::add);
    return List.copyOf(dirs);
  }

  private void putXlaFraction(Map<String, String> vars, WorkerSpec spec) {
    PlacedGpu.commonFraction(spec.gpus())
        .ifPresent(fraction -> vars.put(XLA_PYTHON_CLIENT_MEM_FRACTION, fraction.toPlainString()));
  }

  private void putJaxCache(Map<String, String> vars, WorkerSpec spec) {
    jaxCacheDir(spec).ifPresent(dir -> vars.put(JAX_COMPILATION_CACHE_DIR, dir.toString()));
  }

  private Optional<Path> jaxCacheDir(WorkerSpec spec) {
    if (spec.framework() != Framework.JAX && spec.framework() != Framework.GENERIC) {
      return Optional.empty();
    }
    return switch (settings.jaxCompilationCache()) {
      // One per account: a cache another owner could write would run that owner's code.
      case PER_NODE ->
          Optional.of(settings.nodeJaxCacheDir().resolve(Integer.toString(spec.account().uid())));
      case PER_JOB -> Optional.of(spec.workDir().resolve("jax-cache"));
      case OFF -> Optional.empty();
    };
  }

  private static Path checkpointDir(WorkerSpec spec) {
    return spec.workDir().resolve(CHECKPOINT_DIR_NAME);
  }

  private static Path tmpDir(WorkerSpec spec) {
    return spec.workDir().resolve("tmp");
  }

  private String pythonPath(String existing) {
    String hook = settings.pythonHookDir().toString();
    // An empty entry would put the current directory on the path, so none is added.
    return existing == null || existing.isEmpty() ? hook : hook + File.pathSeparator + existing;
  }

  private static boolean isPrivate(String name) {
    String upper = name.toUpperCase(Locale.ROOT);
    return PRIVATE_NAMES.contains(upper) || PRIVATE_PREFIXES.stream().anyMatch(upper::startsWith);
  }
}

package io.gpuq.meters;

/**
 * The Micrometer names of gpuq's meters and their label keys. The Prometheus names (API.md,
 * docs/metrics.md) follow from Micrometer's naming convention: dots become underscores, a base unit
 * is appended ({@code bytes}, {@code seconds}) and counters end in {@code _total}.
 */
public final class MeterNames {

  public static final String GPU_MEMORY_TOTAL = "gpuq.gpu.memory.total";
  public static final String GPU_MEMORY_USED = "gpuq.gpu.memory.used";
  public static final String GPU_MEMORY_RESERVED = "gpuq.gpu.memory.reserved";
  public static final String GPU_UTILIZATION = "gpuq.gpu.utilization";
  public static final String PROCESS_GPU_MEMORY_USED = "gpuq.process.gpu.memory.used";
  public static final String JOB_GPU_MEMORY_USED = "gpuq.job.gpu.memory.used";
  public static final String JOB_GPU_MEMORY_BUDGET = "gpuq.job.gpu.memory.budget";
  public static final String JOBS = "gpuq.jobs";
  public static final String SWEEP_TRIALS = "gpuq.sweep.trials";
  public static final String SWEEP_BEST_VALUE = "gpuq.sweep.best.value";
  public static final String JOB_INFO = "gpuq.job.info";

  public static final String JOB_CPU_USAGE = "gpuq.job.cpu.usage";
  public static final String JOB_CPU_TIME = "gpuq.job.cpu";
  public static final String JOB_RESIDENT_MEMORY = "gpuq.job.resident.memory";

  /** A node's cores: {@code gpuq_node_cpus{node, kind}}, {@code kind} one of {@link #KINDS}. */
  public static final String NODE_CPUS = "gpuq.node.cpus";

  /** A node's host memory: {@code gpuq_node_memory_bytes{node, kind}}. */
  public static final String NODE_MEMORY = "gpuq.node.memory";

  /**
   * Each owner's figures, {@code gpuq_owner_*{owner}}, over the whole cluster as {@code GET
   * /api/v1/owners} shows them.
   */
  public static final String OWNER_SHARE = "gpuq.owner.share";

  public static final String OWNER_RUNNING_JOBS = "gpuq.owner.running.jobs";
  public static final String OWNER_QUEUED_JOBS = "gpuq.owner.queued.jobs";
  public static final String OWNER_GPUS_HELD = "gpuq.owner.gpus.held";
  public static final String OWNER_GPU_MEMORY_HELD = "gpuq.owner.gpu.memory.held";
  public static final String OWNER_RECENT_USAGE = "gpuq.owner.recent.usage";
  public static final String OWNER_DOMINANT_SHARE = "gpuq.owner.dominant.share";
  public static final String OWNER_FAIR_SHARE_POSITION = "gpuq.owner.fair.share.position";

  public static final String JOB_QUEUE_WAIT = "gpuq.job.queue.wait";
  public static final String JOB_SUBMIT_TO_START = "gpuq.job.submit.to.start";
  public static final String JOB_ATTEMPTS_FINISHED = "gpuq.job.attempts.finished";
  public static final String PREEMPTIONS = "gpuq.preemptions";
  public static final String NOTIFICATIONS = "gpuq.notifications";
  public static final String GUARD_ACTIONS = "gpuq.guard.actions";
  public static final String GPU_POLL_DURATION = "gpuq.gpu.poll.duration";
  public static final String GPU_POLL_ERRORS = "gpuq.gpu.poll.errors";
  public static final String STORAGE_FREE = "gpuq.storage.free";
  public static final String STORAGE_MIN_FREE = "gpuq.storage.min.free";

  public static final String BYTES = "bytes";
  public static final String SECONDS = "seconds";
  public static final String RATIO = "ratio";

  public static final String NODE = "node";
  public static final String GPU = "gpu";
  public static final String UUID = "uuid";
  public static final String PID = "pid";
  public static final String JOB_ID = "job_id";
  public static final String STATE = "state";
  public static final String SWEEP = "sweep";
  public static final String NAME = "name";
  public static final String OWNER = "owner";
  public static final String OUTCOME = "outcome";
  public static final String REASON = "reason";
  public static final String POLICY = "policy";
  public static final String KIND = "kind";

  /** The {@code kind}s of the node gauges. */
  public static final String ALLOCATABLE = "allocatable";

  public static final String ALLOCATED = "allocated";
  public static final String USED = "used";

  /**
   * The {@code job_id} of a process on a GPU that no gpuq worker started: empty, which Prometheus
   * treats as "no such label", so {@code job_id=""} selects exactly the foreign processes.
   */
  public static final String NO_JOB = "";

  /** The {@code sweep} of a job that is no sweep's trial: empty, as {@link #NO_JOB}. */
  public static final String NO_SWEEP = "";

  private MeterNames() {}
}

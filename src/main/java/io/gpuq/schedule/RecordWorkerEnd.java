package io.gpuq.schedule;

import io.gpuq.fs.NotARegularFileException;
import io.gpuq.fs.SafeFiles;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.guard.ExitClassifier;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStoreUnavailableException;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerGroupEnd;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.text.MemorySize;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records how a worker ended, whoever watched it (launched or re-adopted) or found it gone after a
 * restart: frees its place, judges its exit, stores the attempt's end (again, later, while the
 * database cannot write) and wakes the scheduler.
 */
public final class RecordWorkerEnd {

  private static final Logger log = LoggerFactory.getLogger(RecordWorkerEnd.class);
  private static final Duration FIRST_RECORD_RETRY = Duration.ofSeconds(1);
  private static final Duration LAST_RECORD_RETRY = Duration.ofSeconds(30);

  private final JobService jobs;
  private final ExitJudging exits;
  private final NodeGpus gpus;
  private final WorkerEndListener listener;
  private final Duration firstRecordRetry;

  /**
   * The jobs whose worker ended here and whose end is not stored yet: the database could not write
   * it (H2 on a full disk), and it is tried again. Such a job may read RUNNING meanwhile (H2 shows
   * a commit it then fails to write, and reopens without it), though no process of it is left.
   */
  private final Set<String> endsNotStored = ConcurrentHashMap.newKeySet();

  /**
   * @param listener told each step: the place freed, the end stored, and before the end is recorded
   */
  public RecordWorkerEnd(
      JobService jobs, ExitJudging exits, NodeGpus gpus, WorkerEndListener listener) {
    this(jobs, exits, gpus, listener, FIRST_RECORD_RETRY);
  }

  /**
   * As the public constructor, with the first wait before an end the database could not write is
   * tried again (doubled each time, up to 30 s): a test's retries need not take seconds.
   */
  RecordWorkerEnd(
      JobService jobs,
      ExitJudging exits,
      NodeGpus gpus,
      WorkerEndListener listener,
      Duration firstRecordRetry) {
    this.jobs = jobs;
    this.exits = exits;
    this.gpus = gpus;
    this.listener = listener;
    this.firstRecordRetry = firstRecordRetry;
  }

  /** The worker of an attempt that held {@code placement} ended: records how. */
  public void ended(WorkerExit exit, JobPlacement placement) {
    // The worker's capacity is free already (it no longer counts as live): the next job may
    // start while this one's end is written. A retried job is queued only once that is done,
    // hence a second wake-up for it.
    listener.capacityFreed(placement);
    gpus.backend().detach(exit.pid());
    AttemptOutcome outcome = classify(exit, placement);
    if (exit.stopReason() != null) {
      noteStop(exit);
    }
    if (exit.group().hitProcessLimit()) {
      noteProcessLimit(exit);
    }
    listener.beforeEndRecorded(exit.jobId());
    endsNotStored.add(exit.jobId());
    recordEnd(exit, outcome, placement, firstRecordRetry);
  }

  /**
   * Whether the job's worker ended on this node and its end is still to be stored: its files are no
   * longer written, whatever state the database shows for it now.
   */
  public boolean endNotStoredYet(String jobId) {
    return endsNotStored.contains(jobId);
  }

  private void recordEnd(
      WorkerExit exit, AttemptOutcome outcome, JobPlacement placement, Duration retryIn) {
    jobs.recordAttemptEndLater(
            exit.jobId(), exit.attempt(), outcome, growthCap(placement), exit.endedAt())
        .whenComplete(
            (state, failure) -> {
              if (failure != null && databaseUnavailable(failure)) {
                // A database that cannot write (H2 on a full disk) comes back once there is space:
                // the end is kept until then, or the job would stay RUNNING with no worker.
                log.warn(
                    "recording the end of job {} failed ({}); trying again in {}",
                    exit.jobId(),
                    failure.getMessage(),
                    retryIn);
                Duration next = retryIn.multipliedBy(2);
                CompletableFuture.delayedExecutor(retryIn.toMillis(), TimeUnit.MILLISECONDS)
                    .execute(
                        () ->
                            recordEnd(
                                exit,
                                outcome,
                                placement,
                                next.compareTo(LAST_RECORD_RETRY) > 0 ? LAST_RECORD_RETRY : next));
              } else if (failure != null) {
                endsNotStored.remove(exit.jobId());
                log.error("recording the end of job {} failed", exit.jobId(), failure);
              } else if (state == JobState.QUEUED) {
                endsNotStored.remove(exit.jobId());
                listener.capacityFreed(placement);
              } else {
                endsNotStored.remove(exit.jobId());
                listener.endStored(placement);
              }
            });
  }

  private static boolean databaseUnavailable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JobStoreUnavailableException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Ends the job's log with why gpuq stopped it, where its output would otherwise just stop
   * ("Terminated"). Written before the end is recorded, so that a finished job's log has it.
   */
  private void noteStop(WorkerExit exit) {
    Path log = exits.files().log(exit.jobId());
    try {
      SafeFiles.appendLine(log, "=== gpuq: " + ExitClassifier.stopWords(exit) + " ===");
    } catch (IOException | RuntimeException e) {
      // The job is stopped all the same; its failure message says why.
      RecordWorkerEnd.log.warn(
          "could not note in {} why job {} was stopped: {}", log, exit.jobId(), e);
    }
  }

  /**
   * Says in the job's log that the kernel refused it forks at its process limit: a job that fails
   * for it shows some "Resource temporarily unavailable" of its own, one that succeeds nothing.
   */
  private void noteProcessLimit(WorkerExit exit) {
    Path log = exits.files().log(exit.jobId());
    try {
      SafeFiles.appendLine(log, "=== gpuq: " + processLimitWords(exit.group()) + " ===");
    } catch (IOException | RuntimeException e) {
      RecordWorkerEnd.log.warn(
          "could not note in {} that job {} met its process limit: {}", log, exit.jobId(), e);
    }
  }

  /** "it reached its limit of 50 processes and threads (gpuq.worker.max-processes): ..." */
  static String processLimitWords(WorkerGroupEnd group) {
    return "it reached its limit of "
        + group.processLimit()
        + " processes and threads (gpuq.worker.max-processes): the kernel refused it "
        + group.forkRefusals()
        + (group.forkRefusals() == 1 ? " fork" : " forks");
  }

  /**
   * How the attempt ended; a failure also says when the job met its process limit, which is likely
   * why it failed.
   */
  private AttemptOutcome classify(WorkerExit exit, JobPlacement placement) {
    AttemptOutcome outcome = judge(exit, placement);
    if (outcome.isSuccess() || !exit.group().hitProcessLimit()) {
      return outcome;
    }
    String said =
        outcome.message() == null || outcome.message().isBlank() ? "" : outcome.message() + "; ";
    return new AttemptOutcome(
        outcome.failureReason(), said + processLimitWords(exit.group()), outcome.exitCode());
  }

  /** Only a failure needs its log read (to recognise an out-of-memory death). */
  private AttemptOutcome judge(WorkerExit exit, JobPlacement placement) {
    ExitClassifier classifier = exits.classifier();
    WorkerGroupEnd group = exit.group();
    if (group.notEntered()) {
      return new AttemptOutcome(
          FailureReason.LAUNCH_ERROR,
          "its worker could not enter its cgroup, so the job was not run (see its log)",
          null);
    }
    boolean succeeded = exit.exitCode() != null && exit.exitCode() == 0;
    // The kernel's own count, whatever the exit code says (a shell may turn SIGKILL into 1).
    if (exit.stopReason() == null && group.oomKills() > 0 && !succeeded) {
      if (group.memoryLimitBytes() != null) {
        return new AttemptOutcome(
            FailureReason.HOST_OUT_OF_MEMORY,
            "killed by the kernel at its host memory cap of "
                + MemorySize.format(group.memoryLimitBytes())
                + " (resources.memory; "
                + group.oomKills()
                + " process(es) killed)",
            exit.exitCode());
      }
      // No cap of its own: the kernel killed it for want of the memory the node's jobs share
      // (their parent group's cap, the node's allocatable memory) or of the host's, and picked it
      // before gpuq for its worker's high oom_score_adj.
      return new AttemptOutcome(
          FailureReason.HOST_OUT_OF_MEMORY,
          "killed by the kernel for want of host memory ("
              + group.oomKills()
              + " process(es) killed): it set no resources.memory, so it shared the memory this"
              + " node gives all its jobs with them and had none of its own; set"
              + " resources.memory to be given and capped at an amount",
          exit.exitCode());
    }
    if (exit.exitCode() == null
        && exit.stopReason() == null
        && exits.workers().exitCodeUnwritten(exit.jobId(), exit.attempt())) {
      // Run again, a job that did its work would do it twice.
      return new AttemptOutcome(
          FailureReason.EXIT_UNRECORDED,
          "its worker ended while gpuq was not watching, and its exit code could not be written"
              + " (no space left in the data directory?); not retried, since it may have done its"
              + " work",
          null);
    }
    if (exit.exitCode() != null && exit.exitCode() == 0) {
      return classifier.classify(exit, "");
    }
    Path log = exits.files().log(exit.jobId());
    Supplier<Long> peak = () -> jobs.peakGpuMemoryOf(exit.jobId(), exit.attempt()).orElse(null);
    try {
      return classifier.classify(
          exit, thisAttempt(SafeFiles.readTail(log, exits.logTailBytes())), placement, peak);
    } catch (NotARegularFileException e) {
      // Only a job that shares gpuq's account can get there; it fails alone, and says why.
      AttemptOutcome outcome = classifier.classify(exit, "");
      return new AttemptOutcome(
          outcome.failureReason(),
          outcome.message()
              + "; its log was replaced by "
              + e.kind()
              + ", so it was not searched for an out-of-memory error",
          outcome.exitCode());
    } catch (IOException e) {
      return classifier.classify(exit, "");
    }
  }

  /** The part of a log tail that this attempt wrote: an earlier attempt's OOM is not this one's. */
  static String thisAttempt(String logTail) {
    int start = logTail.lastIndexOf(WorkerLauncher.ATTEMPT_SEPARATOR);
    return start < 0 ? logTail : logTail.substring(start);
  }

  /** A budget grown after a memory failure may reach, at most, the smallest GPU it ran on. */
  private long growthCap(JobPlacement placement) {
    return placement.gpus().stream()
        .mapToLong(gpu -> gpu.totalBytes() > 0 ? gpu.totalBytes() : totalOf(gpu.index()))
        .filter(total -> total > 0)
        .min()
        .orElse(0);
  }

  // Only for a placement recorded by a gpuq that did not record totals (a rolling upgrade).
  private long totalOf(int gpuIndex) {
    return gpus.inventory().device(gpuIndex).map(GpuDevice::memoryTotalBytes).orElse(0L);
  }
}

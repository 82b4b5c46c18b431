package io.gpuq.schedule;

import io.gpuq.fs.NotARegularFileException;
import io.gpuq.fs.SafeFiles;
import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.guard.ExitClassifier;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.FailureReason;
import io.gpuq.job.Job;
import io.gpuq.job.JobAttempt;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStoreUnavailableException;
import io.gpuq.job.StoppedAttempt;
import io.gpuq.job.WorkerProcess;
import io.gpuq.launch.AdoptRequest;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchException;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.RecordedExit;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.launch.WorkerSetup;
import io.gpuq.launch.Workers;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one attempt of a placed job: marks it started, launches its worker, and when the worker
 * ends, records how and wakes the scheduler, whose capacity it freed.
 */
public class JobExecution {

  private static final Logger log = LoggerFactory.getLogger(JobExecution.class);
  private static final Duration FIRST_RECORD_RETRY = Duration.ofSeconds(1);
  private static final Duration LAST_RECORD_RETRY = Duration.ofSeconds(30);

  private final JobService jobs;
  private final Workers workers;
  private final JobFiles files;
  private final BiFunction<ClaimedJob, JobPlacement, WorkerSetup> setup;
  private final ExitClassifier classifier;
  private final int logTailBytes;
  private final GpuBackend gpus;
  private final GpuInventory inventory;
  private final ProcFs procFs;
  private final Consumer<JobPlacement> onCapacityFreed;
  private final Consumer<JobPlacement> onEndStored;
  private final Consumer<String> beforeEndRecorded;

  /**
   * @param onCapacityFreed told, with the placement it held, whenever a worker's place becomes free
   * @param onEndStored told, with the placement it held, once the end of an attempt that left the
   *     job finished is stored
   * @param beforeEndRecorded told a job's id when its worker has ended, before the end is recorded:
   *     what must be read from the worker's files first (its reported metrics)
   */
  public JobExecution(
      JobService jobs,
      Workers workers,
      JobFiles files,
      BiFunction<ClaimedJob, JobPlacement, WorkerSetup> setup,
      ExitClassifier classifier,
      int logTailBytes,
      GpuBackend gpus,
      GpuInventory inventory,
      ProcFs procFs,
      Consumer<JobPlacement> onCapacityFreed,
      Consumer<JobPlacement> onEndStored,
      Consumer<String> beforeEndRecorded) {
    this.onEndStored = onEndStored;
    this.beforeEndRecorded = beforeEndRecorded;
    this.jobs = jobs;
    this.onCapacityFreed = onCapacityFreed;
    this.workers = workers;
    this.files = files;
    this.setup = setup;
    this.classifier = classifier;
    this.logTailBytes = logTailBytes;
    this.gpus = gpus;
    this.inventory = inventory;
    this.procFs = procFs;
  }

  /**
   * Launches the worker of a job this node has just claimed (marked started with this placement). A
   * launch that fails ends the attempt as LAUNCH_ERROR.
   *
   * @return the worker's process, for the caller to record; empty if the launch failed
   */
  public Optional<WorkerProcess> launch(ClaimedJob job, JobPlacement placement) {
    RunningWorker worker;
    try {
      WorkerSetup given = setup.apply(job, placement);
      LaunchRequest request =
          new LaunchRequest(
              job.id(),
              job.attempt(),
              job.command(),
              job.workingDir() == null ? null : Path.of(job.workingDir()),
              given.environment(),
              given.switchTo(),
              given.accountDirectories(),
              job.timeout(),
              placement);
      worker = workers.start(request, exit -> ended(exit, placement));
    } catch (LaunchException | RuntimeException e) {
      // The job is marked started: whatever stops its launch must end the attempt, or it would
      // stay RUNNING with no worker.
      workers.releaseLaunch(job.id());
      log.info("job {} could not be launched: {}", job.id(), e.getMessage());
      jobs.recordAttemptEnd(
          job.id(),
          job.attempt(),
          new AttemptOutcome(FailureReason.LAUNCH_ERROR, String.valueOf(e.getMessage()), null),
          0);
      onCapacityFreed.accept(placement);
      return Optional.empty();
    }
    attachGpus(worker, placement);
    long startTicks = procFs.stat(worker.pid()).map(ProcStat::startTimeTicks).orElse(0L);
    WorkerProcess process = new WorkerProcess(job.id(), job.attempt(), worker.pid(), startTicks);
    try {
      workers.recordProcess(process);
    } catch (IOException e) {
      // The database gets the process too, a few milliseconds later; only a gpuq killed in
      // between would miss it.
      log.warn("could not write the process file of job {}: {}", job.id(), e.toString());
    }
    return Optional.of(process);
  }

  /**
   * Takes back, after a restart, a job an earlier gpuq on this node left running: watches its
   * worker again if it still runs, or records how it ended while gpuq was down.
   *
   * @return whether its worker still runs
   */
  public boolean recover(Job job) {
    JobAttempt attempt = job.attempts().get(job.attempts().size() - 1);
    JobPlacement placement = job.placement();
    Optional<WorkerProcess> process =
        workers.processOf(job.id(), job.attempt(), attempt.pid(), attempt.pidStartTicks());
    if (attempt.pid() == null && process.isPresent()) {
      // Only the process file had it: gpuq died before the database learned it.
      jobs.recordWorkerProcesses(List.of(process.get()));
    }
    if (process.isPresent()) {
      Instant deadline = job.timeout() == null ? null : job.startedAt().plus(job.timeout());
      if (adopt(process.get(), job.startedAt(), deadline, placement).isPresent()) {
        log.info("re-adopted job {} (pid {})", job.id(), process.get().pid());
        return true;
      }
    }
    Optional<RecordedExit> recorded = workers.recordedExit(job.id(), job.attempt());
    Integer code = recorded.map(RecordedExit::exitCode).orElse(null);
    // It ended when its wrapper wrote the exit file, not when this gpuq came back.
    Instant endedAt = recorded.map(RecordedExit::writtenAt).orElse(null);
    log.info(
        "job {} ended while gpuq was down ({})",
        job.id(),
        code == null ? "no exit code: lost" : "exit code " + code + " at " + endedAt);
    long pid = attempt.pid() != null ? attempt.pid() : process.map(WorkerProcess::pid).orElse(-1L);
    ended(new WorkerExit(job.id(), job.attempt(), pid, code, null, null, endedAt), placement);
    return false;
  }

  /**
   * Watches again a worker an earlier gpuq started, its exit ended as any worker's, its GPUs
   * attached again: adopted only if that PID still is the process its start time names, never a
   * newer one.
   */
  private Optional<RunningWorker> adopt(
      WorkerProcess process, Instant startedAt, Instant deadline, JobPlacement placement) {
    AdoptRequest request =
        new AdoptRequest(
            process.jobId(),
            process.attempt(),
            process.pid(),
            process.startTicks(),
            startedAt,
            deadline,
            placement);
    Optional<RunningWorker> adopted = workers.adopt(request, exit -> ended(exit, placement));
    adopted.ifPresent(worker -> attachGpus(worker, placement));
    return adopted;
  }

  /**
   * Stops, after a restart, the worker of an attempt the store ended while it ran (its job
   * cancelled, its trial pruned), perhaps while gpuq was down, or just before it died: watched
   * again, then stopped as a cancel stops it, so that its log says why and its exit code is
   * recorded. The job keeps its state, and its attempt its ending.
   *
   * @return whether its worker still ran, and is being stopped
   */
  public boolean stopLeftBehind(StoppedAttempt attempt) {
    if (workers.recordedExit(attempt.jobId(), attempt.attempt()).isPresent()) {
      // Its command ended (its wrapper writes this as it exits): nothing is left to stop.
      return false;
    }
    Optional<WorkerProcess> process =
        workers.processOf(
            attempt.jobId(), attempt.attempt(), attempt.pid(), attempt.pidStartTicks());
    if (process.isEmpty()) {
      return false;
    }
    JobPlacement placement = attempt.placement();
    Optional<RunningWorker> adopted = adopt(process.get(), attempt.startedAt(), null, placement);
    if (adopted.isEmpty()) {
      return false;
    }
    StopReason reason =
        attempt.state() == JobState.PRUNED ? StopReason.PRUNED : StopReason.CANCELLED;
    return workers.stop(attempt.jobId(), reason);
  }

  private void attachGpus(RunningWorker worker, JobPlacement placement) {
    if (!placement.gpus().isEmpty()) {
      gpus.attach(worker.pid(), placement.gpus().stream().map(PlacedGpu::index).toList());
    }
  }

  private void ended(WorkerExit exit, JobPlacement placement) {
    // The worker's capacity is free already (it no longer counts as live): the next job may
    // start while this one's end is written. A retried job is queued only once that is done,
    // hence a second wake-up for it.
    onCapacityFreed.accept(placement);
    gpus.detach(exit.pid());
    AttemptOutcome outcome = classify(exit, placement);
    if (exit.stopReason() != null) {
      noteStop(exit);
    }
    beforeEndRecorded.accept(exit.jobId());
    recordEnd(exit, outcome, placement, FIRST_RECORD_RETRY);
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
                log.error("recording the end of job {} failed", exit.jobId(), failure);
              } else if (state == JobState.QUEUED) {
                onCapacityFreed.accept(placement);
              } else {
                onEndStored.accept(placement);
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
    Path log = files.log(exit.jobId());
    try {
      SafeFiles.appendLine(log, "=== gpuq: " + ExitClassifier.stopWords(exit) + " ===");
    } catch (IOException | RuntimeException e) {
      // The job is stopped all the same; its failure message says why.
      JobExecution.log.warn(
          "could not note in {} why job {} was stopped: {}", log, exit.jobId(), e);
    }
  }

  /** Only a failure needs its log read (to recognise an out-of-memory death). */
  private AttemptOutcome classify(WorkerExit exit, JobPlacement placement) {
    if (exit.exitCode() == null
        && exit.stopReason() == null
        && workers.exitCodeUnwritten(exit.jobId(), exit.attempt())) {
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
    Path log = files.log(exit.jobId());
    Supplier<Long> peak = () -> jobs.peakGpuMemoryOf(exit.jobId(), exit.attempt()).orElse(null);
    try {
      return classifier.classify(
          exit, thisAttempt(SafeFiles.readTail(log, logTailBytes)), placement, peak);
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
    return inventory.device(gpuIndex).map(GpuDevice::memoryTotalBytes).orElse(0L);
  }
}

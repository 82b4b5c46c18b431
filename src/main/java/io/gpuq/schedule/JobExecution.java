package io.gpuq.schedule;

import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.BoundCores;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.FailureReason;
import io.gpuq.job.HostResources;
import io.gpuq.job.Job;
import io.gpuq.job.JobAttempt;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.StoppedAttempt;
import io.gpuq.job.WorkerProcess;
import io.gpuq.launch.AdoptRequest;
import io.gpuq.launch.LaunchException;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.RecordedExit;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerGroupEnd;
import io.gpuq.launch.Workers;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.proc.ProcStat;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one attempt of a placed job: launches its worker (or, after a restart, watches it again) and
 * hands its exit to {@link RecordWorkerEnd}.
 */
public class JobExecution {

  private static final Logger log = LoggerFactory.getLogger(JobExecution.class);

  private final JobService jobs;
  private final Workers workers;
  private final WorkerHost host;
  private final Consumer<JobPlacement> onCapacityFreed;
  private final RecordWorkerEnd recordEnd;

  /**
   * @param onCapacityFreed told, with the placement it held, when a launch fails
   * @param recordEnd handed each worker's exit (a launched one's, an adopted one's, or one found
   *     ended after a restart)
   */
  private final TimeoutWarnings warnings;

  public JobExecution(
      JobService jobs,
      Workers workers,
      WorkerHost host,
      Consumer<JobPlacement> onCapacityFreed,
      RecordWorkerEnd recordEnd) {
    this(jobs, workers, host, onCapacityFreed, recordEnd, new TimeoutWarnings());
  }

  /**
   * @param warnings where a job's warning before its timeout is registered (issue 35)
   */
  JobExecution(
      JobService jobs,
      Workers workers,
      WorkerHost host,
      Consumer<JobPlacement> onCapacityFreed,
      RecordWorkerEnd recordEnd,
      TimeoutWarnings warnings) {
    this.warnings = warnings;
    this.jobs = jobs;
    this.workers = workers;
    this.host = host;
    this.onCapacityFreed = onCapacityFreed;
    this.recordEnd = recordEnd;
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
      LaunchRequest request = host.setup().apply(job, placement);
      worker = workers.start(request, exit -> recordEnd.ended(exit, placement));
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
    warnings.register(
        job.id(), job.attempt(), worker.startedAt(), job.timeout(), job.timeoutSignal());
    long startTicks = host.procFs().stat(worker.pid()).map(ProcStat::startTimeTicks).orElse(0L);
    BoundCores cores = workers.confinement().boundCoresOf(job.id(), job.attempt()).orElse(null);
    WorkerProcess process =
        new WorkerProcess(job.id(), job.attempt(), worker.pid(), startTicks, cores);
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
   * worker again if it still runs, or has how it ended while gpuq was down recorded.
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
      warnings.register(
          job.id(),
          job.attempt(),
          job.startedAt(),
          job.timeout(),
          job.timeoutSignal().orElse(null));
      if (adopt(process.get(), job.startedAt(), deadline, placement, job.host()).isPresent()) {
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
    // Its cgroup outlived it: the kernel's OOM count is still there, then the group goes.
    WorkerGroupEnd group = workers.endLeftBehind(job.id(), job.attempt());
    recordEnd.ended(
        new WorkerExit(job.id(), job.attempt(), pid, code, null, null, endedAt, group), placement);
    return false;
  }

  /**
   * Watches again a worker an earlier gpuq started, its exit ended as any worker's, its GPUs
   * attached again: adopted only if that PID still is the process its start time names, never a
   * newer one.
   */
  private Optional<RunningWorker> adopt(
      WorkerProcess process,
      Instant startedAt,
      Instant deadline,
      JobPlacement placement,
      HostResources host) {
    AdoptRequest request =
        new AdoptRequest(
            process.jobId(),
            process.attempt(),
            process.pid(),
            process.startTicks(),
            startedAt,
            deadline,
            placement,
            host);
    Optional<RunningWorker> adopted =
        workers.adopt(request, exit -> recordEnd.ended(exit, placement));
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
      finishLeftBehind(attempt);
      return false;
    }
    Optional<WorkerProcess> process =
        workers.processOf(
            attempt.jobId(), attempt.attempt(), attempt.pid(), attempt.pidStartTicks());
    if (process.isEmpty()) {
      finishLeftBehind(attempt);
      return false;
    }
    JobPlacement placement = attempt.placement();
    // Stopped at once: counted as one core for the moment it takes.
    Optional<RunningWorker> adopted =
        adopt(process.get(), attempt.startedAt(), null, placement, null);
    if (adopted.isEmpty()) {
      finishLeftBehind(attempt);
      return false;
    }
    StopReason reason =
        attempt.state() == JobState.PRUNED ? StopReason.PRUNED : StopReason.CANCELLED;
    return workers.stop(attempt.jobId(), reason);
  }

  /**
   * The worker of a stopped attempt that never finished (issue 34: its job finishes when its last
   * process is gone) ended while gpuq was not watching: what is left in its group goes, and the job
   * finishes when its wrapper wrote its exit, or now.
   */
  private void finishLeftBehind(StoppedAttempt attempt) {
    if (attempt.finishedAt() != null) {
      return;
    }
    Optional<RecordedExit> recorded = workers.recordedExit(attempt.jobId(), attempt.attempt());
    Integer code = recorded.map(RecordedExit::exitCode).orElse(null);
    Instant endedAt = recorded.map(RecordedExit::writtenAt).orElse(null);
    WorkerGroupEnd group = workers.endLeftBehind(attempt.jobId(), attempt.attempt());
    StopReason reason =
        attempt.state() == JobState.PRUNED ? StopReason.PRUNED : StopReason.CANCELLED;
    long pid = attempt.pid() == null ? -1 : attempt.pid();
    recordEnd.ended(
        new WorkerExit(attempt.jobId(), attempt.attempt(), pid, code, reason, null, endedAt, group),
        attempt.placement());
  }

  private void attachGpus(RunningWorker worker, JobPlacement placement) {
    if (!placement.gpus().isEmpty()) {
      host.gpus().attach(worker.pid(), placement.gpus().stream().map(PlacedGpu::index).toList());
    }
  }
}

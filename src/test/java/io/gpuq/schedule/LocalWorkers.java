package io.gpuq.schedule;

import io.gpuq.guard.ExitClassifier;
import io.gpuq.guard.OomRecognizer;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchException;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.ProcessSignals;
import io.gpuq.launch.ProcessTreeStopper;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.launch.Workers;
import io.gpuq.proc.ProcFs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Real workers, real processes, under a test's own data directory: {@code launch("job-1", "sleep",
 * "60")}, then {@link #exitOf} once it ended. {@link #close} kills what is left.
 */
public final class LocalWorkers implements AutoCloseable {

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final Map<String, CompletableFuture<WorkerExit>> exits = new ConcurrentHashMap<>();
  private final Workers workers;
  private final Path dataDir;

  /**
   * A stop's grace (SIGTERM to SIGKILL) of 2 s, not gpuq's 5: a stop sent while the worker's
   * wrapper has not yet started its job reaches only the wrapper, which outlives SIGTERM so as to
   * write the exit code, and the job is then ended by SIGKILL at the end of the grace. No job these
   * tests run handles SIGTERM, so the shorter grace changes no outcome, only how long such a stop
   * takes.
   */
  public LocalWorkers(Path dataDir, Clock clock) {
    this.dataDir = dataDir;
    this.workers =
        new Workers(
            new WorkerLauncher(new JobFiles(dataDir), clock),
            new ProcessTreeStopper(timer, Duration.ofSeconds(2)),
            Runnable::run,
            new ProcFs(Path.of("/proc")));
  }

  public Workers workers() {
    return workers;
  }

  /** How the ends of these workers are judged, as the scheduler judges them. */
  public ExitJudging exitJudging() {
    return new ExitJudging(
        workers,
        new JobFiles(dataDir),
        new ExitClassifier(new OomRecognizer()),
        OomRecognizer.DEFAULT_TAIL_BYTES);
  }

  /** Starts attempt 1 of {@code jobId}, CPU-only on node-1, with no timeout. */
  public RunningWorker launch(String jobId, String... command) {
    return launch(jobId, null, command);
  }

  public RunningWorker launch(String jobId, Duration timeout, String... command) {
    return launch(jobId, timeout, JobPlacement.cpuOnly("node-1"), command);
  }

  /** Starts attempt 1 of {@code jobId} with this placement. */
  public RunningWorker launch(
      String jobId, Duration timeout, JobPlacement placement, String... command) {
    return launchAttempt(jobId, 1, timeout, placement, command);
  }

  /** Starts this attempt of {@code jobId}, CPU-only on node-1, with no timeout. */
  public RunningWorker launchAttempt(String jobId, int attempt, String... command) {
    return launchAttempt(jobId, attempt, null, JobPlacement.cpuOnly("node-1"), command);
  }

  private RunningWorker launchAttempt(
      String jobId, int attempt, Duration timeout, JobPlacement placement, String... command) {
    LaunchRequest request =
        new LaunchRequest(
            jobId,
            attempt,
            List.of(command),
            null,
            Map.of("PATH", "/usr/local/bin:/usr/bin:/bin"),
            null,
            List.of(),
            timeout,
            placement,
            io.gpuq.job.HostResources.ONE_CORE,
            false);
    CompletableFuture<WorkerExit> exit = new CompletableFuture<>();
    exits.put(jobId, exit);
    try {
      return workers.start(request, exit::complete);
    } catch (LaunchException e) {
      throw new IllegalStateException(e);
    }
  }

  /** How the worker of {@code jobId} ended; completes once it has. */
  public CompletableFuture<WorkerExit> exitOf(String jobId) {
    return exits.get(jobId);
  }

  @Override
  public void close() {
    workers.live().forEach(w -> ProcessSignals.signalGroup(w.pid(), ProcessSignals.SIGKILL));
    timer.shutdownNow();
  }
}

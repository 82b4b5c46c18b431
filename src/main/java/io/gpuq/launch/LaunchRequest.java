package io.gpuq.launch;

import io.gpuq.isolation.Account;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the launcher needs to start one attempt of a job: the claimed job's own fields, where it was
 * placed, and its worker's setup (who it runs as and what it is given), decided in one place
 * ({@link WorkerSetups}) and turned into a warm start's by {@link #running} (issue 36). One record
 * from the setup to the launch, so that a field a worker is given is added once.
 *
 * @param workingDir the user's working directory, or null for the job's work directory
 * @param environment the worker's complete environment (nothing else is inherited)
 * @param switchTo the account the user's program drops to, or null to run it as gpuq's own
 * @param accountDirectories directories named in the environment that must exist for the job (its
 *     {@code TMPDIR}, its JAX cache), in creation order; created for {@code switchTo}
 * @param timeout null for none
 * @param placement where it runs; the worker holds this capacity until its process exits
 * @param host its cores and host memory: how many cores it is bound to, and its memory cap
 * @param warmStart whether its command is a warm start's client (issue 36), whose fork, running as
 *     the job's account, enters the worker's cgroups itself
 */
public record LaunchRequest(
    String jobId,
    int attempt,
    List<String> command,
    Path workingDir,
    Map<String, String> environment,
    Account switchTo,
    List<Path> accountDirectories,
    Duration timeout,
    JobPlacement placement,
    HostResources host,
    boolean warmStart) {

  public LaunchRequest {
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
    accountDirectories = List.copyOf(accountDirectories);
    host = host == null ? HostResources.ONE_CORE : host;
  }

  /**
   * The launch of a claimed job's own command where it was placed.
   *
   * @param switchTo the account its program drops to, or null to run as gpuq's own
   * @param environment its complete environment
   * @param accountDirectories directories its environment names, to create for its account
   */
  public static LaunchRequest of(
      ClaimedJob job,
      JobPlacement placement,
      Account switchTo,
      Map<String, String> environment,
      List<Path> accountDirectories) {
    return new LaunchRequest(
        job.id(),
        job.attempt(),
        job.command(),
        job.workingDir() == null ? null : Path.of(job.workingDir()),
        environment,
        switchTo,
        accountDirectories,
        job.timeout(),
        placement,
        job.host(),
        false);
  }

  /** As gpuq's own account, with an empty environment: a node that sets nothing up (tests). */
  public static LaunchRequest bare(ClaimedJob job, JobPlacement placement) {
    return of(job, placement, null, Map.of(), List.of());
  }

  /** This launch, running {@code command} (a warm start's client) in place of the job's. */
  public LaunchRequest running(List<String> command) {
    return new LaunchRequest(
        jobId,
        attempt,
        command,
        workingDir,
        environment,
        switchTo,
        accountDirectories,
        timeout,
        placement,
        host,
        true);
  }
}

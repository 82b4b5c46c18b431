package io.gpuq.launch;

import io.gpuq.isolation.Account;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the launcher needs to start one attempt of a job.
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

  /** A cold start's request. */
  public LaunchRequest(
      String jobId,
      int attempt,
      List<String> command,
      Path workingDir,
      Map<String, String> environment,
      Account switchTo,
      List<Path> accountDirectories,
      Duration timeout,
      JobPlacement placement,
      HostResources host) {
    this(
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
        false);
  }

  public LaunchRequest {
    command = List.copyOf(command);
    environment = Map.copyOf(environment);
    accountDirectories = List.copyOf(accountDirectories);
    host = host == null ? HostResources.ONE_CORE : host;
  }
}

package io.gpuq.launch;

import io.gpuq.isolation.Account;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Who a worker runs as and what it is given, decided for one claimed job before its launch.
 *
 * @param switchTo the account its program drops to, or null to run as gpuq's own
 * @param environment its complete environment
 * @param accountDirectories directories its environment names, to create for its account
 * @param command what the worker runs in place of the job's command (a warm start's client, issue
 *     36), or null for the job's own
 */
public record WorkerSetup(
    Account switchTo,
    Map<String, String> environment,
    List<Path> accountDirectories,
    List<String> command) {

  public WorkerSetup {
    environment = Map.copyOf(environment);
    accountDirectories = List.copyOf(accountDirectories);
    command = command == null ? null : List.copyOf(command);
  }

  /** A worker that runs the job's own command. */
  public WorkerSetup(
      Account switchTo, Map<String, String> environment, List<Path> accountDirectories) {
    this(switchTo, environment, accountDirectories, null);
  }

  /** This setup, running {@code command} in place of the job's. */
  public WorkerSetup running(List<String> command) {
    return new WorkerSetup(switchTo, environment, accountDirectories, command);
  }

  /** As gpuq's own account, with an empty environment: a node that sets nothing up (tests). */
  public static WorkerSetup none() {
    return new WorkerSetup(null, Map.of(), List.of());
  }
}

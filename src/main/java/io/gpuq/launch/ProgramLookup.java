package io.gpuq.launch;

import io.gpuq.isolation.Account;
import io.gpuq.isolation.Reachability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Finds a program on a PATH as execvp would: the first entry where it is a file the process may
 * execute, with gpuq's own rights or those of the account a job runs as. One place for the worker's
 * launch and for a warm start's zygote (issue 36), so that both run the same interpreter.
 */
public final class ProgramLookup {

  private ProgramLookup() {}

  /** With gpuq's own rights. */
  public static Optional<Path> onPath(String program, String pathVariable) {
    return onPath(
        program,
        pathVariable,
        candidate -> Files.isRegularFile(candidate) && Files.isExecutable(candidate));
  }

  /** With the rights of {@code account}; gpuq's own where it is null. */
  public static Optional<Path> onPathFor(String program, String pathVariable, Account account) {
    return account == null
        ? onPath(program, pathVariable)
        : onPath(program, pathVariable, candidate -> Reachability.canExecute(candidate, account));
  }

  /** The first entry of a PATH where {@code program} is {@code usable}. */
  public static Optional<Path> onPath(String program, String pathVariable, Predicate<Path> usable) {
    if (pathVariable == null) {
      return Optional.empty();
    }
    for (String dir : pathVariable.split(":")) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir).resolve(program);
      if (usable.test(candidate)) {
        return Optional.of(candidate.toAbsolutePath());
      }
    }
    return Optional.empty();
  }
}

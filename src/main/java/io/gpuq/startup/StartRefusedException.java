package io.gpuq.startup;

import java.util.Objects;

/**
 * gpuq refuses to start as configured: what is wrong and what to do about it, for the operator to
 * read as one short block instead of a stack trace (the wiring's failure analyzer prints it).
 */
public class StartRefusedException extends IllegalStateException {

  /** How every refusal's message begins, so that it can be told apart in any log line. */
  public static final String PREFIX = "gpuq refuses to start: ";

  private final String problem;
  private final String action;

  /**
   * @param problem what is wrong, naming the setting or path
   * @param action what to do so that gpuq starts
   */
  public StartRefusedException(String problem, String action) {
    super(
        PREFIX
            + Objects.requireNonNull(problem, "problem")
            + ": "
            + Objects.requireNonNull(action));
    this.problem = problem;
    this.action = action;
  }

  public StartRefusedException(String problem, String action, Throwable cause) {
    this(problem, action);
    initCause(cause);
  }

  public String problem() {
    return problem;
  }

  public String action() {
    return action;
  }
}

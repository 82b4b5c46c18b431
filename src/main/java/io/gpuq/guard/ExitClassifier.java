package io.gpuq.guard;

import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.launch.WorkerExit;

/** Judges how an attempt ended from its exit, why gpuq stopped it, and the end of its log. */
public final class ExitClassifier {

  private static final String[] SIGNAL_NAMES = {
    "", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"
  };

  private final OomRecognizer oom;

  public ExitClassifier(OomRecognizer oom) {
    this.oom = oom;
  }

  public AttemptOutcome classify(WorkerExit exit, String logTail) {
    Integer code = exit.exitCode();
    if (exit.stopReason() != null) {
      return switch (exit.stopReason()) {
        case CANCELLED -> new AttemptOutcome(null, "cancelled", code);
        case TIMEOUT ->
            new AttemptOutcome(FailureReason.TIMEOUT, "stopped: it ran past its timeout", code);
        case STALE ->
            new AttemptOutcome(
                FailureReason.LOST, "stopped: its job was given to another node", code);
        case OVER_BUDGET ->
            new AttemptOutcome(
                FailureReason.OVER_BUDGET,
                "stopped: it used more GPU memory than its budget",
                code);
      };
    }
    if (code == null) {
      return new AttemptOutcome(
          FailureReason.LOST, "its worker ended while gpuq was down and left no exit code", null);
    }
    if (code == 0) {
      return AttemptOutcome.succeeded();
    }
    return oom.recognize(logTail)
        .map(
            match ->
                new AttemptOutcome(
                    FailureReason.OUT_OF_MEMORY, describe(code) + "; " + match.describe(), code))
        .orElseGet(() -> new AttemptOutcome(FailureReason.EXIT_CODE, describe(code), code));
  }

  static String describe(int code) {
    if (code > 128 && code - 128 < SIGNAL_NAMES.length) {
      return "killed by signal " + (code - 128) + " (" + SIGNAL_NAMES[code - 128] + ")";
    }
    return "exited with code " + code;
  }
}

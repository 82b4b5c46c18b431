package io.gpuq.guard;

import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.WorkerExit;
import java.util.function.Supplier;

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
    return classify(exit, logTail, null, () -> null);
  }

  /**
   * As {@link #classify(WorkerExit, String)}; an out-of-memory failure also gives the attempt's
   * budget, its GPUs and the peak it was measured at.
   *
   * @param placement where the attempt ran, or null if unknown
   * @param peakBytes the attempt's measured peak on one GPU, or null; asked only for an
   *     out-of-memory failure
   */
  public AttemptOutcome classify(
      WorkerExit exit, String logTail, JobPlacement placement, Supplier<Long> peakBytes) {
    Integer code = exit.exitCode();
    if (exit.stopReason() != null) {
      String words = stopWords(exit);
      return switch (exit.stopReason()) {
        case CANCELLED -> new AttemptOutcome(null, "cancelled", code);
        case PRUNED -> new AttemptOutcome(null, "pruned", code);
        case PREEMPTED -> new AttemptOutcome(null, "preempted", code);
        case TIMEOUT -> new AttemptOutcome(FailureReason.TIMEOUT, words, code);
        case STALE -> new AttemptOutcome(FailureReason.LOST, words, code);
        case OVER_BUDGET -> new AttemptOutcome(FailureReason.OVER_BUDGET, words, code);
        case OVER_WORK_SIZE -> new AttemptOutcome(FailureReason.OVER_WORK_SIZE, words, code);
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
            match -> {
              String budget = MemoryWords.budget(placement, peakBytes.get());
              return new AttemptOutcome(
                  FailureReason.OUT_OF_MEMORY,
                  describe(code)
                      + (budget.isEmpty() ? "" : "; " + budget)
                      + "; "
                      + match.describe(),
                  code);
            })
        .orElseGet(() -> new AttemptOutcome(FailureReason.EXIT_CODE, describe(code), code));
  }

  /**
   * Why gpuq stopped a worker, in words: {@code stopped: cancelled by the user}, {@code stopped: it
   * used 1.3GiB on GPU 0, over its budget of 1GiB (+64MiB tolerance)}.
   */
  public static String stopWords(WorkerExit exit) {
    if (exit.stopDetail() != null) {
      return "stopped: " + exit.stopDetail();
    }
    return "stopped: "
        + switch (exit.stopReason()) {
          case CANCELLED -> "cancelled by the user";
          case PRUNED -> "pruned by the sweep's early-stopping rule";
          case PREEMPTED -> "preempted; its job is queued again";
          case TIMEOUT -> "it ran past its timeout";
          case STALE -> "its job was given to another node";
          case OVER_BUDGET -> "it used more GPU memory than its budget";
          case OVER_WORK_SIZE -> "it wrote more than max-work-size into its work directory";
        };
  }

  static String describe(int code) {
    if (code > 128 && code - 128 < SIGNAL_NAMES.length) {
      return "killed by signal " + (code - 128) + " (" + SIGNAL_NAMES[code - 128] + ")";
    }
    return "exited with code " + code;
  }
}

package io.gpuq.warm;

import java.time.Instant;
import java.util.List;

/**
 * Where gpuq keeps each attempt that asked for a warm start and started cold, with why (issue 36):
 * shown on its sweep and its job, beside the line in the trial's log.
 */
public interface WarmFallbacks {

  /** One attempt that started cold. */
  record Fallback(String jobId, int attempt, String reason, Instant at) {}

  /** Records it; an attempt recorded already keeps its first reason. */
  void record(String jobId, int attempt, String reason, Instant at);

  /** The fallbacks of a sweep's trials, oldest first, at most {@code limit}. */
  List<Fallback> ofSweep(String sweepId, int limit);

  /** The fallbacks of a job's attempts, oldest first. */
  List<Fallback> ofJob(String jobId);

  /** Keeps none: where no database is wired (tests that launch by hand). */
  WarmFallbacks NONE =
      new WarmFallbacks() {
        @Override
        public void record(String jobId, int attempt, String reason, Instant at) {}

        @Override
        public List<Fallback> ofSweep(String sweepId, int limit) {
          return List.of();
        }

        @Override
        public List<Fallback> ofJob(String jobId) {
          return List.of();
        }
      };
}

package io.gpuq.job;

import java.time.Duration;
import java.util.Objects;

/**
 * A warning before the time limit, as Slurm's {@code --signal} (issue 35): {@code signal} is sent
 * to the job's process tree {@code before} its {@code timeout} ends it, so that it can checkpoint.
 */
public record TimeoutSignal(StopSignal signal, Duration before) {

  public TimeoutSignal {
    Objects.requireNonNull(signal, "signal");
    Objects.requireNonNull(before, "before");
  }
}

package io.gpuq.duty;

import java.time.Duration;

/**
 * A small job gpuq does on its own every so often (enforce timeouts, poll GPUs, guard budgets).
 * {@link PeriodicDuties} runs each on a fixed delay and survives its failures.
 */
public interface PeriodicDuty {

  String name();

  /** How long between two runs; zero turns the duty off. */
  Duration interval();

  void runOnce();
}

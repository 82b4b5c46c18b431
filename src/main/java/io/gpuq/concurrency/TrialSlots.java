package io.gpuq.concurrency;

/**
 * A sweep's limit on running trials ({@code maxConcurrent}) and how many of its trials run now.
 *
 * @param running the sweep's RUNNING trials, on every node
 */
public record TrialSlots(int maxConcurrent, long running) {

  /** How many more of its trials may start: {@link ConcurrencyLimit}'s rule. */
  public int free() {
    return new ConcurrencyLimit(maxConcurrent).free(running);
  }

  public boolean full() {
    return free() == 0;
  }
}

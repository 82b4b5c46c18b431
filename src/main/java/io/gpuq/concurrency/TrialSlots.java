package io.gpuq.concurrency;

/**
 * A sweep's limit on running trials ({@code maxConcurrent}) and how many of its trials run now.
 *
 * @param running the sweep's RUNNING trials, on every node
 */
public record TrialSlots(int maxConcurrent, long running) {

  /** How many more of its trials may start. */
  public int free() {
    return (int) Math.max(0, maxConcurrent - running);
  }

  public boolean full() {
    return free() == 0;
  }
}

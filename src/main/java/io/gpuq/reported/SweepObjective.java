package io.gpuq.reported;

/**
 * What a trial's sweep says about its metrics, its objective as stored with the sweep: the metric
 * that ranks its trials and which way is better ({@code minimize} or {@code maximize}), and its
 * early-stopping rule as the request gave it (JSON). Each may be null: a sweep need not name a
 * metric or a rule.
 */
public record SweepObjective(String sweepId, String name, String goal, String earlyStopping) {

  public boolean hasMetric() {
    return name != null && goal != null;
  }
}

package io.gpuq.sweep;

import io.gpuq.concurrency.ConcurrencyLimit;
import java.util.List;
import java.util.Optional;

/** A valid sweep request: everything gpuq needs to create its trials and to run them. */
public record SweepDefinition(
    ParameterSpace space,
    SweepMethod method,
    Optional<Metric> metric,
    ConcurrencyLimit maxConcurrent,
    Optional<EarlyStopping> earlyStopping,
    TrialTemplate template) {

  /** The trials that exist when the sweep is created (none for an external sweep). */
  public List<Trial> initialTrials() {
    return method.trials(space);
  }
}

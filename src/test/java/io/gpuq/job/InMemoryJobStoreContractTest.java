package io.gpuq.job;

import io.gpuq.reported.SweepObjective;
import org.junit.jupiter.api.DisplayName;

/** The contract on the store the scheduler's unit tests use. */
@DisplayName("The job store in memory")
class InMemoryJobStoreContractTest extends JobStoreContract {

  private final InMemoryJobStore store = new InMemoryJobStore();

  @Override
  JobStore store() {
    return store;
  }

  @Override
  void defineSweep(SweepObjective sweep) {
    store.defineSweep(sweep);
  }

  @Override
  void aSweep(String id, Integer maxConcurrent) {
    if (maxConcurrent != null) {
      store.limitTrials(id, maxConcurrent);
    }
  }
}

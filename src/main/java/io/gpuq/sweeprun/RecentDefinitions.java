package io.gpuq.sweeprun;

import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepDefinition;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The definitions of the sweeps trials were last added to, each built from its stored JSON once: an
 * optimiser adds an external sweep's trials one by one, and a sweep's definition never changes, so
 * parsing and validating it again for each trial would only repeat the same work.
 */
final class RecentDefinitions {

  /** Sweeps driven at once by optimisers; one more only rebuilds a definition now and then. */
  static final int KEPT = 256;

  private final Function<Sweep, SweepDefinition> build;
  private final Map<String, SweepDefinition> recent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SweepDefinition> eldest) {
          return size() > KEPT;
        }
      };

  RecentDefinitions(Function<Sweep, SweepDefinition> build) {
    this.build = build;
  }

  /** The sweep's definition, built if it is not among the recent ones. */
  synchronized SweepDefinition of(Sweep sweep) {
    return recent.computeIfAbsent(sweep.id(), id -> build.apply(sweep));
  }
}

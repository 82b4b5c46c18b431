package io.gpuq.sweep;

import java.util.List;

/** How a sweep's trials come about. */
public sealed interface SweepMethod
    permits SweepMethod.Grid, SweepMethod.RandomSearch, SweepMethod.External {

  /** The trials that exist when the sweep is created. */
  List<Trial> trials(ParameterSpace space);

  String wireName();

  /** Every combination of the parameters' values. */
  record Grid() implements SweepMethod {
    @Override
    public List<Trial> trials(ParameterSpace space) {
      return GridTrials.of(space);
    }

    @Override
    public String wireName() {
      return "grid";
    }
  }

  /** {@code trials} samples, the same ones for the same space and seed. */
  record RandomSearch(int trials, long seed) implements SweepMethod {
    @Override
    public List<Trial> trials(ParameterSpace space) {
      return RandomTrials.of(space, trials, seed);
    }

    @Override
    public String wireName() {
      return "random";
    }
  }

  /** An optimiser outside gpuq adds the trials one by one. */
  record External() implements SweepMethod {
    @Override
    public List<Trial> trials(ParameterSpace space) {
      return List.of();
    }

    @Override
    public String wireName() {
      return "external";
    }
  }
}

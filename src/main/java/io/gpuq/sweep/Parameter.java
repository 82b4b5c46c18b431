package io.gpuq.sweep;

import java.util.List;

/** What one named parameter may be: a list of values, a range, or (external sweeps) anything. */
public sealed interface Parameter
    permits Parameter.Choice, Parameter.FloatRange, Parameter.IntRange, Parameter.Declared {

  /** {@code {"values": [...]}}: one of these, distinct, in this order on a grid. */
  record Choice(List<ParameterValue> values) implements Parameter {
    public Choice {
      values = List.copyOf(values);
    }
  }

  /** {@code {"min", "max", "type": "float"}}: a real number in [min, max]. */
  record FloatRange(double min, double max, Scale scale) implements Parameter {}

  /** {@code {"min", "max", "type": "int"}}: a whole number in [min, max], both included. */
  record IntRange(long min, long max, Scale scale) implements Parameter {}

  /**
   * {@code {}} in an external sweep: the name is declared, and an added trial may give it any
   * value.
   */
  record Declared() implements Parameter {}

  /** How a range is sampled: uniformly in its values, or uniformly in their logarithms. */
  enum Scale {
    LINEAR,
    LOG
  }
}

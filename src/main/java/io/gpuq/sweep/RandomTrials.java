package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A random search's trials. {@link Random} is used because its algorithm is fixed by its
 * specification, so a sweep's seed gives the same trials on every Java version: trial by trial,
 * parameter by parameter in declared order, one draw each.
 *
 * <p>A float range draws uniformly in [min, max), or uniformly in [log min, log max) on a log
 * scale. An int range includes both ends; on a log scale it draws as Optuna does, uniformly in
 * [log(min - ½), log(max + ½)), rounded, so that each whole number gets the share of the log scale
 * around it. A value list draws one of its values, each equally likely.
 */
final class RandomTrials {

  private RandomTrials() {}

  static List<Trial> of(ParameterSpace space, int count, long seed) {
    Random random = new Random(seed);
    List<Trial> trials = new ArrayList<>(count);
    for (int number = 0; number < count; number++) {
      Map<String, ParameterValue> parameters = new LinkedHashMap<>();
      space
          .parameters()
          .forEach((name, parameter) -> parameters.put(name, draw(parameter, random)));
      trials.add(new Trial(number, parameters));
    }
    return trials;
  }

  private static ParameterValue draw(Parameter parameter, Random random) {
    double u = random.nextDouble();
    if (parameter instanceof Parameter.Choice choice) {
      int size = choice.values().size();
      return choice.values().get(Math.min((int) (u * size), size - 1));
    }
    if (parameter instanceof Parameter.FloatRange range) {
      return ParameterValue.NumberValue.ofDouble(floatIn(range, u));
    }
    if (parameter instanceof Parameter.IntRange range) {
      return ParameterValue.NumberValue.ofLong(intIn(range, u));
    }
    throw new IllegalArgumentException("a random search cannot draw " + parameter);
  }

  static double floatIn(Parameter.FloatRange range, double u) {
    double value;
    if (range.scale() == Parameter.Scale.LOG) {
      double low = Math.log(range.min());
      value = Math.exp(low + u * (Math.log(range.max()) - low));
    } else {
      value = range.min() + u * (range.max() - range.min());
    }
    // exp(log(x)) and min + u * (max - min) may round a hair past an end.
    return Math.max(range.min(), Math.min(range.max(), value));
  }

  static long intIn(Parameter.IntRange range, double u) {
    long value;
    if (range.scale() == Parameter.Scale.LOG) {
      double low = Math.log(range.min() - 0.5);
      value = Math.round(Math.exp(low + u * (Math.log(range.max() + 0.5) - low)));
    } else {
      // Both ends are within 2^53, so the count of values is exact as a double.
      long span = range.max() - range.min() + 1;
      value = range.min() + Math.min((long) (u * span), span - 1);
    }
    return Math.max(range.min(), Math.min(range.max(), value));
  }
}

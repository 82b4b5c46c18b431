package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A grid's trials: the product of the parameters' value lists, in the order of nested loops over
 * the parameters as declared (the last one changes fastest, as in Python's itertools.product).
 */
final class GridTrials {

  private GridTrials() {}

  /** The number of trials the grid has, or -1 when that is more than a long holds. */
  static long count(ParameterSpace space) {
    long count = 1;
    for (Parameter parameter : space.parameters().values()) {
      if (!(parameter instanceof Parameter.Choice choice)) {
        throw new IllegalArgumentException("a grid has only value lists, not " + parameter);
      }
      try {
        count = Math.multiplyExact(count, choice.values().size());
      } catch (ArithmeticException e) {
        return -1;
      }
    }
    return count;
  }

  static List<Trial> of(ParameterSpace space) {
    long count = count(space);
    if (count < 0 || count > SweepLimits.MAX_TRIALS) {
      throw new IllegalArgumentException("a grid of " + count + " trials is over the limit");
    }
    List<String> names = new ArrayList<>(space.names());
    List<List<ParameterValue>> lists = new ArrayList<>();
    for (String name : names) {
      lists.add(((Parameter.Choice) space.get(name)).values());
    }
    List<Trial> trials = new ArrayList<>((int) count);
    int[] index = new int[names.size()];
    for (int number = 0; number < count; number++) {
      Map<String, ParameterValue> parameters = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        parameters.put(names.get(i), lists.get(i).get(index[i]));
      }
      trials.add(new Trial(number, parameters));
      // Odometer: the last parameter turns fastest.
      for (int i = names.size() - 1; i >= 0; i--) {
        if (++index[i] < lists.get(i).size()) {
          break;
        }
        index[i] = 0;
      }
    }
    return trials;
  }
}

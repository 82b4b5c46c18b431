package io.gpuq.sweep;

import io.gpuq.job.FieldErrors;
import io.gpuq.text.UserText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A trial an outside optimiser adds to an external sweep ({@code POST /api/v1/sweeps/{id}/trials}):
 * it carries every declared parameter and no other, each within its list or range if the sweep gave
 * one. The service counts the sweep's trials against {@link SweepLimits#MAX_TRIALS} first.
 */
public final class ExternalTrials {

  private ExternalTrials() {}

  /**
   * The trial numbered {@code number} with these parameters, in the sweep's declared order.
   *
   * @param parameters as a JSON reader gives them
   * @throws InvalidSweepException naming each parameter that is missing, undeclared or out of
   *     bounds
   */
  public static Trial check(ParameterSpace space, int number, Map<String, Object> parameters) {
    FieldErrors errors = new FieldErrors();
    if (parameters == null) {
      errors.add("parameters", "is required: " + String.join(", ", space.names()));
      errors.throwIfAny(InvalidSweepException::new);
    }
    for (String name : parameters.keySet()) {
      if (!space.declares(name)) {
        errors.add(
            "parameters." + UserText.echo(name),
            "is not declared by the sweep, which declares " + String.join(", ", space.names()));
      }
    }
    Map<String, ParameterValue> values = new LinkedHashMap<>();
    space
        .parameters()
        .forEach(
            (name, parameter) -> {
              String field = "parameters." + name;
              if (!parameters.containsKey(name)) {
                errors.add(field, "is required: the sweep declares it");
                return;
              }
              Optional<ParameterValue> value = ParameterValue.fromJson(parameters.get(name));
              if (value.isEmpty()) {
                errors.add(field, "must be a number, a string or a boolean");
              } else {
                checkWithin(field, parameter, value.get(), errors);
                values.put(name, value.get());
              }
            });
    errors.throwIfAny(InvalidSweepException::new);
    return new Trial(number, values);
  }

  private static void checkWithin(
      String field, Parameter parameter, ParameterValue value, FieldErrors errors) {
    if (value instanceof ParameterValue.StringValue s
        && (s.value().length() > SweepLimits.MAX_STRING_VALUE_LENGTH
            || s.value().indexOf('\0') >= 0
            || UserText.hasLoneSurrogate(s.value()))) {
      errors.add(
          field,
          "must be valid Unicode without NUL, at most "
              + SweepLimits.MAX_STRING_VALUE_LENGTH
              + " characters");
    } else if (parameter instanceof Parameter.Choice choice) {
      if (!choice.values().contains(value)) {
        errors.add(
            field,
            "must be one of "
                + choice.values().stream()
                    .limit(20)
                    .map(ParameterValue::json)
                    .map(UserText::echo)
                    .collect(Collectors.joining(", "))
                + (choice.values().size() > 20 ? ", …" : ""));
      }
    } else if (parameter instanceof Parameter.FloatRange range) {
      if (!(value instanceof ParameterValue.NumberValue n)
          || !(n.doubleValue() >= range.min() && n.doubleValue() <= range.max())) {
        errors.add(field, "must be a number from " + range.min() + " to " + range.max());
      }
    } else if (parameter instanceof Parameter.IntRange range) {
      if (!(value instanceof ParameterValue.NumberValue n)
          || !n.isWhole()
          || n.doubleValue() < range.min()
          || n.doubleValue() > range.max()) {
        errors.add(field, "must be a whole number from " + range.min() + " to " + range.max());
      }
    }
  }
}

package io.gpuq.sweep;

import io.gpuq.job.FieldErrors;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import io.gpuq.text.UserText;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One parameter of a request, {@code {"values"}} or {@code {"min", "max", "scale", "type"}}. */
final class ParameterParser {

  private ParameterParser() {}

  static Optional<Parameter> parse(String field, ParameterRequest request, FieldErrors errors) {
    if (request == null) {
      errors.add(field, "must be an object: {\"values\": [...]} or {\"min\": ..., \"max\": ...}");
      return Optional.empty();
    }
    boolean range =
        request.min() != null
            || request.max() != null
            || request.scale() != null
            || request.type() != null;
    if (request.values() != null) {
      if (range) {
        errors.add(field, "give either values or a range (min, max, scale, type), not both");
        return Optional.empty();
      }
      return choice(field + ".values", request.values(), errors);
    }
    if (!range) {
      return Optional.of(new Parameter.Declared());
    }
    return range(field, request, errors);
  }

  private static Optional<Parameter> choice(String field, List<Object> values, FieldErrors errors) {
    if (values.isEmpty()) {
      errors.add(field, "must not be empty: a parameter needs at least one value");
      return Optional.empty();
    }
    if (values.size() > SweepLimits.MAX_TRIALS) {
      errors.add(field, "must have at most " + SweepLimits.MAX_TRIALS + " values");
      return Optional.empty();
    }
    List<ParameterValue> parsed = new ArrayList<>(values.size());
    Map<ParameterValue, Integer> seen = new HashMap<>();
    boolean valid = true;
    for (int i = 0; i < values.size(); i++) {
      String element = field + "[" + i + "]";
      Optional<ParameterValue> value = ParameterValue.fromJson(values.get(i));
      if (value.isEmpty()) {
        errors.add(element, "must be a number, a string or a boolean");
        valid = false;
      } else if (value.get() instanceof ParameterValue.StringValue s
          && !validString(element, s.value(), errors)) {
        valid = false;
      } else {
        Integer first = seen.putIfAbsent(value.get(), i);
        if (first != null) {
          errors.add(element, "repeats values[" + first + "]: each value once");
          valid = false;
        }
        parsed.add(value.get());
      }
    }
    return valid ? Optional.of(new Parameter.Choice(parsed)) : Optional.empty();
  }

  private static boolean validString(String field, String value, FieldErrors errors) {
    if (value.length() > SweepLimits.MAX_STRING_VALUE_LENGTH) {
      errors.add(field, "must be at most " + SweepLimits.MAX_STRING_VALUE_LENGTH + " characters");
    } else if (value.indexOf('\0') >= 0) {
      errors.add(field, "must not contain a NUL character");
    } else if (UserText.hasLoneSurrogate(value)) {
      errors.add(field, "must be valid Unicode (it holds a lone surrogate)");
    } else {
      return true;
    }
    return false;
  }

  private static Optional<Parameter> range(
      String field, ParameterRequest request, FieldErrors errors) {
    Parameter.Scale scale = Parameter.Scale.LINEAR;
    if (request.scale() != null) {
      switch (request.scale()) {
        case "linear" -> scale = Parameter.Scale.LINEAR;
        case "log" -> scale = Parameter.Scale.LOG;
        default -> {
          errors.add(
              field + ".scale",
              "unknown scale \"" + UserText.echo(request.scale()) + "\"; use linear or log");
          return Optional.empty();
        }
      }
    }
    String type = request.type() == null ? "float" : request.type();
    if (!type.equals("float") && !type.equals("int")) {
      errors.add(field + ".type", "unknown type \"" + UserText.echo(type) + "\"; use float or int");
      return Optional.empty();
    }
    Optional<ParameterValue.NumberValue> min = bound(field + ".min", request.min(), errors);
    Optional<ParameterValue.NumberValue> max = bound(field + ".max", request.max(), errors);
    if (min.isEmpty() || max.isEmpty()) {
      return Optional.empty();
    }
    Bounds bounds = new Bounds(field, min.get(), max.get(), scale);
    return type.equals("int") ? intRange(bounds, errors) : floatRange(bounds, errors);
  }

  /** A range as the request gives it: its field, its two bounds (numbers both), its scale. */
  private record Bounds(
      String field,
      ParameterValue.NumberValue min,
      ParameterValue.NumberValue max,
      Parameter.Scale scale) {}

  private static Optional<ParameterValue.NumberValue> bound(
      String field, Object json, FieldErrors errors) {
    if (json == null) {
      errors.add(field, "is required for a range (or give values instead)");
      return Optional.empty();
    }
    Optional<ParameterValue> value = ParameterValue.fromJson(json);
    if (value.isPresent() && value.get() instanceof ParameterValue.NumberValue number) {
      return Optional.of(number);
    }
    errors.add(field, "must be a number");
    return Optional.empty();
  }

  private static Optional<Parameter> floatRange(Bounds given, FieldErrors errors) {
    String field = given.field();
    double min = given.min().doubleValue();
    double max = given.max().doubleValue();
    if (!Double.isFinite(min) || !Double.isFinite(max) || !Double.isFinite(max - min)) {
      errors.add(field, "min and max must be finite, and so must max - min");
    } else if (max < min) {
      errors.add(field + ".max", "must be at least min (" + given.min().json() + ")");
    } else if (given.scale() == Parameter.Scale.LOG && !(min > 0)) {
      errors.add(field + ".min", "must be above 0 on a log scale");
    } else {
      return Optional.of(new Parameter.FloatRange(min, max, given.scale()));
    }
    return Optional.empty();
  }

  private static Optional<Parameter> intRange(Bounds given, FieldErrors errors) {
    String field = given.field();
    boolean valid = wholeAndSafe(field + ".min", given.min(), errors);
    valid &= wholeAndSafe(field + ".max", given.max(), errors);
    if (!valid) {
      return Optional.empty();
    }
    long min = given.min().value().longValueExact();
    long max = given.max().value().longValueExact();
    if (max < min) {
      errors.add(field + ".max", "must be at least min (" + min + ")");
    } else if (given.scale() == Parameter.Scale.LOG && min < 1) {
      errors.add(field + ".min", "must be at least 1 for an int on a log scale");
    } else {
      return Optional.of(new Parameter.IntRange(min, max, given.scale()));
    }
    return Optional.empty();
  }

  private static boolean wholeAndSafe(
      String field, ParameterValue.NumberValue value, FieldErrors errors) {
    if (!value.isWhole()) {
      errors.add(field, "must be a whole number for type int");
      return false;
    }
    if (value.value().abs().compareTo(java.math.BigDecimal.valueOf(SweepLimits.MAX_SAFE_INTEGER))
        > 0) {
      errors.add(
          field,
          "must be between -"
              + SweepLimits.MAX_SAFE_INTEGER
              + " and "
              + SweepLimits.MAX_SAFE_INTEGER);
      return false;
    }
    return true;
  }
}

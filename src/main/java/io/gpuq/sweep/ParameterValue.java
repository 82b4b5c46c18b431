package io.gpuq.sweep;

import io.gpuq.text.JsonStrings;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Optional;

/**
 * One value a parameter takes in a trial: a JSON number, string or boolean. Its {@link #json()} is
 * what {@code GPUQ_PARAMS} holds; its {@link #text()} is what replaces a {@code {name}}
 * placeholder: the same JSON text, without quotes for a string.
 */
public sealed interface ParameterValue
    permits ParameterValue.NumberValue, ParameterValue.StringValue, ParameterValue.BooleanValue {

  /** The value as JSON text: {@code 0.003}, {@code "adam"}, {@code true}. */
  String json();

  /** The value as a placeholder writes it: {@code 0.003}, {@code adam}, {@code true}. */
  String text();

  /**
   * The value of a JSON scalar as a JSON reader hands it over (Integer, Long, BigInteger, Double,
   * BigDecimal, String, Boolean); empty for null, objects, arrays and non-finite numbers.
   */
  static Optional<ParameterValue> fromJson(Object json) {
    if (json instanceof String s) {
      return Optional.of(new StringValue(s));
    }
    if (json instanceof Boolean b) {
      return Optional.of(new BooleanValue(b));
    }
    if (json instanceof BigDecimal d) {
      return Optional.of(new NumberValue(d));
    }
    if (json instanceof BigInteger i) {
      return Optional.of(new NumberValue(new BigDecimal(i)));
    }
    if (json instanceof Integer || json instanceof Long || json instanceof Short) {
      return Optional.of(NumberValue.ofLong(((Number) json).longValue()));
    }
    if (json instanceof Double || json instanceof Float) {
      double d = ((Number) json).doubleValue();
      return Double.isFinite(d) ? Optional.of(NumberValue.ofDouble(d)) : Optional.empty();
    }
    return Optional.empty();
  }

  /**
   * A number, kept as a decimal so that its text is the one the user wrote (an equal number with
   * other trailing zeros, such as 1.0 and 1.00, is the same value).
   */
  record NumberValue(BigDecimal value) implements ParameterValue {

    public NumberValue {
      if (value == null) {
        throw new IllegalArgumentException("a number is required");
      }
    }

    public static NumberValue ofLong(long value) {
      return new NumberValue(BigDecimal.valueOf(value));
    }

    /**
     * A binary floating-point number by its shortest decimal text, keeping one decimal place on a
     * whole number ({@code 3.0}) so that a float parameter still reads as a float in Python.
     */
    public static NumberValue ofDouble(double value) {
      if (!Double.isFinite(value)) {
        throw new IllegalArgumentException("JSON has no " + value);
      }
      BigDecimal decimal = new BigDecimal(Double.toString(value)).stripTrailingZeros();
      if (decimal.scale() <= 0 && decimal.precision() - decimal.scale() <= 16) {
        decimal = decimal.setScale(1);
      }
      return new NumberValue(decimal);
    }

    public double doubleValue() {
      return value.doubleValue();
    }

    public boolean isWhole() {
      return value.signum() == 0 || value.stripTrailingZeros().scale() <= 0;
    }

    @Override
    public String json() {
      return value.toString();
    }

    @Override
    public String text() {
      return json();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof NumberValue n && value.compareTo(n.value) == 0;
    }

    @Override
    public int hashCode() {
      return value.signum() == 0 ? 0 : value.stripTrailingZeros().hashCode();
    }

    @Override
    public String toString() {
      return json();
    }
  }

  record StringValue(String value) implements ParameterValue {

    public StringValue {
      if (value == null) {
        throw new IllegalArgumentException("a string is required");
      }
    }

    @Override
    public String json() {
      return JsonStrings.quote(value);
    }

    @Override
    public String text() {
      return value;
    }

    @Override
    public String toString() {
      return json();
    }
  }

  record BooleanValue(boolean value) implements ParameterValue {

    @Override
    public String json() {
      return Boolean.toString(value);
    }

    @Override
    public String text() {
      return json();
    }

    @Override
    public String toString() {
      return json();
    }
  }
}

package io.gpuq.job;

import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Metric values as stored: a JSON object of numbers, in the order they were reported, with null for
 * NaN and the infinities, which JSON cannot hold.
 */
public final class MetricsJson {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<LinkedHashMap<String, Double>> VALUES =
      new TypeReference<>() {};

  private MetricsJson() {}

  public static String writeValues(Map<String, Double> values) {
    Map<String, Double> finite = new LinkedHashMap<>();
    values.forEach((name, value) -> finite.put(name, finiteOrNull(value)));
    return JSON.writeValueAsString(finite);
  }

  public static Map<String, Double> readValues(String json) {
    return json == null ? new LinkedHashMap<>() : JSON.readValue(json, VALUES);
  }

  /**
   * One value of a stored object, read without building the others (a sweep's every point is read
   * at each poll that has news of it).
   *
   * @return empty when the object lacks it; NaN for a null (NaN or infinite when reported)
   */
  public static java.util.OptionalDouble readValue(String json, String name) {
    try (JsonParser parser = JSON.createParser(json)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return java.util.OptionalDouble.empty();
      }
      for (JsonToken token = parser.nextToken();
          token == JsonToken.PROPERTY_NAME;
          token = parser.nextToken()) {
        boolean wanted = name.equals(parser.currentName());
        JsonToken value = parser.nextToken();
        if (wanted) {
          return value == JsonToken.VALUE_NULL
              ? java.util.OptionalDouble.of(Double.NaN)
              : java.util.OptionalDouble.of(parser.getDoubleValue());
        }
        parser.skipChildren();
      }
      return java.util.OptionalDouble.empty();
    }
  }

  public static Double finiteOrNull(Double value) {
    return value == null || value.isNaN() || value.isInfinite() ? null : value;
  }
}

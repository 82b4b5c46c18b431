package io.gpuq.job;

import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Metric values as stored: a JSON object of numbers, in the order they were reported, with null for
 * NaN and the infinities, which JSON cannot hold.
 */
final class MetricsJson {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<LinkedHashMap<String, Double>> VALUES =
      new TypeReference<>() {};

  private MetricsJson() {}

  static String writeValues(Map<String, Double> values) {
    Map<String, Double> finite = new LinkedHashMap<>();
    values.forEach((name, value) -> finite.put(name, finiteOrNull(value)));
    return JSON.writeValueAsString(finite);
  }

  static Map<String, Double> readValues(String json) {
    return json == null ? new LinkedHashMap<>() : JSON.readValue(json, VALUES);
  }

  /** One value of a stored object, without reading the others into a map; null when absent. */
  static Double readValue(String json, String name) {
    return readValues(json).get(name);
  }

  static Double finiteOrNull(Double value) {
    return value == null || value.isNaN() || value.isInfinite() ? null : value;
  }
}

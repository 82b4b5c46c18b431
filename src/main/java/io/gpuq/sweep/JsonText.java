package io.gpuq.sweep;

import static io.gpuq.text.JsonStrings.quote;

import java.util.Map;

/** Writing the little JSON a trial needs (its parameters), without a JSON library in the core. */
final class JsonText {

  private JsonText() {}

  /** A compact JSON object of the values, in the map's order. */
  static String object(Map<String, ParameterValue> values) {
    StringBuilder out = new StringBuilder("{");
    values.forEach(
        (name, value) -> {
          if (out.length() > 1) {
            out.append(',');
          }
          out.append(quote(name)).append(':').append(value.json());
        });
    return out.append('}').toString();
  }
}

package io.gpuq.sweep;

import java.util.Map;

/** Writing the little JSON a trial needs (its parameters), without a JSON library in the core. */
final class JsonText {

  private JsonText() {}

  /** A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259). */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

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

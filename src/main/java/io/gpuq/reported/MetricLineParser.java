package io.gpuq.reported;

import io.gpuq.text.JsonNumbers;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;

/**
 * One metrics-file line, strictly: a single JSON object whose values are numbers, with at least one
 * metric besides an optional {@code "step"} (a whole number from 0 to 2^53 - 1). Keys are metric
 * names ({@link MetricNames}), each once. {@code NaN}, {@code Infinity} and {@code -Infinity} are
 * read as numbers because Python's json module writes them for a diverged loss; anything else is
 * not a metrics line.
 */
final class MetricLineParser {

  /** The most values one line may carry; a series of wider lines would grow without bound. */
  static final int MAX_VALUES_PER_LINE = 100;

  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          .build();

  private MetricLineParser() {}

  /**
   * The line's point, empty when it is not a metrics line. A line without a step takes the one
   * after {@code lastStep}, which is refused past 2^53 - 1 as an explicit step is.
   */
  static Optional<MetricPoint> parse(byte[] bytes, int offset, int length, long lastStep) {
    CharBuffer text;
    try {
      // Jackson decodes UTF-8 leniently (an overlong "/" reads as one); the JDK's decoder refuses
      // overlong forms, encoded surrogates, truncated sequences and code points past U+10FFFF.
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes, offset, length));
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
    try (JsonParser parser =
        JSON.createParser(
            ObjectReadContext.empty(),
            text.array(),
            text.arrayOffset() + text.position(),
            text.remaining())) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return Optional.empty();
      }
      Long step = null;
      Map<String, Double> values = new LinkedHashMap<>();
      for (JsonToken token = parser.nextToken();
          token != JsonToken.END_OBJECT;
          token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (MetricNames.STEP.equals(name)) {
          if (value != JsonToken.VALUE_NUMBER_INT) {
            return Optional.empty();
          }
          step = parser.getLongValue();
          if (step < 0 || step > JsonNumbers.MAX_SAFE_INTEGER) {
            return Optional.empty();
          }
        } else if ((value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT)
            && MetricNames.isValid(name)
            && values.size() < MAX_VALUES_PER_LINE) {
          values.put(name, parser.getDoubleValue());
        } else {
          return Optional.empty();
        }
      }
      if (parser.nextToken() != null || values.isEmpty()) {
        return Optional.empty();
      }
      if (step == null) {
        if (lastStep >= JsonNumbers.MAX_SAFE_INTEGER) {
          return Optional.empty();
        }
        step = lastStep + 1;
      }
      return Optional.of(new MetricPoint(step, values));
    } catch (JacksonException e) {
      // Malformed JSON or UTF-8, a repeated key, a number out of range: garbage, never fatal.
      return Optional.empty();
    }
  }
}

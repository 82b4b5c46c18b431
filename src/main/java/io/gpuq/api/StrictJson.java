package io.gpuq.api;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

/**
 * How request bodies are read: each value has the JSON type the API documents, or the request is
 * refused. Jackson's defaults would store {@code "gpus": 1.5} as 1, {@code "name": 5} as "5" and
 * {@code "gpuFraction": "0.5"} as 0.5, and let the last of two equal keys win silently.
 */
public final class StrictJson {

  private StrictJson() {}

  public static JsonMapper.Builder configure(JsonMapper.Builder builder) {
    return builder
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        // Floats are not integers; strings are not numbers or booleans. An integer still reads
        // as a floating-point number: 1 is a valid JSON form of 1.0.
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        // Numbers and booleans are not strings.
        .withCoercionConfig(
            LogicalType.Textual,
            config ->
                config
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
  }
}

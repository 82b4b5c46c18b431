package io.gpuq.storage;

import io.gpuq.job.JobPlacement;
import jakarta.persistence.AttributeConverter;
import jakarta.persistence.Converter;
import java.util.List;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON text columns for values that are read and written whole (argv, environment, placement): one
 * column instead of a join table each, and the same SQL on H2 and PostgreSQL.
 */
public final class JsonColumns {

  // A placement written before GPUs' totals were recorded has none: it reads as 0 ("unknown").
  private static final JsonMapper JSON =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();

  private JsonColumns() {}

  public static String write(Object value) {
    return value == null ? null : JSON.writeValueAsString(value);
  }

  public static <T> T read(String json, TypeReference<T> type) {
    return json == null ? null : JSON.readValue(json, type);
  }

  @Converter
  public static final class StringList implements AttributeConverter<List<String>, String> {
    @Override
    public String convertToDatabaseColumn(List<String> value) {
      return write(value);
    }

    @Override
    public List<String> convertToEntityAttribute(String json) {
      return read(json, new TypeReference<List<String>>() {});
    }
  }

  @Converter
  public static final class StringMap implements AttributeConverter<Map<String, String>, String> {
    @Override
    public String convertToDatabaseColumn(Map<String, String> value) {
      return write(value);
    }

    @Override
    public Map<String, String> convertToEntityAttribute(String json) {
      return read(json, new TypeReference<Map<String, String>>() {});
    }
  }

  @Converter
  public static final class Placement implements AttributeConverter<JobPlacement, String> {
    @Override
    public String convertToDatabaseColumn(JobPlacement value) {
      return write(value);
    }

    @Override
    public JobPlacement convertToEntityAttribute(String json) {
      return read(json, new TypeReference<JobPlacement>() {});
    }
  }

  @Converter
  public static final class Dependencies
      implements AttributeConverter<List<io.gpuq.job.Dependency>, String> {
    @Override
    public String convertToDatabaseColumn(List<io.gpuq.job.Dependency> value) {
      return write(value);
    }

    @Override
    public List<io.gpuq.job.Dependency> convertToEntityAttribute(String json) {
      return read(json, new TypeReference<List<io.gpuq.job.Dependency>>() {});
    }
  }
}

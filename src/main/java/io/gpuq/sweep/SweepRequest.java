package io.gpuq.sweep;

import java.util.List;
import java.util.Map;

/**
 * The sweep fields of a {@code POST /api/v1/sweeps} body as the user sent them, before validation
 * (the job fields beside them are the trials' template, a {@link io.gpuq.job.JobRequest}). Types
 * are loose on purpose, as in {@code JobRequest}, so that {@link SweepValidator} can name the field
 * of every mistake; {@code parameters} keeps the order of the request.
 */
public record SweepRequest(
    Map<String, ParameterRequest> parameters,
    String method,
    Integer trials,
    Long seed,
    MetricRequest metric,
    Integer maxConcurrent,
    EarlyStoppingRequest earlyStopping) {

  /**
   * {@code {"values": [...]}} or {@code {"min", "max", "scale", "type"}}; values, min and max as a
   * JSON reader gives them (Integer, Long, BigInteger, Double, BigDecimal, String, Boolean, null).
   */
  public record ParameterRequest(
      List<Object> values, Object min, Object max, String scale, String type) {}

  public record MetricRequest(String name, String goal) {}

  public record EarlyStoppingRequest(
      String type,
      Integer startupTrials,
      Long warmupSteps,
      Long minSteps,
      Integer reductionFactor) {}
}

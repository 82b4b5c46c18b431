package io.gpuq.sweeprun;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpuq.job.JobRequest;
import io.gpuq.sweep.SweepDefinition;
import io.gpuq.sweep.SweepRequest;
import io.gpuq.sweep.SweepValidator;
import tools.jackson.databind.json.JsonMapper;

/**
 * A sweep request as its row's {@code definition} keeps it: the template and the sweep fields as
 * the user sent them (the seed too, only if the user gave one), as JSON. The same request always
 * gives the same text, which is how a retried request is told from another; and the text rebuilds
 * the {@link SweepDefinition} that an external sweep's added trials are checked against.
 */
final class SweepDefinitions {

  // Fields the user left out stay out: the early-stopping rule reads back as it was given.
  private static final JsonMapper JSON =
      JsonMapper.builder()
          .changeDefaultPropertyInclusion(
              inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))
          .build();

  private SweepDefinitions() {}

  /** The request, as stored. */
  record Stored(JobRequest template, SweepRequest sweep) {}

  static String toJson(JobRequest template, SweepRequest sweep) {
    return JSON.writeValueAsString(new Stored(template, sweep));
  }

  /** The definition a stored sweep was created with (its seed, if random, is the stored one). */
  static SweepDefinition definitionOf(String json, Long seed) {
    Stored stored = JSON.readValue(json, Stored.class);
    return new SweepValidator(() -> seed == null ? 0 : seed)
        .validate(stored.sweep(), stored.template());
  }

  /** The template a stored sweep was created with. */
  static JobRequest templateOf(String json) {
    return JSON.readValue(json, Stored.class).template();
  }

  static String toJson(Object value) {
    return value == null ? null : JSON.writeValueAsString(value);
  }
}

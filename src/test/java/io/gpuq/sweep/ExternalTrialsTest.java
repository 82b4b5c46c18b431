package io.gpuq.sweep;

import static io.gpuq.sweep.SweepRequests.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.job.FieldError;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A trial added to an external sweep carries exactly the declared parameters")
class ExternalTrialsTest {

  private static final ParameterSpace SPACE =
      anExternalSweep()
          .range("lr", 1e-5, 1e-2, "log", null)
          .range("layers", 1, 8, null, "int")
          .values("opt", "adam", "sgd")
          .parameter("note", new ParameterRequest(null, null, null, null, null))
          .definition()
          .space();

  private static List<FieldError> errors(Map<String, Object> parameters) {
    try {
      ExternalTrials.check(SPACE, 0, parameters);
    } catch (InvalidSweepException e) {
      return e.errors();
    }
    throw new AssertionError("the trial was accepted");
  }

  @Test
  void aTrialWithinTheDeclaredBoundsIsAcceptedInDeclaredOrder() {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("note", "first try");
    parameters.put("opt", "sgd");
    parameters.put("layers", 8);
    parameters.put("lr", 0.003);

    Trial trial = ExternalTrials.check(SPACE, 17, parameters);

    assertThat(trial.number()).isEqualTo(17);
    assertThat(trial.parametersJson())
        .isEqualTo("{\"lr\":0.003,\"layers\":8,\"opt\":\"sgd\",\"note\":\"first try\"}");
  }

  @Test
  void eachMissingUndeclaredOrOutOfBoundsParameterIsNamed() {
    Map<String, Object> parameters = new LinkedHashMap<>();
    parameters.put("lr", 0.5);
    parameters.put("layers", 2.5);
    parameters.put("opt", "adamw");
    parameters.put("momentum", 0.9);

    assertThat(errors(parameters))
        .extracting(FieldError::field)
        .containsExactly(
            "parameters.momentum",
            "parameters.lr",
            "parameters.layers",
            "parameters.opt",
            "parameters.note");
    assertThatThrownBy(() -> ExternalTrials.check(SPACE, 0, null))
        .isInstanceOf(InvalidSweepException.class)
        .hasMessage("parameters: is required: lr, layers, opt, note");
  }
}

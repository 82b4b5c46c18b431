package io.gpuq.sweep;

import static io.gpuq.sweep.SweepRequests.aGridSweep;
import static io.gpuq.sweep.SweepRequests.aRandomSweep;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.sweep.ParameterValue.BooleanValue;
import io.gpuq.sweep.ParameterValue.NumberValue;
import io.gpuq.sweep.ParameterValue.StringValue;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Trials: a grid's combinations, a random search's samples, their values' JSON")
class TrialsTest {

  @Test
  void aGridIsEveryCombinationInTheOrderOfNestedLoopsTheLastParameterFastest() {
    List<Trial> trials =
        aGridSweep().values("lr", 0.1, 0.01).values("seed", 1, 2, 3).definition().initialTrials();

    assertThat(trials)
        .extracting(Trial::parametersJson)
        .containsExactly(
            "{\"lr\":0.1,\"seed\":1}",
            "{\"lr\":0.1,\"seed\":2}",
            "{\"lr\":0.1,\"seed\":3}",
            "{\"lr\":0.01,\"seed\":1}",
            "{\"lr\":0.01,\"seed\":2}",
            "{\"lr\":0.01,\"seed\":3}");
    assertThat(trials).extracting(Trial::number).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void aValueKeepsItsJsonTextAndAStringLosesOnlyItsQuotesInAPlaceholder() {
    Trial trial =
        aGridSweep()
            .values("n", 1)
            .values("lr", 0.003)
            .values("opt", "adam")
            .values("big", new BigDecimal("1.50"))
            .values("tiny", 1e-5)
            .values("whole", 3.0)
            .values("on", true)
            .values("quote", "say \"hi\"\n")
            .definition()
            .initialTrials()
            .get(0);

    assertThat(trial.parameters().values())
        .extracting(ParameterValue::text)
        .containsExactly("1", "0.003", "adam", "1.50", "0.00001", "3.0", "true", "say \"hi\"\n");
    assertThat(trial.parametersJson())
        .isEqualTo(
            "{\"n\":1,\"lr\":0.003,\"opt\":\"adam\",\"big\":1.50,\"tiny\":0.00001,"
                + "\"whole\":3.0,\"on\":true,\"quote\":\"say \\\"hi\\\"\\n\"}");
  }

  @Test
  void aNumberIsTheSameValueWhateverItsTrailingZeros() {
    assertThat(new NumberValue(new BigDecimal("1.0")))
        .isEqualTo(NumberValue.ofLong(1))
        .hasSameHashCodeAs(NumberValue.ofLong(1));
    assertThat(ParameterValue.fromJson(1)).isNotEqualTo(ParameterValue.fromJson("1"));
    assertThat(ParameterValue.fromJson(Double.NaN)).isEmpty();
    assertThat(ParameterValue.fromJson(false)).contains(new BooleanValue(false));
    assertThat(ParameterValue.fromJson("x")).contains(new StringValue("x"));
  }

  @Test
  void aRandomSearchIsTheSameForTheSameSeedAndDiffersForAnother() {
    SweepRequests sweep =
        aRandomSweep(50, 7).range("lr", 1e-5, 1e-2, "log", null).values("opt", "adam", "sgd");

    List<Trial> once = sweep.definition().initialTrials();
    List<Trial> again = sweep.definition().initialTrials();
    List<Trial> other = sweep.seed(8L).definition().initialTrials();

    assertThat(again).isEqualTo(once);
    assertThat(other).isNotEqualTo(once);
    assertThat(once).extracting(t -> t.parameters().get("opt").text()).contains("adam", "sgd");
  }

  @Test
  void anIntRangeIncludesBothEnds() {
    List<Trial> trials =
        aRandomSweep(200, 1).range("n", 1, 3, null, "int").definition().initialTrials();

    assertThat(trials)
        .extracting(t -> t.parameters().get("n").json())
        .containsOnly("1", "2", "3")
        .contains("1", "2", "3");
  }

  @Test
  void anIntOnALogScaleGivesEachWholeNumberItsShareOfTheLogScale() {
    // Optuna's rule: uniform in [log 0.5, log 100.5), rounded. The share of 1 is
    // (log 1.5 - log 0.5) / (log 100.5 - log 0.5) = 1.0986 / 5.3033 = 20.7%; of 100, 0.19%.
    List<Trial> trials =
        aRandomSweep(10_000, 3).range("n", 1, 100, "log", "int").definition().initialTrials();

    long ones = trials.stream().filter(t -> t.parameters().get("n").json().equals("1")).count();
    assertThat(ones).isBetween(1_900L, 2_250L);
  }

  @Test
  void aFloatOnALogScaleIsUniformInTheLogarithm() {
    // Half of the log scale between 1e-4 and 1 lies below 1e-2.
    List<Trial> trials =
        aRandomSweep(10_000, 5).range("lr", 1e-4, 1, "log", null).definition().initialTrials();

    long below =
        trials.stream()
            .filter(t -> ((NumberValue) t.parameters().get("lr")).doubleValue() < 1e-2)
            .count();
    assertThat(below).isBetween(4_700L, 5_300L);
  }

  @Test
  void theParametersJsonIsValidJsonReadBackAsTheSameValues() throws Exception {
    Trial trial =
        new Trial(
            3,
            Map.of("opt", new StringValue("a\u0001b\\c\"d"), "lr", NumberValue.ofDouble(3.1e-7)));
    var json = tools.jackson.databind.json.JsonMapper.builder().build();

    Map<?, ?> read = json.readValue(trial.parametersJson(), Map.class);

    assertThat(read.get("opt")).isEqualTo("a\u0001b\\c\"d");
    assertThat(((Number) read.get("lr")).doubleValue()).isEqualTo(3.1e-7);
  }
}

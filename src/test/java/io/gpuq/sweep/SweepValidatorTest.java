package io.gpuq.sweep;

import static io.gpuq.sweep.SweepRequests.aGridSweep;
import static io.gpuq.sweep.SweepRequests.aRandomSweep;
import static io.gpuq.sweep.SweepRequests.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.concurrency.ConcurrencyLimit;
import io.gpuq.job.FieldError;
import io.gpuq.sweep.Parameter.Scale;
import io.gpuq.sweep.SweepRequest.EarlyStoppingRequest;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A sweep request is valid, or each mistake is named by its field")
class SweepValidatorTest {

  @Test
  void aValidRandomSweepKeepsItsParametersInTheOrderTheyWereDeclared() {
    SweepDefinition sweep =
        aRandomSweep(200, 7)
            .range("lr", 1e-5, 1e-2, "log", "float")
            .values("seed", 1, 2, 3)
            .range("layers", 1, 8, null, "int")
            .metric("val_loss", "minimize")
            .maxConcurrent(32)
            .median(5, 10L)
            .command("python3", "train.py", "--lr={lr}", "--seed={seed}")
            .definition();

    assertThat(sweep.space().names()).containsExactly("lr", "seed", "layers");
    assertThat(sweep.space().get("lr")).isEqualTo(new Parameter.FloatRange(1e-5, 1e-2, Scale.LOG));
    assertThat(sweep.space().get("layers")).isEqualTo(new Parameter.IntRange(1, 8, Scale.LINEAR));
    assertThat(sweep.method()).isEqualTo(new SweepMethod.RandomSearch(200, 7));
    assertThat(sweep.metric()).contains(new Metric("val_loss", Goal.MINIMIZE));
    assertThat(sweep.maxConcurrent()).isEqualTo(new ConcurrencyLimit(32));
    assertThat(sweep.earlyStopping()).contains(new MedianStopping(5, 10));
    assertThat(sweep.initialTrials()).hasSize(200);
  }

  @Test
  void aRandomSweepWithoutASeedGetsADrawnOneSoThatItStaysReproducible() {
    SweepDefinition sweep = aRandomSweep(3, 0).seed(null).values("x", 1, 2).definition();

    assertThat(sweep.method()).isEqualTo(new SweepMethod.RandomSearch(3, SweepRequests.DRAWN_SEED));
  }

  @Test
  void leftOutOptionsTakeTheirDefaults() {
    SweepDefinition sweep =
        aGridSweep()
            .values("x", 1)
            .metric("acc", "maximize")
            .earlyStopping(new EarlyStoppingRequest("asha", null, null, null, null))
            .definition();

    assertThat(sweep.maxConcurrent()).isEqualTo(ConcurrencyLimit.UNLIMITED);
    assertThat(sweep.earlyStopping()).contains(new Asha(1, 4));
    assertThat(
            aGridSweep()
                .values("x", 1)
                .metric("a", "minimize")
                .median(null, null)
                .definition()
                .earlyStopping())
        .contains(new MedianStopping(5, 0));
  }

  @Test
  void aGridRefusesARangeAndNamesTheParameter() {
    assertThat(aGridSweep().values("seed", 1, 2).range("lr", 0.1, 1, null, null).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.lr");
  }

  @Test
  void anEmptyValueListIsRefused() {
    assertThat(aGridSweep().values("seed").errors())
        .containsExactly(
            new FieldError(
                "parameters.seed.values",
                "must not be empty: a parameter needs at least one value"));
  }

  @Test
  void aRepeatedValueIsRefusedAndOneAndOnePointZeroAreTheSameNumber() {
    assertThat(aGridSweep().values("seed", 1, 2, 1.0).errors())
        .containsExactly(
            new FieldError("parameters.seed.values[2]", "repeats values[0]: each value once"));
    assertThat(aGridSweep().values("opt", "adam", "sgd", "adam").errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.opt.values[2]");
  }

  @Test
  void aValueMustBeANumberAStringOrABoolean() {
    assertThat(aGridSweep().values("x", 1, null, List.of(1), Map.of("a", 1), "ok", true).errors())
        .extracting(FieldError::field)
        .containsExactly(
            "parameters.x.values[1]", "parameters.x.values[2]", "parameters.x.values[3]");
  }

  @Test
  void aGridOverTheTrialLimitIsRefusedNamingTheParameters() {
    Object[] hundred = java.util.stream.IntStream.range(0, 100).boxed().toArray();
    Object[] hundredAndOne = java.util.stream.IntStream.range(0, 101).boxed().toArray();

    assertThat(aGridSweep().values("a", hundred).values("b", hundred).definition().initialTrials())
        .hasSize(SweepLimits.MAX_TRIALS);
    assertThat(aGridSweep().values("a", hundred).values("b", hundredAndOne).errors())
        .containsExactly(
            new FieldError(
                "parameters",
                "the grid has 10100 trials (the product of the value counts); at most 10000"));
  }

  @Test
  void aRandomSweepNeedsACountWithinTheLimit() {
    assertThat(aRandomSweep(0, 1).values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("trials");
    assertThat(aRandomSweep(SweepLimits.MAX_TRIALS + 1, 1).values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("trials");
    assertThat(aRandomSweep(1, 1).trials(null).values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("trials");
    assertThat(aGridSweep().trials(5).seed(1L).values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("trials", "seed");
  }

  @Test
  void rangesAreCheckedBoundByBound() {
    assertThat(aRandomSweep(1, 1).range("lr", 0, 1e-2, "log", null).errors())
        .containsExactly(new FieldError("parameters.lr.min", "must be above 0 on a log scale"));
    assertThat(aRandomSweep(1, 1).range("lr", 1, 0.5, null, null).errors())
        .containsExactly(new FieldError("parameters.lr.max", "must be at least min (1)"));
    assertThat(aRandomSweep(1, 1).range("lr", "0.1", null, null, null).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.lr.min", "parameters.lr.max");
    assertThat(aRandomSweep(1, 1).range("n", 1.5, 4, null, "int").errors())
        .containsExactly(new FieldError("parameters.n.min", "must be a whole number for type int"));
    assertThat(aRandomSweep(1, 1).range("n", 0, 4, "log", "int").errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.n.min");
    assertThat(aRandomSweep(1, 1).range("n", 0, BigInteger.TWO.pow(60), null, "int").errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.n.max");
    assertThat(aRandomSweep(1, 1).range("n", 0, 4, "exp", null).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.n.scale");
    assertThat(aRandomSweep(1, 1).range("n", 0, 4, null, "double").errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.n.type");
    assertThat(
            aRandomSweep(1, 1)
                .parameter("x", new ParameterRequest(List.of(1), 0, 1, null, null))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.x");
  }

  @Test
  void aParameterNameMustFitInAPlaceholder() {
    assertThat(aGridSweep().values("learning rate", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.learning rate");
    assertThat(
            aGridSweep().values("model.layers", 1).values("_x-2", 1).definition().space().names())
        .containsExactly("model.layers", "_x-2");
  }

  @Test
  void anExternalSweepMayDeclareANameWithoutValuesButAGridOrRandomSweepMayNot() {
    ParameterRequest declared = new ParameterRequest(null, null, null, null, null);

    assertThat(anExternalSweep().parameter("lr", declared).definition().space().get("lr"))
        .isEqualTo(new Parameter.Declared());
    assertThat(anExternalSweep().parameter("lr", declared).definition().initialTrials()).isEmpty();
    assertThat(aGridSweep().parameter("lr", declared).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.lr");
    assertThat(aRandomSweep(1, 1).parameter("lr", declared).errors())
        .extracting(FieldError::field)
        .containsExactly("parameters.lr");
  }

  @Test
  void methodMetricAndEarlyStoppingAreNamedWhenWrong() {
    assertThat(aGridSweep().method("bayes").values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("method");
    assertThat(aGridSweep().method(null).values("x", 1).errors())
        .extracting(FieldError::field)
        .containsExactly("method");
    assertThat(aGridSweep().values("x", 1).metric("val_loss", null).errors())
        .containsExactly(new FieldError("metric.goal", "is required: minimize or maximize"));
    assertThat(aGridSweep().values("x", 1).metric("step", "minimize").errors())
        .extracting(FieldError::field)
        .containsExactly("metric.name");
    assertThat(aGridSweep().values("x", 1).median(5, 0L).errors())
        .extracting(FieldError::field)
        .containsExactly("earlyStopping");
    assertThat(
            aGridSweep()
                .values("x", 1)
                .metric("loss", "minimize")
                .earlyStopping(new EarlyStoppingRequest("median", 5, 0L, 3L, 1))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("earlyStopping.minSteps", "earlyStopping.reductionFactor");
    assertThat(
            aGridSweep()
                .values("x", 1)
                .metric("loss", "minimize")
                .earlyStopping(new EarlyStoppingRequest("asha", null, null, 0L, 1))
                .errors())
        .extracting(FieldError::field)
        .containsExactly("earlyStopping.minSteps", "earlyStopping.reductionFactor");
    assertThat(aGridSweep().values("x", 1).maxConcurrent(0).errors())
        .extracting(FieldError::field)
        .containsExactly("maxConcurrent");
  }

  @Test
  void everyMistakeOfOneRequestIsListedInOneAnswer() {
    assertThat(
            aGridSweep()
                .values("seed")
                .range("lr", 0.1, 1, null, null)
                .maxConcurrent(-1)
                .command("train", "--opt={optimizer}")
                .labels(Map.of("sweep", "mine"))
                .errors())
        .extracting(FieldError::field)
        .containsExactly(
            "parameters.seed.values",
            "parameters.lr",
            "maxConcurrent",
            "command[1]",
            "labels.sweep");
  }

  @Test
  void anInvalidSweepIsAnInvalidJobRequestSoTheApiAnswersItAsA400NamingTheFields() {
    InvalidSweepException e = new InvalidSweepException("parameters.lr", "bad");

    assertThat(e).isInstanceOf(io.gpuq.job.InvalidJobRequestException.class);
    assertThat(e.getMessage()).isEqualTo("parameters.lr: bad");
  }
}

package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.concurrency.ConcurrencyLimit;
import io.gpuq.sweep.Parameter.Scale;
import io.gpuq.sweep.ParameterValue.NumberValue;
import io.gpuq.sweep.ParameterValue.StringValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Properties of trial generation, placeholders and the {@code maxConcurrent} rule. */
class SweepProperties {

  // ---- grid ------------------------------------------------------------------------------------

  @Property
  void aGridYieldsExactlyTheProductOfTheValueCountsWithNoDuplicates(
      @ForAll("valueLists") List<List<ParameterValue>> lists) {
    ParameterSpace space = spaceOf(lists);
    long product = lists.stream().mapToLong(List::size).reduce(1, Math::multiplyExact);

    List<Trial> trials = new SweepMethod.Grid().trials(space);

    assertThat(trials).hasSize((int) product);
    assertThat(trials.stream().map(Trial::parameters).distinct().count()).isEqualTo(product);
    assertThat(trials).extracting(Trial::number).isEqualTo(range(trials.size()));
    // One assertion over all trials rather than several per trial: a grid has up to 7,776 of them,
    // and the per-trial assertions made this the fast tier's slowest property.
    assertThat(trials)
        .filteredOn(trial -> !drawnFrom(lists, space, trial))
        .as("trials whose names or values are not the space's")
        .isEmpty();
  }

  /** Whether the trial names the space's parameters in order, each with one of its values. */
  private static boolean drawnFrom(
      List<List<ParameterValue>> lists, ParameterSpace space, Trial trial) {
    if (!List.copyOf(trial.parameters().keySet()).equals(List.copyOf(space.names()))) {
      return false;
    }
    int i = 0;
    for (ParameterValue value : trial.parameters().values()) {
      if (!lists.get(i++).contains(value)) {
        return false;
      }
    }
    return true;
  }

  @Provide
  Arbitrary<List<List<ParameterValue>>> valueLists() {
    Arbitrary<ParameterValue> value =
        Arbitraries.oneOf(
            Arbitraries.longs().between(-1000, 1000).map(NumberValue::ofLong),
            Arbitraries.doubles().between(-10, 10).map(NumberValue::ofDouble),
            Arbitraries.strings().ofMaxLength(5).map(StringValue::new),
            Arbitraries.of(true, false).map(ParameterValue.BooleanValue::new));
    return value.set().ofMinSize(1).ofMaxSize(6).map(List::copyOf).list().ofMinSize(1).ofMaxSize(5);
  }

  // ---- random search ---------------------------------------------------------------------------

  @Property
  void aRandomSearchIsReproducibleFromItsSeedAndStaysWithinBounds(
      @ForAll("ranges") List<Parameter> ranges,
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 200) int count) {
    ParameterSpace space = spaceOfParameters(ranges);
    SweepMethod method = new SweepMethod.RandomSearch(count, seed);

    List<Trial> trials = method.trials(space);

    assertThat(method.trials(space)).isEqualTo(trials);
    assertThat(trials).hasSize(count);
    for (Trial trial : trials) {
      int i = 0;
      for (ParameterValue value : trial.parameters().values()) {
        assertWithin(ranges.get(i++), (NumberValue) value);
      }
    }
  }

  private static void assertWithin(Parameter range, NumberValue value) {
    if (range instanceof Parameter.FloatRange f) {
      assertThat(value.doubleValue()).isBetween(f.min(), f.max());
    } else if (range instanceof Parameter.IntRange r) {
      assertThat(value.isWhole()).as("%s is whole", value).isTrue();
      assertThat(value.value().longValueExact()).isBetween(r.min(), r.max());
    }
  }

  @Provide
  Arbitrary<List<Parameter>> ranges() {
    Arbitrary<Parameter> linearFloat =
        Combinators.combine(
                Arbitraries.doubles().between(-1e6, 1e6), Arbitraries.doubles().between(0, 1e6))
            .as((min, width) -> new Parameter.FloatRange(min, min + width, Scale.LINEAR));
    Arbitrary<Parameter> logFloat =
        Combinators.combine(
                Arbitraries.integers().between(-12, 3), Arbitraries.integers().between(0, 9))
            .as(
                (exponent, decades) ->
                    new Parameter.FloatRange(
                        Math.pow(10, exponent), Math.pow(10, exponent + decades), Scale.LOG));
    Arbitrary<Parameter> linearInt =
        Combinators.combine(
                Arbitraries.longs().between(-1_000_000, 1_000_000),
                Arbitraries.longs().between(0, 1_000_000))
            .as((min, width) -> new Parameter.IntRange(min, min + width, Scale.LINEAR));
    Arbitrary<Parameter> logInt =
        Combinators.combine(
                Arbitraries.longs().between(1, 1000), Arbitraries.longs().between(0, 1_000_000))
            .as((min, width) -> new Parameter.IntRange(min, min + width, Scale.LOG));
    Arbitrary<Parameter> extremeInt =
        Arbitraries.of(
            new Parameter.IntRange(
                -SweepLimits.MAX_SAFE_INTEGER, SweepLimits.MAX_SAFE_INTEGER, Scale.LINEAR),
            new Parameter.IntRange(1, SweepLimits.MAX_SAFE_INTEGER, Scale.LOG),
            new Parameter.IntRange(7, 7, Scale.LOG),
            new Parameter.FloatRange(1e-300, 1e300, Scale.LOG),
            new Parameter.FloatRange(-1e300, 1e300, Scale.LINEAR));
    return Arbitraries.oneOf(linearFloat, logFloat, linearInt, logInt, extremeInt)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  // ---- placeholders ----------------------------------------------------------------------------

  /** A piece of a template: literal text, or a placeholder for one of the parameters. */
  record Piece(String literal, String placeholder) {}

  @Property
  void placeholdersAreSubstitutedExactly(
      @ForAll("pieces") List<Piece> pieces,
      @ForAll @Size(3) List<@net.jqwik.api.constraints.StringLength(max = 8) String> values) {
    Map<String, ParameterValue> parameters = new LinkedHashMap<>();
    for (int i = 0; i < values.size(); i++) {
      parameters.put("p" + i, new StringValue(values.get(i)));
    }
    StringBuilder template = new StringBuilder();
    StringBuilder expected = new StringBuilder();
    for (Piece piece : pieces) {
      if (piece.placeholder() != null) {
        template.append('{').append(piece.placeholder()).append('}');
        expected.append(parameters.get(piece.placeholder()).text());
      } else {
        template.append(piece.literal().replace("{", "{{").replace("}", "}}"));
        expected.append(piece.literal());
      }
    }

    Placeholders parsed = Placeholders.parse(template.toString());

    assertThat(parsed.substitute(parameters)).isEqualTo(expected.toString());
    assertThat(parsed.names())
        .containsExactlyElementsOf(
            pieces.stream().map(Piece::placeholder).filter(p -> p != null).toList());
  }

  @Provide
  Arbitrary<List<Piece>> pieces() {
    Arbitrary<Piece> literal =
        Arbitraries.strings()
            .withChars("ab {}$\"\\\n")
            .ofMaxLength(6)
            .map(text -> new Piece(text, null));
    Arbitrary<Piece> placeholder = Arbitraries.of("p0", "p1", "p2").map(n -> new Piece(null, n));
    return Arbitraries.oneOf(literal, placeholder).list().ofMaxSize(8);
  }

  // ---- maxConcurrent ---------------------------------------------------------------------------

  @Property
  void maxConcurrentIsNeverExceededAndAFreeSlotIsAlwaysUsed(
      @ForAll @IntRange(min = 1, max = 20) int max,
      @ForAll @IntRange(min = 0, max = 200) int trials,
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 5) Integer> endingPerPass,
      @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 30) Integer> gpuRoomPerPass) {
    ConcurrencyLimit limit = new ConcurrencyLimit(max);
    int queued = trials;
    int running = 0;
    for (int pass = 0; pass < Math.min(endingPerPass.size(), gpuRoomPerPass.size()); pass++) {
      running -= Math.min(running, endingPerPass.get(pass));
      int startable = limit.startable(running, queued);
      if (running < max && queued > 0) {
        assertThat(startable).as("a free slot with a queued trial is used").isPositive();
      }
      // The GPUs may have room for fewer than the rule allows, never more are started.
      int started = Math.min(startable, gpuRoomPerPass.get(pass));
      running += started;
      queued -= started;
      assertThat(running).isLessThanOrEqualTo(max);
      assertThat(queued).isNotNegative();
    }
  }

  @Property
  void aLoweredLimitStartsNothingUntilTheRunningCountIsBelowIt(
      @ForAll @IntRange(min = 1, max = 50) int max,
      @ForAll @IntRange(min = 0, max = 100) int running,
      @ForAll @IntRange(min = 0, max = 100) int queued) {
    int startable = new ConcurrencyLimit(max).startable(running, queued);

    assertThat(startable).isBetween(0, queued);
    assertThat(running + startable).isLessThanOrEqualTo(Math.max(max, running));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static ParameterSpace spaceOf(List<List<ParameterValue>> lists) {
    List<Parameter> choices = new ArrayList<>();
    for (List<ParameterValue> list : lists) {
      choices.add(new Parameter.Choice(list));
    }
    return spaceOfParameters(choices);
  }

  private static ParameterSpace spaceOfParameters(List<Parameter> parameters) {
    Map<String, Parameter> space = new LinkedHashMap<>();
    for (int i = 0; i < parameters.size(); i++) {
      space.put("p" + i, parameters.get(i));
    }
    return new ParameterSpace(space);
  }

  private static List<Integer> range(int n) {
    List<Integer> numbers = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      numbers.add(i);
    }
    return numbers;
  }
}

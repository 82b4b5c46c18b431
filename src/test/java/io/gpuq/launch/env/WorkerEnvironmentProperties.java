package io.gpuq.launch.env;

import static io.gpuq.launch.env.Workers.HOOK_DIR;
import static io.gpuq.launch.env.Workers.aWorker;
import static io.gpuq.launch.env.Workers.settings;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.Framework;
import io.gpuq.placement.PlacedGpu;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

class WorkerEnvironmentProperties {

  private static final BigDecimal ONE_STEP = new BigDecimal("0.0001");

  private final WorkerEnvironment environment = new WorkerEnvironment(settings());

  @Property
  void aFractionNeverAllowsMoreThanTheBudget(
      @ForAll @LongRange(min = 1, max = 300L << 30) long budget,
      @ForAll @LongRange(min = 1L << 20, max = 300L << 30) long total) {
    Assume.that(budget <= total);

    BigDecimal fraction = PlacedGpu.memoryFraction(budget, total);

    assertThat(fraction.multiply(BigDecimal.valueOf(total)))
        .isLessThanOrEqualTo(BigDecimal.valueOf(budget));
    assertThat(fraction).isPositive();
  }

  @Property
  void aFractionIsWithinOneStepOfTheExactRatio(
      @ForAll @LongRange(min = 1, max = 300L << 30) long budget,
      @ForAll @LongRange(min = 1L << 20, max = 300L << 30) long total) {
    Assume.that(budget <= total);

    BigDecimal fraction = PlacedGpu.memoryFraction(budget, total);

    // budget - fraction * total < one step of the GPU
    assertThat(BigDecimal.valueOf(budget).subtract(fraction.multiply(BigDecimal.valueOf(total))))
        .isLessThan(ONE_STEP.multiply(BigDecimal.valueOf(total)));
  }

  @Property
  void imposedVariablesAlwaysWinAndNothingPrivateLeaks(
      @ForAll Framework framework,
      @ForAll("environments") Map<String, String> base,
      @ForAll("environments") Map<String, String> user) {
    WorkerSpec spec = aWorker().framework(framework).build();

    Map<String, String> env = environment.environment(spec, base, user);

    assertThat(env).containsAllEntriesOf(environment.imposedVariables(spec));
    assertThat(env.get(WorkerEnvironment.PYTHONPATH)).startsWith(HOOK_DIR.toString());
    // gpuq's own settings never reach the worker; the user's own variables of those names may.
    base.keySet().stream()
        .filter(name -> name.toUpperCase(Locale.ROOT).matches("(SPRING|GPUQ)_.*"))
        .filter(name -> !environment.imposedVariables(spec).containsKey(name))
        .filter(name -> !user.containsKey(name))
        .forEach(name -> assertThat(env).doesNotContainKey(name));
    user.forEach(
        (name, value) -> {
          if (!WorkerEnvironment.reservedNames().contains(name)
              && !name.equals(WorkerEnvironment.PYTHONPATH)) {
            assertThat(env).containsEntry(name, value);
          }
        });
  }

  @Provide
  Arbitrary<Map<String, String>> environments() {
    Arbitrary<String> names =
        Arbitraries.oneOf(
            Arbitraries.strings()
                .withCharRange('A', 'Z')
                .withChars('_')
                .ofMinLength(1)
                .ofMaxLength(12),
            Arbitraries.of(WorkerEnvironment.reservedNames()),
            Arbitraries.of(
                "PYTHONPATH",
                "PYTORCH_ALLOC_CONF",
                "PYTORCH_CUDA_ALLOC_CONF",
                "GPUQ_AUTH_TOKEN",
                "SPRING_DATASOURCE_PASSWORD",
                "spring_profiles_active"));
    Arbitrary<String> values =
        Arbitraries.strings().alpha().numeric().withChars(":/,.").ofMaxLength(20);
    return Arbitraries.maps(names, values).ofMaxSize(8);
  }
}

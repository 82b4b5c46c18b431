package io.gpuq.sweep;

import io.gpuq.concurrency.ConcurrencyLimit;
import io.gpuq.job.FieldErrors;
import io.gpuq.job.JobRequest;
import io.gpuq.reported.MetricNames;
import io.gpuq.sweep.SweepRequest.EarlyStoppingRequest;
import io.gpuq.sweep.SweepRequest.MetricRequest;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import io.gpuq.text.UserText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Turns a {@link SweepRequest} and its job template into a {@link SweepDefinition}, or reports
 * every field that is wrong (at most {@value FieldErrors#MAX_REPORTED}). The template's own job
 * fields are the job validator's to check, trial by trial.
 */
public final class SweepValidator {

  private final LongSupplier seeds;

  /**
   * @param seeds draws the seed of a random sweep that names none, so that it is still reproducible
   *     from the seed its view shows
   */
  public SweepValidator(LongSupplier seeds) {
    this.seeds = seeds;
  }

  public SweepDefinition validate(SweepRequest request, JobRequest template) {
    if (request == null || template == null) {
      throw new InvalidSweepException("", "a JSON object describing the sweep is required");
    }
    FieldErrors errors = new FieldErrors();
    SweepMethod method = method(request, errors);
    ParameterSpace space = space(request.parameters(), method, errors);
    Optional<Metric> metric = metric(request.metric(), errors);
    ConcurrencyLimit maxConcurrent = maxConcurrent(request.maxConcurrent(), errors);
    Optional<EarlyStopping> earlyStopping =
        earlyStopping(request.earlyStopping(), metric.isPresent(), errors);
    TrialTemplate trialTemplate = TrialTemplate.parse(template, space, errors);
    errors.throwIfAny(InvalidSweepException::new);
    return new SweepDefinition(space, method, metric, maxConcurrent, earlyStopping, trialTemplate);
  }

  /**
   * The rule a stored sweep's {@code earlyStopping} describes, as creating the sweep validated it;
   * empty for none.
   *
   * @throws InvalidSweepException when it is not a valid rule (it was stored by something else)
   */
  public static Optional<EarlyStopping> storedRule(EarlyStoppingRequest request) {
    FieldErrors errors = new FieldErrors();
    Optional<EarlyStopping> rule = earlyStopping(request, true, errors);
    errors.throwIfAny(InvalidSweepException::new);
    return rule;
  }

  private SweepMethod method(SweepRequest request, FieldErrors errors) {
    String method = request.method();
    if (method == null) {
      errors.add("method", "is required: grid, random or external");
      return new SweepMethod.External();
    }
    switch (method) {
      case "grid", "external" -> {
        if (request.trials() != null) {
          errors.add("trials", "belongs to method random; a " + method + " sweep has no count");
        }
        if (request.seed() != null) {
          errors.add("seed", "belongs to method random");
        }
        return method.equals("grid") ? new SweepMethod.Grid() : new SweepMethod.External();
      }
      case "random" -> {
        Integer trials = request.trials();
        if (trials == null) {
          errors.add("trials", "is required for method random: how many trials to sample");
        } else if (trials < 1 || trials > SweepLimits.MAX_TRIALS) {
          errors.add("trials", "must be between 1 and " + SweepLimits.MAX_TRIALS);
        }
        long seed = request.seed() != null ? request.seed() : seeds.getAsLong();
        return new SweepMethod.RandomSearch(trials == null ? 1 : trials, seed);
      }
      default -> {
        errors.add(
            "method",
            "unknown method \"" + UserText.echo(method) + "\"; use grid, random or external");
        return new SweepMethod.External();
      }
    }
  }

  private static ParameterSpace space(
      Map<String, ParameterRequest> parameters, SweepMethod method, FieldErrors errors) {
    if (parameters == null || parameters.isEmpty()) {
      errors.add("parameters", "is required: at least one parameter, by name");
      return new ParameterSpace(Map.of());
    }
    if (parameters.size() > SweepLimits.MAX_PARAMETERS) {
      errors.add("parameters", "must have at most " + SweepLimits.MAX_PARAMETERS + " parameters");
      return new ParameterSpace(Map.of());
    }
    Map<String, Parameter> space = new LinkedHashMap<>();
    parameters.forEach(
        (name, request) -> {
          String field = "parameters." + UserText.echo(name);
          if (!ParameterNames.isValid(name)) {
            errors.add(field, ParameterNames.RULE);
            return;
          }
          ParameterParser.parse(field, request, errors)
              .ifPresent(
                  parameter -> {
                    if (fitsMethod(field, parameter, method, errors)) {
                      space.put(name, parameter);
                    }
                  });
        });
    ParameterSpace parsed = new ParameterSpace(space);
    if (method instanceof SweepMethod.Grid && space.size() == parameters.size()) {
      long count = GridTrials.count(parsed);
      if (count < 0 || count > SweepLimits.MAX_TRIALS) {
        errors.add(
            "parameters",
            "the grid has "
                + (count < 0 ? "more than 2^63" : Long.toString(count))
                + " trials (the product of the value counts); at most "
                + SweepLimits.MAX_TRIALS);
      }
    }
    return parsed;
  }

  private static boolean fitsMethod(
      String field, Parameter parameter, SweepMethod method, FieldErrors errors) {
    if (method instanceof SweepMethod.Grid && !(parameter instanceof Parameter.Choice)) {
      errors.add(
          field,
          parameter instanceof Parameter.Declared
              ? "needs values: a grid is every combination of the parameters' values"
              : "a range cannot be gridded: give values, or use method random");
      return false;
    }
    if (method instanceof SweepMethod.RandomSearch && parameter instanceof Parameter.Declared) {
      errors.add(field, "needs values, or min and max, to be sampled");
      return false;
    }
    return true;
  }

  private static Optional<Metric> metric(MetricRequest metric, FieldErrors errors) {
    if (metric == null) {
      return Optional.empty();
    }
    boolean valid = true;
    if (metric.name() == null || metric.name().isEmpty()) {
      errors.add("metric.name", "is required: the reported value that ranks trials");
      valid = false;
    } else if (!MetricNames.isValid(metric.name())) {
      errors.add("metric.name", MetricNames.RULE);
      valid = false;
    }
    Goal goal = null;
    if (metric.goal() == null) {
      errors.add("metric.goal", "is required: minimize or maximize");
    } else {
      try {
        goal = Goal.of(metric.goal());
      } catch (IllegalArgumentException e) {
        errors.add(
            "metric.goal",
            "unknown goal \"" + UserText.echo(metric.goal()) + "\"; use minimize or maximize");
      }
    }
    return valid && goal != null ? Optional.of(new Metric(metric.name(), goal)) : Optional.empty();
  }

  private static ConcurrencyLimit maxConcurrent(Integer maxConcurrent, FieldErrors errors) {
    if (maxConcurrent == null) {
      return ConcurrencyLimit.UNLIMITED;
    }
    if (maxConcurrent < 1) {
      errors.add("maxConcurrent", "must be at least 1 (leave it out for no limit)");
      return ConcurrencyLimit.UNLIMITED;
    }
    return new ConcurrencyLimit(maxConcurrent);
  }

  private static Optional<EarlyStopping> earlyStopping(
      EarlyStoppingRequest request, boolean hasMetric, FieldErrors errors) {
    if (request == null) {
      return Optional.empty();
    }
    if (!hasMetric) {
      errors.add("earlyStopping", "needs metric: the value that says which trials are behind");
    }
    if (request.type() == null) {
      errors.add("earlyStopping.type", "is required: median or asha");
      return Optional.empty();
    }
    switch (request.type()) {
      case "median" -> {
        notFor("asha", "earlyStopping.minSteps", request.minSteps(), errors);
        notFor("asha", "earlyStopping.reductionFactor", request.reductionFactor(), errors);
        int startupTrials =
            Objects.requireNonNullElse(
                request.startupTrials(), MedianStopping.DEFAULT_STARTUP_TRIALS);
        long warmupSteps =
            Objects.requireNonNullElse(request.warmupSteps(), MedianStopping.DEFAULT_WARMUP_STEPS);
        boolean valid =
            within("earlyStopping.startupTrials", startupTrials, 0, SweepLimits.MAX_TRIALS, errors);
        valid &=
            within(
                "earlyStopping.warmupSteps", warmupSteps, 0, SweepLimits.MAX_SAFE_INTEGER, errors);
        return valid
            ? Optional.of(new MedianStopping(startupTrials, warmupSteps))
            : Optional.empty();
      }
      case "asha" -> {
        notFor("median", "earlyStopping.startupTrials", request.startupTrials(), errors);
        notFor("median", "earlyStopping.warmupSteps", request.warmupSteps(), errors);
        long minSteps = Objects.requireNonNullElse(request.minSteps(), Asha.DEFAULT_MIN_STEPS);
        int reductionFactor =
            Objects.requireNonNullElse(request.reductionFactor(), Asha.DEFAULT_REDUCTION_FACTOR);
        boolean valid =
            within("earlyStopping.minSteps", minSteps, 1, SweepLimits.MAX_SAFE_INTEGER, errors);
        valid &=
            within(
                "earlyStopping.reductionFactor",
                reductionFactor,
                2,
                SweepLimits.MAX_REDUCTION_FACTOR,
                errors);
        return valid ? Optional.of(new Asha(minSteps, reductionFactor)) : Optional.empty();
      }
      default -> {
        errors.add(
            "earlyStopping.type",
            "unknown type \"" + UserText.echo(request.type()) + "\"; use median or asha");
        return Optional.empty();
      }
    }
  }

  /**
   * Whether {@code value} lies between {@code min} and {@code max}; if not, says so on {@code
   * field}.
   */
  private static boolean within(String field, long value, long min, long max, FieldErrors errors) {
    if (value < min || value > max) {
      errors.add(field, "must be between " + min + " and " + max);
      return false;
    }
    return true;
  }

  private static void notFor(String type, String field, Object value, FieldErrors errors) {
    if (value != null) {
      errors.add(field, "belongs to type " + type);
    }
  }
}

package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.job.FieldError;
import io.gpuq.job.JobRequest;
import io.gpuq.sweep.SweepRequest.EarlyStoppingRequest;
import io.gpuq.sweep.SweepRequest.MetricRequest;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-data builder for sweep requests and their job template, valid unless told otherwise: {@code
 * aGridSweep().values("lr", 0.1, 0.01).command("train", "--lr={lr}").definition()}.
 */
final class SweepRequests {

  /** The seed a random sweep gets when its request names none. */
  static final long DRAWN_SEED = 4242L;

  private final Map<String, ParameterRequest> parameters = new LinkedHashMap<>();
  private String method;
  private Integer trials;
  private Long seed;
  private MetricRequest metric;
  private Integer maxConcurrent;
  private EarlyStoppingRequest earlyStopping;
  private List<String> command = List.of("python3", "train.py");
  private String workingDir;
  private Map<String, String> env;
  private Map<String, String> labels;

  private SweepRequests(String method) {
    this.method = method;
  }

  static SweepRequests aGridSweep() {
    return new SweepRequests("grid");
  }

  static SweepRequests aRandomSweep(int trials, long seed) {
    SweepRequests sweep = new SweepRequests("random");
    sweep.trials = trials;
    sweep.seed = seed;
    return sweep;
  }

  static SweepRequests anExternalSweep() {
    return new SweepRequests("external");
  }

  SweepRequests values(String name, Object... values) {
    parameters.put(name, new ParameterRequest(Arrays.asList(values), null, null, null, null));
    return this;
  }

  SweepRequests range(String name, Object min, Object max, String scale, String type) {
    parameters.put(name, new ParameterRequest(null, min, max, scale, type));
    return this;
  }

  SweepRequests parameter(String name, ParameterRequest parameter) {
    parameters.put(name, parameter);
    return this;
  }

  SweepRequests method(String method) {
    this.method = method;
    return this;
  }

  SweepRequests trials(Integer trials) {
    this.trials = trials;
    return this;
  }

  SweepRequests seed(Long seed) {
    this.seed = seed;
    return this;
  }

  SweepRequests metric(String name, String goal) {
    this.metric = new MetricRequest(name, goal);
    return this;
  }

  SweepRequests maxConcurrent(Integer maxConcurrent) {
    this.maxConcurrent = maxConcurrent;
    return this;
  }

  SweepRequests median(Integer startupTrials, Long warmupSteps) {
    this.earlyStopping = new EarlyStoppingRequest("median", startupTrials, warmupSteps, null, null);
    return this;
  }

  SweepRequests earlyStopping(EarlyStoppingRequest earlyStopping) {
    this.earlyStopping = earlyStopping;
    return this;
  }

  SweepRequests command(String... argv) {
    this.command = List.of(argv);
    return this;
  }

  SweepRequests workingDir(String workingDir) {
    this.workingDir = workingDir;
    return this;
  }

  SweepRequests env(Map<String, String> env) {
    this.env = env;
    return this;
  }

  SweepRequests labels(Map<String, String> labels) {
    this.labels = labels;
    return this;
  }

  SweepRequest request() {
    return new SweepRequest(parameters, method, trials, seed, metric, maxConcurrent, earlyStopping);
  }

  JobRequest template() {
    return new JobRequest(
        "train",
        command,
        workingDir,
        env,
        "jax",
        null,
        null,
        null,
        null,
        labels,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  SweepDefinition definition() {
    return new SweepValidator(() -> DRAWN_SEED).validate(request(), template());
  }

  /** The mistakes the validator names, each as "field: message". */
  List<FieldError> errors() {
    try {
      definition();
    } catch (InvalidSweepException e) {
      return e.errors();
    }
    throw new AssertionError("the sweep was valid");
  }

  void isRefused() {
    assertThatThrownBy(this::definition).isInstanceOf(InvalidSweepException.class);
  }
}

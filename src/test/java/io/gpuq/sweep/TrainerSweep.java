package io.gpuq.sweep;

import io.gpuq.support.HttpApi;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-data builder for sweeps of the end-to-end trainer (src/test/resources/sweep/trainer.py),
 * CPU-only trials that report {@code val_loss} with the Python client's {@code gpuq.report()}:
 * {@code aTrainerSweep().grid("lr", 0.1, 0.003).grid("layers", 1, 3, 4).json()}. Each parameter
 * becomes a {@code --name={name}} argument of the trainer.
 */
final class TrainerSweep {

  static final Path SCRIPT = Path.of("src/test/resources/sweep/trainer.py").toAbsolutePath();
  static final Path CLIENT = Path.of("clients/python").toAbsolutePath();
  static final String METRIC = "val_loss";

  private final Map<String, Object> body = new LinkedHashMap<>();
  private final Map<String, Object> parameters = new LinkedHashMap<>();
  private final List<String> arguments = new ArrayList<>();

  private TrainerSweep() {
    body.put("name", "trainer");
    body.put("method", "grid");
    body.put("resources", Map.of("gpus", 0));
    body.put("env", Map.of("PYTHONPATH", CLIENT.toString()));
    body.put("metric", Map.of("name", METRIC, "goal", "minimize"));
  }

  /** A grid sweep of the trainer with no parameters yet, ranked by val_loss, lowest first. */
  static TrainerSweep aTrainerSweep() {
    return new TrainerSweep();
  }

  /**
   * What the trainer reports at {@code step}: a loss lowest at lr = 10^-2.5 and 3 layers, 1 higher
   * for a bad trial (quality below 0.5), falling with the steps.
   */
  static double valLoss(double lr, int layers, double quality, long step) {
    double base = Math.pow(Math.log10(lr) + 2.5, 2) + 0.1 * Math.pow(layers - 3, 2);
    return base + (quality < 0.5 ? 1 : 0) + 1.0 / (step + 1);
  }

  TrainerSweep name(String name) {
    body.put("name", name);
    return this;
  }

  /** A parameter with these values, passed as {@code --name={name}}. */
  TrainerSweep grid(String name, Object... values) {
    parameters.put(name, Map.of("values", List.of(values)));
    arguments.add("--" + name + "={" + name + "}");
    return this;
  }

  /** A float parameter drawn uniformly from [min, max], passed as {@code --name={name}}. */
  TrainerSweep range(String name, double min, double max) {
    parameters.put(name, Map.of("min", min, "max", max));
    arguments.add("--" + name + "={" + name + "}");
    return this;
  }

  TrainerSweep random(int trials, long seed) {
    body.put("method", "random");
    body.put("trials", trials);
    body.put("seed", seed);
    return this;
  }

  TrainerSweep medianStopping(int startupTrials, int warmupSteps) {
    body.put(
        "earlyStopping",
        Map.of("type", "median", "startupTrials", startupTrials, "warmupSteps", warmupSteps));
    return this;
  }

  /** A fixed argument of the trainer: {@code --flag=value}. */
  TrainerSweep option(String flag, Object value) {
    arguments.add("--" + flag + "=" + value);
    return this;
  }

  TrainerSweep steps(int steps) {
    return option("steps", steps);
  }

  List<String> command() {
    List<String> command = new ArrayList<>(List.of("python3", SCRIPT.toString()));
    command.addAll(arguments);
    return command;
  }

  String json() {
    Map<String, Object> request = new LinkedHashMap<>(body);
    request.put("command", command());
    request.put("parameters", parameters);
    return HttpApi.JSON.writeValueAsString(request);
  }
}

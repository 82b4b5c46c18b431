package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gpuq's pruners against Optuna's own, for real: generated sweeps (several trials, rising steps
 * with gaps, values with many ties, each trial's series cut into reads that interleave with the
 * others') are replayed into Optuna's {@code MedianPruner} and {@code SuccessiveHalvingPruner} by a
 * python3 process (src/test/resources/optuna/replay.py) and into gpuq's rules as {@code
 * TrialPruning} drives them: after each read, the read's trial is judged from its first value not
 * yet judged, against every trial's values read so far, a pruned trial's later values included (its
 * process wrote them before it was stopped). Each trial must be pruned at the same step, or go on,
 * in both.
 *
 * <p>Skipped, saying so, where python3 cannot import optuna ({@code pip install optuna}; CI
 * installs it). The seed is fixed, so that a failure repeats; {@code -Dgpuq.oracle.seed=N} tries
 * others.
 */
@DisplayName("Pruners against Optuna's own, replayed")
class OptunaOracleTest {

  private static final int SCENARIOS = 400;
  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

  @TempDir static Path dir;

  @BeforeAll
  static void optunaIsImportable() throws Exception {
    Process probe =
        new ProcessBuilder("python3", "-c", "import optuna")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("probe.log").toFile())
            .start();
    boolean imported = probe.waitFor(120, TimeUnit.SECONDS) && probe.exitValue() == 0;
    Assumptions.assumeTrue(
        imported,
        "skipped: python3 cannot import optuna (pip install optuna), the oracle these tests"
            + " compare with");
  }

  @Test
  void theMedianRuleDecidesEveryGeneratedSweepAsOptunasMedianPruner() throws Exception {
    agreeWithOptuna("median");
  }

  @Test
  void ashaDecidesEveryGeneratedSweepAsOptunasSuccessiveHalvingPruner() throws Exception {
    agreeWithOptuna("asha");
  }

  private static void agreeWithOptuna(String rule) throws Exception {
    long seed = Long.getLong("gpuq.oracle.seed", 24L) + rule.hashCode();
    Random random = new Random(seed);
    List<Scenario> scenarios = new ArrayList<>();
    for (int i = 0; i < SCENARIOS; i++) {
      scenarios.add(Scenario.generate(rule, random));
    }
    List<String> optuna = optuna(scenarios);

    assertThat(optuna).hasSize(SCENARIOS);
    int pruned = 0;
    for (int i = 0; i < SCENARIOS; i++) {
      String gpuq = scenarios.get(i).replayInGpuq();
      assertThat(gpuq).as("scenario %d: %s", i, scenarios.get(i).json()).isEqualTo(optuna.get(i));
      pruned += (int) Arrays.stream(gpuq.split(" ")).filter(s -> !s.equals("-")).count();
    }
    // The generated sweeps must exercise pruning, or agreement would prove little.
    assertThat(pruned).as("trials pruned over all scenarios").isGreaterThan(SCENARIOS / 2);
  }

  private static List<String> optuna(List<Scenario> scenarios) throws IOException, Exception {
    Path script = dir.resolve("replay.py");
    try (InputStream in = OptunaOracleTest.class.getResourceAsStream("/optuna/replay.py")) {
      Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Path output = dir.resolve("optuna.out");
    Path errors = dir.resolve("optuna.err");
    Process python =
        new ProcessBuilder("python3", script.toString())
            .redirectOutput(output.toFile())
            .redirectError(errors.toFile())
            .start();
    try (OutputStream stdin = python.getOutputStream()) {
      stdin.write(
          scenarios.stream()
              .map(Scenario::json)
              .collect(Collectors.joining(",", "[", "]"))
              .getBytes(StandardCharsets.UTF_8));
    }
    assertThat(python.waitFor(300, TimeUnit.SECONDS)).as("optuna replay finished").isTrue();
    assertThat(python.exitValue()).as(Files.readString(errors)).isZero();
    return Files.readAllLines(output);
  }

  /** One trial's read: the (step, value) pairs it brought, and whether it was the trial's last. */
  private record Read(int trial, List<long[]> steps, List<Double> values, boolean last) {}

  private record Scenario(
      String rule,
      Goal goal,
      int startupTrials,
      long warmupSteps,
      long minSteps,
      int factor,
      int trials,
      List<Read> reads) {

    static Scenario generate(String rule, Random random) {
      int trials = 2 + random.nextInt(7);
      List<List<Read>> perTrial = new ArrayList<>();
      for (int t = 0; t < trials; t++) {
        int length = 1 + random.nextInt(12);
        long step = random.nextInt(2);
        List<long[]> steps = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < length; i++) {
          steps.add(new long[] {step});
          // Few distinct values: ties at a rung and at the median are common.
          values.add(random.nextInt(4) == 0 ? random.nextInt(20) / 4.0 : random.nextInt(6));
          step += 1 + (random.nextInt(4) == 0 ? random.nextInt(3) : 0);
        }
        List<Read> reads = new ArrayList<>();
        int start = 0;
        while (start < length) {
          int size = 1 + random.nextInt(random.nextBoolean() ? 1 : length);
          int end = Math.min(length, start + size);
          reads.add(
              new Read(t, steps.subList(start, end), values.subList(start, end), end == length));
          start = end;
        }
        perTrial.add(reads);
      }
      // Interleave the trials' reads at random, each trial's in its order.
      List<Read> reads = new ArrayList<>();
      int[] next = new int[trials];
      int left = perTrial.stream().mapToInt(List::size).sum();
      while (left-- > 0) {
        int t;
        do {
          t = random.nextInt(trials);
        } while (next[t] == perTrial.get(t).size());
        reads.add(perTrial.get(t).get(next[t]++));
      }
      return new Scenario(
          rule,
          random.nextBoolean() ? Goal.MINIMIZE : Goal.MAXIMIZE,
          random.nextInt(4),
          random.nextInt(4),
          1 + random.nextInt(3),
          2 + random.nextInt(3),
          trials,
          reads);
    }

    EarlyStopping earlyStopping() {
      return rule.equals("median")
          ? new MedianStopping(startupTrials, warmupSteps)
          : new Asha(minSteps, factor);
    }

    /** Each read at its own second; the read's trial judged as TrialPruning judges it. */
    String replayInGpuq() {
      EarlyStopping stopping = earlyStopping();
      List<List<Intermediate>> values = new ArrayList<>();
      for (int t = 0; t < trials; t++) {
        values.add(new ArrayList<>());
      }
      boolean[] completed = new boolean[trials];
      String[] pruned = new String[trials];
      Arrays.fill(pruned, "-");
      int[] judged = new int[trials];
      for (int r = 0; r < reads.size(); r++) {
        Read read = reads.get(r);
        for (int i = 0; i < read.steps().size(); i++) {
          values
              .get(read.trial())
              .add(
                  new Intermediate(
                      read.steps().get(i)[0], read.values().get(i), T0.plusSeconds(r)));
        }
        if (!pruned[read.trial()].equals("-")) {
          continue;
        }
        List<TrialHistory> sweep = new ArrayList<>();
        for (int t = 0; t < trials; t++) {
          sweep.add(new TrialHistory(t, completed[t], values.get(t)));
        }
        TrialHistory trial = sweep.get(read.trial());
        OptionalLong step = stopping.pruneStep(trial, sweep, goal, judged[read.trial()]);
        if (step.isPresent()) {
          pruned[read.trial()] = Long.toString(step.getAsLong());
        } else {
          judged[read.trial()] = trial.values().size();
          completed[read.trial()] = read.last();
        }
      }
      return String.join(" ", pruned);
    }

    String json() {
      StringBuilder json = new StringBuilder();
      json.append("{\"rule\":\"")
          .append(rule)
          .append("\",\"direction\":\"")
          .append(goal.wireName())
          .append("\",\"startupTrials\":")
          .append(startupTrials)
          .append(",\"warmupSteps\":")
          .append(warmupSteps)
          .append(",\"minSteps\":")
          .append(minSteps)
          .append(",\"factor\":")
          .append(factor)
          .append(",\"trials\":")
          .append(trials)
          .append(",\"reads\":[");
      for (int r = 0; r < reads.size(); r++) {
        Read read = reads.get(r);
        json.append(r == 0 ? "" : ",")
            .append("{\"trial\":")
            .append(read.trial())
            .append(",\"last\":")
            .append(read.last())
            .append(",\"values\":[");
        for (int i = 0; i < read.steps().size(); i++) {
          json.append(i == 0 ? "" : ",")
              .append('[')
              .append(read.steps().get(i)[0])
              .append(',')
              .append(read.values().get(i))
              .append(']');
        }
        json.append("]}");
      }
      return json.append("]}").toString();
    }
  }
}

package io.gpuq.bench;

import io.gpuq.job.JobRequest;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.reported.MetricsFileReader;
import io.gpuq.reported.MetricsPosition;
import io.gpuq.reported.MetricsRead;
import io.gpuq.sweep.Asha;
import io.gpuq.sweep.EarlyStopping;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.Intermediate;
import io.gpuq.sweep.MedianStopping;
import io.gpuq.sweep.SweepDefinition;
import io.gpuq.sweep.SweepRequest;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import io.gpuq.sweep.SweepValidator;
import io.gpuq.sweep.Trial;
import io.gpuq.sweep.TrialEnvironment;
import io.gpuq.sweep.TrialHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * What the sweep core costs the service: turning a 10,000-trial grid request into 10,000 validated
 * job requests (the part of "accepted in one request in under 1 s" that is not the database), one
 * early-stopping decision in a large sweep, and reading a metrics file.
 *
 * <p>Usage: {@code bench/run SweepCoreBench [rounds]}
 */
public final class SweepCoreBench {

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    for (int round = 0; round < rounds; round++) { // the last round is printed
      boolean print = round == rounds - 1;
      creation(print);
      pruning(print);
      metrics(print);
    }
  }

  private static void creation(boolean print) {
    Map<String, ParameterRequest> parameters = new LinkedHashMap<>();
    parameters.put("lr", values(100));
    parameters.put("seed", values(100));
    SweepRequest request =
        new SweepRequest(
            parameters,
            "grid",
            null,
            null,
            new SweepRequest.MetricRequest("val_loss", "minimize"),
            16,
            null);
    JobRequest template =
        new JobRequest(
            "lr-search",
            List.of("python3", "train.py", "--lr={lr}", "--seed={seed}"),
            "/data/exp",
            Map.of("WANDB_MODE", "offline", "RUN", "lr{lr}-s{seed}"),
            "jax",
            new JobRequest.Resources(1, null, 0.125),
            null,
            "PT2H",
            null,
            Map.of("team", "rl"),
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
    JobRequestValidator jobs = new JobRequestValidator(new HashSet<>(TrialEnvironment.NAMES));

    long t0 = System.nanoTime();
    SweepDefinition sweep = new SweepValidator(() -> 1).validate(request, template);
    List<Trial> trials = sweep.initialTrials();
    long t1 = System.nanoTime();
    int bytes = 0;
    for (Trial trial : trials) {
      jobs.validate(sweep.template().instantiate("01JD5R0000000000000000000", trial));
      bytes += TrialEnvironment.of("01JD5R0000000000000000000", trial).get("GPUQ_PARAMS").length();
    }
    long t2 = System.nanoTime();
    if (print) {
      System.out.printf(
          "10,000-trial grid: validate + generate %.1f ms; instantiate + validate each trial's job"
              + " %.1f ms (%.1f us per trial); %d bytes of GPUQ_PARAMS%n",
          (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - t1) / 1e3 / trials.size(), bytes);
    }
  }

  private static ParameterRequest values(int count) {
    return new ParameterRequest(
        IntStream.range(0, count).mapToObj(i -> (Object) (i * 0.001)).toList(),
        null,
        null,
        null,
        null);
  }

  private static void pruning(boolean print) {
    // 1,000 completed trials of 1,000 steps each, and 32 running ones at step 500.
    Random random = new Random(1);
    Instant at = Instant.parse("2026-12-01T00:00:00Z");
    List<TrialHistory> sweep = new ArrayList<>();
    for (int trial = 0; trial < 1032; trial++) {
      boolean completed = trial < 1000;
      int steps = completed ? 1000 : 500;
      List<Intermediate> values = new ArrayList<>(steps);
      for (int step = 0; step < steps; step++) {
        values.add(
            new Intermediate(step, random.nextDouble(), at.plusSeconds(trial * 1000L + step)));
      }
      sweep.add(new TrialHistory(trial, completed, values));
    }
    for (EarlyStopping rule : List.of(new MedianStopping(5, 10), new Asha(1, 4))) {
      long start = System.nanoTime();
      int pruned = 0;
      for (TrialHistory running : sweep.subList(1000, 1032)) {
        // A poll judges what it read since the last: here the one new step, as TrialPruning does.
        int from = running.values().size() - 1;
        pruned += rule.pruneStep(running, sweep, Goal.MINIMIZE, from).isPresent() ? 1 : 0;
      }
      long elapsed = System.nanoTime() - start;
      if (print) {
        System.out.printf(
            "%s, 32 running trials against 1,000 completed of 1,000 steps: %.2f ms a poll"
                + " (%d pruned)%n",
            rule.wireName(), elapsed / 1e6, pruned);
      }
    }
  }

  private static void metrics(boolean print) throws Exception {
    Path file = Files.createTempFile("metrics-", ".jsonl");
    try {
      StringBuilder lines = new StringBuilder();
      for (int step = 0; lines.length() < 4 * 1024 * 1024; step++) {
        lines.append("{\"step\":").append(step).append(",\"val_loss\":0.3141,\"val_acc\":0.88}\n");
      }
      Files.writeString(file, lines);
      MetricsFileReader reader = new MetricsFileReader();
      long start = System.nanoTime();
      MetricsPosition position = MetricsPosition.START;
      int points = 0;
      MetricsRead read;
      do {
        read = reader.read(file, position, false);
        points += read.points().size();
        position = read.position();
      } while (read.more());
      long elapsed = System.nanoTime() - start;
      if (print) {
        System.out.printf(
            "metrics file, 4 MiB in 1 MiB reads: %d points in %.1f ms (%.0f MB/s)%n",
            points, elapsed / 1e6, Files.size(file) / (elapsed / 1e9) / 1e6);
      }
    } finally {
      Files.delete(file);
    }
  }
}

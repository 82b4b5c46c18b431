package io.gpuq.storage;

import static io.gpuq.job.JobBuilder.T0;

import io.gpuq.job.JobIds;
import io.gpuq.job.JobSpec;
import io.gpuq.job.JobSpecs;
import io.gpuq.job.NewJob;
import io.gpuq.job.SweepTrial;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.Metric;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Test-data builder for a stored sweep and its trials: {@code
 * aGridSweep().withTrials(6).in(store)}. Trial {@code n} has the parameters {@code {"x":n}} and a
 * job from {@link JobSpecs#aSpec()}.
 */
public final class SweepBuilder {

  private static final JobIds IDS = new JobIds(Clock.systemUTC());

  private String method = "grid";
  private String owner = "alice";
  private int trials = 3;
  private Metric metric = new Metric("val_loss", Goal.MINIMIZE);
  private String idempotencyKey;
  private Instant createdAt = T0;
  private UnaryOperator<JobSpecs> spec = UnaryOperator.identity();

  static SweepBuilder aGridSweep() {
    return new SweepBuilder();
  }

  public static SweepBuilder anExternalSweep() {
    SweepBuilder sweep = new SweepBuilder();
    sweep.method = "external";
    sweep.trials = 0;
    return sweep;
  }

  SweepBuilder withTrials(int trials) {
    this.trials = trials;
    return this;
  }

  SweepBuilder ownedBy(String owner) {
    this.owner = owner;
    return this;
  }

  SweepBuilder maximizing() {
    metric = new Metric("val_loss", Goal.MAXIMIZE);
    return this;
  }

  SweepBuilder withoutMetric() {
    metric = null;
    return this;
  }

  SweepBuilder idempotencyKey(String key) {
    this.idempotencyKey = key;
    return this;
  }

  SweepBuilder at(Instant createdAt) {
    this.createdAt = createdAt;
    return this;
  }

  SweepBuilder spec(UnaryOperator<JobSpecs> spec) {
    this.spec = spec;
    return this;
  }

  /** The sweep's row, with a new id. */
  public Sweep sweep() {
    return new Sweep(
        IDS.next(),
        owner,
        "lr-search",
        method,
        "{\"definition\":\"as the service would write it\"}",
        metric,
        null,
        null,
        null,
        trials,
        !method.equals("external"),
        null,
        idempotencyKey,
        createdAt,
        null);
  }

  /** Trial {@code number} of {@code sweep}, as the service would make it. */
  NewJob trial(Sweep sweep, int number) {
    return new NewJob(
        IDS.next(),
        sweep.owner(),
        trialSpec(sweep.id(), number),
        null,
        new SweepTrial(sweep.id(), number, "{\"x\":" + number + "}"),
        createdAt,
        List.of(),
        false,
        List.of());
  }

  JobSpec trialSpec(String sweepId, int number) {
    Map<String, String> labels = new HashMap<>(Map.of("team", "rl"));
    labels.put("sweep", sweepId);
    labels.put("x", Integer.toString(number));
    return spec.apply(JobSpecs.aSpec().command("train", "--x=" + number).labels(labels)).build();
  }

  /** Stores the sweep with its trials; the sweep as stored. */
  Sweep in(SweepStore store) {
    Sweep sweep = sweep();
    List<NewJob> jobs = new ArrayList<>();
    for (int i = 0; i < trials; i++) {
      jobs.add(trial(sweep, i));
    }
    store.create(sweep, jobs);
    return store.find(sweep.id()).orElseThrow();
  }
}

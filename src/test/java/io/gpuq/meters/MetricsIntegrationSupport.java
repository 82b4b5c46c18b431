package io.gpuq.meters;

import static io.gpuq.job.JobBuilder.aSucceededJob;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.Job;
import io.gpuq.job.JobStore;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.Gate;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.SweepRows;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Autowired;

/** Scraping the live gpuq as Prometheus does: {@code /actuator/prometheus} without a token. */
abstract class MetricsIntegrationSupport extends IntegrationTest {

  @Autowired DataSource dataSource;
  @Autowired JobStore store;

  static final long MIB = 1L << 20;
  static final long GIB = 1L << 30;
  static final Duration SOON = Duration.ofSeconds(60);

  /** Holds about 100 MiB of touched memory (GPU memory, on emulated GPUs) for a while. */
  static String holding100MiB(int seconds) {
    return aJob()
        .command(
            "python3", "-c", "import time; b = b'x' * (100 << 20); time.sleep(" + seconds + ")")
        .gpus(1)
        .gpuMemory("1GiB")
        .json();
  }

  /** Holds about 100 MiB until {@code release} opens, then succeeds. */
  static String holding100MiBUntil(Gate release) {
    return aJob().command("python3", "-c", holdingCode(release)).gpus(1).gpuMemory("1GiB").json();
  }

  /** The Python code of {@link #holding100MiBUntil}, for a job built some other way. */
  static String holdingCode(Gate release) {
    return "b = b'x' * (100 << 20)\n" + release.pythonWait();
  }

  /** A closed gate in the data directory, which every job's account may look into. */
  static Gate aReleaseGate() {
    return Gate.in(dataDir(), "release");
  }

  Exposition scrape() {
    HttpApi.Response response = alice.as(null).get("/actuator/prometheus");
    assertThat(response.status()).isEqualTo(200);
    return Exposition.parse(response.body());
  }

  void awaitState(String id, String state) {
    await().atMost(SOON).untilAsserted(() -> assertThat(alice.state(id)).isEqualTo(state));
  }

  /** Scrapes until a scrape satisfies {@code condition}, and returns that scrape. */
  Exposition awaitScrape(Consumer<Exposition> condition) {
    AtomicReference<Exposition> satisfying = new AtomicReference<>();
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              Exposition exposition = scrape();
              condition.accept(exposition);
              satisfying.set(exposition);
            });
    return satisfying.get();
  }

  /** A condition: the job has series of each of these names. */
  static Consumer<Exposition> hasSeries(String jobId, String... names) {
    return exposition -> {
      for (String name : names) {
        assertThat(exposition.samples(name, s -> jobId.equals(s.label("job_id"))))
            .as(name + " of " + jobId)
            .isNotEmpty();
      }
    };
  }

  /**
   * A scrape taken while a GPU job runs and has all its series: what Prometheus sees on a busy
   * node, with every kind of series present.
   */
  Exposition scrapeWhileAGpuJobRuns() {
    aSweepWithABestValue();
    // Runs until the scrape is taken, however loaded the machine: a job that ended first would
    // take its series with it.
    String id = alice.submit(holding100MiB(600));
    awaitState(id, "RUNNING");
    try {
      return awaitScrape(
          hasSeries(
                  id,
                  "gpuq_job_info",
                  "gpuq_process_gpu_memory_used_bytes",
                  "gpuq_job_gpu_memory_used_bytes",
                  "gpuq_job_gpu_memory_budget_bytes",
                  "gpuq_job_resident_memory_bytes",
                  "gpuq_job_cpu_seconds_total",
                  "gpuq_job_cpu_usage_ratio")
              .andThen(
                  scrape -> {
                    assertThat(scrape.samples("gpuq_sweep_trials")).isNotEmpty();
                    assertThat(scrape.samples("gpuq_sweep_best_value")).isNotEmpty();
                  }));
    } finally {
      alice.post("/api/v1/jobs/" + id + "/cancel");
    }
  }

  /**
   * An unfinished sweep with one trial that ended with a best value: its series are there for as
   * long as the sweep is unfinished, whatever else runs.
   *
   * @return the sweep's id
   */
  String aSweepWithABestValue() {
    SweepRows sweeps = new SweepRows(dataSource);
    String sweep = sweeps.sweep(null, "minimize");
    // A selector no node matches keeps the context's own scheduler from claiming the trial in the
    // moment between its submission and the builder's claim.
    Job trial =
        aSucceededJob()
            .spec(s -> s.nodeSelector(Map.of("pool", "none-of-the-test-nodes")))
            .trialOf(new SweepTrial(sweep, 0, "{}"))
            .in(store);
    sweeps.best(trial.id(), 0.25);
    return sweep;
  }

  static Map<String, String> job(String id) {
    return Map.of("node", "test-node", "job_id", id);
  }
}

package io.gpuq.meters;

import static io.gpuq.job.JobBuilder.aFailedJob;
import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.Job;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.SweepRows;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("/actuator/prometheus shows each unfinished sweep and each running job's identity")
class SweepMetersIntegrationTest extends MetricsIntegrationSupport {

  @Test
  void a_sweep_shows_its_trials_per_state_and_its_best_value_by_its_goal_until_it_finishes() {
    SweepRows sweeps = new SweepRows(dataSource);
    String sweep = sweeps.sweep(null, "maximize");
    Job low = aSucceededJob().trialOf(new SweepTrial(sweep, 0, "{}")).in(store);
    Job high = aSucceededJob().trialOf(new SweepTrial(sweep, 1, "{}")).in(store);
    aFailedJob().trialOf(new SweepTrial(sweep, 2, "{}")).in(store);
    // Never placed here: it stays queued.
    aQueuedJob()
        .trialOf(new SweepTrial(sweep, 3, "{}"))
        .spec(s -> s.nodeSelector(Map.of("pool", "elsewhere")))
        .in(store);
    sweeps.best(low.id(), 0.61);
    sweeps.best(high.id(), 0.88);

    Exposition e =
        awaitScrape(
            scrape ->
                assertThat(
                        scrape.samples(
                            "gpuq_sweep_best_value", s -> sweep.equals(s.label("sweep"))))
                    .singleElement()
                    .satisfies(s -> assertThat(s.value()).isEqualTo(0.88)));

    assertThat(e.value("gpuq_sweep_trials", Map.of("sweep", sweep, "state", "SUCCEEDED")))
        .isEqualTo(2.0);
    assertThat(e.value("gpuq_sweep_trials", Map.of("sweep", sweep, "state", "FAILED")))
        .isEqualTo(1.0);
    assertThat(e.value("gpuq_sweep_trials", Map.of("sweep", sweep, "state", "QUEUED")))
        .isEqualTo(1.0);
    assertThat(e.value("gpuq_sweep_trials", Map.of("sweep", sweep, "state", "RUNNING")))
        .isEqualTo(0.0);

    sweeps.finish(sweep);

    await()
        .atMost(SOON)
        .untilAsserted(() -> assertThat(scrape().withLabel("sweep", sweep)).isEmpty());
  }

  @Test
  void a_minimized_sweeps_best_value_is_its_lowest() {
    SweepRows sweeps = new SweepRows(dataSource);
    String sweep = sweeps.sweep(null, "minimize");
    Job first = aSucceededJob().trialOf(new SweepTrial(sweep, 0, "{}")).in(store);
    Job second = aSucceededJob().trialOf(new SweepTrial(sweep, 1, "{}")).in(store);
    sweeps.best(first.id(), 0.31);
    sweeps.best(second.id(), 0.44);

    awaitScrape(
        scrape ->
            assertThat(scrape.value("gpuq_sweep_best_value", Map.of("sweep", sweep)))
                .isEqualTo(0.31));
  }

  @Test
  void a_running_job_has_an_info_series_naming_it_and_its_sweep_until_it_ends() {
    SweepRows sweeps = new SweepRows(dataSource);
    String sweep = sweeps.sweep(null, null);
    String plain = alice.submit(aJob().name("plain-one").command("sleep", "30").cpuOnly().json());
    Job trial =
        aQueuedJob()
            .trialOf(new SweepTrial(sweep, 0, "{}"))
            .spec(s -> s.name("trial-zero").command("sleep", "30").gpus(0))
            .in(store);
    awaitState(plain, "RUNNING");
    awaitState(trial.id(), "RUNNING");

    Exposition e =
        awaitScrape(
            scrape -> {
              assertThat(scrape.samples("gpuq_job_info", s -> plain.equals(s.label("job_id"))))
                  .isNotEmpty();
              assertThat(scrape.samples("gpuq_job_info", s -> trial.id().equals(s.label("job_id"))))
                  .isNotEmpty();
            });

    assertThat(e.samples("gpuq_job_info", s -> plain.equals(s.label("job_id"))))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.value()).isEqualTo(1.0);
              assertThat(s.labels())
                  .containsEntry("name", "plain-one")
                  .containsEntry("owner", "alice")
                  .containsEntry("sweep", "");
            });
    assertThat(e.samples("gpuq_job_info", s -> trial.id().equals(s.label("job_id"))))
        .singleElement()
        .satisfies(s -> assertThat(s.labels()).containsEntry("sweep", sweep));

    alice.post("/api/v1/jobs/" + plain + "/cancel");
    alice.post("/api/v1/jobs/" + trial.id() + "/cancel");
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(
                        scrape()
                            .samples(
                                "gpuq_job_info",
                                s ->
                                    plain.equals(s.label("job_id"))
                                        || trial.id().equals(s.label("job_id"))))
                    .isEmpty());
  }
}

package io.gpuq.meters;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.job.Job;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.Gate;
import io.gpuq.support.SweepRows;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The dashboard's sweep row, evaluated by promtool over a live scrape")
class SweepDashboardIntegrationTest extends MetricsIntegrationSupport {

  @TempDir Path dir;

  @Test
  void the_sweep_row_shows_trials_per_state_the_best_value_and_gpu_memory_per_sweep()
      throws IOException {
    List<String> sweepPanels =
        DashboardAndAlertsIntegrationTest.dashboardExpressions().stream()
            .filter(e -> e.contains("gpuq_sweep_") || e.contains("gpuq_job_info"))
            .toList();
    assertThat(sweepPanels)
        .containsExactly(
            "max by (sweep, state) (gpuq_sweep_trials) > 0",
            "max by (sweep) (gpuq_sweep_best_value)",
            "sum by (sweep) (gpuq_job_gpu_memory_used_bytes{node=~\"$node\"} * on(job_id)"
                + " group_left(sweep) gpuq_job_info{sweep!=\"\"})");
    assumeTrue(
        Promtool.installed(),
        "promtool is not installed (Debian/Ubuntu: apt-get install prometheus); CI evaluates this");

    String sweep = new SweepRows(dataSource).sweep(null, "minimize");
    // Both run until the scrape is taken, however loaded the machine.
    Gate release = aReleaseGate();
    Job trial =
        aQueuedJob()
            .trialOf(new SweepTrial(sweep, 0, "{}"))
            .spec(s -> s.command("python3", "-c", holdingCode(release)).gpus(1).gpuMemory(GIB))
            .in(store);
    // A plain job on a GPU at the same time: its memory is no sweep's.
    String plain = alice.submit(holding100MiBUntil(release));
    Exposition scrape;
    try {
      awaitState(trial.id(), "RUNNING");
      awaitState(plain, "RUNNING");
      scrape =
          awaitScrape(
              hasSeries(trial.id(), "gpuq_job_gpu_memory_used_bytes", "gpuq_job_info")
                  .andThen(hasSeries(plain, "gpuq_job_gpu_memory_used_bytes", "gpuq_job_info"))
                  .andThen(
                      e ->
                          assertThat(
                                  e.value(
                                      "gpuq_job_gpu_memory_used_bytes",
                                      Map.of("job_id", trial.id())))
                              .isGreaterThan(100.0 * MIB)));
    } finally {
      release.open();
    }

    Promtool.UnitTest test = new Promtool.UnitTest();
    for (String name :
        List.of("gpuq_job_gpu_memory_used_bytes", "gpuq_job_info", "gpuq_sweep_trials")) {
      for (Exposition.Sample sample : scrape.samples(name)) {
        Map<String, String> labels = new HashMap<>(sample.labels());
        labels.put("instance", "127.0.0.1:" + port);
        labels.put("job", "gpuq");
        labels.values().removeIf(String::isEmpty);
        test.series(name, labels, Promtool.UnitTest.number(sample.value()) + "x10");
      }
    }
    double trialMemory =
        scrape.value("gpuq_job_gpu_memory_used_bytes", Map.of("job_id", trial.id()));
    test.expect(
        DashboardOnSeveralNodesTest.grafana(sweepPanels.get(2))
            + " and on(sweep) {sweep=\""
            + sweep
            + "\"}",
        "5m",
        Map.of("{sweep=\"" + sweep + "\"}", trialMemory));
    test.expect(
        DashboardOnSeveralNodesTest.grafana(sweepPanels.get(0))
            + " and on(sweep) {sweep=\""
            + sweep
            + "\"}",
        "5m",
        Map.of("{state=\"RUNNING\", sweep=\"" + sweep + "\"}", 1.0));

    Promtool.Result result = test.run(dir);

    assertThat(result.exitCode()).as(result.output()).isZero();
  }
}

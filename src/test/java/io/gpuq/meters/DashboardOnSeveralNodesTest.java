package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard's queries evaluated by Prometheus' own engine (promtool) over what Prometheus
 * scrapes from a cluster: two gpuq nodes sharing one PostgreSQL, each scraped as its own {@code
 * instance}. {@code gpuq_jobs} has no {@code node} label and counts the whole shared database on
 * every node, so a query that sums or lists it per scrape shows each job once per node.
 */
@IntegrationTier
@DisplayName("The dashboard over several gpuq nodes, evaluated by promtool")
class DashboardOnSeveralNodesTest {

  private static final List<String> STATES =
      List.of("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "PRUNED");
  private static final Pattern ONE_STATE = Pattern.compile("state\\s*=\\s*\"([A-Z]+)\"");
  private static final Duration SOON = Duration.ofSeconds(30);

  @TempDir Path dir;

  @BeforeAll
  static void needsPromtool() {
    assumeTrue(
        Promtool.installed(),
        "promtool is not installed (Debian/Ubuntu: apt-get install prometheus); the dashboard's"
            + " queries are not evaluated here, CI does");
  }

  @Test
  void each_jobs_per_state_query_shows_every_job_once_not_once_per_node() throws Exception {
    List<String> queries =
        DashboardAndAlertsIntegrationTest.dashboardExpressions().stream()
            .filter(e -> PromQlMetricNames.of(e).contains("gpuq_jobs"))
            .toList();
    assertThat(queries).as("the jobs-per-state panel and the queued-jobs stat").hasSize(2);
    Set<String> read = new TreeSet<>();
    queries.forEach(q -> read.addAll(PromQlMetricNames.of(q)));

    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "dashboard-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    // One CPU slot per node: two sleeping jobs fill the cluster and later ones stay queued.
    try (GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=1");
        GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=1")) {
      List<HttpApi> apis = List.of(a.api(), b.api());
      List<String> ids = new ArrayList<>();
      try {
        Map<String, Long> truth = jobsInEveryState(apis, ids);
        assertThat(truth)
            .isEqualTo(
                Map.of(
                    "QUEUED",
                    3L,
                    "RUNNING",
                    2L,
                    "SUCCEEDED",
                    3L,
                    "FAILED",
                    1L,
                    "CANCELLED",
                    1L,
                    "PRUNED",
                    0L));

        Promtool.UnitTest test = new Promtool.UnitTest();
        for (GpuqCluster.Node node : List.of(a, b)) {
          Exposition scrape = awaitCounts(node, truth);
          String instance = "127.0.0.1:" + port(node);
          for (String name : read) {
            for (Exposition.Sample sample : scrape.samples(name)) {
              Map<String, String> labels = new HashMap<>(sample.labels());
              labels.put("instance", instance);
              labels.put("job", "gpuq");
              test.series(name, labels, Promtool.UnitTest.number(sample.value()) + "x10");
            }
          }
        }
        // Both scrapes are in: summed per state, the raw gauge counts every job twice.
        test.expect("sum by (state) (gpuq_jobs)", "5m", byState(truth, n -> 2 * n));
        for (String query : queries) {
          String expr = grafana(query);
          Matcher one = ONE_STATE.matcher(expr);
          if (one.find()) {
            // A single-state query (the stat): one series, the true count.
            double count = truth.get(one.group(1));
            test.expect("sum(" + expr + ")", "5m", Map.of("{}", count));
            test.expect("count(" + expr + ")", "5m", Map.of("{}", 1.0));
          } else {
            // One series per state, each the true count.
            test.expect("sum by (state) (" + expr + ")", "5m", byState(truth, n -> n));
            test.expect("count by (state) (" + expr + ")", "5m", byState(truth, n -> 1));
          }
        }

        Promtool.Result result = test.run(dir);

        assertThat(result.exitCode()).as(result.output()).isZero();
      } finally {
        stopUnfinished(List.of(a, b), ids);
      }
    }
  }

  @Test
  void the_out_of_memory_stat_counts_whole_attempts_although_increase_extrapolates()
      throws IOException {
    List<String> stats =
        DashboardAndAlertsIntegrationTest.dashboardExpressions().stream()
            .filter(e -> e.contains("OUT_OF_MEMORY") && e.contains("[$__range]"))
            .toList();
    assertThat(stats).hasSize(1);
    String oom = "gpuq_job_attempts_finished_total";
    Promtool.UnitTest test =
        new Promtool.UnitTest()
            // node-a: 2 OOM deaths that were retried, and over-budget stops that do not count
            .series(oom, attempts("node-a", "RETRIED", "OUT_OF_MEMORY"), "0 0 0 1 1 1 2 2 2 2 2 2")
            .series(oom, attempts("node-a", "FAILED", "OVER_BUDGET"), "0 1 2 3 4 5 6 7 8 9 10 11")
            // node-b: 1 OOM death that failed the job
            .series(oom, attempts("node-b", "FAILED", "OUT_OF_MEMORY"), "0 0 0 0 0 1 1 1 1 1 1 1")
            // The 10-minute range ends between two scrapes, so increase() extrapolates past the
            // samples: the plain sum is a fraction (3.17), not the 3 attempts there were.
            .expect(
                "count(sum(increase(" + oom + "{reason=\"OUT_OF_MEMORY\"}[10m])) % 1 > 0)",
                "11m30s",
                Map.of("{}", 1.0));
    test.expect(grafana(stats.get(0)), "11m30s", Map.of("{}", 3.0));

    Promtool.Result result = test.run(dir);

    assertThat(result.exitCode()).as(result.output()).isZero();
  }

  // ---- the cluster's jobs ----------------------------------------------------------------------

  /**
   * Submits, alternately through both nodes, jobs that end up 3 SUCCEEDED, 1 FAILED, 2 RUNNING (one
   * per node, filling both CPU slots), 3 QUEUED behind them and 1 CANCELLED while queued; returns
   * the count per state as the API reports it.
   */
  private static Map<String, Long> jobsInEveryState(List<HttpApi> apis, List<String> ids) {
    List<String> finishing = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      finishing.add(submit(apis, ids, aJob().json()));
    }
    finishing.add(submit(apis, ids, aJob().shell("exit 3").maxAttempts(1).json()));
    awaitStates(apis.get(0), finishing, Set.of("SUCCEEDED", "FAILED"));
    List<String> running = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      running.add(submit(apis, ids, aJob().command("sleep", "300").json()));
    }
    awaitStates(apis.get(0), running, Set.of("RUNNING"));
    List<String> queued = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      queued.add(submit(apis, ids, aJob().json()));
    }
    HttpApi.Response cancelled = apis.get(1).post("/api/v1/jobs/" + queued.get(0) + "/cancel");
    assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
    awaitStates(apis.get(0), queued.subList(0, 1), Set.of("CANCELLED"));

    Map<String, Long> counts = new TreeMap<>();
    STATES.forEach(s -> counts.put(s, 0L));
    ids.forEach(id -> counts.merge(apis.get(0).state(id), 1L, Long::sum));
    return counts;
  }

  private static String submit(List<HttpApi> apis, List<String> ids, String json) {
    String id = apis.get(ids.size() % apis.size()).submit(json);
    ids.add(id);
    return id;
  }

  private static void awaitStates(HttpApi api, List<String> ids, Set<String> states) {
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> assertThat(ids).allSatisfy(id -> assertThat(states).contains(api.state(id))));
  }

  /**
   * Cancels what still runs or waits, each running job through the node that runs it (which stops
   * its worker at once), and waits for the workers to be gone: a node's workers outlive the node.
   */
  private static void stopUnfinished(List<GpuqCluster.Node> nodes, List<String> ids) {
    HttpApi any = nodes.get(0).api();
    List<String> stopping = new ArrayList<>();
    List<Long> workers = new ArrayList<>();
    for (String id : ids) {
      JsonNode job = any.job(id);
      String state = job.get("state").asString();
      if (state.equals("RUNNING")) {
        String owner = job.get("placement").get("node").asString();
        JsonNode attempts = job.get("attempts");
        JsonNode pid = attempts.get(attempts.size() - 1).get("pid");
        if (pid != null && !pid.isNull()) {
          workers.add(pid.asLong());
        }
        nodes.stream()
            .filter(n -> n.name().equals(owner))
            .findFirst()
            .orElseThrow()
            .api()
            .post("/api/v1/jobs/" + id + "/cancel");
        stopping.add(id);
      } else if (state.equals("QUEUED")) {
        any.post("/api/v1/jobs/" + id + "/cancel");
        stopping.add(id);
      }
    }
    awaitStates(any, stopping, Set.of("CANCELLED", "SUCCEEDED", "FAILED"));
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(workers)
                    .as("workers of the cancelled jobs")
                    .noneMatch(pid -> ProcessHandle.of(pid).isPresent()));
  }

  // ---- scraping and PromQL ---------------------------------------------------------------------

  private static int port(GpuqCluster.Node node) {
    return Integer.parseInt(node.context().getEnvironment().getProperty("local.server.port"));
  }

  /** Scrapes the node until its gpuq_jobs (cached for a second) shows these counts. */
  private static Exposition awaitCounts(GpuqCluster.Node node, Map<String, Long> truth) {
    AtomicReference<Exposition> scraped = new AtomicReference<>();
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              HttpApi.Response response = node.api().as(null).get("/actuator/prometheus");
              assertThat(response.status()).isEqualTo(200);
              Exposition exposition = Exposition.parse(response.body());
              Map<String, Long> reported = new TreeMap<>();
              for (String state : STATES) {
                reported.put(state, (long) exposition.value("gpuq_jobs", Map.of("state", state)));
              }
              assertThat(reported)
                  .as(node.name() + " reports the whole database's counts")
                  .isEqualTo(truth);
              scraped.set(exposition);
            });
    return scraped.get();
  }

  private static Map<String, Double> byState(Map<String, Long> truth, DoubleUnaryOperator value) {
    Map<String, Double> samples = new LinkedHashMap<>();
    truth.forEach(
        (state, count) ->
            samples.put(
                Promtool.UnitTest.selector(Map.of("state", state)), value.applyAsDouble(count)));
    return samples;
  }

  private static Map<String, String> attempts(String node, String outcome, String reason) {
    return Map.of(
        "instance",
        node + ":8080",
        "job",
        "gpuq",
        "node",
        node,
        "outcome",
        outcome,
        "reason",
        reason);
  }

  /** The query as Grafana sends it with every node selected and a 10-minute range. */
  static String grafana(String query) {
    return query
        .replace("$__rate_interval", "1m")
        .replace("$__range", "10m")
        .replace("${node}", ".*")
        .replace("$node", ".*");
  }
}

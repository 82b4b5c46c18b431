package io.gpuq.sweep;

import static io.gpuq.sweep.TrainerSweep.aTrainerSweep;
import static io.gpuq.sweep.TrainerSweep.valLoss;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("A 2×3 grid of a real trainer that reports its loss every step")
class SweepGridEndToEndTest extends IntegrationTest {

  private static final int STEPS = 5;
  private static final List<Double> LRS = List.of(0.1, 0.003);
  private static final List<Integer> LAYERS = List.of(1, 3, 4);

  private SweepCalls sweeps;
  private TrainerSweep grid;

  @BeforeEach
  void grid() {
    sweeps = new SweepCalls(alice);
    grid =
        aTrainerSweep()
            .name("grid-e2e")
            .grid("lr", LRS.toArray())
            .grid("layers", LAYERS.toArray())
            .steps(STEPS);
  }

  @Test
  void every_trial_is_a_job_with_its_command_parameters_labels_and_environment() {
    JsonNode created = sweeps.create(grid.json());
    String id = created.get("id").asString();

    assertThat(created.get("trials").get("total").asInt()).isEqualTo(6);
    List<JsonNode> rows = sweeps.trials(id, "order=created");
    assertThat(rows).extracting(row -> row.get("trial").asInt()).containsExactly(0, 1, 2, 3, 4, 5);
    for (JsonNode row : rows) {
      int trial = row.get("trial").asInt();
      // The last parameter turns fastest, as in itertools.product.
      String lr = List.of("0.1", "0.003").get(trial / 3);
      String layers = List.of("1", "3", "4").get(trial % 3);
      JsonNode job = alice.job(row.get("jobId").asString());
      assertThat(job.get("sweep").asString()).isEqualTo(id);
      assertThat(job.get("trial").asInt()).isEqualTo(trial);
      assertThat(job.get("parameters").propertyNames()).containsExactly("lr", "layers");
      assertThat(job.get("parameters").get("lr").asDouble()).isEqualTo(Double.parseDouble(lr));
      assertThat(job.get("parameters").get("layers").asInt()).isEqualTo(Integer.parseInt(layers));
      assertThat(job.get("command"))
          .extracting(JsonNode::asString)
          .containsExactly(
              "python3",
              TrainerSweep.SCRIPT.toString(),
              "--lr=" + lr,
              "--layers=" + layers,
              "--steps=" + STEPS);
      assertThat(labels(job))
          .containsExactlyInAnyOrderEntriesOf(Map.of("sweep", id, "lr", lr, "layers", layers));
    }

    await().atMost(Duration.ofSeconds(120)).until(() -> sweeps.state(id).equals("DONE"));
    JsonNode last = rows.get(5);
    String log = alice.get("/api/v1/jobs/" + last.get("jobId").asString() + "/logs").body();
    assertThat(log)
        .contains("GPUQ_SWEEP_ID=" + id)
        .contains("GPUQ_TRIAL=5")
        .containsPattern("GPUQ_PARAMS=\\{\"lr\": ?0.003, ?\"layers\": ?4\\}");
  }

  /** Done means final: a notebook reads the best trial as soon as it sees the sweep DONE. */
  @Test
  void all_six_succeed_the_sweep_is_done_and_the_best_trial_is_the_lowest_loss() {
    String id = sweeps.create(grid.json()).get("id").asString();

    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> sweeps.state(id).equals("DONE"));

    JsonNode sweep = sweeps.sweep(id);
    assertThat(sweep.get("trials").get("SUCCEEDED").asInt()).isEqualTo(6);
    assertThat(sweep.get("trials").get("total").asInt()).isEqualTo(6);
    assertThat(sweep.get("finishedAt").isNull()).isFalse();
    JsonNode best = sweep.get("best");
    assertThat(best.get("trial").asInt()).isEqualTo(4);
    assertThat(best.get("parameters").get("lr").asDouble()).isEqualTo(0.003);
    assertThat(best.get("parameters").get("layers").asInt()).isEqualTo(3);
    assertThat(best.get("value").asDouble())
        .isCloseTo(valLoss(0.003, 3, 1, STEPS - 1), within(1e-9));
    assertThat(best.get("step").asLong()).isEqualTo(STEPS - 1);
    JsonNode bestJob = alice.job(best.get("jobId").asString());
    assertThat(bestJob.get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(bestJob.get("metrics").get("step").asLong()).isEqualTo(STEPS - 1);
    assertThat(bestJob.get("metrics").get("latest").get("val_loss").asDouble())
        .isCloseTo(valLoss(0.003, 3, 1, STEPS - 1), within(1e-9));
    assertThat(sweeps.steps(best.get("jobId").asString())).containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  @Test
  void the_trials_table_orders_by_metric_best_first_and_reversed_worst_first() {
    String id = sweeps.create(grid.json()).get("id").asString();
    await().atMost(Duration.ofSeconds(120)).until(() -> sweeps.state(id).equals("DONE"));
    // What this test is about is the order, not when the last values were read.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                sweeps.trials(id, "order=created").stream()
                    .allMatch(row -> row.path("step").asLong(-1) == STEPS - 1));

    List<JsonNode> bestFirst = sweeps.trials(id, "order=metric");
    List<JsonNode> worstFirst = sweeps.trials(id, "order=-metric");

    List<double[]> expected =
        LRS.stream()
            .flatMap(lr -> LAYERS.stream().map(layers -> new double[] {lr, layers}))
            .sorted(Comparator.comparingDouble(p -> valLoss(p[0], (int) p[1], 1, STEPS - 1)))
            .toList();
    assertThat(bestFirst).hasSize(6);
    for (int i = 0; i < 6; i++) {
      JsonNode row = bestFirst.get(i);
      double lr = expected.get(i)[0];
      int layers = (int) expected.get(i)[1];
      double loss = valLoss(lr, layers, 1, STEPS - 1);
      assertThat(row.get("parameters").get("lr").asDouble()).as("row %d", i).isEqualTo(lr);
      assertThat(row.get("parameters").get("layers").asInt()).as("row %d", i).isEqualTo(layers);
      assertThat(row.get("state").asString()).isEqualTo("SUCCEEDED");
      assertThat(row.get("value").asDouble()).isCloseTo(loss, within(1e-9));
      assertThat(row.get("bestValue").asDouble()).isCloseTo(loss, within(1e-9));
      assertThat(row.get("step").asLong()).isEqualTo(STEPS - 1);
    }
    List<String> bestFirstIds =
        new ArrayList<>(bestFirst.stream().map(row -> row.get("jobId").asString()).toList());
    Collections.reverse(bestFirstIds);
    assertThat(worstFirst)
        .extracting(row -> row.get("jobId").asString())
        .containsExactlyElementsOf(bestFirstIds);
  }

  private static Map<String, String> labels(JsonNode job) {
    Map<String, String> labels = new LinkedHashMap<>();
    job.get("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
    return labels;
  }
}

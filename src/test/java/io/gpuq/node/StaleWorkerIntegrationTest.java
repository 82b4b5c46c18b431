package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.JobService;
import io.gpuq.support.IntegrationTest;
import io.gpuq.wiring.NodeComposition;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

@DisplayName("A node whose jobs were declared lost while it was silent stops their workers")
class StaleWorkerIntegrationTest extends IntegrationTest {

  @Autowired JobService jobs;
  @Autowired NodeComposition composition;

  @Test
  void the_next_heartbeat_stops_a_worker_whose_job_no_longer_belongs_here() {
    String id = alice.submit(aJob().command("sleep", "60").json());
    await().atMost(Duration.ofSeconds(20)).until(() -> alice.state(id).equals("RUNNING"));
    long pid = alice.job(id).get("attempts").get(0).get("pid").asLong();

    // What the other nodes do when this one has been silent too long.
    jobs.declareLostOn("test-node", "node test-node stopped heartbeating");
    assertThat(ProcessHandle.of(pid)).isPresent();

    composition.duty("heartbeat").runOnce();

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(ProcessHandle.of(pid)).isEmpty());
    assertThat(alice.job(id).get("state").asString()).isEqualTo("FAILED");
    assertThat(alice.job(id).get("failureReason").asString()).isEqualTo("LOST");
  }
}

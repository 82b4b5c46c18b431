package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The timeout duty")
class TimeoutDutyTest {

  @TempDir Path dataDir;
  private LocalWorkers local;

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  @Test
  void stops_a_worker_once_its_deadline_has_come_and_says_how_long_it_was_allowed()
      throws Exception {
    local = new LocalWorkers(dataDir, Clock.fixed(T0, ZoneOffset.UTC));
    local.launch("job-1", Duration.ofMinutes(5), "sleep", "60");
    local.launch("job-2", Duration.ofMinutes(30), "sleep", "60");
    local.launch("job-3", "sleep", "60");

    new TimeoutDuty(local.workers(), Clock.fixed(T0.plus(Duration.ofMinutes(5)), ZoneOffset.UTC))
        .runOnce();

    WorkerExit exit = local.exitOf("job-1").get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.TIMEOUT);
    assertThat(exit.stopDetail()).isEqualTo("it ran past its timeout of PT5M");
    assertThat(local.workers().live())
        .extracting(worker -> worker.jobId())
        .containsExactlyInAnyOrder("job-2", "job-3");
  }

  @Test
  void leaves_every_worker_alone_before_its_deadline() {
    local = new LocalWorkers(dataDir, Clock.fixed(T0, ZoneOffset.UTC));
    local.launch("job-1", Duration.ofMinutes(5), "sleep", "60");

    new TimeoutDuty(local.workers(), Clock.fixed(T0.plus(Duration.ofMinutes(4)), ZoneOffset.UTC))
        .runOnce();

    assertThat(local.workers().live())
        .singleElement()
        .satisfies(worker -> assertThat(worker.stopReason()).isNull());
  }
}

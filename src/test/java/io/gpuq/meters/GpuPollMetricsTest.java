package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.duty.PeriodicDuty;
import io.gpuq.gpu.GpuPollDuty;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.proc.ProcFs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Every GPU poll is timed and every failed one counted")
class GpuPollMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final GpuPollMetrics metrics = new GpuPollMetrics(registry, "n1");
  private final EmulatedGpuBackend backend =
      EmulatedGpuBackend.create(1, 1L << 30, "Emulated GPU", ProcFs.system(), Clock.systemUTC());
  private final PeriodicDuty poll =
      metrics.timed(
          new GpuPollDuty(
              new GpuPoller(backend, ProcFs.system(), Clock.systemUTC(), Map::of, List.of()),
              Duration.ofSeconds(1),
              metrics::pollFailed));

  private long timedPolls() {
    return registry.get("gpuq.gpu.poll.duration").tag("node", "n1").timer().count();
  }

  private double errors() {
    return registry.get("gpuq.gpu.poll.errors").tag("node", "n1").counter().count();
  }

  @Test
  void a_working_poll_is_timed_and_not_counted_as_an_error() {
    poll.runOnce();
    poll.runOnce();

    assertThat(timedPolls()).isEqualTo(2);
    assertThat(errors()).isZero();
    assertThat(poll.name()).isEqualTo("gpu-poll");
  }

  @Test
  void a_poll_of_a_backend_that_cannot_be_read_is_counted_and_timed() {
    backend.close();

    poll.runOnce();

    assertThat(errors()).isEqualTo(1.0);
    assertThat(timedPolls()).isEqualTo(1);
  }
}

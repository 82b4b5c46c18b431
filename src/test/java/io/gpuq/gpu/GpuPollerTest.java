package io.gpuq.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.proc.ProcFs;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The GPU poller")
class GpuPollerTest {

  private final EmulatedGpuBackend backend =
      EmulatedGpuBackend.create(1, 1L << 30, "Emulated GPU", ProcFs.system(), Clock.systemUTC());

  @Test
  void tells_every_listener_it_was_built_with_of_every_poll_in_their_order() {
    List<Map.Entry<String, GpuUsage>> heard = new CopyOnWriteArrayList<>();
    GpuPoller poller =
        pollerHeardBy(
            usage -> heard.add(entry("guard", usage)), usage -> heard.add(entry("metrics", usage)));

    GpuUsage first = poller.poll();
    GpuUsage second = poller.poll();

    assertThat(heard)
        .containsExactly(
            entry("guard", first),
            entry("metrics", first),
            entry("guard", second),
            entry("metrics", second));
  }

  @Test
  void a_listener_hears_a_poll_once_it_is_the_latest() {
    AtomicReference<GpuPoller> poller = new AtomicReference<>();
    List<Boolean> heardTheLatest = new CopyOnWriteArrayList<>();
    poller.set(pollerHeardBy(usage -> heardTheLatest.add(poller.get().latest() == usage)));

    poller.get().poll();

    assertThat(heardTheLatest).containsExactly(true);
  }

  @Test
  void a_workers_short_lived_children_are_its_own_or_gone_never_a_stranger() throws Exception {
    // A shell loop forks a child every few milliseconds: some are on the GPU in the backend's
    // reading and gone by the time the poller reads the process table to attribute them.
    Process worker =
        new ProcessBuilder("sh", "-c", "while :; do /bin/true; done")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      backend.attach(worker.pid(), List.of(0));
      GpuPoller poller =
          new GpuPoller(
              backend,
              ProcFs.system(),
              Clock.systemUTC(),
              () -> Map.of(worker.pid(), "job-1"),
              List.of());

      for (int poll = 0; poll < 300; poll++) {
        GpuUsage usage = poller.poll();
        assertThat(usage.samples().get(0).processes())
            .as("poll %d", poll)
            .isNotEmpty()
            .allSatisfy(p -> assertThat(usage.jobOfPid()).containsEntry(p.pid(), "job-1"));
      }
    } finally {
      backend.detach(worker.pid());
      worker.destroyForcibly().waitFor();
    }
  }

  @SafeVarargs
  private GpuPoller pollerHeardBy(java.util.function.Consumer<GpuUsage>... listeners) {
    return new GpuPoller(backend, ProcFs.system(), Clock.systemUTC(), Map::of, List.of(listeners));
  }
}

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

  @SafeVarargs
  private GpuPoller pollerHeardBy(java.util.function.Consumer<GpuUsage>... listeners) {
    return new GpuPoller(backend, ProcFs.system(), Clock.systemUTC(), Map::of, List.of(listeners));
  }
}

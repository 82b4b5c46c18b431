package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers.HostHeld;
import io.gpuq.text.Cpus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What placement counts as taken of the node's cores and host memory: the launches under way and
 * the live workers, with real processes, until each has exited.
 */
@DisplayName("Live and launching workers hold their cores and host memory until they exit")
class WorkersHoldCoresTest {

  private static final long GIB = 1L << 30;

  @TempDir Path dataDir;
  private LocalWorkers local;

  @BeforeEach
  void workers() {
    local = new LocalWorkers(dataDir, Clock.systemUTC());
  }

  @AfterEach
  void close() {
    local.close();
  }

  @Test
  void a_launch_under_way_holds_its_cores_and_memory_until_it_is_given_up() {
    local
        .workers()
        .reserveForLaunch("wide", JobPlacement.cpuOnly("node-1"), new HostResources(4, 2 * GIB));
    local.workers().reserveForLaunch("plain", JobPlacement.cpuOnly("node-1"));

    assertThat(local.workers().hostHeld()).isEqualTo(new HostHeld(Cpus.of(5), 2 * GIB));

    local.workers().releaseLaunch("wide");
    local.workers().releaseLaunch("plain");
    assertThat(local.workers().hostHeld()).isEqualTo(new HostHeld(Cpus.of(0), 0));
  }

  @Test
  void a_live_worker_holds_its_core_until_its_process_has_exited() {
    local.launch("sleeper", "sleep", "60");

    assertThat(local.workers().hostHeld()).isEqualTo(new HostHeld(Cpus.of(1), 0));

    local.workers().stop("sleeper", StopReason.CANCELLED);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> local.workers().hostHeld().equals(new HostHeld(Cpus.of(0), 0)));
    // Freed before its end is recorded, never after: the end comes next.
    await().atMost(Duration.ofSeconds(20)).until(() -> local.exitOf("sleeper").isDone());
  }

  @Test
  void what_is_held_beside_the_workers_takes_all_its_memory_and_the_whole_cores_it_keeps_busy() {
    local.workers().reserveForLaunch("trial", JobPlacement.cpuOnly("node-1"));
    HostHeld idleZygote = new HostHeld(Cpus.ofMillis(12), GIB);
    local.workers().holdAlso(() -> Map.of("alice", idleZygote));

    assertThat(local.workers().hostHeld())
        .as("a zygote between forks leaves the other core to the next trial")
        .isEqualTo(new HostHeld(Cpus.of(1), GIB));
    assertThat(local.workers().heldBesideWorkers())
        .as("its owner's share counts its use as measured")
        .containsEntry("alice", idleZygote);

    local.workers().holdAlso(() -> Map.of("alice", new HostHeld(Cpus.ofMillis(970), GIB)));
    assertThat(local.workers().hostHeld())
        .as("a zygote that imports keeps a core busy")
        .isEqualTo(new HostHeld(Cpus.of(2), GIB));
  }
}

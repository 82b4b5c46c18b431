package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.proc.KernelConstants;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job's CPU use is measured from its process tree between readings")
class TreeCpuTrackerTest {

  private static final KernelConstants HZ_100 = new KernelConstants(4096, 100);
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  private final TreeCpuTracker tracker = new TreeCpuTracker(HZ_100);

  private static ProcStat process(long pid, long startTicks, long cpuTicks) {
    return new ProcStat(pid, 1, startTicks, 1 << 20, cpuTicks);
  }

  @Test
  void the_first_reading_counts_all_cpu_time_so_far_but_no_rate() {
    TreeCpuTracker.Reading first =
        tracker.observe("job", List.of(process(10, 500, 150), process(11, 510, 50)), T0);

    assertThat(first.cpuSeconds()).isEqualTo(2.0);
    assertThat(first.cores()).isEmpty();
  }

  @Test
  void cores_are_the_cpu_time_gained_per_second_of_wall_time() {
    tracker.observe("job", List.of(process(10, 500, 100)), T0);

    TreeCpuTracker.Reading second =
        tracker.observe("job", List.of(process(10, 500, 250)), T0.plusSeconds(2));

    assertThat(second.cores()).hasValueCloseTo(0.75, within(1e-9));
    assertThat(second.cpuSeconds()).isEqualTo(2.5);
  }

  @Test
  void a_child_started_between_readings_adds_all_its_time() {
    tracker.observe("job", List.of(process(10, 500, 100)), T0);

    TreeCpuTracker.Reading second =
        tracker.observe(
            "job", List.of(process(10, 500, 150), process(12, 700, 100)), T0.plusSeconds(1));

    assertThat(second.cores()).hasValueCloseTo(1.5, within(1e-9));
    assertThat(second.cpuSeconds()).isEqualTo(2.5);
  }

  @Test
  void a_child_that_exited_keeps_its_time_in_the_total() {
    tracker.observe("job", List.of(process(10, 500, 100), process(12, 700, 300)), T0);

    TreeCpuTracker.Reading afterExit =
        tracker.observe("job", List.of(process(10, 500, 110)), T0.plusSeconds(1));

    assertThat(afterExit.cpuSeconds()).isEqualTo(4.1);
    assertThat(afterExit.cores()).hasValueCloseTo(0.1, within(1e-9));
  }

  @Test
  void a_reused_pid_is_a_new_process_recognised_by_its_start_time() {
    tracker.observe("job", List.of(process(10, 500, 100), process(12, 700, 300)), T0);

    // pid 12 exited and the kernel gave its number to a new child with 20 ticks so far
    TreeCpuTracker.Reading second =
        tracker.observe(
            "job", List.of(process(10, 500, 100), process(12, 900, 20)), T0.plusSeconds(1));

    assertThat(second.cpuSeconds()).isEqualTo(4.2);
    assertThat(second.cores()).hasValueCloseTo(0.2, within(1e-9));
  }

  @Test
  void a_reading_at_the_same_instant_measures_nothing_and_keeps_the_previous_step_base() {
    tracker.observe("job", List.of(process(10, 500, 100)), T0);
    TreeCpuTracker.Reading same = tracker.observe("job", List.of(process(10, 500, 120)), T0);
    TreeCpuTracker.Reading later =
        tracker.observe("job", List.of(process(10, 500, 200)), T0.plusSeconds(1));

    assertThat(same.cores()).isEmpty();
    assertThat(same.cpuSeconds()).isEqualTo(1.0);
    assertThat(later.cores()).hasValueCloseTo(1.0, within(1e-9));
    assertThat(later.cpuSeconds()).isEqualTo(2.0);
  }

  @Test
  void jobs_are_measured_apart_and_a_forgotten_job_starts_afresh() {
    tracker.observe("a", List.of(process(10, 500, 100)), T0);
    tracker.observe("b", List.of(process(20, 600, 40)), T0);
    tracker.retainOnly(Set.of("b"));

    TreeCpuTracker.Reading a =
        tracker.observe("a", List.of(process(10, 500, 130)), T0.plusSeconds(1));
    TreeCpuTracker.Reading b =
        tracker.observe("b", List.of(process(20, 600, 90)), T0.plusSeconds(1));

    assertThat(a.cores()).isEmpty();
    assertThat(a.cpuSeconds()).isEqualTo(1.3);
    assertThat(b.cores()).hasValueCloseTo(0.5, within(1e-9));
  }

  @Test
  void a_busy_real_process_is_measured_in_seconds_as_the_kernel_counts_them() throws Exception {
    ProcFs procFs = ProcFs.system();
    TreeCpuTracker real = new TreeCpuTracker(procFs.kernel());
    Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
    try {
      // Each reading is taken with the loop stopped, so that however long this thread waits for a
      // core on a busy machine, the loop uses no CPU between the counters and the clock.
      signal(busy, "STOP");
      real.observe("busy", procFs.snapshot().treeOf(busy.pid()), Instant.now());
      signal(busy, "CONT");
      Thread.sleep(1500);
      signal(busy, "STOP");
      TreeCpuTracker.Reading reading =
          real.observe("busy", procFs.snapshot().treeOf(busy.pid()), Instant.now());
      Duration byTheJdk = busy.info().totalCpuDuration().orElseThrow();

      // One thread can use at most one core; how much it gets depends on the machine's load.
      assertThat(reading.cores()).isPresent();
      assertThat(reading.cores().getAsDouble()).isPositive().isLessThanOrEqualTo(1.05);
      // The JDK reads the same kernel counters a moment later, with its own unit conversion.
      assertThat(reading.cpuSeconds())
          .isPositive()
          .isCloseTo(byTheJdk.toNanos() / 1e9, within(0.1));
    } finally {
      busy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Sends a signal, and for STOP waits until the kernel shows the process stopped. */
  private static void signal(Process process, String signal) throws Exception {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    if (!kill.waitFor(30, TimeUnit.SECONDS)) {
      kill.destroyForcibly();
      throw new IllegalStateException("kill -" + signal + " did not end");
    }
    assertThat(kill.exitValue()).isZero();
    if (signal.equals("STOP")) {
      Path stat = Path.of("/proc/" + process.pid() + "/stat");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                String text = Files.readString(stat);
                return text.substring(text.lastIndexOf(')') + 2).startsWith("T");
              });
    }
  }
}

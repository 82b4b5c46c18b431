package io.gpuq.gpu.emulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.awaitility.Awaitility.await;

import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuProcessUsage;
import io.gpuq.gpu.GpuSample;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import io.gpuq.proc.SpawnedProcess;
import io.gpuq.support.SettableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class EmulatedGpuBackendTest {

  private static final long GIB = 1L << 30;

  private final ProcFs procFs = ProcFs.system();

  private EmulatedGpuBackend twoGpus() {
    return EmulatedGpuBackend.create(2, 16 * GIB, "Emulated GPU", procFs, Clock.systemUTC());
  }

  @Test
  @DisplayName("devices come from configuration, with UUIDs GPU-emulated-<index>")
  void devicesFromConfiguration() {
    try (EmulatedGpuBackend backend =
        EmulatedGpuBackend.create(3, 8 * GIB, "Emulated A", procFs, Clock.systemUTC())) {
      assertThat(backend.kind()).isEqualTo("emulated");
      assertThat(backend.devices())
          .containsExactly(
              new GpuDevice(0, "GPU-emulated-0", "Emulated A", 8 * GIB),
              new GpuDevice(1, "GPU-emulated-1", "Emulated A", 8 * GIB),
              new GpuDevice(2, "GPU-emulated-2", "Emulated A", 8 * GIB));
    }
  }

  @Test
  @DisplayName("with nothing attached, every device is idle and empty")
  void idle() {
    try (EmulatedGpuBackend backend = twoGpus()) {
      assertThat(backend.sample())
          .containsExactly(
              new GpuSample(backend.devices().get(0), 0, 0, List.of()),
              new GpuSample(backend.devices().get(1), 0, 0, List.of()));
    }
  }

  @Test
  @DisplayName(
      "a worker attached to GPU 1 shows its whole tree there, with each process's RSS, and"
          + " nothing on GPU 0; once killed and reaped it disappears")
  void workerTreeOnItsGpu() {
    try (EmulatedGpuBackend backend = twoGpus();
        SpawnedProcess worker = pythonWithChild(200, 100)) {
      long childPid = Long.parseLong(worker.readLine());
      backend.attach(worker.pid(), List.of(1));

      List<GpuSample> samples = backend.sample();

      GpuSample gpu1 = samples.get(1);
      assertThat(gpu1.processes())
          .extracting(GpuProcessUsage::pid)
          .containsExactlyInAnyOrder(worker.pid(), childPid);
      Map<Long, Long> used = usedByPid(gpu1);
      assertThat(used.get(worker.pid()))
          .isGreaterThan(200L << 20)
          .isCloseTo(rss(worker.pid()), withinPercentage(3));
      assertThat(used.get(childPid))
          .isGreaterThan(100L << 20)
          .isCloseTo(rss(childPid), withinPercentage(3));
      assertThat(gpu1.memoryUsedBytes()).isEqualTo(used.get(worker.pid()) + used.get(childPid));
      assertThat(samples.get(0).processes()).isEmpty();
      assertThat(samples.get(0).memoryUsedBytes()).isZero();

      worker.kill();

      List<GpuSample> after = backend.sample();
      assertThat(after).allSatisfy(sample -> assertThat(sample.processes()).isEmpty());
      assertThat(after.get(1).memoryUsedBytes()).isZero();
      assertThat(backend.attachedPids()).isEmpty();
    }
  }

  @Test
  @DisplayName("a worker on two GPUs counts half of its memory on each")
  void splitAcrossGpus() {
    try (EmulatedGpuBackend backend = twoGpus();
        SpawnedProcess worker = SpawnedProcess.pythonHolding(100)) {
      backend.attach(worker.pid(), List.of(0, 1));

      List<GpuSample> samples = backend.sample();

      long rss = rss(worker.pid());
      for (GpuSample sample : samples) {
        assertThat(sample.processes())
            .extracting(GpuProcessUsage::pid)
            .containsExactly(worker.pid());
        assertThat(sample.memoryUsedBytes()).isCloseTo(rss / 2, withinPercentage(3));
      }
    }
  }

  @Test
  @DisplayName("a detached worker is no longer reported")
  void detach() {
    try (EmulatedGpuBackend backend = twoGpus();
        SpawnedProcess worker = SpawnedProcess.start("sleep", "60")) {
      backend.attach(worker.pid(), List.of(0));
      assertThat(backend.sample().get(0).processes()).hasSize(1);

      backend.detach(worker.pid());

      assertThat(backend.sample().get(0).processes()).isEmpty();
      assertThat(backend.attachedPids()).isEmpty();
    }
  }

  @Test
  @DisplayName(
      "utilization is the CPU time a worker used since the previous sample, per second of clock")
  void utilizationFromCpuTime() {
    SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (EmulatedGpuBackend backend =
            EmulatedGpuBackend.create(2, 16 * GIB, "Emulated GPU", procFs, clock);
        SpawnedProcess busy = SpawnedProcess.start("python3", "-c", "while True: pass");
        SpawnedProcess idle = SpawnedProcess.start("sleep", "60")) {
      backend.attach(busy.pid(), List.of(0));
      backend.attach(idle.pid(), List.of(1));
      backend.sample();
      long ticksAtFirstSample = cpuTicks(busy.pid());
      // The clock, not the loaded build machine, decides the interval: however long the busy
      // worker takes to use half a second of CPU, that half second falls into one clock second.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> procFs.ticksToSeconds(cpuTicks(busy.pid()) - ticksAtFirstSample) >= 0.5);
      clock.advance(Duration.ofMillis(1000));

      List<GpuSample> samples = backend.sample();

      assertThat(samples.get(0).utilization()).isGreaterThanOrEqualTo(0.5).isLessThanOrEqualTo(1.0);
      assertThat(samples.get(1).utilization()).isLessThan(0.05);
    }
  }

  private long cpuTicks(long pid) {
    return procFs.stat(pid).orElseThrow().cpuTimeTicks();
  }

  @Test
  @DisplayName("attaching to a GPU that does not exist is refused")
  void unknownGpu() {
    try (EmulatedGpuBackend backend = twoGpus()) {
      assertThatThrownBy(() -> backend.attach(ProcessHandle.current().pid(), List.of(2)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no emulated GPU 2");
    }
  }

  @Test
  @DisplayName("a CPU-only worker (no GPUs) registers nothing")
  void noGpus() {
    try (EmulatedGpuBackend backend = twoGpus()) {
      backend.attach(ProcessHandle.current().pid(), List.of());

      assertThat(backend.attachedPids()).isEmpty();
    }
  }

  @Test
  @DisplayName("a closed backend refuses to sample")
  void closed() {
    EmulatedGpuBackend backend = twoGpus();
    backend.close();

    assertThatThrownBy(backend::sample)
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining("closed");
  }

  @Nested
  @DisplayName("on a hand-written /proc")
  class OnWrittenProc extends WrittenProcFixture {

    @Test
    @DisplayName("utilization is the tree's CPU seconds per elapsed second, shared by its GPUs")
    void utilizationArithmetic() throws Exception {
      process(100, 1, 5000, 1000, 10);
      process(101, 100, 5100, 1000, 0);
      try (EmulatedGpuBackend backend = backend(3)) {
        backend.attach(100, List.of(0, 1));
        backend.attach(200, List.of(2)); // not running: dropped at the first sample
        assertThat(backend.sample()).allSatisfy(s -> assertThat(s.utilization()).isZero());

        process(100, 1, 5000, 1000, 30); // +20 ticks
        process(101, 100, 5100, 1000, 40); // +40 ticks: 0.6 s of CPU in all
        clock.advance(Duration.ofMillis(2000));
        List<GpuSample> samples = backend.sample();

        // 0.6 CPU-seconds in 2 s = 0.3 cores, over 2 GPUs = 0.15 each.
        assertThat(samples.get(0).utilization()).isCloseTo(0.15, withinPercentage(0.01));
        assertThat(samples.get(1).utilization()).isCloseTo(0.15, withinPercentage(0.01));
        assertThat(samples.get(2).utilization()).isZero();
        assertThat(backend.attachedPids()).containsExactly(100L);
      }
    }

    @Test
    @DisplayName("utilization is capped at 1 and never negative when a busy child ends")
    void utilizationBounds() throws Exception {
      process(100, 1, 5000, 0, 0);
      process(101, 100, 5100, 0, 0);
      try (EmulatedGpuBackend backend = backend(1)) {
        backend.attach(100, List.of(0));
        backend.sample();

        process(101, 100, 5100, 0, 400); // 4 cores busy for a second
        clock.advance(Duration.ofMillis(1000));
        assertThat(backend.sample().get(0).utilization()).isEqualTo(1.0);

        remove(101);
        clock.advance(Duration.ofMillis(1000));
        assertThat(backend.sample().get(0).utilization()).isZero();
      }
    }

    @Test
    @DisplayName("a root whose pid was reused by another process is dropped")
    void pidReuse() throws Exception {
      process(100, 1, 5000, 4096, 0);
      try (EmulatedGpuBackend backend = backend(1)) {
        backend.attach(100, List.of(0));
        assertThat(backend.sample().get(0).processes()).hasSize(1);

        process(100, 1, 9000, 4096, 0); // same pid, later start: another process

        assertThat(backend.sample().get(0).processes()).isEmpty();
        assertThat(backend.attachedPids()).isEmpty();
      }
    }

    @Test
    @DisplayName(
        "a worker attached while a sample reads /proc stays attached: the sample that began before"
            + " its process existed does not take it for ended")
    void attachDuringASample() throws Exception {
      // Enough processes that each sample spends a while reading them, so that attaching lands
      // inside a sample again and again.
      for (long pid = 10_000; pid < 10_400; pid++) {
        process(pid, 1, 100, 1, 0);
      }
      try (EmulatedGpuBackend backend = backend(1)) {
        AtomicLong samples = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Thread sampler =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    backend.sample();
                    samples.incrementAndGet();
                  }
                });
        sampler.start();
        try {
          for (long pid = 100; pid < 160; pid++) {
            process(pid, 1, 5000 + pid, 10, 0);
            backend.attach(pid, List.of(0));
            // Two samples more: the second began after the attach, and both have judged it.
            long seen = samples.get();
            // Looked at every few milliseconds, not Awaitility's 100: 60 rounds of two samples.
            await()
                .atMost(Duration.ofSeconds(30))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> samples.get() >= seen + 2);
            assertThat(backend.attachedPids()).as("attached pid %d", pid).contains(pid);
          }
        } finally {
          stop.set(true);
          sampler.join();
        }
      }
    }

    @Test
    @DisplayName("memory is RSS divided by the worker's GPU count; the device sums its processes")
    void memoryArithmetic() throws Exception {
      process(100, 1, 5000, 3000, 0); // 3000 pages
      process(101, 100, 5001, 1000, 0);
      process(300, 1, 5002, 500, 0);
      try (EmulatedGpuBackend backend = backend(2)) {
        backend.attach(100, List.of(0, 1));
        backend.attach(300, List.of(1));

        List<GpuSample> samples = backend.sample();

        assertThat(samples.get(0).processes())
            .containsExactly(
                new GpuProcessUsage(100, 1500 * PAGE), new GpuProcessUsage(101, 500 * PAGE));
        assertThat(samples.get(0).memoryUsedBytes()).isEqualTo(2000 * PAGE);
        assertThat(samples.get(1).processes())
            .containsExactly(
                new GpuProcessUsage(100, 1500 * PAGE),
                new GpuProcessUsage(101, 500 * PAGE),
                new GpuProcessUsage(300, 500 * PAGE));
        assertThat(samples.get(1).memoryUsedBytes()).isEqualTo(2500 * PAGE);
      }
    }
  }

  /** python3 holding {@code parentMb}, with a python3 child holding {@code childMb}. */
  private static SpawnedProcess pythonWithChild(int parentMb, int childMb) {
    String child =
        "import time; d = b'\\x01' * ("
            + childMb
            + " << 20); print('ready', flush=True);"
            + " time.sleep(600)";
    return SpawnedProcess.start(
        "python3",
        "-c",
        "import subprocess, sys, time\n"
            + "data = b'\\x01' * ("
            + parentMb
            + " << 20)\n"
            + "child = subprocess.Popen([sys.executable, '-c', "
            + pythonString(child)
            + "], stdout=subprocess.PIPE)\n"
            + "child.stdout.readline()\n"
            + "print(child.pid, flush=True)\n"
            + "time.sleep(600)\n");
  }

  private static String pythonString(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  private long rss(long pid) {
    return procFs.stat(pid).map(ProcStat::residentBytes).orElseThrow();
  }

  private static Map<Long, Long> usedByPid(GpuSample sample) {
    return sample.processes().stream()
        .collect(Collectors.toMap(GpuProcessUsage::pid, GpuProcessUsage::memoryUsedBytes));
  }
}

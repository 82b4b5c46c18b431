package io.gpuq.proc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ProcFsTest {

  private final ProcFs procFs = ProcFs.system();

  @Test
  @DisplayName("reads the JVM's own stat: pid, parent, resident memory, CPU time")
  void readsOwnStat() {
    ProcessHandle self = ProcessHandle.current();

    ProcStat stat = procFs.stat(self.pid()).orElseThrow();

    assertThat(stat.pid()).isEqualTo(self.pid());
    assertThat(stat.ppid()).isEqualTo(self.parent().orElseThrow().pid());
    assertThat(stat.residentBytes()).isGreaterThan(10L << 20);
    assertThat(stat.cpuTimeTicks()).isPositive();
    assertThat(stat.startTimeTicks()).isPositive();
  }

  @Test
  @DisplayName("a pid that does not exist gives empty, not an exception")
  void missingPid() {
    assertThat(procFs.stat(Integer.MAX_VALUE)).isEmpty();
  }

  @Test
  @DisplayName("resident bytes are RSS pages times the real page size (as VmRSS in status)")
  void residentBytesMatchStatus() throws IOException {
    try (SpawnedProcess python = SpawnedProcess.pythonHolding(200)) {
      long residentBytes = procFs.stat(python.pid()).orElseThrow().residentBytes();

      assertThat(residentBytes).isGreaterThan(200L << 20);
      assertThat(residentBytes).isCloseTo(vmRssBytes(python.pid()), withinPercentage(2));
    }
  }

  @Test
  @DisplayName("CPU time grows while a process computes")
  void cpuTimeGrows() {
    try (SpawnedProcess busy = SpawnedProcess.start("python3", "-c", "while True: pass")) {
      long before = procFs.stat(busy.pid()).orElseThrow().cpuTimeTicks();

      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> procFs.stat(busy.pid()).orElseThrow().cpuTimeTicks(),
              after -> procFs.ticksToSeconds(after - before) >= 0.2);
    }
  }

  @Test
  @DisplayName("treeOf finds children and grandchildren, as the JDK's descendants() does")
  void treeOfFindsGrandchildren() {
    // sh -> (sh -> sleep), sleep; the trailing 'true' stops sh from exec'ing the last command.
    try (SpawnedProcess root =
        SpawnedProcess.start("sh", "-c", "sh -c 'sleep 60; true' & sleep 60; true")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> root.process().descendants().count() == 3);
      Set<Long> expected =
          Stream.concat(Stream.of(root.pid()), root.process().descendants().map(ProcessHandle::pid))
              .collect(Collectors.toSet());

      List<ProcStat> tree = procFs.snapshot().treeOf(root.pid());

      assertThat(tree).extracting(ProcStat::pid).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(tree.get(0).pid()).as("the root comes first").isEqualTo(root.pid());
      long grandchildren =
          tree.stream().filter(p -> p.ppid() != root.pid() && p.pid() != root.pid()).count();
      assertThat(grandchildren).isEqualTo(1);
    }
  }

  @Test
  @DisplayName("treeOf a pid that is not running is empty")
  void treeOfMissingRoot() {
    assertThat(procFs.snapshot().treeOf(Integer.MAX_VALUE)).isEmpty();
  }

  @Test
  @DisplayName("a snapshot holds this JVM and its children, readable by pid")
  void snapshotHoldsSelf() {
    try (SpawnedProcess sleep = SpawnedProcess.start("sleep", "60")) {
      ProcessTable table = procFs.snapshot();

      assertThat(table.get(ProcessHandle.current().pid())).isPresent();
      assertThat(table.get(sleep.pid()))
          .get()
          .extracting(ProcStat::ppid)
          .isEqualTo(ProcessHandle.current().pid());
      assertThat(table.size()).isEqualTo(table.all().size()).isGreaterThan(2);
    }
  }

  @Test
  @DisplayName("a command name with spaces and parentheses, 'a) b (c', parses")
  void commWithParentheses(@TempDir Path dir) throws IOException {
    Path oddName = Files.createSymbolicLink(dir.resolve("a) b (c"), whereIs("sleep"));
    try (SpawnedProcess odd = SpawnedProcess.start(oddName.toString(), "60")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> comm(odd.pid()).equals("a) b (c"));

      ProcStat stat = procFs.stat(odd.pid()).orElseThrow();

      assertThat(stat.pid()).isEqualTo(odd.pid());
      assertThat(stat.ppid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(stat.residentBytes()).isPositive();
      assertThat(procFs.snapshot().get(odd.pid())).contains(stat);
    }
  }

  @Test
  @DisplayName("entries without a readable, well-formed stat are skipped by snapshot and stat")
  void skipsBrokenEntries(@TempDir Path root) throws IOException {
    writeStat(root, 7, "7 (ok) S 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 500 1000 25 0");
    Files.createDirectories(root.resolve("8")); // vanished: the directory but no stat
    writeStat(root, 9, "9 (cut) S 1 9 9 0"); // truncated
    writeStat(root, 10, "garbage");
    Files.createDirectories(root.resolve("self"));
    ProcFs fake = new ProcFs(root, new KernelConstants(4096, 100));

    ProcessTable table = fake.snapshot();

    assertThat(table.all()).containsExactly(new ProcStat(7, 1, 500, 25 * 4096, 7));
    assertThat(fake.stat(8)).isEmpty();
    assertThat(fake.stat(9)).isEmpty();
    assertThat(fake.stat(11)).isEmpty();
  }

  @Test
  @DisplayName("a snapshot of a /proc that does not exist is empty")
  void missingRoot(@TempDir Path dir) {
    assertThat(new ProcFs(dir.resolve("nothing")).snapshot().size()).isZero();
  }

  @Test
  @DisplayName("page size and clock ticks are the kernel's, as getconf reports them")
  void kernelConstantsMatchGetconf() throws Exception {
    KernelConstants kernel = KernelConstants.detect();

    assertThat(kernel.pageSizeBytes()).isEqualTo(getconf("PAGESIZE"));
    assertThat(kernel.clockTicksPerSecond()).isEqualTo(getconf("CLK_TCK"));
  }

  @Test
  @DisplayName("ticks convert to seconds at the clock-tick rate")
  void ticksToTime() {
    KernelConstants kernel = new KernelConstants(4096, 100);

    assertThat(kernel.ticksToSeconds(150)).isCloseTo(1.5, within(1e-12));
    assertThat(kernel.ticksToDuration(150)).isEqualTo(Duration.ofMillis(1500));
    assertThat(new KernelConstants(4096, 1024).ticksToDuration(1536))
        .isEqualTo(Duration.ofMillis(1500));
  }

  static void writeStat(Path root, long pid, String line) throws IOException {
    Path dir = Files.createDirectories(root.resolve(Long.toString(pid)));
    Files.writeString(dir.resolve("stat"), line + "\n");
  }

  private static long vmRssBytes(long pid) throws IOException {
    String line =
        Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
            .filter(l -> l.startsWith("VmRSS:"))
            .findFirst()
            .orElseThrow();
    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
  }

  private static String comm(long pid) throws IOException {
    return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
  }

  private static Path whereIs(String command) {
    return Stream.of(System.getenv("PATH").split(":"))
        .map(dir -> Path.of(dir, command))
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(command + " not on PATH"));
  }

  private static long getconf(String name) throws Exception {
    Process getconf = new ProcessBuilder("getconf", name).start();
    String out = new String(getconf.getInputStream().readAllBytes()).strip();
    assertThat(getconf.waitFor()).isZero();
    return Long.parseLong(out);
  }
}

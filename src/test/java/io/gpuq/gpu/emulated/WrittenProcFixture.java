package io.gpuq.gpu.emulated;

import io.gpuq.proc.KernelConstants;
import io.gpuq.proc.ProcFs;
import io.gpuq.support.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * A /proc written by the test (real files, read by the real {@link ProcFs}) and a clock the test
 * moves, for exact arithmetic that live processes cannot give.
 */
abstract class WrittenProcFixture {

  static final long PAGE = 4096;

  @TempDir Path procRoot;

  final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));

  EmulatedGpuBackend backend(int gpus) {
    return EmulatedGpuBackend.create(
        gpus,
        16L << 30,
        "Emulated GPU",
        new ProcFs(procRoot, new KernelConstants(PAGE, 100)),
        clock);
  }

  /** Writes /proc/{pid}/stat as the kernel would. */
  void process(long pid, long ppid, long startTicks, long rssPages, long cpuTicks)
      throws IOException {
    Path dir = Files.createDirectories(procRoot.resolve(Long.toString(pid)));
    long utime = cpuTicks / 2;
    long stime = cpuTicks - utime;
    Files.writeString(
        dir.resolve("stat"),
        pid
            + " (python3) S "
            + ppid
            + " "
            + pid
            + " "
            + pid
            + " 0 -1 4194560 1 0 0 0 "
            + utime
            + " "
            + stime
            + " 0 0 20 0 1 0 "
            + startTicks
            + " 1000000 "
            + rssPages
            + " 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
  }

  void remove(long pid) throws IOException {
    try (Stream<Path> files = Files.walk(procRoot.resolve(Long.toString(pid)))) {
      for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}

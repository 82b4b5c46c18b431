package io.gpuq.proc;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads processes from a Linux {@code /proc} file system.
 *
 * <p>Processes come and go while they are read: one that vanishes (or whose stat file cannot be
 * read or parsed) is simply left out; nothing here throws for it. Thread-safe and stateless.
 */
public final class ProcFs {

  // A stat line is about 300 bytes; comm is at most 64 bytes, so 1 KiB always holds one.
  private static final int STAT_BUFFER_BYTES = 1024;

  private final Path root;
  private final String rootPrefix;
  private final KernelConstants kernel;

  /** The {@code /proc} of this machine, with this kernel's page size and clock-tick rate. */
  public static ProcFs system() {
    return new ProcFs(Path.of("/proc"));
  }

  public ProcFs(Path root) {
    this(root, KernelConstants.detect());
  }

  public ProcFs(Path root, KernelConstants kernel) {
    this.root = root;
    this.rootPrefix = root.toString() + File.separator;
    this.kernel = kernel;
  }

  public Path root() {
    return root;
  }

  public KernelConstants kernel() {
    return kernel;
  }

  /** Convenience for {@code kernel().ticksToSeconds(ticks)}. */
  public double ticksToSeconds(long ticks) {
    return kernel.ticksToSeconds(ticks);
  }

  /** The process {@code pid}, or empty when it does not exist (any more). */
  public Optional<ProcStat> stat(long pid) {
    return readStat(Long.toString(pid), new byte[STAT_BUFFER_BYTES]);
  }

  /**
   * Whether {@code pid} is still the process that started at {@code startTicks}, not a later one
   * that was given the same PID.
   */
  public boolean isSameProcess(long pid, long startTicks) {
    return stat(pid).map(stat -> stat.startTimeTicks() == startTicks).orElse(false);
  }

  /**
   * Every process of the machine, each {@code stat} file read once. Costs roughly one open/read per
   * process (see {@code GpuPollBench}); the result is not an atomic picture, only a fast one.
   */
  public ProcessTable snapshot() {
    String[] names = root.toFile().list();
    if (names == null) {
      return new ProcessTable(List.of());
    }
    byte[] buffer = new byte[STAT_BUFFER_BYTES];
    List<ProcStat> processes = new ArrayList<>(names.length);
    for (String name : names) {
      if (isPid(name)) {
        readStat(name, buffer).ifPresent(processes::add);
      }
    }
    return new ProcessTable(processes);
  }

  private Optional<ProcStat> readStat(String pid, byte[] buffer) {
    // FileInputStream rather than Files.readAllBytes: /proc files report size 0, which makes the
    // NIO path allocate and grow buffers; one read into a reused array is all a stat line needs.
    try (FileInputStream in = new FileInputStream(rootPrefix + pid + "/stat")) {
      int length = 0;
      int read;
      while (length < buffer.length
          && (read = in.read(buffer, length, buffer.length - length)) > 0) {
        length += read;
      }
      return ProcStatParser.parse(buffer, length, kernel.pageSizeBytes());
    } catch (IOException | SecurityException e) {
      return Optional.empty();
    }
  }

  private static boolean isPid(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}

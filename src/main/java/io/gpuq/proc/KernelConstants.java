package io.gpuq.proc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The two kernel constants needed to turn {@code /proc/<pid>/stat} numbers into units: the page
 * size (RSS is counted in pages) and the clock-tick rate (CPU and start times are in ticks).
 *
 * @param pageSizeBytes bytes per memory page, normally 4096
 * @param clockTicksPerSecond {@code CLK_TCK} / {@code USER_HZ}, normally 100
 */
public record KernelConstants(long pageSizeBytes, long clockTicksPerSecond) {

  /** What nearly every Linux system uses; only assumed when the real values cannot be read. */
  public static final KernelConstants TYPICAL = new KernelConstants(4096, 100);

  private static final long AT_PAGESZ = 6;
  private static final long AT_CLKTCK = 17;

  private static volatile KernelConstants detected;

  public KernelConstants {
    if (pageSizeBytes <= 0 || clockTicksPerSecond <= 0) {
      throw new IllegalArgumentException(
          "page size and clock ticks must be positive: "
              + pageSizeBytes
              + ", "
              + clockTicksPerSecond);
    }
  }

  /**
   * The values of the running kernel, read once from the auxiliary vector the kernel handed to this
   * JVM ({@code /proc/self/auxv}, the same source as {@code getconf PAGESIZE} and {@code getconf
   * CLK_TCK}) so that no process has to be started; {@link #TYPICAL} where it cannot be read.
   */
  public static KernelConstants detect() {
    KernelConstants result = detected;
    if (result == null) {
      result = readAuxv(Path.of("/proc/self/auxv"));
      detected = result;
    }
    return result;
  }

  static KernelConstants readAuxv(Path auxv) {
    try {
      // 64-bit Linux: pairs of native-endian unsigned longs (type, value), ended by AT_NULL.
      ByteBuffer entries = ByteBuffer.wrap(Files.readAllBytes(auxv)).order(ByteOrder.nativeOrder());
      long pageSize = TYPICAL.pageSizeBytes;
      long ticks = TYPICAL.clockTicksPerSecond;
      while (entries.remaining() >= 16) {
        long type = entries.getLong();
        long value = entries.getLong();
        if (type == AT_PAGESZ && value > 0) {
          pageSize = value;
        } else if (type == AT_CLKTCK && value > 0) {
          ticks = value;
        } else if (type == 0) {
          break;
        }
      }
      return new KernelConstants(pageSize, ticks);
    } catch (IOException | RuntimeException e) {
      return TYPICAL;
    }
  }

  public double ticksToSeconds(long ticks) {
    return (double) ticks / clockTicksPerSecond;
  }

  public Duration ticksToDuration(long ticks) {
    long remainderNanos = (ticks % clockTicksPerSecond) * 1_000_000_000L / clockTicksPerSecond;
    return Duration.ofSeconds(ticks / clockTicksPerSecond, remainderNanos);
  }
}

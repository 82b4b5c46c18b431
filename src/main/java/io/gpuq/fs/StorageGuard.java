package io.gpuq.fs;

import java.nio.file.Path;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The free space of gpuq's data directory, against the least gpuq wants there ({@code
 * gpuq.storage.min-free}). Below it gpuq takes no new job: a job may fill the disk, but then the
 * database, the exit files and the logs of the jobs already accepted still have the margin.
 *
 * <p>Measured with {@code statvfs(2)} ({@link java.io.File#getUsableSpace}): the space an
 * unprivileged writer may use, less than the free space by the blocks the file system keeps for
 * root. One system call, cheap enough for every submission.
 */
public final class StorageGuard {

  private final Path dataDir;
  private final long minFreeBytes;
  private final ToLongFunction<Path> usableBytes;
  private volatile Reading last;
  private volatile List<SpaceHolders.Holder> holders = List.of();

  /**
   * @param usableBytes the usable space of the file system holding a path; 0 when it cannot be read
   */
  public StorageGuard(Path dataDir, long minFreeBytes, ToLongFunction<Path> usableBytes) {
    if (minFreeBytes < 0) {
      throw new IllegalArgumentException("gpuq.storage.min-free must not be negative");
    }
    this.dataDir = dataDir.toAbsolutePath().normalize();
    this.minFreeBytes = minFreeBytes;
    this.usableBytes = usableBytes;
  }

  /** The guard of a real data directory. */
  public static StorageGuard of(Path dataDir, long minFreeBytes) {
    return new StorageGuard(dataDir, minFreeBytes, path -> path.toFile().getUsableSpace());
  }

  /**
   * One measurement of the data directory's free space.
   *
   * @param freeBytes usable bytes on its file system
   */
  public record Reading(Path dataDir, long freeBytes, long minFreeBytes) {
    public boolean isLow() {
      return freeBytes < minFreeBytes;
    }
  }

  /** Measures now, and remembers it for {@link #last}. */
  public Reading check() {
    Reading reading = new Reading(dataDir, usableBytes.applyAsLong(dataDir), minFreeBytes);
    last = reading;
    return reading;
  }

  /** The latest measurement, made now if there was none. */
  public Reading last() {
    Reading reading = last;
    return reading != null ? reading : check();
  }

  public long minFreeBytes() {
    return minFreeBytes;
  }

  public Path dataDir() {
    return dataDir;
  }

  /**
   * What held the most space when it was last measured short ({@link StorageCheckDuty}), largest
   * first; empty while there is room.
   */
  public List<SpaceHolders.Holder> holders() {
    return holders;
  }

  void holders(List<SpaceHolders.Holder> measured) {
    holders = List.copyOf(measured);
  }

  /**
   * Measures now.
   *
   * @throws InsufficientStorageException when the free space is below the minimum
   */
  public void requireRoom() {
    Reading reading = check();
    if (reading.isLow()) {
      throw new InsufficientStorageException(reading, holders);
    }
  }
}

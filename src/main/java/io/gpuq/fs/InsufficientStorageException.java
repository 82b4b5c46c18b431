package io.gpuq.fs;

import io.gpuq.text.MemorySize;
import java.util.List;

/** The data directory has less free space than {@code gpuq.storage.min-free}. */
public class InsufficientStorageException extends RuntimeException {

  private final transient StorageGuard.Reading reading;

  public InsufficientStorageException(StorageGuard.Reading reading) {
    this(reading, List.of());
  }

  /** Names the largest holder of the space, where it was measured. */
  public InsufficientStorageException(
      StorageGuard.Reading reading, List<SpaceHolders.Holder> holders) {
    super(
        "gpuq's data directory has "
            + MemorySize.format(reading.freeBytes())
            + " free, less than gpuq.storage.min-free ("
            + MemorySize.format(reading.minFreeBytes())
            + "); no job is accepted until space is freed"
            + (holders.isEmpty() ? "" : " (the most is held by " + describe(holders.get(0)) + ")"));
    this.reading = reading;
  }

  /** "job ID (3 GiB)" or "PATH (3 GiB)". */
  public static String describe(SpaceHolders.Holder holder) {
    return (holder.jobId() != null ? "job " + holder.jobId() : holder.path().toString())
        + " ("
        + MemorySize.format(holder.bytes())
        + ")";
  }

  public StorageGuard.Reading reading() {
    return reading;
  }
}

package io.gpuq.fs;

import io.gpuq.text.MemorySize;

/** The data directory has less free space than {@code gpuq.storage.min-free}. */
public class InsufficientStorageException extends RuntimeException {

  private final transient StorageGuard.Reading reading;

  public InsufficientStorageException(StorageGuard.Reading reading) {
    super(
        "gpuq's data directory has "
            + MemorySize.format(reading.freeBytes())
            + " free, less than gpuq.storage.min-free ("
            + MemorySize.format(reading.minFreeBytes())
            + "); no job is accepted until space is freed");
    this.reading = reading;
  }

  public StorageGuard.Reading reading() {
    return reading;
  }
}

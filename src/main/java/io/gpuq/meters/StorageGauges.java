package io.gpuq.meters;

import io.gpuq.fs.StorageGuard;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code gpuq_storage_free_bytes} and {@code gpuq_storage_min_free_bytes}: the data directory's
 * free space as the latest check measured it, and the least gpuq takes new jobs with.
 */
public final class StorageGauges {

  public StorageGauges(MeterRegistry registry, String node, StorageGuard guard) {
    Gauge.builder(MeterNames.STORAGE_FREE, () -> guard.last().freeBytes())
        .description(
            "Usable space on the data directory's file system; below"
                + " gpuq_storage_min_free_bytes gpuq is not ready and refuses submissions")
        .baseUnit(MeterNames.BYTES)
        .tag(MeterNames.NODE, node)
        .register(registry);
    Gauge.builder(MeterNames.STORAGE_MIN_FREE, guard::minFreeBytes)
        .description("gpuq.storage.min-free: the least free space gpuq takes new jobs with")
        .baseUnit(MeterNames.BYTES)
        .tag(MeterNames.NODE, node)
        .register(registry);
  }
}

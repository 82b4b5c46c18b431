package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.SpaceHolders;
import io.gpuq.fs.StorageGuard;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The data directory's free space: its guard, its periodic check, its readiness indicator. */
@Configuration(proxyBeanMethods = false)
public class StorageConfiguration {

  @Bean
  StorageGuard storageGuard(GpuqProperties properties) {
    return StorageGuard.of(properties.dataDir(), minFree(properties.storage().minFree()));
  }

  /** A size such as "1GiB", or 0, which turns the guard off. */
  static long minFree(String text) {
    String trimmed = text.trim();
    if (trimmed.equals("0")) {
      return 0;
    }
    try {
      return MemorySize.parse(trimmed);
    } catch (IllegalArgumentException e) {
      throw new StartRefusedException(
          "gpuq.storage.min-free=" + text + " is no size (" + e.getMessage() + ")",
          "give a size such as 1GiB or 500MiB, or 0 to turn the check off",
          e);
    }
  }

  /**
   * Named "storage" in /actuator/health and part of the readiness group (application.yml): DOWN
   * while the data directory has less than gpuq.storage.min-free, from the latest check; then
   * {@code largest} names what holds the most space (a job's id, or a path of gpuq's own).
   */
  @Bean
  HealthIndicator storageHealthIndicator(StorageGuard guard) {
    return () -> {
      StorageGuard.Reading reading = guard.last();
      Health.Builder health =
          (reading.isLow() ? Health.down() : Health.up())
              .withDetail("path", reading.dataDir().toString())
              .withDetail("freeBytes", reading.freeBytes())
              .withDetail("minFreeBytes", reading.minFreeBytes());
      List<SpaceHolders.Holder> holders = guard.holders();
      if (reading.isLow() && !holders.isEmpty()) {
        health.withDetail("largest", holders.stream().map(StorageConfiguration::holder).toList());
      }
      return health.build();
    };
  }

  private static Map<String, Object> holder(SpaceHolders.Holder holder) {
    Map<String, Object> named = new LinkedHashMap<>();
    if (holder.jobId() != null) {
      named.put("job", holder.jobId());
    }
    named.put("path", holder.path().toString());
    named.put("bytes", holder.bytes());
    return named;
  }
}

package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.StorageGuard;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;
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
   * while the data directory has less than gpuq.storage.min-free, from the latest check.
   */
  @Bean
  HealthIndicator storageHealthIndicator(StorageGuard guard) {
    return () -> {
      StorageGuard.Reading reading = guard.last();
      return (reading.isLow() ? Health.down() : Health.up())
          .withDetail("path", reading.dataDir().toString())
          .withDetail("freeBytes", reading.freeBytes())
          .withDetail("minFreeBytes", reading.minFreeBytes())
          .build();
    };
  }
}

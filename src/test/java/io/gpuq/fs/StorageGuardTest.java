package io.gpuq.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The storage guard refuses new work below gpuq.storage.min-free")
class StorageGuardTest {

  private static final long MIB = 1024 * 1024;

  private final AtomicLong free = new AtomicLong(100 * MIB);
  private final StorageGuard guard =
      new StorageGuard(Path.of("/var/lib/gpuq"), 10 * MIB, path -> free.get());

  @Test
  void enough_free_space_lets_a_submission_through() {
    guard.requireRoom();

    assertThat(guard.last().isLow()).isFalse();
    assertThat(guard.last().freeBytes()).isEqualTo(100 * MIB);
  }

  @Test
  void less_than_the_minimum_is_refused_with_both_figures_in_the_message() {
    free.set(3 * MIB);

    assertThatThrownBy(guard::requireRoom)
        .isInstanceOf(InsufficientStorageException.class)
        .hasMessageContaining("3MiB free")
        .hasMessageContaining("gpuq.storage.min-free (10MiB)");
    assertThat(guard.last().isLow()).isTrue();
  }

  @Test
  void every_check_measures_again_so_freed_space_counts_at_once() {
    free.set(0);
    assertThat(guard.check().isLow()).isTrue();

    free.set(10 * MIB);

    assertThat(guard.check().isLow()).isFalse();
    assertThat(guard.last().freeBytes()).isEqualTo(10 * MIB);
  }

  @Test
  void a_minimum_of_zero_never_refuses() {
    StorageGuard off = new StorageGuard(Path.of("/var/lib/gpuq"), 0, path -> 0);

    off.requireRoom();

    assertThat(off.last().isLow()).isFalse();
  }

  @Test
  void the_duty_survives_a_measurement_that_throws() {
    StorageGuard broken =
        new StorageGuard(
            Path.of("/var/lib/gpuq"),
            10 * MIB,
            path -> {
              throw new IllegalStateException("statvfs failed");
            });
    StorageCheckDuty duty = new StorageCheckDuty(broken, java.time.Duration.ofSeconds(1));

    duty.runOnce();
    duty.runOnce();
  }
}

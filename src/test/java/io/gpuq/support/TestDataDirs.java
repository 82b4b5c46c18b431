package io.gpuq.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A test's own gpuq data directory, fresh, under {@code target/test-data} (cleaned with target).
 */
public final class TestDataDirs {

  private TestDataDirs() {}

  /** A new empty directory whose name starts with {@code prefix}. */
  public static Path fresh(String prefix) {
    try {
      Path base = Files.createDirectories(Path.of("target", "test-data").toAbsolutePath());
      return Files.createTempDirectory(base, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

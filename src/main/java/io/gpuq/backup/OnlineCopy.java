package io.gpuq.backup;

import java.nio.file.Path;

/**
 * A consistent copy of the live database into a zip, taken while gpuq goes on writing; the
 * database's own statement for it lives with the rest of the SQL, in {@code storage}.
 */
@FunctionalInterface
public interface OnlineCopy {

  /**
   * Writes the copy into {@code zip}, which must not exist yet.
   *
   * @throws IllegalStateException when the database could not copy itself
   */
  void copyTo(Path zip);
}

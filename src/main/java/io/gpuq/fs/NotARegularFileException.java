package io.gpuq.fs;

import java.io.IOException;
import java.nio.file.Path;

/** A path gpuq reads or appends to is a symbolic link, a FIFO, a device or a directory. */
public final class NotARegularFileException extends IOException {

  private final Path path;
  private final String kind;

  NotARegularFileException(Path path, String kind) {
    super(path + " is " + kind + ", not a regular file; gpuq does not open it");
    this.path = path;
    this.kind = kind;
  }

  public Path path() {
    return path;
  }

  /** What it is instead, in words: "a symbolic link", "a FIFO", ... */
  public String kind() {
    return kind;
  }
}

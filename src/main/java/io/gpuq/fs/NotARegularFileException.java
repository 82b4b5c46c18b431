package io.gpuq.fs;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A path gpuq reads or appends to is a symbolic link, a FIFO, a device or a directory; the message
 * names the path.
 */
public final class NotARegularFileException extends IOException {

  private final String kind;

  NotARegularFileException(Path path, String kind) {
    super(path + " is " + kind + ", not a regular file; gpuq does not open it");
    this.kind = kind;
  }

  /** What it is instead, in words: "a symbolic link", "a FIFO", ... */
  public String kind() {
    return kind;
  }
}

package io.gpuq.launch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Reading the end of a job's log without reading all of it. */
public final class LogFiles {

  private static final int CHUNK = 64 * 1024;

  private LogFiles() {}

  /** The byte offset at which the last {@code lines} lines of the file start. */
  public static long offsetOfLastLines(FileChannel file, int lines) throws IOException {
    return offsetOfLastLines(file, lines, file.size());
  }

  /**
   * The byte offset at which the last {@code lines} lines of the file's first {@code end} bytes
   * start: of a file still being written, as it was at one moment.
   */
  public static long offsetOfLastLines(FileChannel file, int lines, long end) throws IOException {
    if (end == 0 || lines <= 0) {
      return end;
    }
    // A final newline ends the last line rather than starting an empty one.
    long pos = end;
    int newlines = 0;
    ByteBuffer buffer = ByteBuffer.allocate(CHUNK);
    boolean skipTrailing = true;
    while (pos > 0) {
      int len = (int) Math.min(CHUNK, pos);
      pos -= len;
      buffer.clear().limit(len);
      while (buffer.hasRemaining() && file.read(buffer, pos + buffer.position()) > 0) {
        // read on
      }
      byte[] bytes = buffer.array();
      for (int i = buffer.position() - 1; i >= 0; i--) {
        if (bytes[i] == '\n') {
          if (skipTrailing && pos + i == end - 1) {
            continue;
          }
          newlines++;
          if (newlines == lines) {
            return pos + i + 1;
          }
        }
      }
      skipTrailing = false;
    }
    return 0;
  }
}

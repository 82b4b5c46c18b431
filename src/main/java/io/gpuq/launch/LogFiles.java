package io.gpuq.launch;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reading the end of a job's log without reading all of it. */
public final class LogFiles {

  private static final int CHUNK = 64 * 1024;

  private LogFiles() {}

  /** The byte offset at which the last {@code lines} lines of the file start. */
  public static long offsetOfLastLines(Path file, int lines) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long end = raf.length();
      if (end == 0 || lines <= 0) {
        return end;
      }
      // A final newline ends the last line rather than starting an empty one.
      long pos = end;
      int newlines = 0;
      byte[] buffer = new byte[CHUNK];
      boolean skipTrailing = true;
      while (pos > 0) {
        int len = (int) Math.min(CHUNK, pos);
        pos -= len;
        raf.seek(pos);
        raf.readFully(buffer, 0, len);
        for (int i = len - 1; i >= 0; i--) {
          if (buffer[i] == '\n') {
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

  /** The last {@code maxBytes} of the file as text (for recognising how a worker died). */
  public static String tailBytes(Path file, int maxBytes) {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long start = Math.max(0, raf.length() - maxBytes);
      byte[] bytes = new byte[(int) (raf.length() - start)];
      raf.seek(start);
      raf.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}

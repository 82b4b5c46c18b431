package io.gpuq.launch;

import io.gpuq.fs.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * A reader's place in a job's log that stays right across the cuts its log keeper makes ({@link
 * LogCut}): each read takes the log's lock, finds how far the latest part has moved since the last
 * read, moves the place with it, and reads from there. A reader whose next bytes were dropped is
 * given the marker, which says how many were.
 */
public final class LogCursor {

  private final Path log;
  private final Path stateFile;
  private long position;
  private LogCut seen;
  // Read with the place, in the same hold of the lock: a fast writer's log may be cut between
  // finding its last lines and reading them, which would send the marker and a whole latest part.
  private byte[] first = new byte[0];
  // Where the log ended when this place was found, in the job's whole output.
  private long endAtStart;

  /** What the first read of the last lines reads at once. */
  static final int FIRST_READ = 1024 * 1024;

  private LogCursor(Path log, long position, LogCut seen) {
    this.log = log;
    this.stateFile = LogCut.stateFileOf(log);
    this.position = position;
    this.seen = seen;
  }

  /**
   * At the start of the log, or, with {@code lines}, where its last that many lines start (with
   * their first megabyte read already).
   */
  public static LogCursor at(Path log, Integer lines) throws IOException {
    try {
      return SafeFiles.readLocked(
          log,
          channel -> {
            // One size for all three: the job appends without the lock, and lines found before
            // an append must not be read with it (a tail of 2 sent thousands of a fast writer's).
            long size = channel.size();
            LogCursor cursor =
                new LogCursor(
                    log,
                    lines == null ? 0 : LogFiles.offsetOfLastLines(channel, lines, size),
                    LogCut.of(LogCut.stateFileOf(log)));
            cursor.endAtStart = cursor.seen.outputPosition(size);
            if (lines != null) {
              cursor.first = cursor.readAt(channel, FIRST_READ, size);
            }
            return cursor;
          });
    } catch (NoSuchFileException e) {
      return new LogCursor(log, 0, LogCut.of(LogCut.stateFileOf(log)));
    }
  }

  /** Where the log ended when this place was found, as a position in the job's whole output. */
  public long outputEnd() {
    return endAtStart;
  }

  /** This place, as a position in the job's whole output (what was read at once not yet taken). */
  public synchronized long outputPosition() {
    return seen.outputPosition(position - first.length);
  }

  /**
   * Reads at most {@code max} bytes from this place on and moves past them; none when the log holds
   * nothing more now (or is not there yet).
   *
   * @throws io.gpuq.fs.NotARegularFileException when the log is no regular file
   */
  public synchronized byte[] read(int max) throws IOException {
    if (first.length > 0) {
      byte[] bytes = first;
      first = new byte[0];
      return bytes;
    }
    try {
      return SafeFiles.readLocked(
          log,
          channel -> {
            LogCut now = LogCut.of(stateFile);
            if (!now.equals(seen)) {
              position = now.logPosition(seen.outputPosition(position));
              seen = now;
            }
            return readAt(channel, max, channel.size());
          });
    } catch (NoSuchFileException e) {
      return new byte[0];
    }
  }

  /** Reads at most {@code max} bytes from this place on, none at or past {@code size}. */
  private byte[] readAt(FileChannel channel, int max, long size) throws IOException {
    if (position >= size || max <= 0) {
      return new byte[0];
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(max, size - position));
    while (buffer.hasRemaining() && channel.read(buffer, position + buffer.position()) > 0) {
      // read on
    }
    position += buffer.position();
    byte[] bytes = new byte[buffer.position()];
    buffer.flip().get(bytes);
    return bytes;
  }
}

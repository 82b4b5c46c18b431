package io.gpuq.launch;

import io.gpuq.fs.SafeFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
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

  private LogCursor(Path log, long position, LogCut seen) {
    this.log = log;
    this.stateFile = LogCut.stateFileOf(log);
    this.position = position;
    this.seen = seen;
  }

  /** At the start of the log, or, with {@code lines}, where its last that many lines start. */
  public static LogCursor at(Path log, Integer lines) throws IOException {
    try {
      return SafeFiles.readLocked(
          log,
          channel ->
              new LogCursor(
                  log,
                  lines == null ? 0 : LogFiles.offsetOfLastLines(channel, lines),
                  LogCut.of(LogCut.stateFileOf(log))));
    } catch (NoSuchFileException e) {
      return new LogCursor(log, 0, LogCut.of(LogCut.stateFileOf(log)));
    }
  }

  /** Where the log ends now, as a position in the job's whole output. */
  public long outputEnd() throws IOException {
    try {
      return SafeFiles.readLocked(
          log, channel -> LogCut.of(stateFile).outputPosition(channel.size()));
    } catch (NoSuchFileException e) {
      return 0;
    }
  }

  /** This place, as a position in the job's whole output. */
  public synchronized long outputPosition() {
    return seen.outputPosition(position);
  }

  /**
   * Reads at most {@code max} bytes from this place on and moves past them; none when the log holds
   * nothing more now (or is not there yet).
   *
   * @throws io.gpuq.fs.NotARegularFileException when the log is no regular file
   */
  public synchronized byte[] read(int max) throws IOException {
    try {
      return SafeFiles.readLocked(
          log,
          channel -> {
            LogCut now = LogCut.of(stateFile);
            if (!now.equals(seen)) {
              position = now.logPosition(seen.outputPosition(position));
              seen = now;
            }
            long size = channel.size();
            if (position >= size || max <= 0) {
              return new byte[0];
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(max, size - position));
            while (buffer.hasRemaining()
                && channel.read(buffer, position + buffer.position()) > 0) {
              // read on
            }
            position += buffer.position();
            byte[] bytes = new byte[buffer.position()];
            buffer.flip().get(bytes);
            return bytes;
          });
    } catch (NoSuchFileException e) {
      return new byte[0];
    }
  }
}

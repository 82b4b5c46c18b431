package io.gpuq.launch;

import io.gpuq.fs.SafeFiles;
import java.nio.file.Path;

/**
 * What the log keeper of the worker wrapper has cut out of a job's log, as its {@code .cut} file
 * says ("HEAD DROPPED"): the log holds its first {@code head} bytes, then a marker line of {@link
 * #MARKER_BYTES} bytes that says how many were dropped, then the latest part of the job's output.
 * The file is written, under the log's lock, after each cut.
 *
 * @param head where the marker starts: the bytes before it are the log's beginning, never moved
 * @param dropped how many bytes of output were dropped in all, after the head
 */
public record LogCut(long head, long dropped) {

  /** The marker line's length, newlines and padding included; fixed, as the wrapper writes it. */
  public static final int MARKER_BYTES = 80;

  /** A log never cut. */
  public static final LogCut NONE = new LogCut(0, 0);

  private static final int STATE_BYTES = 64;

  /** Where the latest part starts: after the marker, or after the head while there is none. */
  public long body() {
    return dropped > 0 ? head + MARKER_BYTES : head;
  }

  /**
   * The position in the job's whole output that the byte at {@code position} of the log, as it was
   * at this cut, came from: the head and the latest part are there as written, the dropped bytes
   * between them are counted, and a position inside the marker counts as its start (so that a
   * reader there is sent the marker again, with its new count).
   */
  public long outputPosition(long position) {
    if (dropped == 0) {
      return position;
    }
    if (position < body()) {
      return Math.min(position, head);
    }
    return head + dropped + position - body();
  }

  /**
   * Where the byte that came from {@code outputPosition} of the job's output lies in the log as it
   * is at this cut; the marker's start when that byte was dropped.
   */
  public long logPosition(long outputPosition) {
    if (dropped == 0 || outputPosition <= head) {
      return outputPosition;
    }
    long afterHead = outputPosition - head;
    return afterHead < dropped ? head : body() + afterHead - dropped;
  }

  /** The cuts made so far in a log, from the state file beside it; none when it has none. */
  public static LogCut of(Path stateFile) {
    return SafeFiles.readSmall(stateFile, STATE_BYTES).map(LogCut::parse).orElse(NONE);
  }

  static LogCut parse(String text) {
    String[] fields = text.trim().split(" ");
    try {
      if (fields.length == 2) {
        long head = Long.parseLong(fields[0]);
        long dropped = Long.parseLong(fields[1]);
        if (head >= 0 && dropped >= 0) {
          return new LogCut(head, dropped);
        }
      }
    } catch (NumberFormatException e) {
      // As if never cut: gpuq alone writes it, so it is only ever half written (a full disk).
    }
    return NONE;
  }

  /** The state file beside a log. */
  public static Path stateFileOf(Path log) {
    return log.resolveSibling(log.getFileName() + ".cut");
  }
}

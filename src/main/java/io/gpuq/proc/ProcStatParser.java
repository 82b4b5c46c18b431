package io.gpuq.proc;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Parses the one line of {@code /proc/<pid>/stat} straight from its bytes, without building
 * strings, because the poller parses every process on the machine once a second.
 *
 * <p>The second field, {@code (comm)}, is the executable's name and may itself contain spaces and
 * parentheses ({@code "a) b (c"}), so the fields after it are located from the <em>last</em> {@code
 * ')'} of the line.
 *
 * <p>A process in state {@code X} (dead) is not one any more: its parent has reaped it, or is
 * reaping it, and the kernel shows its ppid as 0 once it is unhashed. Read at that instant it would
 * be an orphan in no tree, a stranger among a worker's children; it is parsed as gone.
 */
final class ProcStatParser {

  // Field numbers as in proc(5); the first field after the comm is field 3 (state).
  private static final int STATE = 3;
  private static final int PPID = 4;
  private static final int UTIME = 14;
  private static final int STIME = 15;
  private static final int STARTTIME = 22;
  private static final int RSS = 24;

  private ProcStatParser() {}

  static Optional<ProcStat> parse(String line, long pageSizeBytes) {
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
    return parse(bytes, bytes.length, pageSizeBytes);
  }

  static Optional<ProcStat> parse(byte[] buf, int length, long pageSizeBytes) {
    int commEnd = -1;
    for (int i = length - 1; i >= 0; i--) {
      if (buf[i] == ')') {
        commEnd = i;
        break;
      }
    }
    if (commEnd < 0) {
      return Optional.empty();
    }
    long pid = parseLong(buf, 0, indexOf(buf, (byte) ' ', 0, commEnd));
    if (pid < 0) {
      return Optional.empty();
    }
    long ppid = -1;
    long utime = -1;
    long stime = -1;
    long startTime = -1;
    long rss = -1;
    int field = 3;
    int pos = commEnd + 1;
    while (field <= RSS) {
      while (pos < length && buf[pos] == ' ') {
        pos++;
      }
      if (pos >= length) {
        return Optional.empty();
      }
      int end = pos;
      while (end < length && buf[end] != ' ' && buf[end] != '\n') {
        end++;
      }
      switch (field) {
        case STATE -> {
          if (end - pos == 1 && buf[pos] == 'X') {
            return Optional.empty();
          }
        }
        case PPID -> ppid = parseLong(buf, pos, end);
        case UTIME -> utime = parseLong(buf, pos, end);
        case STIME -> stime = parseLong(buf, pos, end);
        case STARTTIME -> startTime = parseLong(buf, pos, end);
        case RSS -> rss = parseLong(buf, pos, end);
        default -> {}
      }
      field++;
      pos = end;
    }
    if (ppid < 0 || utime < 0 || stime < 0 || startTime < 0 || rss < 0) {
      return Optional.empty();
    }
    return Optional.of(new ProcStat(pid, ppid, startTime, rss * pageSizeBytes, utime + stime));
  }

  private static int indexOf(byte[] buf, byte wanted, int from, int to) {
    for (int i = from; i < to; i++) {
      if (buf[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  /** A non-negative decimal, or -1 when the bytes are not one. */
  private static long parseLong(byte[] buf, int from, int to) {
    if (to <= from) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      int digit = buf[i] - '0';
      if (digit < 0 || digit > 9 || value > (Long.MAX_VALUE - digit) / 10) {
        return -1;
      }
      value = value * 10 + digit;
    }
    return value;
  }
}

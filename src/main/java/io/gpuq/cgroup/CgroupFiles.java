package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/** Reading and writing cgroup interface files: small, and each value written in one write(2). */
final class CgroupFiles {

  /**
   * What v1 reports for "no limit" (PAGE_COUNTER_MAX pages): a value at or above this is none. The
   * kernel's exact figure depends on the page size, so compare with a round bound far below it.
   */
  static final long UNLIMITED_FROM = 1L << 60;

  private CgroupFiles() {}

  static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.US_ASCII).strip();
  }

  static long readLong(Path file) throws IOException {
    String text = read(file);
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException(file + " holds '" + text + "', not a number", e);
    }
  }

  /**
   * Writes {@code value} into an existing interface file. Never creates one (a missing file is a
   * controller that is not there) and never truncates: the kernel takes each write as one command.
   */
  static void write(Path file, String value) throws IOException {
    try {
      Files.write(file, value.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException("cannot write '" + value + "' to " + file + ": " + e.getMessage(), e);
    }
  }

  /** The value of {@code key} in a flat keyed file ({@code key value} lines: memory.events). */
  static OptionalLong keyed(Path file, String key) throws IOException {
    for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
      String[] fields = line.strip().split("\\s+");
      if (fields.length == 2 && fields[0].equals(key)) {
        try {
          return OptionalLong.of(Long.parseLong(fields[1]));
        } catch (NumberFormatException e) {
          throw new IOException(file + ": '" + line + "' is not a number", e);
        }
      }
    }
    return OptionalLong.empty();
  }

  /** A v1 byte limit, or v2's {@code max}: empty when there is none. */
  static OptionalLong limit(String text) {
    if (text.equals("max") || text.equals("-1")) {
      return OptionalLong.empty();
    }
    long value = Long.parseLong(text);
    return value >= UNLIMITED_FROM ? OptionalLong.empty() : OptionalLong.of(value);
  }
}

package io.gpuq.storage;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Rows in PostgreSQL's {@code COPY ... FROM STDIN} text format: columns separated by tabs, one row
 * a line, {@code \N} for null, and a backslash, tab, newline or carriage return inside a value
 * escaped, so that no user text (a command, an environment, JSON) can end a column or a row early.
 */
final class CopyText {

  private static final String NULL = "\\N";

  private final StringBuilder text = new StringBuilder();
  private boolean rowStarted;

  /** Appends one column of the current row: a String, a number or an Instant, or null. */
  CopyText column(Object value) {
    if (rowStarted) {
      text.append('\t');
    }
    rowStarted = true;
    if (value == null) {
      text.append(NULL);
    } else if (value instanceof Instant instant) {
      text.append(micros(instant));
    } else if (value instanceof String string) {
      escape(string);
    } else if (value instanceof Number || value instanceof Boolean) {
      // Integer, Long, Boolean as Java writes them; a Double's toString is its shortest exact form
      // (also NaN and Infinity), which PostgreSQL reads back to the same double.
      text.append(value);
    } else {
      throw new IllegalArgumentException("no COPY text for " + value.getClass());
    }
    return this;
  }

  CopyText endRow() {
    text.append('\n');
    rowStarted = false;
    return this;
  }

  String text() {
    return text.toString();
  }

  /**
   * PostgreSQL keeps microseconds: rounded half up as pgjdbc rounds a bound timestamp, so that a
   * copied instant equals an inserted one.
   */
  private static Instant micros(Instant instant) {
    return instant.plusNanos(500).truncatedTo(ChronoUnit.MICROS);
  }

  private void escape(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> text.append("\\\\");
        case '\t' -> text.append("\\t");
        case '\n' -> text.append("\\n");
        case '\r' -> text.append("\\r");
        default -> text.append(c);
      }
    }
  }
}

package io.gpuq.text;

/** The numbers JSON carries exactly to every reader. */
public final class JsonNumbers {

  /**
   * Whole numbers stay within what a double holds exactly, so that every JSON reader (JavaScript,
   * Python's float) reads back the number that was written.
   */
  public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  private JsonNumbers() {}
}

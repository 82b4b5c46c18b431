package io.gpuq.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bounds of a job in a listing (issue 34). A job may hold 256 KiB of arguments, 64 labels and
 * 100 attempts; an admin's page of 100 such jobs was a 19 MiB answer, fetched again each time the
 * page refreshed. A listing shows a summary of each, within these bounds, and says which fields it
 * cut ({@code truncated}); the job's own answer has all of it. Every cut keeps the beginning, and a
 * cut string ends with "…".
 */
final class ListedJob {

  /** The characters of the command shown, over all its arguments. */
  static final int MAX_COMMAND_CHARACTERS = 1024;

  /** The characters of the working directory shown. */
  static final int MAX_WORKING_DIR_CHARACTERS = 256;

  /** The labels (and, alike, the node selector's entries) shown, the first by key. */
  static final int MAX_LABELS = 16;

  /** The characters of each label's value shown. */
  static final int MAX_LABEL_VALUE_CHARACTERS = 64;

  /** The attempts shown: the latest ones. */
  static final int MAX_ATTEMPTS = 3;

  private static final String CUT = "…";

  private ListedJob() {}

  /**
   * The first arguments of {@code command}, {@value #MAX_COMMAND_CHARACTERS} characters of them in
   * all: the argument at the bound is cut, those after it left out.
   */
  static List<String> command(List<String> command, List<String> truncated) {
    List<String> shown = new ArrayList<>();
    int left = MAX_COMMAND_CHARACTERS;
    for (String argument : command) {
      if (argument.length() > left) {
        shown.add(cut(argument, left));
        truncated.add("command");
        return shown;
      }
      shown.add(argument);
      left -= argument.length();
    }
    return command;
  }

  static String workingDir(String workingDir, List<String> truncated) {
    if (workingDir == null || workingDir.length() <= MAX_WORKING_DIR_CHARACTERS) {
      return workingDir;
    }
    truncated.add("workingDir");
    return cut(workingDir, MAX_WORKING_DIR_CHARACTERS);
  }

  /** The first {@value #MAX_LABELS} entries by key, each value cut to its bound. */
  static Map<String, String> labels(
      String field, Map<String, String> labels, List<String> truncated) {
    TreeMap<String, String> shown = new TreeMap<>();
    boolean cut = false;
    for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
      if (shown.size() == MAX_LABELS) {
        cut = true;
        break;
      }
      String value = label.getValue();
      if (value.length() > MAX_LABEL_VALUE_CHARACTERS) {
        value = cut(value, MAX_LABEL_VALUE_CHARACTERS);
        cut = true;
      }
      shown.put(label.getKey(), value);
    }
    if (cut) {
      truncated.add(field);
    }
    return shown;
  }

  /** The latest {@value #MAX_ATTEMPTS} attempts, oldest first as in the job's own answer. */
  static <A> List<A> attempts(List<A> attempts, List<String> truncated) {
    if (attempts.size() <= MAX_ATTEMPTS) {
      return attempts;
    }
    truncated.add("attempts");
    return attempts.subList(attempts.size() - MAX_ATTEMPTS, attempts.size());
  }

  /** The first {@code characters} characters of {@code text} then "…", no surrogate pair split. */
  private static String cut(String text, int characters) {
    int end = Math.max(0, characters - CUT.length());
    if (end > 0
        && Character.isHighSurrogate(text.charAt(end - 1))
        && Character.isLowSurrogate(text.charAt(end))) {
      end--;
    }
    return text.substring(0, end) + CUT;
  }
}

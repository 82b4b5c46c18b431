package io.gpuq.sweep;

import java.util.regex.Pattern;

/**
 * A parameter's name: what a {@code {name}} placeholder holds. Letters, digits, '_', '.' and '-',
 * starting with a letter or '_', at most 63 characters, so that most names are also label keys.
 */
final class ParameterNames {

  static final int MAX_LENGTH = 63;
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_.-]{0,62}");

  private ParameterNames() {}

  static boolean isValid(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  static final String RULE =
      "a parameter name is 1 to "
          + MAX_LENGTH
          + " letters, digits, '_', '.' or '-', starting with a letter or '_'";
}

package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A template string with {@code {name}} placeholders, as Python's {@code str.format} writes them:
 * {@code {{} is a literal '{' and {@code }}} a literal '}'; any other brace is a mistake, so that a
 * shell's {@code ${HOME}} or awk's {@code '{print $1}'} is refused with a hint rather than silently
 * left alone or half replaced. Parsed once, substituted once per trial.
 */
public final class Placeholders {

  private final List<String> literals;
  private final List<String> names;

  private Placeholders(List<String> literals, List<String> names) {
    this.literals = literals;
    this.names = names;
  }

  /** The mistake in a template string, with the character where it is. */
  public static final class SyntaxException extends IllegalArgumentException {
    SyntaxException(String message) {
      super(message);
    }
  }

  /**
   * Parses a template string.
   *
   * @throws SyntaxException for a brace that opens no placeholder or closes none
   */
  public static Placeholders parse(String template) {
    List<String> literals = new ArrayList<>();
    List<String> names = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
        literal.append('{');
        i += 2;
      } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
        literal.append('}');
        i += 2;
      } else if (c == '{') {
        int end = template.indexOf('}', i + 1);
        String name = end < 0 ? "" : template.substring(i + 1, end);
        if (end < 0 || !ParameterNames.isValid(name)) {
          throw new SyntaxException(
              "'{' at character "
                  + (i + 1)
                  + " opens no {name} placeholder; write '{{' for a literal '{'");
        }
        literals.add(literal.toString());
        literal.setLength(0);
        names.add(name);
        i = end + 1;
      } else if (c == '}') {
        throw new SyntaxException(
            "'}' at character " + (i + 1) + " closes no placeholder; write '}}' for a literal '}'");
      } else {
        literal.append(c);
        i++;
      }
    }
    literals.add(literal.toString());
    return new Placeholders(
        Collections.unmodifiableList(literals), Collections.unmodifiableList(names));
  }

  /** The names of the placeholders, in order, repeated as often as they appear. */
  public List<String> names() {
    return names;
  }

  /** The names of the placeholders that {@code declared} does not hold, in order of appearance. */
  public List<String> unknown(Set<String> declared) {
    return names.stream().filter(n -> !declared.contains(n)).distinct().toList();
  }

  public boolean hasPlaceholders() {
    return !names.isEmpty();
  }

  /** The string with each placeholder replaced by its value's {@link ParameterValue#text()}. */
  public String substitute(Map<String, ParameterValue> values) {
    StringBuilder out = new StringBuilder(literals.get(0));
    for (int i = 0; i < names.size(); i++) {
      ParameterValue value = values.get(names.get(i));
      if (value == null) {
        throw new IllegalArgumentException("no value for placeholder {" + names.get(i) + "}");
      }
      out.append(value.text()).append(literals.get(i + 1));
    }
    return out.toString();
  }
}

package io.gpuq.meters;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads, as a tokenizer sees them: identifiers that are not
 * functions, aggregations, keywords, label names (inside {@code {...}} or after {@code by}, {@code
 * without}, {@code on}, {@code ignoring}, {@code group_left}, {@code group_right}), numbers,
 * durations, strings or Grafana variables ({@code $node}, {@code ${node}}, {@code
 * $__rate_interval}). A selector {@code {__name__="x"}} names {@code x}.
 */
final class PromQlMetricNames {

  private static final Set<String> AGGREGATIONS =
      Set.of(
          "sum",
          "min",
          "max",
          "avg",
          "group",
          "stddev",
          "stdvar",
          "count",
          "count_values",
          "bottomk",
          "topk",
          "quantile",
          "limitk",
          "limit_ratio");
  private static final Set<String> LABEL_LIST_KEYWORDS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan");
  private static final Pattern NAME_MATCHER = Pattern.compile("__name__\\s*=\\s*\"([^\"]+)\"");

  private final String text;
  private int pos;
  private final Set<String> names = new TreeSet<>();

  private PromQlMetricNames(String text) {
    this.text = text;
  }

  static Set<String> of(String expression) {
    PromQlMetricNames parser = new PromQlMetricNames(expression);
    parser.scan();
    return parser.names;
  }

  private void scan() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (c == '"' || c == '\'' || c == '`') {
        skipString(c);
      } else if (c == '#') {
        skipPast('\n');
      } else if (c == '{') {
        int start = pos;
        skipGroup('{', '}');
        Matcher name = NAME_MATCHER.matcher(text.substring(start, pos));
        while (name.find()) {
          names.add(name.group(1));
        }
      } else if (c == '[') {
        skipGroup('[', ']');
      } else if (c == '$') {
        skipVariable();
      } else if (Character.isDigit(c) || (c == '.' && nextIsDigit())) {
        skipWhile(ch -> Character.isLetterOrDigit(ch) || ch == '.' || ch == '_');
      } else if (isIdentifierStart(c)) {
        identifier();
      } else {
        pos++; // operators, parentheses, commas, @
      }
    }
  }

  private void identifier() {
    int start = pos;
    skipWhile(ch -> isIdentifierStart(ch) || Character.isDigit(ch));
    String word = text.substring(start, pos);
    String lower = word.toLowerCase(java.util.Locale.ROOT);
    if (LABEL_LIST_KEYWORDS.contains(lower)) {
      skipBlanks();
      if (pos < text.length() && text.charAt(pos) == '(') {
        skipGroup('(', ')');
      }
      return;
    }
    if (AGGREGATIONS.contains(lower) || KEYWORDS.contains(lower)) {
      return;
    }
    skipBlanks();
    if (pos < text.length() && text.charAt(pos) == '(') {
      return; // a function call
    }
    names.add(word);
  }

  private void skipString(char quote) {
    pos++;
    while (pos < text.length() && text.charAt(pos) != quote) {
      pos += text.charAt(pos) == '\\' && quote != '`' ? 2 : 1;
    }
    pos++;
  }

  /** Skips a bracketed group, nested ones and strings within it included. */
  private void skipGroup(char open, char close) {
    int depth = 0;
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c == '"' || c == '\'' || c == '`') {
        skipString(c);
        continue;
      }
      if (c == open) {
        depth++;
      } else if (c == close && --depth == 0) {
        pos++;
        return;
      }
      pos++;
    }
  }

  private void skipVariable() {
    pos++;
    if (pos < text.length() && text.charAt(pos) == '{') {
      skipGroup('{', '}');
    } else {
      skipWhile(ch -> Character.isLetterOrDigit(ch) || ch == '_');
    }
  }

  private void skipPast(char end) {
    while (pos < text.length() && text.charAt(pos) != end) {
      pos++;
    }
    pos++;
  }

  private void skipBlanks() {
    skipWhile(Character::isWhitespace);
  }

  private void skipWhile(java.util.function.IntPredicate accept) {
    while (pos < text.length() && accept.test(text.charAt(pos))) {
      pos++;
    }
  }

  private boolean nextIsDigit() {
    return pos + 1 < text.length() && Character.isDigit(text.charAt(pos + 1));
  }

  private static boolean isIdentifierStart(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }
}

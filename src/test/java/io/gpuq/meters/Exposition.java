package io.gpuq.meters;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** A parsed Prometheus text exposition (format 0.0.4), as a scraper reads it. */
final class Exposition {

  /** One sample line. */
  record Sample(String name, Map<String, String> labels, double value) {
    String label(String key) {
      return labels.get(key);
    }
  }

  private final String text;
  private final List<Sample> samples;
  private final Map<String, String> types;

  private Exposition(String text, List<Sample> samples, Map<String, String> types) {
    this.text = text;
    this.samples = samples;
    this.types = types;
  }

  static Exposition parse(String text) {
    List<Sample> samples = new ArrayList<>();
    Map<String, String> types = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        types.put(parts[2], parts[3]);
      } else if (!line.isBlank() && !line.startsWith("#")) {
        samples.add(parseSample(line));
      }
    }
    return new Exposition(text, samples, types);
  }

  private static Sample parseSample(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    String name = line.substring(0, i);
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        int eq = line.indexOf('=', i);
        String key = line.substring(i, eq).trim();
        i = eq + 2; // past ="
        StringBuilder value = new StringBuilder();
        while (line.charAt(i) != '"') {
          char c = line.charAt(i++);
          if (c == '\\') {
            char escaped = line.charAt(i++);
            value.append(escaped == 'n' ? '\n' : escaped);
          } else {
            value.append(c);
          }
        }
        i++; // closing quote
        labels.put(key, value.toString());
        if (line.charAt(i) == ',') {
          i++;
        }
      }
      i++; // closing brace
    }
    String[] rest = line.substring(i).trim().split(" ");
    return new Sample(name, labels, parseValue(rest[0]));
  }

  private static double parseValue(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  String text() {
    return text;
  }

  /** The metric families with their {@code # TYPE}. */
  Map<String, String> types() {
    return types;
  }

  /** Every sample name (families and their {@code _bucket}, {@code _count}, ... series). */
  Set<String> sampleNames() {
    return samples.stream().map(Sample::name).collect(Collectors.toCollection(TreeSet::new));
  }

  List<Sample> samples(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  List<Sample> samples(String name, Predicate<Sample> filter) {
    return samples(name).stream().filter(filter).toList();
  }

  /** The one sample of {@code name} whose labels include all of {@code labels}. */
  Optional<Sample> sample(String name, Map<String, String> labels) {
    List<Sample> matching =
        samples(name, s -> s.labels().entrySet().containsAll(labels.entrySet()));
    if (matching.size() > 1) {
      throw new AssertionError("more than one " + name + " with " + labels + ": " + matching);
    }
    return matching.stream().findFirst();
  }

  double value(String name, Map<String, String> labels) {
    return sample(name, labels)
        .orElseThrow(() -> new AssertionError("no " + name + " with " + labels))
        .value();
  }

  /** Every sample, of any name, with this label value. */
  List<Sample> withLabel(String key, String value) {
    return samples.stream().filter(s -> value.equals(s.label(key))).toList();
  }
}

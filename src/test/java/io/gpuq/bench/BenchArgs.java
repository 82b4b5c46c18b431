package io.gpuq.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The {@code key=value} arguments of a benchmark; a key nobody read is an error, not a no-op. */
final class BenchArgs {

  private final Map<String, String> given = new LinkedHashMap<>();
  private final Set<String> read = new TreeSet<>();

  BenchArgs(String[] args) {
    for (String arg : args) {
      String[] kv = arg.replaceFirst("^--", "").split("=", 2);
      if (kv.length != 2) {
        throw new IllegalArgumentException("arguments are key=value, not " + arg);
      }
      given.put(kv[0], kv[1]);
    }
  }

  String get(String key, String fallback) {
    read.add(key);
    return given.getOrDefault(key, fallback);
  }

  int getInt(String key, int fallback) {
    return Integer.parseInt(get(key, Integer.toString(fallback)));
  }

  /** Throws when an argument was given that no {@link #get} asked for (a typo). */
  void requireAllRead() {
    Set<String> unknown = new TreeSet<>(given.keySet());
    unknown.removeAll(read);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown arguments " + unknown + "; known: " + read);
    }
  }
}

package io.gpuq.ship;

import java.util.List;
import java.util.Map;

/**
 * Navigation in parsed YAML: {@code at(doc, "spec", "containers", 0, "env")}. Keys are given one by
 * one because Kubernetes keys contain dots ({@code nvidia.com/gpu}). A missing step fails with the
 * path that was walked, so that a test failure says what is missing.
 */
final class Tree {

  private Tree() {}

  static Object at(Object node, Object... path) {
    Object current = node;
    StringBuilder walked = new StringBuilder();
    for (Object step : path) {
      walked.append(step instanceof Integer ? "[" + step + "]" : "." + step);
      if (step instanceof Integer index && current instanceof List<?> list) {
        if (index >= list.size()) {
          throw new AssertionError("no " + walked + " in " + node);
        }
        current = list.get(index);
      } else if (step instanceof String key && current instanceof Map<?, ?> map) {
        if (!map.containsKey(key)) {
          throw new AssertionError("no " + walked + " in " + node);
        }
        current = map.get(key);
      } else {
        throw new AssertionError("cannot take " + walked + " of " + current);
      }
    }
    return current;
  }

  static boolean has(Object node, Object... path) {
    try {
      at(node, path);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object node, Object... path) {
    Object found = at(node, path);
    if (!(found instanceof Map)) {
      throw new AssertionError("not a mapping: " + found);
    }
    return (Map<String, Object>) found;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object node, Object... path) {
    Object found = at(node, path);
    if (!(found instanceof List)) {
      throw new AssertionError("not a list: " + found);
    }
    return (List<Object>) found;
  }

  static String string(Object node, Object... path) {
    Object found = at(node, path);
    return found == null ? null : found.toString();
  }
}

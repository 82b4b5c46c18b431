package io.gpuq.ship;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Dockerfile read the way docker reads it, as far as the tests need: comments dropped,
 * backslash-continued lines joined, instructions grouped into stages by FROM.
 */
record Dockerfile(List<Stage> stages) {

  record Instruction(String keyword, String arguments) {}

  record Stage(String from, List<Instruction> instructions) {

    List<String> arguments(String keyword) {
      return instructions.stream()
          .filter(i -> i.keyword().equals(keyword))
          .map(Instruction::arguments)
          .toList();
    }
  }

  static Dockerfile parse(String text) {
    List<String> logical = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("#")) {
        continue;
      }
      if (trimmed.endsWith("\\")) {
        current.append(trimmed, 0, trimmed.length() - 1).append(' ');
        continue;
      }
      current.append(trimmed);
      if (!current.toString().isBlank()) {
        logical.add(current.toString().replaceAll("\\s+", " ").strip());
      }
      current.setLength(0);
    }
    List<Stage> stages = new ArrayList<>();
    for (String instruction : logical) {
      int space = instruction.indexOf(' ');
      String keyword = instruction.substring(0, space).toUpperCase(Locale.ROOT);
      String arguments = instruction.substring(space + 1);
      if (keyword.equals("FROM")) {
        stages.add(new Stage(arguments, new ArrayList<>()));
      } else {
        stages.get(stages.size() - 1).instructions().add(new Instruction(keyword, arguments));
      }
    }
    return new Dockerfile(stages);
  }

  Stage stage(String fromPrefix) {
    return stages.stream()
        .filter(s -> s.from().startsWith(fromPrefix))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no stage FROM " + fromPrefix + " in " + stages));
  }

  Stage last() {
    return stages.get(stages.size() - 1);
  }
}

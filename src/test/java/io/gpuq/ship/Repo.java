package io.gpuq.ship;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/** The repository's own files, read as a user's tools (docker, helm, Prometheus) would. */
final class Repo {

  private Repo() {}

  /** Maven runs the tests in the project directory. */
  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    if (!Files.isRegularFile(dir.resolve("pom.xml"))) {
      throw new IllegalStateException("tests must run in the project directory, not " + dir);
    }
    return dir;
  }

  static Path path(String relative) {
    return root().resolve(relative);
  }

  static String read(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One YAML document of the repository, as plain maps, lists and scalars. */
  static Object yaml(String relative) {
    return parse(read(relative));
  }

  static Object parse(String yaml) {
    return new Yaml(new LoaderOptions()).load(yaml);
  }

  /** Every non-empty document of a multi-document stream (helm template's output). */
  static List<Object> parseAll(String yaml) {
    List<Object> documents = new ArrayList<>();
    for (Object document : new Yaml(new LoaderOptions()).loadAll(yaml)) {
      if (document != null) {
        documents.add(document);
      }
    }
    return documents;
  }
}

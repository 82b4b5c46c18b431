package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The web page's ES modules, read as text: which imports which. The browser tests show that the
 * page works; these show that its modules stay layered.
 */
@DisplayName("The web page's modules")
class WebUiModulesTest {

  private static final Pattern IMPORT =
      Pattern.compile("^\\s*import\\s[^;]*?from\\s+'\\./([\\w.-]+\\.js)'", Pattern.MULTILINE);
  private static final Pattern VIEW = Pattern.compile("export\\s+function\\s+\\w+View\\s*\\(");

  /** Each module and the modules it imports, by file name. */
  private static final Map<String, Set<String>> imports = new TreeMap<>();

  private static final Set<String> views = new TreeSet<>();

  @BeforeAll
  static void read() throws IOException, URISyntaxException {
    Path dir = Path.of(WebUiModulesTest.class.getResource("/gpuq-ui/app.js").toURI()).getParent();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".js")).toList()) {
        String text = Files.readString(file);
        String name = file.getFileName().toString();
        Set<String> targets = new TreeSet<>();
        Matcher m = IMPORT.matcher(text);
        while (m.find()) {
          targets.add(m.group(1));
        }
        imports.put(name, targets);
        if (VIEW.matcher(text).find()) {
          views.add(name);
        }
      }
    }
    assertThat(imports).containsKeys("app.js", "page.js", "format.js", "dom.js", "api.js");
    assertThat(views).contains("queue.js", "job.js");
  }

  @Test
  @DisplayName("import no module that imports them back, directly or through others")
  void form_no_circle() {
    List<List<String>> circles = new ArrayList<>();
    for (String start : imports.keySet()) {
      circleFrom(start, new ArrayList<>(List.of(start)), new HashSet<>(), circles);
    }
    assertThat(circles).as("import circles").isEmpty();
  }

  @Test
  @DisplayName("leave the views to app.js: no view is another's library, no module imports app.js")
  void only_app_imports_the_views() {
    imports.forEach(
        (module, targets) -> {
          assertThat(targets).as("%s imports app.js", module).doesNotContain("app.js");
          if (!module.equals("app.js")) {
            assertThat(targets).as("views %s imports", module).doesNotContainAnyElementsOf(views);
          }
        });
  }

  private static void circleFrom(
      String module, List<String> path, Set<String> seen, List<List<String>> circles) {
    for (String next : imports.getOrDefault(module, Set.of())) {
      if (next.equals(path.get(0))) {
        List<String> circle = new ArrayList<>(path);
        circle.add(next);
        circles.add(circle);
      } else if (!path.contains(next) && seen.add(next)) {
        path.add(next);
        circleFrom(next, path, seen, circles);
        path.remove(path.size() - 1);
      }
    }
  }
}

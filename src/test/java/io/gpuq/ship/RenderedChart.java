package io.gpuq.ship;

import static io.gpuq.ship.Tree.list;
import static io.gpuq.ship.Tree.map;
import static io.gpuq.ship.Tree.string;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The manifests {@code helm template} renders from helm/gpuq, parsed. */
record RenderedChart(String text, List<Object> manifests) {

  static final Path CHART = Repo.path("helm/gpuq");
  static final String RELEASE = "gpuq";
  static final String NAMESPACE = "gpu-jobs";

  /** Renders with the chart's values, changed by {@code values} (e.g. {@code t -> t.set(k, v)}). */
  static RenderedChart render(UnaryOperator<TemplateCommand> values) {
    TemplateCommand command = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE);
    String text = values.apply(command).call();
    return new RenderedChart(text, Repo.parseAll(text));
  }

  static RenderedChart withDefaults() {
    return render(t -> t);
  }

  static RenderedChart withValuesFile(String relative) {
    return render(t -> t.withValuesFile(Repo.path(relative)));
  }

  List<Map<String, Object>> all(String kind) {
    return manifests.stream().map(Tree::map).filter(m -> kind.equals(m.get("kind"))).toList();
  }

  Optional<Map<String, Object>> find(String kind) {
    List<Map<String, Object>> found = all(kind);
    if (found.size() > 1) {
      throw new AssertionError("more than one " + kind + " in\n" + text);
    }
    return found.stream().findFirst();
  }

  Map<String, Object> one(String kind) {
    return find(kind).orElseThrow(() -> new AssertionError("no " + kind + " in\n" + text));
  }

  Map<String, Object> one(String kind, String name) {
    return all(kind).stream()
        .filter(m -> name.equals(string(m, "metadata", "name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in\n" + text));
  }

  Map<String, Object> podSpec() {
    return map(one("DaemonSet"), "spec", "template", "spec");
  }

  Map<String, Object> container() {
    return list(podSpec(), "containers").stream()
        .map(Tree::map)
        .filter(c -> "gpuq".equals(c.get("name")))
        .findFirst()
        .orElseThrow();
  }

  /** The container's env entry of that name ({@code value} or {@code valueFrom}). */
  Map<String, Object> env(String name) {
    return envEntry(name).orElseThrow(() -> new AssertionError("no env " + name + " in\n" + text));
  }

  Optional<Map<String, Object>> envEntry(String name) {
    return list(container(), "env").stream()
        .map(Tree::map)
        .filter(e -> name.equals(e.get("name")))
        .findFirst();
  }
}

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

  /**
   * The one value the chart's defaults lack: without database.url it must be pinned to one node
   * (singleNode.hostname), and refuses to render otherwise.
   */
  static final String SINGLE_NODE_VALUES = "helm/gpuq/ci/single-node-values.yaml";

  static final String SINGLE_NODE = "gpu-node-1";

  /**
   * Renders with the chart's values and {@link #SINGLE_NODE_VALUES}, changed by {@code values}
   * (e.g. {@code t -> t.set(k, v)}; a {@code set} wins over every values file).
   */
  static RenderedChart render(UnaryOperator<TemplateCommand> values) {
    return renderAsIs(t -> values.apply(t.withValuesFile(Repo.path(SINGLE_NODE_VALUES))));
  }

  /** Renders with the chart's values.yaml and only what {@code values} adds. */
  static RenderedChart renderAsIs(UnaryOperator<TemplateCommand> values) {
    TemplateCommand command = new Helm(CHART).template().withName(RELEASE).withNamespace(NAMESPACE);
    String text = values.apply(command).call();
    return new RenderedChart(text, Repo.parseAll(text));
  }

  /** The chart's defaults with the one value they lack, gpuq pinned to {@link #SINGLE_NODE}. */
  static RenderedChart withDefaults() {
    return render(t -> t);
  }

  /** The chart's values.yaml overlaid with that values file only. */
  static RenderedChart withValuesFile(String relative) {
    return renderAsIs(t -> t.withValuesFile(Repo.path(relative)));
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

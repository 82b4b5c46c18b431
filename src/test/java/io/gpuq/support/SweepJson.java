package io.gpuq.support;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-data builder for sweep requests: {@code aGridSweep().shell("echo {lr}").values("lr", 0.1,
 * 0.01).json()}. CPU-only trials running {@code true} unless told otherwise.
 */
public final class SweepJson {

  private final Map<String, Object> body = new LinkedHashMap<>();
  private final Map<String, Object> parameters = new LinkedHashMap<>();
  private final Map<String, Object> labels = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();

  private SweepJson(String method) {
    body.put("name", "sweep-under-test");
    body.put("command", List.of("true"));
    body.put("resources", Map.of("gpus", 0));
    body.put("method", method);
  }

  public static SweepJson aGridSweep() {
    return new SweepJson("grid");
  }

  public static SweepJson aRandomSweep(int trials) {
    SweepJson sweep = new SweepJson("random");
    sweep.body.put("trials", trials);
    return sweep;
  }

  public static SweepJson anExternalSweep() {
    return new SweepJson("external");
  }

  public SweepJson name(String name) {
    body.put("name", name);
    return this;
  }

  public SweepJson command(String... argv) {
    body.put("command", List.of(argv));
    return this;
  }

  /** The trials run a script through {@code sh -c}. */
  public SweepJson shell(String script) {
    return command("sh", "-c", script);
  }

  public SweepJson values(String name, Object... values) {
    parameters.put(name, Map.of("values", List.of(values)));
    return this;
  }

  public SweepJson range(String name, Object min, Object max, String scale, String type) {
    Map<String, Object> range = new LinkedHashMap<>();
    range.put("min", min);
    range.put("max", max);
    range.put("scale", scale);
    range.put("type", type);
    parameters.put(name, range);
    return this;
  }

  public SweepJson seed(long seed) {
    body.put("seed", seed);
    return this;
  }

  public SweepJson metric(String name, String goal) {
    body.put("metric", Map.of("name", name, "goal", goal));
    return this;
  }

  public SweepJson label(String key, String value) {
    labels.put(key, value);
    return this;
  }

  public SweepJson env(String name, String value) {
    env.put(name, value);
    return this;
  }

  public SweepJson field(String name, Object value) {
    body.put(name, value);
    return this;
  }

  public String json() {
    Map<String, Object> out = new LinkedHashMap<>(body);
    out.put("parameters", parameters);
    if (!labels.isEmpty()) {
      out.put("labels", labels);
    }
    if (!env.isEmpty()) {
      out.put("env", env);
    }
    return HttpApi.JSON.writeValueAsString(out);
  }
}

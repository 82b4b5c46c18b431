package io.gpuq.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test-data builder for job submissions: {@code aJob().shell("sleep 1").cpuOnly().json()}. */
public final class JobJson {

  private final Map<String, Object> body = new LinkedHashMap<>();
  private final Map<String, Object> resources = new LinkedHashMap<>();
  private final Map<String, Object> retry = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();
  private final Map<String, Object> labels = new LinkedHashMap<>();

  private JobJson() {}

  /** A CPU-only job running {@code true}. */
  public static JobJson aJob() {
    return new JobJson().command("true").cpuOnly();
  }

  public JobJson command(String... argv) {
    body.put("command", List.of(argv));
    return this;
  }

  /** Runs a script through {@code sh -c}, the user's explicit choice of a shell. */
  public JobJson shell(String script) {
    return command("sh", "-c", script);
  }

  public JobJson name(String name) {
    body.put("name", name);
    return this;
  }

  public JobJson cpuOnly() {
    return gpus(0);
  }

  public JobJson gpus(int gpus) {
    resources.put("gpus", gpus);
    return this;
  }

  public JobJson gpuMemory(Object memory) {
    resources.put("gpuMemory", memory);
    return this;
  }

  public JobJson cpus(Object cpus) {
    resources.put("cpus", cpus);
    return this;
  }

  /** Host memory: a size such as "512MiB", or a number of bytes. */
  public JobJson memory(Object memory) {
    resources.put("memory", memory);
    return this;
  }

  public JobJson gpuFraction(double fraction) {
    resources.put("gpuFraction", fraction);
    return this;
  }

  public JobJson framework(String framework) {
    body.put("framework", framework);
    return this;
  }

  public JobJson timeout(String timeout) {
    body.put("timeout", timeout);
    return this;
  }

  public JobJson priority(int priority) {
    body.put("priority", priority);
    return this;
  }

  public JobJson maxAttempts(int attempts) {
    retry.put("maxAttempts", attempts);
    return this;
  }

  public JobJson oomGrowth(double growth) {
    retry.put("oomGrowth", growth);
    return this;
  }

  public JobJson env(String name, String value) {
    env.put(name, value);
    return this;
  }

  public JobJson label(String key, String value) {
    labels.put(key, value);
    return this;
  }

  /** Any top-level field, of any JSON type, even one the API refuses. */
  public JobJson field(String name, Object value) {
    body.put(name, value);
    return this;
  }

  /** Any field of {@code resources}, of any JSON type. */
  public JobJson resource(String name, Object value) {
    resources.put(name, value);
    return this;
  }

  /** {@code count} labels l0=v, l1=v... */
  public JobJson labels(int count) {
    for (int i = 0; i < count; i++) {
      labels.put("l" + i, "v");
    }
    return this;
  }

  /** {@code count} environment variables V0=x, V1=x... */
  public JobJson variables(int count) {
    for (int i = 0; i < count; i++) {
      env.put("V" + i, "x");
    }
    return this;
  }

  /** A label whose value is of any JSON type. */
  public JobJson labelOfAnyType(String key, Object value) {
    labels.put(key, value);
    return this;
  }

  public JobJson workingDir(String dir) {
    body.put("workingDir", dir);
    return this;
  }

  public String json() {
    Map<String, Object> out = new LinkedHashMap<>(body);
    if (!resources.isEmpty()) {
      out.put("resources", resources);
    }
    if (!retry.isEmpty()) {
      out.put("retry", retry);
    }
    if (!env.isEmpty()) {
      out.put("env", env);
    }
    if (!labels.isEmpty()) {
      out.put("labels", labels);
    }
    return HttpApi.JSON.writeValueAsString(out);
  }

  public static List<String> argv(String... args) {
    return new ArrayList<>(List.of(args));
  }
}

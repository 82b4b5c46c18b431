package io.gpuq.job;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.text.Cpus;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test-data builder for valid job specs: {@code aSpec().gpuMemory(gib(4)).attempts(3).build()}.
 * Without a budget the job is CPU-only; with one it asks for one GPU.
 */
public final class JobSpecs {

  private String name = "train";
  private List<String> command = List.of("python3", "train.py");
  private String workingDir;
  private Map<String, String> env = Map.of();
  private Map<String, String> labels = Map.of();
  private Map<String, String> nodeSelector = Map.of();
  private Integer gpus;
  private Framework framework = Framework.PYTORCH;
  private Long gpuMemory;
  private Double fraction;
  private int priority;
  private Duration timeout;
  private int attempts = 1;
  private double growth = 1.5;
  private HostResources host = HostResources.ONE_CORE;
  private Preemption preemption = Preemption.NONE;
  private TimeoutSignal timeoutSignal;

  public JobSpecs preemption(Preemption preemption) {
    this.preemption = preemption;
    return this;
  }

  public JobSpecs timeoutSignal(TimeoutSignal timeoutSignal) {
    this.timeoutSignal = timeoutSignal;
    return this;
  }

  private JobSpecs() {}

  public static JobSpecs aSpec() {
    return new JobSpecs();
  }

  public JobSpecs name(String name) {
    this.name = name;
    return this;
  }

  public JobSpecs command(String... argv) {
    this.command = List.of(argv);
    return this;
  }

  public JobSpecs workingDir(String dir) {
    this.workingDir = dir;
    return this;
  }

  public JobSpecs env(Map<String, String> env) {
    this.env = new HashMap<>(env);
    return this;
  }

  public JobSpecs labels(Map<String, String> labels) {
    this.labels = new HashMap<>(labels);
    return this;
  }

  public JobSpecs nodeSelector(Map<String, String> selector) {
    this.nodeSelector = new HashMap<>(selector);
    return this;
  }

  /** GPUs per job; by default one with a budget, none without. */
  public JobSpecs gpus(int gpus) {
    this.gpus = gpus;
    return this;
  }

  public JobSpecs framework(Framework framework) {
    this.framework = framework;
    return this;
  }

  public JobSpecs gpuMemory(long bytes) {
    this.gpuMemory = bytes;
    return this;
  }

  public JobSpecs fraction(double fraction) {
    this.fraction = fraction;
    return this;
  }

  public JobSpecs priority(int priority) {
    this.priority = priority;
    return this;
  }

  public JobSpecs timeout(Duration timeout) {
    this.timeout = timeout;
    return this;
  }

  public JobSpecs attempts(int attempts) {
    this.attempts = attempts;
    return this;
  }

  public JobSpecs host(int cpus, Long memoryBytes) {
    this.host = new HostResources(cpus, memoryBytes);
    return this;
  }

  /** Thousandths of a core: {@code millicores(250)} asks for 0.25. */
  public JobSpecs millicores(long millicores) {
    this.host = new HostResources(Cpus.ofMillis(millicores), null);
    return this;
  }

  public JobSpecs growth(double growth) {
    this.growth = growth;
    return this;
  }

  public JobSpec build() {
    int gpus = this.gpus != null ? this.gpus : gpuMemory == null && fraction == null ? 0 : 1;
    return new JobSpec(
        name,
        command,
        workingDir,
        env,
        framework,
        gpus,
        MemoryDemand.of(gpuMemory, fraction),
        host,
        priority,
        timeout,
        attempts,
        growth,
        labels,
        nodeSelector,
        List.of(),
        preemption,
        timeoutSignal);
  }
}

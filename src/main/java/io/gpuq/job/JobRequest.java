package io.gpuq.job;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * A job submission as the user sent it, before validation. Types are loose on purpose ({@code
 * gpuMemory} may be a number or a string; {@code timeout} is ISO-8601 text) so that {@link
 * JobRequestValidator} can name the field of every mistake.
 */
public record JobRequest(
    String name,
    List<String> command,
    String workingDir,
    Map<String, String> env,
    String framework,
    Resources resources,
    Integer priority,
    String timeout,
    Retry retry,
    Map<String, String> labels,
    Map<String, String> nodeSelector,
    List<String> preload,
    List<DependsOn> dependsOn,
    Boolean preemptible,
    String preemptGrace,
    String preemptSignal,
    TimeoutSignalRequest timeoutSignal,
    // "notify" in JSON: a record component cannot be named as Object's notify().
    @JsonProperty("notify") List<Notify> notifications) {

  /** {@code timeoutSignal}: a signal name and an ISO-8601 duration, as sent. */
  public record TimeoutSignalRequest(String signal, String before) {}

  /**
   * One dependency as the user wrote it (issue 37): {@code job} or {@code sweep}, and a {@code
   * condition} ({@code afterok} unless given).
   */
  public record DependsOn(String job, String sweep, String condition) {}

  /**
   * What the job needs: {@code gpus} whole GPUs, each with a budget or whole; {@code cpus} cores (a
   * JSON number, whole or a fraction such as 0.25: loose, so that a string is named as a mistake
   * rather than read as a number) and {@code memory} of the host's memory (a size, as {@code
   * gpuMemory}).
   */
  public record Resources(
      Integer gpus, Object gpuMemory, Double gpuFraction, Object cpus, Object memory) {

    /** GPUs only, as before cores and host memory could be asked for. */
    public Resources(Integer gpus, Object gpuMemory, Double gpuFraction) {
      this(gpus, gpuMemory, gpuFraction, null, null);
    }
  }

  /**
   * One notification target as the user wrote it (issue 37): a {@code url}, the events it is sent
   * on ({@code on}: ENDED unless given) and its {@code format} (json unless given).
   */
  public record Notify(String url, List<String> on, String format) {}

  /** How often to try, and how the GPU-memory budget grows after an out-of-memory failure. */
  public record Retry(Integer maxAttempts, Double oomGrowth) {}
}

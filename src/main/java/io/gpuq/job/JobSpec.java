package io.gpuq.job;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A valid job request, with defaults applied. Built only by {@link JobRequestValidator}.
 *
 * @param gpuMemoryBytes budget per GPU in bytes, or null
 * @param gpuFraction budget per GPU as a fraction of the GPU, or null; neither means whole GPUs
 * @param timeout null for none
 * @param nodeSelector labels a node must carry to run the job (several gpuq nodes)
 */
public record JobSpec(
    String name,
    List<String> command,
    String workingDir,
    Map<String, String> env,
    Framework framework,
    int gpus,
    Long gpuMemoryBytes,
    Double gpuFraction,
    int priority,
    Duration timeout,
    int maxAttempts,
    double oomGrowth,
    Map<String, String> labels,
    Map<String, String> nodeSelector) {

  public JobSpec {
    command = List.copyOf(command);
    env = Map.copyOf(env);
    labels = Map.copyOf(labels);
    nodeSelector = Map.copyOf(nodeSelector);
  }

  public boolean wantsWholeGpus() {
    return gpus > 0 && gpuMemoryBytes == null && gpuFraction == null;
  }
}

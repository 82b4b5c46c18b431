package io.gpuq.job;

import io.gpuq.placement.MemoryDemand;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A valid job request, with defaults applied. Built only by {@link JobRequestValidator}.
 *
 * @param memory the budget on each GPU; whole GPUs when the request names none, and for a job with
 *     {@code gpus: 0}, where it means nothing
 * @param host the cores and host memory the job is given
 * @param timeout null for none
 * @param nodeSelector labels a node must carry to run the job (several gpuq nodes)
 * @param preload the modules a warm start imports once for all the trials that fork from it (issue
 *     36); empty for a cold start
 * @param preemption whether and how it may be preempted (issue 35)
 * @param timeoutSignal the warning before its timeout; null for none (issue 35)
 */
public record JobSpec(
    String name,
    List<String> command,
    String workingDir,
    Map<String, String> env,
    Framework framework,
    int gpus,
    MemoryDemand memory,
    HostResources host,
    int priority,
    Duration timeout,
    int maxAttempts,
    double oomGrowth,
    Map<String, String> labels,
    Map<String, String> nodeSelector,
    List<String> preload,
    Preemption preemption,
    TimeoutSignal timeoutSignal) {

  public JobSpec {
    Objects.requireNonNull(preemption, "preemption");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(host, "host");
    command = List.copyOf(command);
    env = Map.copyOf(env);
    labels = Map.copyOf(labels);
    nodeSelector = Map.copyOf(nodeSelector);
    preload = preload == null ? List.of() : List.copyOf(preload);
  }

  public boolean wantsWholeGpus() {
    return gpus > 0 && memory instanceof MemoryDemand.WholeGpu;
  }
}

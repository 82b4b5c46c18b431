package io.gpuq.wiring;

import io.gpuq.cgroup.MeasuredHost;
import io.gpuq.config.GpuqProperties;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.launch.Workers;
import io.gpuq.meters.JobHostMetrics;
import io.gpuq.node.HostUsage;
import io.gpuq.node.LocalCapacity;
import io.gpuq.node.LocalGpus;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.storage.JpaNodeStore;
import io.gpuq.storage.NodeRepository;
import java.io.IOException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several gpuq nodes on one database: registration; CompositionConfiguration runs the heartbeats
 * and the reaping of the silent.
 */
@Configuration(proxyBeanMethods = false)
public class NodeConfiguration {

  private static final Logger log = LoggerFactory.getLogger(NodeConfiguration.class);

  /**
   * What this node gives its jobs: measured at start (affinity mask, cgroup CPU quota, MemTotal or
   * cgroup memory limit) less {@code gpuq.node.reserved-cpus} and {@code reserved-memory}, logged
   * with where each figure came from. gpuq refuses to start where nothing is left.
   */
  @Bean
  LocalCapacity localCapacity(GpuqProperties properties) {
    MeasuredHost measured;
    try {
      measured = MeasuredHost.measure();
    } catch (IOException | RuntimeException e) {
      throw new StartRefusedException(
          "cannot measure this host's CPUs and memory: " + e.getMessage(),
          "run gpuq on Linux with /proc and /sys/fs/cgroup readable",
          e);
    }
    GpuqProperties.Node node = properties.node();
    if (node.cpus() != null) {
      if (node.cpus() < 1) {
        throw new StartRefusedException(
            "gpuq.node.cpus=" + node.cpus() + " offers no core",
            "set 1 or more, or leave it unset");
      }
      measured =
          new MeasuredHost(
              node.cpus(),
              "gpuq.node.cpus=" + node.cpus() + " (measured: " + measured.cpusFrom() + ")",
              measured.memoryBytes(),
              measured.memoryFrom());
    }
    Long reservedMemory =
        SizeSetting.bytes(
            "gpuq.node.reserved-memory",
            node.reservedMemory(),
            "write a size such as 2GiB or 512MiB");
    LocalCapacity capacity = LocalCapacity.decide(measured, node.reservedCpus(), reservedMemory);
    log.info("This node's cores and memory: {}", capacity.describe());
    return capacity;
  }

  @Bean
  LocalGpus localGpus(
      GpuInventory inventory, GpuPoller poller, Workers workers, NodeIdentity node) {
    return new LocalGpus(inventory, poller, workers, node);
  }

  /** The repository on first use, as the job store's (JpaBootstrapConfiguration). */
  @Bean
  NodeRegistry nodeRegistry(
      @Lazy NodeRepository nodes,
      TransactionTemplate tx,
      Clock clock,
      NodeIdentity node,
      GpuqProperties properties,
      LocalGpus localGpus,
      LocalCapacity capacity,
      JobHostMetrics jobHostMetrics) {
    return new NodeRegistry(
        new JpaNodeStore(nodes, tx),
        clock,
        node,
        properties.cluster().nodeTimeout(),
        localGpus,
        capacity.allocatable(),
        () -> {
          JobHostMetrics.Totals totals = jobHostMetrics.totals();
          return new HostUsage(totals.cpus(), totals.residentBytes());
        });
  }
}

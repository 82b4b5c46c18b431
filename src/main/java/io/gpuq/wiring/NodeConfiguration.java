package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuPoller;
import io.gpuq.launch.Workers;
import io.gpuq.node.LocalGpus;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.storage.JpaNodeStore;
import io.gpuq.storage.NodeRepository;
import java.time.Clock;
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
      LocalGpus localGpus) {
    return new NodeRegistry(
        new JpaNodeStore(nodes, tx), clock, node, properties.cluster().nodeTimeout(), localGpus);
  }
}

package io.gpuq.storage;

import io.gpuq.node.Node;
import io.gpuq.node.NodeStore;
import java.time.Instant;
import java.util.List;
import org.springframework.transaction.support.TransactionTemplate;

/** The {@code nodes} table through JPA, each call one transaction. */
public class JpaNodeStore implements NodeStore {

  private final NodeRepository nodes;
  private final TransactionTemplate tx;

  public JpaNodeStore(NodeRepository nodes, TransactionTemplate tx) {
    this.nodes = nodes;
    this.tx = tx;
  }

  @Override
  public void beat(String name, String labels, String backend, String gpus, Instant now) {
    tx.executeWithoutResult(
        status ->
            nodes
                .findById(name)
                .ifPresentOrElse(
                    node -> node.beat(labels, backend, gpus, now),
                    () -> nodes.save(new Node(name, labels, backend, gpus, now))));
  }

  @Override
  public List<Node> silentSince(Instant before) {
    return tx.execute(status -> nodes.findSilentSince(before));
  }

  @Override
  public List<Node> all() {
    return tx.execute(status -> nodes.findAll());
  }
}

package io.gpuq.storage;

import io.gpuq.node.Allocated;
import io.gpuq.node.Heartbeat;
import io.gpuq.node.Node;
import io.gpuq.node.NodeStore;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.dao.DataIntegrityViolationException;
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
  public void beat(Heartbeat beat) {
    try {
      beatOnce(beat);
    } catch (DataIntegrityViolationException e) {
      // Another beat of this node registered it between our look and our insert (a first beat on
      // a loaded machine): it is there now, so this beat is an update.
      beatOnce(beat);
    }
  }

  private void beatOnce(Heartbeat beat) {
    tx.executeWithoutResult(
        status ->
            nodes
                .findById(beat.node())
                .ifPresentOrElse(
                    node -> {
                      node.beat(beat.labels(), beat.backend(), beat.gpus(), beat.at());
                      node.report(beat.allocatable(), beat.used());
                    },
                    () -> {
                      Node node =
                          new Node(
                              beat.node(), beat.labels(), beat.backend(), beat.gpus(), beat.at());
                      node.report(beat.allocatable(), beat.used());
                      nodes.save(node);
                    }));
  }

  @Override
  public List<Node> silentSince(Instant before) {
    return tx.execute(status -> nodes.findSilentSince(before));
  }

  @Override
  public List<Node> all() {
    return tx.execute(status -> nodes.findAll());
  }

  @Override
  public Map<String, Allocated> allocatedByNode() {
    return tx.execute(
        status -> {
          Map<String, Allocated> byNode = new HashMap<>();
          for (Object[] row : nodes.allocatedToRunningJobs()) {
            byNode.put(
                (String) row[0],
                new Allocated(
                    JobTable.cpus(new BigDecimal(row[1].toString())),
                    ((Number) row[2]).longValue()));
          }
          return byNode;
        });
  }
}

package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.node.NodeRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/nodes")
@Tag(name = "nodes", description = "Every live node's cores and host memory")
public class NodeController {

  private final NodeRegistry nodes;

  public NodeController(NodeRegistry nodes) {
    this.nodes = nodes;
  }

  @GetMapping
  @Operation(
      summary = "Cores and host memory of every live node",
      description =
          "The node answering first, then the other live nodes by name. allocatable: what the"
              + " node gives its jobs; allocated: what its RUNNING jobs were given (from the"
              + " database); used: what its workers used, the answering node's at its last"
              + " reading, another node's as of its last heartbeat. A submitter gets used as"
              + " null: allocatable and allocated are what decide where its jobs fit.")
  public List<NodeView> nodes(Caller caller) {
    boolean admin = caller.isAdmin();
    return nodes.liveNodeFigures().stream().map(node -> NodeView.of(node, admin)).toList();
  }
}

package io.gpuq.api;

import io.gpuq.node.LocalGpus;
import io.gpuq.node.NodeRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/gpus")
@Tag(name = "gpus", description = "Every node's GPUs, their memory and the jobs on them")
public class GpuController {

  private final LocalGpus local;
  private final NodeRegistry nodes;

  public GpuController(LocalGpus local, NodeRegistry nodes) {
    this.local = local;
    this.nodes = nodes;
  }

  @GetMapping
  @Operation(
      summary = "GPUs of every live node",
      description =
          "This node's GPUs from its last poll; other nodes' GPUs as of their last heartbeat.")
  public List<GpuView> gpus() {
    List<GpuView> all = new ArrayList<>();
    local.gpus().forEach(gpu -> all.add(GpuView.of(gpu)));
    nodes.otherLiveNodesGpus().forEach(gpu -> all.add(GpuView.of(gpu)));
    return all;
  }
}

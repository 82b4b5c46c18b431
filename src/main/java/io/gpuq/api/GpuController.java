package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.JobQueries;
import io.gpuq.node.LocalGpus;
import io.gpuq.node.NodeRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/gpus")
@Tag(name = "gpus", description = "Every node's GPUs, their memory and the jobs on them")
public class GpuController {

  private final LocalGpus local;
  private final NodeRegistry nodes;
  private final JobQueries jobs;

  public GpuController(LocalGpus local, NodeRegistry nodes, JobQueries jobs) {
    this.local = local;
    this.nodes = nodes;
    this.jobs = jobs;
  }

  @GetMapping
  @Operation(
      summary = "GPUs of every live node",
      description =
          "This node's GPUs from its last poll; other nodes' GPUs as of their last heartbeat. A"
              + " submitter sees another owner's process as \"another owner's job\", without its"
              + " pid or job id.")
  public List<GpuView> gpus(Caller caller) {
    Predicate<String> visible = caller.isAdmin() ? jobId -> true : new OwnJobs(jobs, caller);
    List<GpuView> all = new ArrayList<>();
    local.gpus().forEach(gpu -> all.add(GpuView.of(gpu, visible)));
    nodes.otherLiveNodesGpus().forEach(gpu -> all.add(GpuView.of(gpu, visible)));
    return all;
  }
}

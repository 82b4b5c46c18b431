package io.gpuq.api;

import io.gpuq.node.NodeFigures;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.Map;

/** One live node as {@code GET /api/v1/nodes} shows it (docs/api.md, "Nodes"). */
@Schema(name = "Node")
public record NodeView(
    String name,
    Map<String, String> labels,
    @Schema(description = "its last heartbeat") Instant heartbeatAt,
    @Schema(description = "cores; used in CPU-seconds per second") Cores cpus,
    @Schema(description = "host memory in bytes; used is resident memory") Memory memory) {

  /**
   * The node as a caller sees it: a submitter gets {@code used} as null, an admin as measured.
   *
   * @param admin whether the caller is an admin
   */
  public static NodeView of(NodeFigures node, boolean admin) {
    return new NodeView(
        node.name(),
        node.labels(),
        node.heartbeatAt(),
        new Cores(
            node.cpus().allocatable(),
            node.cpus().allocated().number(),
            admin ? node.cpus().used() : null),
        new Memory(
            node.memory().allocatable(),
            node.memory().allocated(),
            admin ? node.memory().used() : null));
  }

  @Schema(name = "NodeCpus")
  public record Cores(
      @Schema(
              description =
                  "cores the node gives its jobs: its CPUs less gpuq.node.reserved-cpus; null"
                      + " for a node that does not report it")
          Integer allocatable,
      @Schema(
              description =
                  "the sum of the cpus of the node's RUNNING jobs, fractions included (2.75)",
              type = "number")
          Number allocated,
      @Schema(
              description =
                  "cores its workers used at its last reading (another node's: as of its last"
                      + " heartbeat); null to a submitter, or when the node reported none")
          Double used) {}

  @Schema(name = "NodeMemory")
  public record Memory(
      @Schema(
              description =
                  "bytes the node gives its jobs: its memory (or cgroup limit) less"
                      + " gpuq.node.reserved-memory; null for a node that does not report it")
          Long allocatable,
      @Schema(description = "the sum of the memory of the node's RUNNING jobs") long allocated,
      @Schema(
              description =
                  "resident bytes of its workers at its last reading (another node's: as of its"
                      + " last heartbeat); null to a submitter, or when the node reported none")
          Long used) {}
}

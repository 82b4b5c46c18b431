package io.gpuq.storage;

import io.gpuq.node.Node;
import java.time.Instant;
import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

public interface NodeRepository extends JpaRepository<Node, String> {

  @Query("select n from Node n where n.heartbeatAt < :before")
  List<Node> findSilentSince(@Param("before") Instant before);

  /**
   * Per node, its RUNNING jobs' cores and host memory (a job with none counts 0): rows of node,
   * cores, bytes.
   */
  @Query(
      "select j.node, sum(j.cpus), coalesce(sum(j.memoryBytes), 0) from Job j"
          + " where j.state = io.gpuq.job.JobState.RUNNING and j.node is not null"
          + " group by j.node")
  List<Object[]> allocatedToRunningJobs();
}

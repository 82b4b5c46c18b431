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
}

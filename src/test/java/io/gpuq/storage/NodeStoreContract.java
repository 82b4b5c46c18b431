package io.gpuq.storage;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.job.JobSpec;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.node.Allocated;
import io.gpuq.node.Heartbeat;
import io.gpuq.node.HostUsage;
import io.gpuq.node.Node;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.node.NodeStore;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import io.gpuq.schedule.PlacementAdmission;
import io.gpuq.support.IntegrationTier;
import io.gpuq.text.Cpus;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What gpuq needs of the node store, on each database it supports (a subclass names one): each
 * node's heartbeat with the cores and memory it gives and uses, read back by every node, and what
 * each node's RUNNING jobs were given, in one grouped query. Tests commit for real.
 */
@IntegrationTier
@DataJpaTest(showSql = false)
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
@Transactional(propagation = Propagation.NOT_SUPPORTED)
@Import(JpaJobStore.class)
abstract class NodeStoreContract {

  static final long GIB = 1L << 30;
  static final long MIB = 1L << 20;

  @Autowired JpaJobStore jobs;
  @Autowired NodeRepository repository;
  @Autowired TransactionTemplate tx;
  @Autowired DataSource dataSource;

  NodeStore nodes;

  @BeforeEach
  void emptyDatabase() {
    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    jdbc.update("delete from jobs");
    jdbc.update("delete from nodes");
    nodes = new JpaNodeStore(repository, tx);
  }

  private Node node(String name) {
    return nodes.all().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void a_heartbeat_registers_then_updates_the_cores_and_memory_a_node_gives_and_uses() {
    nodes.beat(
        new Heartbeat("node-a", "{}", "emulated", "[]", new NodeCapacity(7, 60 * GIB), null, T0));
    Node first = node("node-a");
    assertThat(first.allocatableCpus()).isEqualTo(7);
    assertThat(first.allocatableMemoryBytes()).isEqualTo(60 * GIB);
    assertThat(first.usedCpus()).isNull();
    assertThat(first.usedMemoryBytes()).isNull();

    nodes.beat(
        new Heartbeat(
            "node-a",
            "{\"pool\":\"a\"}",
            "emulated",
            "[]",
            new NodeCapacity(6, 59 * GIB),
            new HostUsage(2.5, 3 * GIB),
            T0.plusSeconds(5)));
    nodes.beat(
        new Heartbeat(
            "node-b",
            "{}",
            "nvml",
            "[]",
            new NodeCapacity(1, 1),
            HostUsage.NONE,
            T0.plusSeconds(5)));
    Node again = node("node-a");
    assertThat(again.allocatableCpus()).isEqualTo(6);
    assertThat(again.allocatableMemoryBytes()).isEqualTo(59 * GIB);
    assertThat(again.usedCpus()).isEqualTo(2.5);
    assertThat(again.usedMemoryBytes()).isEqualTo(3 * GIB);
    assertThat(again.labels()).isEqualTo("{\"pool\":\"a\"}");
    assertThat(again.heartbeatAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(again.startedAt()).isEqualTo(T0);
    assertThat(node("node-b").usedCpus()).isZero();
    assertThat(nodes.all()).extracting(Node::name).containsExactlyInAnyOrder("node-a", "node-b");
  }

  @Test
  void a_row_an_older_node_wrote_has_no_figures() {
    new JdbcTemplate(dataSource)
        .update(
            "insert into nodes (name, labels, backend, gpus, started_at, heartbeat_at, version)"
                + " values ('old', '{}', 'nvml', '[]', current_timestamp, current_timestamp, 0)");
    Node old = node("old");
    assertThat(old.allocatableCpus()).isNull();
    assertThat(old.allocatableMemoryBytes()).isNull();
    assertThat(old.usedCpus()).isNull();
  }

  @Test
  void allocated_sums_the_cores_and_memory_of_each_nodes_running_jobs_only() {
    aRunningJob().on("node-a").spec(s -> s.host(2, GIB)).in(jobs);
    aRunningJob().on("node-a").spec(s -> s.host(3, null)).in(jobs);
    aRunningJob().on("node-b").spec(s -> s.host(1, 512 * MIB)).in(jobs);
    aSucceededJob().on("node-a").spec(s -> s.host(8, 8 * GIB)).in(jobs);
    aSucceededJob().on("node-c").spec(s -> s.host(8, 8 * GIB)).in(jobs);
    aQueuedJob().spec(s -> s.host(4, 4 * GIB)).in(jobs);

    Map<String, Allocated> allocated = nodes.allocatedByNode();

    assertThat(allocated)
        .containsOnly(
            Map.entry("node-a", new Allocated(Cpus.of(5), GIB)),
            Map.entry("node-b", new Allocated(Cpus.of(1), 512 * MIB)));
  }

  @Test
  void allocated_is_empty_when_nothing_runs() {
    aQueuedJob().in(jobs);
    assertThat(nodes.allocatedByNode()).isEmpty();
    assertThat(List.copyOf(nodes.all())).isEmpty();
  }

  /**
   * A node reads the others at most once a second; a submission selecting a node that registered
   * since (a second gpuq just started) is not refused for it. The clock stands still here, so
   * without a fresh read the node would never be seen.
   */
  @Test
  void a_submission_selecting_a_node_registered_since_the_last_read_of_the_nodes_is_admitted() {
    Clock still = Clock.fixed(T0, ZoneOffset.UTC);
    NodeRegistry a =
        new NodeRegistry(
            nodes,
            still,
            new NodeIdentity("node-a", Map.of()),
            Duration.ofSeconds(30),
            null, // node-a only reads here: it does not beat
            new NodeCapacity(2, 4 * GIB),
            () -> HostUsage.NONE);
    PlacementAdmission admission =
        new PlacementAdmission(
            new Placer(new PlacementPolicy(Headroom.NONE, Duration.ZERO, Duration.ZERO, 8)),
            List::of,
            still,
            a);
    JobSpec onB = aSpec().gpus(0).nodeSelector(Map.of("pool", "b")).build();
    assertThatExceptionOfType(UnsatisfiableRequestException.class)
        .isThrownBy(() -> admission.check(onB))
        .withMessageContaining("no live node carries the labels {pool=b}");

    nodes.beat(
        new Heartbeat(
            "node-b",
            "{\"pool\":\"b\"}",
            "emulated",
            "[]",
            new NodeCapacity(4, 8 * GIB),
            HostUsage.NONE,
            T0));

    assertThatCode(() -> admission.check(onB)).doesNotThrowAnyException();
    assertThat(a.otherLiveNodes()).containsOnlyKeys("node-b");
  }
}

package io.gpuq.support;

import static org.awaitility.Awaitility.await;

import io.gpuq.GpuqApplication;
import io.gpuq.node.NodeRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Several gpuq nodes (separate application contexts) sharing one PostgreSQL database. */
public final class GpuqCluster {

  public static final String TOKEN = "cluster-token-0123456789";

  private final PostgresDatabase database;
  private final Path root;

  public GpuqCluster(PostgresDatabase database, Path root) {
    this.database = database;
    this.root = root;
  }

  /** Starts one node; its data directory is {@code <root>/<name>}. */
  public Node start(String name, String... extraArgs) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--spring.profiles.active=postgres");
    args.add("--GPUQ_DB_URL=" + database.jdbcUrl());
    args.add("--GPUQ_DB_USER=" + database.username());
    args.add("--GPUQ_DB_PASSWORD=" + database.password());
    args.add("--gpuq.node-name=" + name);
    args.add("--gpuq.data-dir=" + root.resolve(name));
    args.add("--gpuq.gpu.backend=emulated");
    args.add("--gpuq.auth.tokens[0].name=cluster");
    args.add("--gpuq.auth.tokens[0].token=" + TOKEN);
    args.add("--gpuq.auth.tokens[0].role=ADMIN");
    args.add(TestAccounts.runAsSelfArgument());
    args.add("--gpuq.cluster.heartbeat-interval=500ms");
    args.add("--gpuq.cluster.node-timeout=3s");
    args.add("--gpuq.scheduler.safety-net-interval=500ms");
    args.addAll(TestCores.argumentsBeside(extraArgs));
    args.addAll(List.of(extraArgs));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    return new Node(name, context);
  }

  /** One running node. Closing it stops gpuq but, as on a real node, not its workers. */
  public record Node(String name, ConfigurableApplicationContext context) implements AutoCloseable {

    public HttpApi api() {
      return new HttpApi(
          Integer.parseInt(context.getEnvironment().getProperty("local.server.port")), TOKEN);
    }

    /**
     * Waits until this node sees each of the others as live. A node reads the others at most once a
     * second, so a submission to it that selects a node started a moment ago would otherwise be
     * refused (422: no live node carries the labels), as it would on a real cluster then.
     */
    public void awaitSees(Node... others) {
      NodeRegistry registry = context.getBean(NodeRegistry.class);
      List<String> names = Arrays.stream(others).map(Node::name).toList();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> registry.otherLiveNodes().keySet().containsAll(names));
    }

    @Override
    public void close() {
      context.close();
    }
  }
}

package io.gpuq.meters;

import io.gpuq.node.NodeFigures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * {@code gpuq_node_cpus{node, kind}} and {@code gpuq_node_memory_bytes{node, kind}} of this node,
 * {@code kind} one of {@code allocatable} (what it gives its jobs), {@code allocated} (what its
 * RUNNING jobs were given, from the database) and {@code used} (what its workers used at the last
 * reading of the per-job host series). Each node exports its own, as it does its GPUs', so that
 * sums over the scraped nodes count each once. The figures are read once for all six gauges and
 * reused for {@code maxAge}, so that a scrape costs one query.
 */
public final class NodeResourceGauges {

  public NodeResourceGauges(
      MeterRegistry registry,
      String node,
      Supplier<NodeFigures> figures,
      Clock clock,
      Duration maxAge) {
    ReusedReading<NodeFigures> shared =
        new ReusedReading<>("this node's cores and memory", figures, clock, maxAge);
    Gauges cpus =
        new Gauges(
            registry,
            shared,
            node,
            MeterNames.NODE_CPUS,
            "This node's cores: allocatable to jobs, allocated to its running jobs, used by its"
                + " workers (CPU-seconds per second)",
            null);
    cpus.register(MeterNames.ALLOCATABLE, f -> number(f.cpus().allocatable()));
    cpus.register(MeterNames.ALLOCATED, f -> f.cpus().allocated().cores());
    cpus.register(MeterNames.USED, f -> number(f.cpus().used()));
    Gauges memory =
        new Gauges(
            registry,
            shared,
            node,
            MeterNames.NODE_MEMORY,
            "This node's host memory: allocatable to jobs, allocated to its running jobs, resident"
                + " in its workers",
            MeterNames.BYTES);
    memory.register(MeterNames.ALLOCATABLE, f -> number(f.memory().allocatable()));
    memory.register(MeterNames.ALLOCATED, f -> f.memory().allocated());
    memory.register(MeterNames.USED, f -> number(f.memory().used()));
  }

  /** The gauges of one name, one per {@code kind}, read from the shared figures. */
  private record Gauges(
      MeterRegistry registry,
      ReusedReading<NodeFigures> figures,
      String node,
      String name,
      String description,
      String baseUnit) {

    void register(String kind, ToDoubleFunction<NodeFigures> value) {
      Gauge.builder(name, () -> read(figures, value))
          .description(description)
          .baseUnit(baseUnit)
          .tag(MeterNames.NODE, node)
          .tag(MeterNames.KIND, kind)
          .register(registry);
    }
  }

  private static double number(Number value) {
    return value == null ? Double.NaN : value.doubleValue();
  }

  /** The value, NaN while the database cannot be read. */
  private static double read(
      ReusedReading<NodeFigures> figures, ToDoubleFunction<NodeFigures> value) {
    NodeFigures read = figures.get();
    return read == null ? Double.NaN : value.applyAsDouble(read);
  }
}

package io.gpuq.meters;

import io.gpuq.node.NodeFigures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gpuq_node_cpus{node, kind}} and {@code gpuq_node_memory_bytes{node, kind}} of this node,
 * {@code kind} one of {@code allocatable} (what it gives its jobs), {@code allocated} (what its
 * RUNNING jobs were given, from the database) and {@code used} (what its workers used at the last
 * reading of the per-job host series). Each node exports its own, as it does its GPUs', so that
 * sums over the scraped nodes count each once. The figures are read once for all six gauges and
 * reused for {@code maxAge}, so that a scrape costs one query.
 */
public final class NodeResourceGauges {

  private static final Logger log = LoggerFactory.getLogger(NodeResourceGauges.class);

  private final Supplier<NodeFigures> figures;
  private final Clock clock;
  private final Duration maxAge;
  private NodeFigures last;
  private Instant readAt;

  public NodeResourceGauges(
      MeterRegistry registry,
      String node,
      Supplier<NodeFigures> figures,
      Clock clock,
      Duration maxAge) {
    this.figures = figures;
    this.clock = clock;
    this.maxAge = maxAge;
    cpus(registry, node, MeterNames.ALLOCATABLE, f -> number(f.cpus().allocatable()));
    cpus(registry, node, MeterNames.ALLOCATED, f -> f.cpus().allocated());
    cpus(registry, node, MeterNames.USED, f -> number(f.cpus().used()));
    memory(registry, node, MeterNames.ALLOCATABLE, f -> number(f.memory().allocatable()));
    memory(registry, node, MeterNames.ALLOCATED, f -> f.memory().allocated());
    memory(registry, node, MeterNames.USED, f -> number(f.memory().used()));
  }

  private void cpus(
      MeterRegistry registry, String node, String kind, ToDoubleFunction<NodeFigures> value) {
    Gauge.builder(MeterNames.NODE_CPUS, () -> read(value))
        .description(
            "This node's cores: allocatable to jobs, allocated to its running jobs, used by its"
                + " workers (CPU-seconds per second)")
        .tag(MeterNames.NODE, node)
        .tag(MeterNames.KIND, kind)
        .register(registry);
  }

  private void memory(
      MeterRegistry registry, String node, String kind, ToDoubleFunction<NodeFigures> value) {
    Gauge.builder(MeterNames.NODE_MEMORY, () -> read(value))
        .description(
            "This node's host memory: allocatable to jobs, allocated to its running jobs, resident"
                + " in its workers")
        .baseUnit(MeterNames.BYTES)
        .tag(MeterNames.NODE, node)
        .tag(MeterNames.KIND, kind)
        .register(registry);
  }

  private static double number(Number value) {
    return value == null ? Double.NaN : value.doubleValue();
  }

  /** The value, NaN while the database cannot be read. */
  private synchronized double read(ToDoubleFunction<NodeFigures> value) {
    Instant now = clock.instant();
    if (last == null || !now.isBefore(readAt.plus(maxAge)) || now.isBefore(readAt)) {
      try {
        last = figures.get();
      } catch (RuntimeException e) {
        log.warn("cannot read this node's cores and memory for the metrics: {}", e.toString());
        last = null;
        readAt = now;
        return Double.NaN;
      }
      readAt = now;
    }
    return value.applyAsDouble(last);
  }
}

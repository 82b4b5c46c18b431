package io.gpuq.meters;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One gauge name with a changing set of series (one per process, job or GPU of a job). Each {@link
 * #update} states the complete current set: series not in it are removed from the registry, the
 * others keep their meter and only change value, so a scrape never sees a series vanish and come
 * back while it is being refreshed.
 */
final class LiveGauges {

  /** The value of one series; the gauge reads it at scrape time. */
  private static final class Value {
    volatile double current;
  }

  private final MultiGauge gauge;
  private final Map<Tags, Value> values = new HashMap<>();

  LiveGauges(MeterRegistry registry, String name, String baseUnit, String description) {
    this.gauge =
        MultiGauge.builder(name).baseUnit(baseUnit).description(description).register(registry);
  }

  synchronized void update(Map<Tags, ? extends Number> current) {
    values.keySet().retainAll(current.keySet());
    List<MultiGauge.Row<?>> rows = new ArrayList<>(current.size());
    current.forEach(
        (tags, number) -> {
          Value value = values.computeIfAbsent(tags, t -> new Value());
          value.current = number.doubleValue();
          rows.add(MultiGauge.Row.of(tags, value, v -> v.current));
        });
    // Without overwrite, a series already registered keeps its meter (and its Value, the same
    // object as above); series missing from the rows are removed.
    gauge.register(rows, false);
  }

  /** Removes every series whose label {@code key} has {@code value}. */
  synchronized void removeSeriesWith(String key, String value) {
    Map<Tags, Double> kept = new HashMap<>();
    values.forEach(
        (tags, v) -> {
          if (!value.equals(valueOf(tags, key))) {
            kept.put(tags, v.current);
          }
        });
    if (kept.size() < values.size()) {
      update(kept);
    }
  }

  private static String valueOf(Tags tags, String key) {
    for (Tag tag : tags) {
      if (tag.getKey().equals(key)) {
        return tag.getValue();
      }
    }
    return null;
  }

  /** The series now registered, for tests. */
  synchronized Map<Tags, Double> snapshot() {
    Map<Tags, Double> copy = new HashMap<>();
    values.forEach((tags, value) -> copy.put(tags, value.current));
    return copy;
  }
}

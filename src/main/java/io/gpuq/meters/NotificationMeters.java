package io.gpuq.meters;

import static io.gpuq.meters.MeterNames.NODE;
import static io.gpuq.meters.MeterNames.OUTCOME;

import io.gpuq.notify.NotificationDuty.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code gpuq_notifications_total{node, outcome}} (issue 37): the tries of this node's deliveries,
 * {@code delivered}, {@code failed} (tried again later) or {@code gave_up}; each series at 0 from
 * the start.
 */
public final class NotificationMeters implements Consumer<Outcome> {

  private final Map<Outcome, Counter> counters = new EnumMap<>(Outcome.class);

  public NotificationMeters(MeterRegistry registry, String node) {
    for (Outcome outcome : Outcome.values()) {
      counters.put(
          outcome,
          Counter.builder(MeterNames.NOTIFICATIONS)
              .description(
                  "Tries of notification deliveries: delivered, failed (tried again later) or"
                      + " gave_up (failed, and no try is left)")
              .tags(NODE, node, OUTCOME, outcome.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  @Override
  public void accept(Outcome outcome) {
    counters.get(outcome).increment();
  }
}

package io.gpuq.meters;

import io.gpuq.guard.BudgetGuard;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

/** Counts the budget guard's actions: jobs stopped (STOP) or reported (WARN) for their memory. */
public final class GuardActionCounter implements Consumer<BudgetGuard.Action> {

  private final Map<BudgetGuard.Policy, Counter> counters = new EnumMap<>(BudgetGuard.Policy.class);

  public GuardActionCounter(MeterRegistry registry, String node) {
    for (BudgetGuard.Policy policy : BudgetGuard.Policy.values()) {
      counters.put(
          policy,
          Counter.builder(MeterNames.GUARD_ACTIONS)
              .description(
                  "Jobs the budget guard acted on for using more GPU memory than their budget:"
                      + " stopped (policy STOP) or reported (policy WARN)")
              .tags(MeterNames.NODE, node, MeterNames.POLICY, policy.name())
              .register(registry));
    }
  }

  @Override
  public void accept(BudgetGuard.Action action) {
    counters.get(action.policy()).increment();
  }
}

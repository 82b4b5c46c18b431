package io.gpuq.guard;

import java.util.function.Consumer;

/** Receives every action of the {@link BudgetGuard} (metrics count them). */
public interface GuardActions extends Consumer<BudgetGuard.Action> {}

package io.gpuq.guard;

import io.gpuq.gpu.GpuUsage;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import io.gpuq.placement.PlacedGpu;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acts on jobs that use more GPU memory than their budget, before their neighbours run short: a job
 * over its budget (plus a tolerance) on any of its GPUs for {@code consecutivePolls} polls in a row
 * is stopped ({@code OVER_BUDGET}) or, with the warn policy, only reported.
 */
public final class BudgetGuard implements Consumer<GpuUsage> {

  private static final Logger log = LoggerFactory.getLogger(BudgetGuard.class);

  /** What the guard does to a job over its budget. */
  public enum Policy {
    STOP,
    WARN
  }

  /** One decision of the guard, for metrics and logs. */
  public record Action(
      String jobId, int gpuIndex, long usedBytes, long budgetBytes, Policy policy) {}

  private final Workers workers;
  private final Policy policy;
  private final Tolerance tolerance;
  private final int consecutivePolls;
  private final Consumer<Action> onAction;
  private final Map<String, Integer> overBudgetPolls = new HashMap<>();
  private final Set<String> warned = new HashSet<>();

  /**
   * How far over its budget a job may go on a GPU: the larger of a share of the budget and a number
   * of bytes (a small budget needs the bytes, as the CUDA context of each process lives outside the
   * framework's memory pool; a large one the share). One allowance, computed in one place, for the
   * check and for the words a stopped job is told.
   *
   * @param fraction share of the budget a job may exceed it by (0.1 = 10%)
   * @param bytes bytes a job may exceed its budget by in any case
   */
  public record Tolerance(double fraction, long bytes) {

    /** What a job may use over this budget. */
    long over(long budget) {
      return Math.max(bytes, (long) (budget * fraction));
    }
  }

  public BudgetGuard(
      Workers workers,
      Policy policy,
      Tolerance tolerance,
      int consecutivePolls,
      Consumer<Action> onAction) {
    this.workers = workers;
    this.policy = policy;
    this.tolerance = tolerance;
    this.consecutivePolls = Math.max(1, consecutivePolls);
    this.onAction = onAction;
  }

  @Override
  public synchronized void accept(GpuUsage usage) {
    Set<String> seen = new HashSet<>();
    for (RunningWorker worker : workers.live()) {
      Map<Integer, Long> perGpu = usage.jobBytes().get(worker.jobId());
      if (perGpu == null || worker.stopReason() != null) {
        continue;
      }
      seen.add(worker.jobId());
      check(worker, perGpu);
    }
    overBudgetPolls.keySet().retainAll(seen);
    warned.retainAll(seen);
  }

  private void check(RunningWorker worker, Map<Integer, Long> perGpu) {
    for (PlacedGpu gpu : worker.placement().gpus()) {
      long used = perGpu.getOrDefault(gpu.index(), 0L);
      if (used > limit(gpu.memoryBytes())) {
        int polls = overBudgetPolls.merge(worker.jobId(), 1, Integer::sum);
        if (polls >= consecutivePolls) {
          act(worker, new Action(worker.jobId(), gpu.index(), used, gpu.memoryBytes(), policy));
        }
        return;
      }
    }
    overBudgetPolls.remove(worker.jobId());
  }

  private void act(RunningWorker worker, Action action) {
    if (policy == Policy.STOP) {
      log.warn(
          "job {} uses {} bytes on GPU {}, over its budget of {}: stopping it to protect its"
              + " neighbours",
          action.jobId(),
          action.usedBytes(),
          action.gpuIndex(),
          action.budgetBytes());
      String words =
          MemoryWords.overBudget(
              action.gpuIndex(),
              action.usedBytes(),
              action.budgetBytes(),
              tolerance.over(action.budgetBytes()));
      if (workers.stop(worker.jobId(), StopReason.OVER_BUDGET, words)) {
        onAction.accept(action);
      }
    } else if (warned.add(worker.jobId())) {
      log.warn(
          "job {} uses {} bytes on GPU {}, over its budget of {} (policy: warn only)",
          action.jobId(),
          action.usedBytes(),
          action.gpuIndex(),
          action.budgetBytes());
      onAction.accept(action);
    }
  }

  private long limit(long budget) {
    return budget + tolerance.over(budget);
  }
}

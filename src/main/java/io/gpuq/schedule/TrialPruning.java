package io.gpuq.schedule;

import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.job.TrialSeries;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import io.gpuq.reported.SweepObjective;
import io.gpuq.sweep.EarlyStopping;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.Intermediate;
import io.gpuq.sweep.TrialHistory;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforces a sweep's early-stopping rule on its trials running on this node: the rule judges each
 * value a trial reported since the last judgement, in order, against every trial of the sweep (any
 * state; completed means SUCCEEDED), as Optuna's {@code should_prune} after each {@code report}; a
 * trial it stops is pruned in the store, then its worker stopped as a cancel's is. Its later exit
 * leaves it PRUNED.
 */
public final class TrialPruning {

  private static final Logger log = LoggerFactory.getLogger(TrialPruning.class);
  private static final int MAX_CACHED_RULES = 1000;

  private final JobStore store;
  private final Workers workers;
  private final Function<String, Optional<EarlyStopping>> rules;
  private final Clock clock;
  private final String node;
  // A sweep's rule is read from its stored JSON once, not at every poll.
  private final Map<String, Optional<EarlyStopping>> ruleBySweep = new HashMap<>();
  // How many of each running trial's values were judged: each value is judged once, when it is
  // new, against the trials completed by then (the median rule's answer changes as trials
  // complete; Optuna never judges a step again either).
  private final Map<String, Integer> judged = new HashMap<>();
  // Values read before this gpuq started were judged by the one before it.
  private final java.time.Instant started;

  /**
   * @param rules the rule a sweep's stored {@code earlyStopping} JSON describes
   */
  public TrialPruning(
      JobStore store,
      Workers workers,
      Function<String, Optional<EarlyStopping>> rules,
      Clock clock,
      String node) {
    this.store = store;
    this.workers = workers;
    this.rules = rules;
    this.clock = clock;
    this.node = node;
    this.started = clock.instant();
  }

  /** Asks the sweep's rule about each of its trials running here, and prunes those it stops. */
  public void judge(SweepObjective sweep) {
    Optional<EarlyStopping> rule = ruleOf(sweep);
    if (rule.isEmpty() || !sweep.hasMetric()) {
      return;
    }
    Goal goal = Goal.of(sweep.goal());
    List<TrialSeries> trials = store.sweepSeries(sweep.sweepId(), sweep.name());
    List<TrialHistory> histories = new ArrayList<>(trials.size());
    Map<String, TrialHistory> runningHere = new HashMap<>();
    for (TrialSeries trial : trials) {
      TrialHistory history = historyOf(trial);
      histories.add(history);
      if (trial.state() == JobState.RUNNING && node.equals(trial.node())) {
        runningHere.put(trial.jobId(), history);
      }
    }
    for (TrialSeries trial : trials) {
      if (!runningHere.containsKey(trial.jobId())) {
        judged.remove(trial.jobId());
      }
    }
    runningHere.forEach(
        (jobId, history) -> {
          int from = judged.computeIfAbsent(jobId, id -> readBeforeStart(history));
          if (from > history.values().size()) {
            from = 0; // a new attempt: its values start again
          }
          OptionalLong step = rule.get().pruneStep(history, histories, goal, from);
          if (step.isPresent()) {
            judged.remove(jobId);
            prune(jobId, rule.get(), history, step.getAsLong());
          } else {
            judged.put(jobId, history.values().size());
          }
        });
  }

  private int readBeforeStart(TrialHistory history) {
    int count = 0;
    for (Intermediate value : history.values()) {
      if (!value.at().isBefore(started)) {
        break;
      }
      count++;
    }
    return count;
  }

  private Optional<EarlyStopping> ruleOf(SweepObjective sweep) {
    if (ruleBySweep.size() >= MAX_CACHED_RULES) {
      // Sweeps end; reading a rule again costs microseconds, so forgetting them all is enough.
      ruleBySweep.clear();
    }
    return ruleBySweep.computeIfAbsent(
        sweep.sweepId(),
        id -> {
          try {
            return rules.apply(sweep.earlyStopping());
          } catch (RuntimeException e) {
            log.warn("sweep {}: its early-stopping rule cannot be read: {}", id, e.toString());
            return Optional.empty();
          }
        });
  }

  private static TrialHistory historyOf(TrialSeries trial) {
    return new TrialHistory(
        trial.trial(),
        trial.state() == JobState.SUCCEEDED,
        trial.values().stream().map(v -> new Intermediate(v.step(), v.value(), v.at())).toList());
  }

  private void prune(String jobId, EarlyStopping rule, TrialHistory history, long step) {
    String words = "the sweep's early-stopping rule (" + rule.wireName() + ") at step " + step;
    if (store.prune(jobId, "stopped by " + words, clock.instant())) {
      log.info("trial {} (job {}) pruned by {}", history.trial(), jobId, words);
      workers.stop(jobId, StopReason.PRUNED, "pruned by " + words);
    }
  }
}

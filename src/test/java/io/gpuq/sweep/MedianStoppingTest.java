package io.gpuq.sweep;

import static io.gpuq.sweep.Histories.trial;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Worked examples of the median stopping rule, checked by hand against its definition in Golovin et
 * al., 2017 ("Google Vizier", section 3.2.2) as Optuna's MedianPruner computes it
 * (optuna/pruners/_percentile.py at the 50th percentile): a running trial is pruned at its last
 * step s when its best value so far is strictly worse than the median of the completed trials'
 * values at step s.
 */
@DisplayName("Median stopping, worked by hand")
class MedianStoppingTest {

  /** Three completed trials of a loss; at step 1 they reported 0.8, 0.9 and 0.5: median 0.8. */
  private static final List<TrialHistory> COMPLETED =
      List.of(
          trial(0).values(1.0, 0.8, 0.6).completed().build(),
          trial(1).values(1.2, 0.9, 0.7).completed().build(),
          trial(2).values(0.9, 0.5, 0.4).completed().build());

  private static final MedianStopping RULE = new MedianStopping(2, 1);

  private static boolean pruned(MedianStopping rule, TrialHistory running, Goal goal) {
    List<TrialHistory> sweep = new ArrayList<>(COMPLETED);
    sweep.add(running);
    return rule.shouldPrune(running, sweep, goal);
  }

  @Test
  void aTrialWhoseBestIsWorseThanTheMedianAtItsStepIsPruned() {
    // Best so far 0.85 > median 0.8 of {0.8, 0.9, 0.5}.
    assertThat(pruned(RULE, trial(3).values(1.1, 0.85).build(), Goal.MINIMIZE)).isTrue();
  }

  @Test
  void theTrialsBestSoFarCountsNotItsLatestValue() {
    // Latest 0.82 > 0.8, but its best, 0.7 at step 0, is not worse than the median.
    assertThat(pruned(RULE, trial(3).values(0.7, 0.82).build(), Goal.MINIMIZE)).isFalse();
  }

  @Test
  void aValueEqualToTheMedianGoesOn() {
    assertThat(pruned(RULE, trial(3).values(1.1, 0.8).build(), Goal.MINIMIZE)).isFalse();
    assertThat(pruned(RULE, trial(3).values(1.1, 0.8000001).build(), Goal.MINIMIZE)).isTrue();
  }

  @Test
  void withAnEvenCountTheMedianIsTheMeanOfTheTwoMiddleValues() {
    // Completed trials 0 and 1 only: median at step 1 = (0.8 + 0.9) / 2 = 0.85.
    List<TrialHistory> two = List.of(COMPLETED.get(0), COMPLETED.get(1));
    TrialHistory at085 = trial(3).values(1.1, 0.85).build();
    TrialHistory at086 = trial(3).values(1.1, 0.86).build();

    assertThat(RULE.shouldPrune(at085, two, Goal.MINIMIZE)).isFalse();
    assertThat(RULE.shouldPrune(at086, two, Goal.MINIMIZE)).isTrue();
  }

  @Test
  void nothingIsPrunedDuringTheWarmupSteps() {
    // Step 0 is below warmupSteps 1, however bad 5.0 is.
    assertThat(pruned(RULE, trial(3).values(5.0).build(), Goal.MINIMIZE)).isFalse();
    assertThat(pruned(new MedianStopping(2, 0), trial(3).values(5.0).build(), Goal.MINIMIZE))
        .isTrue();
  }

  @Test
  void nothingIsPrunedBeforeStartupTrialsHaveCompleted() {
    TrialHistory bad = trial(3).values(5.0, 5.0).build();

    assertThat(pruned(new MedianStopping(3, 1), bad, Goal.MINIMIZE)).isTrue();
    assertThat(pruned(new MedianStopping(4, 1), bad, Goal.MINIMIZE)).isFalse();
    assertThat(new MedianStopping(0, 0).shouldPrune(bad, List.of(bad), Goal.MINIMIZE))
        .as("no completed trial at all")
        .isFalse();
  }

  @Test
  void onlyCompletedTrialsMakeTheMedian() {
    // A running or pruned trial with a low loss does not lower the median.
    List<TrialHistory> sweep = new ArrayList<>(COMPLETED);
    sweep.add(trial(4).values(0.1, 0.1).build());
    sweep.add(trial(5).values(0.1, 0.1).build());

    assertThat(RULE.shouldPrune(trial(3).values(1.1, 0.75).build(), sweep, Goal.MINIMIZE))
        .isFalse();
  }

  @Test
  void aStepNoCompletedTrialReportedPrunesNothing() {
    TrialHistory farAhead = trial(3).at(7, 9.0, 1).build();

    assertThat(pruned(RULE, farAhead, Goal.MINIMIZE)).isFalse();
  }

  @Test
  void aTrialThatReportedOnlyNaNIsPruned() {
    assertThat(pruned(RULE, trial(3).values(Double.NaN, Double.NaN).build(), Goal.MINIMIZE))
        .isTrue();
  }

  @Test
  void whenMaximizingBelowTheMedianIsWorse() {
    // The same completed values read as accuracies: median 0.8 at step 1.
    assertThat(pruned(RULE, trial(3).values(0.1, 0.75).build(), Goal.MAXIMIZE)).isTrue();
    assertThat(pruned(RULE, trial(3).values(0.1, 0.8).build(), Goal.MAXIMIZE)).isFalse();
    assertThat(pruned(RULE, trial(3).values(0.95, 0.1).build(), Goal.MAXIMIZE)).isFalse();
  }

  /**
   * A loss; trial 0 completed with 5, 4, 3, 2, 1 at steps 0 to 4. Trial 1 reports 5 and 4 at steps
   * 0 and 1, then 3.5, 1.5 and 0.5 at steps 2 to 4. At step 2 its best, 3.5, is worse than the
   * median 3: Optuna, judging after each report, prunes it at step 2, though by step 4 its best
   * (0.5) beats the median (1).
   */
  private static final TrialHistory DONE = trial(0).values(5, 4, 3, 2, 1).completed().build();

  private static final MedianStopping ONE_STARTUP = new MedianStopping(1, 0);

  @Test
  void aReadThatBringsSeveralStepsIsJudgedStepByStepAndStopsAtTheFirstThatPrunes() {
    // Steps 0 and 1 at t=10, steps 2, 3 and 4 in one read at t=11.
    TrialHistory running =
        trial(1).at(0, 5, 10).at(1, 4, 10).at(2, 3.5, 11).at(3, 1.5, 11).at(4, 0.5, 11).build();

    assertThat(ONE_STARTUP.pruneStep(running, List.of(DONE, running), Goal.MINIMIZE, 2))
        .hasValue(2);
  }

  @Test
  void theSameSeriesReadStepByStepIsPrunedAtTheSameStep() {
    Histories running = trial(1).at(0, 5, 10).at(1, 4, 11);
    assertThat(ONE_STARTUP.pruneStep(running.build(), List.of(DONE), Goal.MINIMIZE, 0)).isEmpty();

    running.at(2, 3.5, 12);
    assertThat(ONE_STARTUP.pruneStep(running.build(), List.of(DONE), Goal.MINIMIZE, 2)).hasValue(2);
  }

  @Test
  void valuesJudgedAlreadyAreNotJudgedAgain() {
    // Step 2 went on when it was judged (say, before trial 0 completed); from 3 on, 1.5 and 0.5
    // beat the medians 2 and 1.
    TrialHistory running =
        trial(1).at(0, 5, 10).at(1, 4, 10).at(2, 3.5, 11).at(3, 1.5, 12).at(4, 0.5, 12).build();

    assertThat(ONE_STARTUP.pruneStep(running, List.of(DONE), Goal.MINIMIZE, 3)).isEmpty();
  }
}

package io.gpuq.sweep;

import static io.gpuq.sweep.Histories.trial;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Worked examples of asynchronous successive halving, checked by hand against Li et al., 2020 ("A
 * System for Massively Parallel Hyperparameter Tuning", algorithm 2, with the trial stopped where
 * ASHA would not promote it) as Optuna's SuccessiveHalvingPruner decides it
 * (optuna/pruners/_successive_halving.py): minSteps 1 and reduction factor 2 put rungs at steps 1,
 * 2, 4, 8; a trial reaching a rung goes on if its value is among the best ⌊n/2⌋ of the n values
 * recorded at that rung so far (itself included), or the best of them while n < 2.
 *
 * <p>The sweep, a loss, in the order gpuq read the values (seconds after T0):
 *
 * <pre>
 *   t=1  trial 0 step 1 = 0.5   rung 1: {0.5}                 n=1, keep 1: 0.5 is best, goes on
 *   t=2  trial 1 step 1 = 0.6   rung 1: {0.5, 0.6}            n=2, keep 1: 0.6 is not, PRUNED
 *   t=3  trial 0 step 2 = 0.4   rung 2: {0.4}                 n=1: goes on
 *   t=4  trial 2 step 1 = 0.3   rung 1: {0.5, 0.6, 0.3}       n=3, keep 1: 0.3 is best, goes on
 *   t=5  trial 3 step 1 = 0.45  rung 1: {.5, .6, .3, .45}     n=4, keep 2: 0.3 and 0.45, goes on
 *   t=6  trial 3 step 2 = 0.42  rung 2: {0.4, 0.42}           n=2, keep 1: 0.4 is best, PRUNED
 *   t=7  trial 4 step 8 = 0.35  crosses rungs 1, 2, 4, 8 at once with 0.35:
 *        rung 1: {.5, .6, .3, .45, .35} n=5 keep 2 (0.3, 0.35); rung 2: {.4, .42, .35} n=3 keep 1
 *        (0.35); rungs 4 and 8: alone. Goes on.
 * </pre>
 */
@DisplayName("ASHA, worked by hand")
class AshaTest {

  private static final Asha RULE = new Asha(1, 2);

  private static final TrialHistory T0 = trial(0).at(1, 0.5, 1).at(2, 0.4, 3).build();
  private static final TrialHistory T1 = trial(1).at(1, 0.6, 2).build();
  private static final TrialHistory T2 = trial(2).at(1, 0.3, 4).build();
  private static final TrialHistory T3 = trial(3).at(1, 0.45, 5).at(2, 0.42, 6).build();
  private static final TrialHistory T4 = trial(4).at(8, 0.35, 7).build();
  private static final List<TrialHistory> SWEEP = List.of(T0, T1, T2, T3, T4);

  @Test
  void rungsAreAtMinStepsTimesPowersOfTheReductionFactor() {
    assertThat(List.of(RULE.rungStep(0), RULE.rungStep(1), RULE.rungStep(2), RULE.rungStep(3)))
        .containsExactly(1L, 2L, 4L, 8L);
    Asha three = new Asha(10, 3);
    assertThat(List.of(three.rungStep(0), three.rungStep(1), three.rungStep(2)))
        .containsExactly(10L, 30L, 90L);
  }

  @Test
  void eachTrialOfTheWorkedSweepIsDecidedAsTheTableSays() {
    assertThat(SWEEP)
        .extracting(t -> RULE.shouldPrune(t, SWEEP, Goal.MINIMIZE))
        .containsExactly(false, true, false, true, false);
  }

  @Test
  void aDecisionAtARungDoesNotChangeWhenBetterTrialsArriveLater() {
    // Trial 0 went on at rung 1 when it was alone there; trials 2 and 4, better, came later.
    assertThat(RULE.shouldPrune(T0, List.of(T0), Goal.MINIMIZE)).isFalse();
    assertThat(RULE.shouldPrune(T0, SWEEP, Goal.MINIMIZE)).isFalse();
  }

  @Test
  void theSameTrialIsPrunedOnlyOnceItReachesTheRungWhereItLoses() {
    TrialHistory beforeRung2 = trial(3).at(1, 0.45, 5).build();

    assertThat(RULE.shouldPrune(beforeRung2, SWEEP, Goal.MINIMIZE)).isFalse();
    assertThat(RULE.shouldPrune(T3, SWEEP, Goal.MINIMIZE)).isTrue();
  }

  @Test
  void nothingHappensBeforeTheFirstRung() {
    Asha late = new Asha(10, 2);
    TrialHistory bad = trial(9).values(9, 9, 9).build();

    assertThat(late.shouldPrune(bad, List.of(T2, bad), Goal.MINIMIZE)).isFalse();
    assertThat(RULE.shouldPrune(trial(9).build(), SWEEP, Goal.MINIMIZE)).isFalse();
  }

  @Test
  void trialsReadAtTheSameMomentAreOrderedByTheirNumber() {
    // Both read at t=1: trial 5 comes first and is alone; trial 6 then meets it.
    TrialHistory five = trial(5).at(1, 0.9, 1).build();
    TrialHistory six = trial(6).at(1, 0.8, 1).build();
    List<TrialHistory> sweep = List.of(six, five);

    assertThat(RULE.shouldPrune(five, sweep, Goal.MINIMIZE)).isFalse();
    assertThat(RULE.shouldPrune(six, sweep, Goal.MINIMIZE)).isFalse();
    TrialHistory sevenWorse = trial(7).at(1, 0.95, 1).build();
    assertThat(RULE.shouldPrune(sevenWorse, List.of(five, six, sevenWorse), Goal.MINIMIZE))
        .as("n=3, keep 1: 0.8 is best")
        .isTrue();
  }

  @Test
  void aNaNAtARungIsPruned() {
    TrialHistory nan = trial(7).at(1, Double.NaN, 9).build();

    assertThat(RULE.shouldPrune(nan, List.of(nan), Goal.MINIMIZE)).isTrue();
  }

  @Test
  void whenMaximizingTheHighestValuesGoOn() {
    // The worked sweep read as accuracies: at rung 1, trial 1's 0.6 now beats trial 0's 0.5.
    assertThat(SWEEP)
        .extracting(t -> RULE.shouldPrune(t, SWEEP, Goal.MAXIMIZE))
        // 0: alone at both rungs. 1: 0.6 best of {0.5, 0.6}. 2: 0.3 not best of {.5, .6, .3}.
        // 3: rung 1, n=4 keep 2 = {0.6, 0.5}: 0.45 is not among them.
        // 4: rung 1, n=5 keep 2 = {0.6, 0.5}: 0.35 is not.
        .containsExactly(false, false, true, true, true);
  }

  @Test
  void withAFactorOfFourAQuarterGoesOn() {
    // Eight trials at rung 1 with losses 0.1 ... 0.8 read in that order; the ninth, 0.25, meets
    // n=9, keep 2 = {0.1, 0.2}: pruned. With 0.15 it would be among them.
    Asha quarter = new Asha(1, 4);
    List<TrialHistory> eight = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      eight.add(trial(i).at(1, 0.1 * (i + 1), i).build());
    }
    List<TrialHistory> withBad = new java.util.ArrayList<>(eight);
    TrialHistory bad = trial(8).at(1, 0.25, 20).build();
    withBad.add(bad);
    List<TrialHistory> withGood = new java.util.ArrayList<>(eight);
    TrialHistory good = trial(8).at(1, 0.15, 20).build();
    withGood.add(good);

    assertThat(quarter.shouldPrune(bad, withBad, Goal.MINIMIZE)).isTrue();
    assertThat(quarter.shouldPrune(good, withGood, Goal.MINIMIZE)).isFalse();
  }

  /**
   * Issue 24's run, maximising with rungs at steps 1, 2, 4: A reports 10 at steps 0 to 4; B 1 at
   * steps 0 and 1, then 20; C 11 at steps 0 and 1, then 15. Optuna prunes B at rung 1 (1 against
   * A's 10) and completes C: B's 20s at rungs 2 and 4 were never earned, so C meets only A's 10.
   */
  private static List<TrialHistory> issueRun(long[] readOfA, long[] readOfB, long[] readOfC) {
    return List.of(
        series(0, readOfA, 10, 10, 10, 10, 10),
        series(1, readOfB, 1, 1, 20, 20, 20),
        series(2, readOfC, 11, 11, 15, 15, 15));
  }

  /**
   * Trial {@code number} reporting {@code values} at steps 0, 1, ..., step i read at {@code
   * reads[i]}.
   */
  private static TrialHistory series(int number, long[] reads, double... values) {
    Histories history = trial(number);
    for (int step = 0; step < values.length; step++) {
      history.at(step, values[step], reads[step]);
    }
    return history.build();
  }

  private static final Asha HALVING = new Asha(1, 2);

  @Test
  void aTrialPrunedAtARungCountsAtNoHigherRungEvenWhenItWroteThoseStepsInTheSameRead() {
    // Each trial's five steps in one read: A at t=1, B at t=2, C at t=3.
    List<TrialHistory> sweep =
        issueRun(
            new long[] {1, 1, 1, 1, 1}, new long[] {2, 2, 2, 2, 2}, new long[] {3, 3, 3, 3, 3});

    assertThat(sweep)
        .extracting(t -> HALVING.pruneStep(t, sweep, Goal.MAXIMIZE, 0))
        .containsExactly(
            java.util.OptionalLong.empty(),
            java.util.OptionalLong.of(1),
            java.util.OptionalLong.empty());
  }

  @Test
  void theIssuesRunDecidesTheSameWhenEachStepIsItsOwnRead() {
    // One step per read, A's five first, then B's (read after B was pruned: its process ran on
    // until stopped), then C's.
    List<TrialHistory> sweep =
        issueRun(
            new long[] {1, 2, 3, 4, 5},
            new long[] {6, 7, 8, 9, 10},
            new long[] {11, 12, 13, 14, 15});

    assertThat(sweep)
        .extracting(t -> HALVING.shouldPrune(t, sweep, Goal.MAXIMIZE))
        .containsExactly(false, true, false);
  }

  @Test
  void theIssuesRunDecidesTheSameWhenTheTrialsInterleave() {
    // Step by step, A then B then C at each step: at rung 2, C (15) meets A (10) only.
    List<TrialHistory> sweep =
        issueRun(
            new long[] {1, 4, 7, 10, 13},
            new long[] {2, 5, 8, 11, 14},
            new long[] {3, 6, 9, 12, 15});

    assertThat(sweep)
        .extracting(t -> HALVING.pruneStep(t, sweep, Goal.MAXIMIZE, 0))
        .containsExactly(
            java.util.OptionalLong.empty(),
            java.util.OptionalLong.of(1),
            java.util.OptionalLong.empty());
  }
}

package io.gpuq.sweep;

import static io.gpuq.sweep.Histories.T0;
import static io.gpuq.sweep.Histories.trial;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A trial's history: one value per step, looked up by step or by rung")
class TrialHistoryTest {

  @Test
  void aStepReportedTwiceKeepsItsFirstValueAsOptunaDoes() {
    TrialHistory history = trial(0).at(1, 0.5, 1).at(1, 0.1, 2).at(2, 0.4, 3).build();

    assertThat(history.valueAt(1)).hasValue(0.5);
    assertThat(history.values()).hasSize(2);
  }

  @Test
  void theLastStepIsTheHighestReportedNotTheLastRead() {
    assertThat(trial(0).at(10, 1, 1).at(5, 1, 2).build().lastStep()).hasValue(10);
    assertThat(trial(0).build().lastStep()).isEmpty();
  }

  @Test
  void aRungIsReachedByTheFirstValueReadAtItsStepOrLater() {
    TrialHistory rising = trial(0).values(9, 8, 7, 6, 5, 4, 3, 2).build();
    TrialHistory outOfOrder = trial(1).at(10, 0.1, 1).at(5, 0.5, 2).at(20, 0.2, 3).build();

    assertThat(rising.firstReaching(4)).hasValueSatisfying(v -> assertThat(v.value()).isEqualTo(5));
    assertThat(rising.firstReaching(0)).hasValueSatisfying(v -> assertThat(v.step()).isZero());
    assertThat(rising.firstReaching(8)).isEmpty();
    // Step 10 was read before step 5: it is the one that reached rung 4, at t=1.
    assertThat(outOfOrder.firstReaching(4))
        .hasValueSatisfying(v -> assertThat(v.at()).isEqualTo(T0.plusSeconds(1)));
    assertThat(outOfOrder.firstReaching(15))
        .hasValueSatisfying(v -> assertThat(v.step()).isEqualTo(20));
  }

  @Test
  void theBestValueIgnoresNaNUnlessThereIsNothingElse() {
    assertThat(trial(0).values(0.5, Double.NaN, 0.3).build().best(Goal.MINIMIZE)).hasValue(0.3);
    assertThat(trial(0).values(0.5, Double.NaN, 0.3).build().best(Goal.MAXIMIZE)).hasValue(0.5);
    assertThat(trial(0).values(Double.NaN).build().best(Goal.MINIMIZE).getAsDouble()).isNaN();
  }
}

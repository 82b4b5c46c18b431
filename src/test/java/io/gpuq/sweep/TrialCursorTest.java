package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A trials table's cursor and order")
class TrialCursorTest {

  @Test
  void reads_back_the_value_and_trial_it_was_written_with() {
    for (TrialCursor cursor :
        new TrialCursor[] {
          new TrialCursor(0.2871, 17),
          new TrialCursor(-1e-300, 0),
          new TrialCursor(null, 9_999),
          new TrialCursor(Double.NaN, 3),
          new TrialCursor(Double.NEGATIVE_INFINITY, 4)
        }) {
      assertThat(TrialCursor.decode(cursor.encode())).contains(cursor);
    }
  }

  @Test
  void refuses_text_it_did_not_write() {
    String notNumbers =
        Base64.getUrlEncoder().encodeToString("abc:def".getBytes(StandardCharsets.UTF_8));
    String negativeTrial =
        Base64.getUrlEncoder().encodeToString("0.5:-1".getBytes(StandardCharsets.UTF_8));

    assertThat(TrialCursor.decode("not base64 !")).isEmpty();
    assertThat(TrialCursor.decode(notNumbers)).isEmpty();
    assertThat(TrialCursor.decode(negativeTrial)).isEmpty();
    assertThat(TrialCursor.decode("")).isEmpty();
  }

  @Test
  void metric_order_puts_the_best_first_whatever_the_goal() {
    assertThat(TrialOrder.METRIC.ascendingValues(Goal.MINIMIZE)).isTrue();
    assertThat(TrialOrder.METRIC.ascendingValues(Goal.MAXIMIZE)).isFalse();
    assertThat(TrialOrder.METRIC_WORST_FIRST.ascendingValues(Goal.MINIMIZE)).isFalse();
    assertThat(TrialOrder.METRIC_WORST_FIRST.ascendingValues(Goal.MAXIMIZE)).isTrue();
    assertThat(TrialOrder.fromWire("-metric")).contains(TrialOrder.METRIC_WORST_FIRST);
    assertThat(TrialOrder.fromWire("best")).isEmpty();
  }
}

package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A pass woken by an event waits after the last one as long as that one took")
class PassPacingTest {

  private static final long MS = 1_000_000;

  @Test
  void the_first_pass_waits_for_nothing() {
    assertThat(new PassPacing().gapBefore(5 * MS)).isEqualTo(Duration.ZERO);
  }

  @Test
  void a_slow_pass_is_followed_by_a_gap_as_long_as_it_less_what_has_passed_since() {
    PassPacing pacing = new PassPacing();
    pacing.passed(1_000 * MS, 1_080 * MS);

    assertThat(pacing.gapBefore(1_080 * MS)).isEqualTo(Duration.ofMillis(80));
    assertThat(pacing.gapBefore(1_100 * MS)).isEqualTo(Duration.ofMillis(60));
    assertThat(pacing.gapBefore(1_200 * MS)).isEqualTo(Duration.ZERO);
  }

  @Test
  void a_short_queues_pass_leaves_a_gap_as_short_and_no_gap_is_longer_than_the_cap() {
    PassPacing pacing = new PassPacing();
    pacing.passed(0, 2 * MS);
    assertThat(pacing.gapBefore(2 * MS)).isEqualTo(Duration.ofMillis(2));

    pacing.passed(0, 5_000 * MS);
    assertThat(pacing.gapBefore(5_000 * MS)).isEqualTo(PassPacing.MAX_GAP);
  }
}

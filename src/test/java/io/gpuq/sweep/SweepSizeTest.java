package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A sweep's estimated stored bytes and labels, bounded")
class SweepSizeTest {

  @Test
  void tenThousandTrialsOfAnOrdinaryTemplateFit() {
    // A 2 KiB template, two labels, 40 bytes of parameters per trial: about 41 MB.
    assertThatCode(() -> SweepSize.check(10_000, 2048, 2, 400_000)).doesNotThrowAnyException();
  }

  @Test
  void theEstimateIsTheRowTheTemplateTheParametersTwiceAndEachLabelsRow() {
    long perTrial = 1024 + 10_000 + 2 * 512;
    int fit = (int) (SweepSize.MAX_STORED_BYTES / perTrial);

    assertThatCode(() -> SweepSize.check(fit, 10_000, 1, 0)).doesNotThrowAnyException();
    assertThatThrownBy(() -> SweepSize.check(fit + 1, 10_000, 1, 0))
        .isInstanceOfSatisfying(
            SweepTooLargeException.class,
            e -> {
              assertThat(e.limit()).isEqualTo("storedBytes");
              assertThat(e.requested()).isEqualTo((fit + 1L) * perTrial);
              assertThat(e.getMessage()).contains("67,108,864 bytes (64 MiB)");
            });
  }

  @Test
  void labelsAreCountedOverEveryTrialTheSweepLabelIncluded() {
    // 10,000 trials × (9 labels + the sweep's) is 100,000 labels, and about 62 MB.
    assertThatCode(() -> SweepSize.check(10_000, 100, 9, 0)).doesNotThrowAnyException();
    assertThatThrownBy(() -> SweepSize.check(10_000, 100, 10, 0))
        .isInstanceOfSatisfying(
            SweepTooLargeException.class,
            e -> {
              assertThat(e.limit()).isEqualTo("labels");
              assertThat(e.max()).isEqualTo(100_000);
              assertThat(e.requested()).isEqualTo(110_000);
            });
  }
}

package io.gpuq.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("PostgreSQL's COPY text format, as TrialTable writes a sweep's trials")
class CopyTextTest {

  @Test
  void columns_are_separated_by_tabs_and_rows_end_with_a_newline() {
    String text =
        new CopyText().column("a").column(1).endRow().column("b").column(2).endRow().text();

    assertThat(text).isEqualTo("a\t1\nb\t2\n");
  }

  @Test
  void a_null_is_backslash_N_and_an_empty_string_stays_empty() {
    assertThat(new CopyText().column(null).column("").endRow().text()).isEqualTo("\\N\t\n");
  }

  @Test
  void a_backslash_tab_newline_or_carriage_return_in_a_value_cannot_end_a_column_or_a_row() {
    String text = new CopyText().column("a\\b\tc\nd\re \\N \\.").endRow().text();

    assertThat(text).isEqualTo("a\\\\b\\tc\\nd\\re \\\\N \\\\.\n");
  }

  @Test
  void json_and_text_in_any_script_pass_unchanged_but_for_those_four() {
    String json = "{\"opt\":\"adam\",\"name\":\"\u00e9\u4e2d\",\"q\":\"\\\"\"}";

    assertThat(new CopyText().column(json).endRow().text())
        .isEqualTo(json.replace("\\", "\\\\") + "\n");
  }

  @Test
  void numbers_are_written_in_their_shortest_exact_form() {
    String text = new CopyText().column(7).column(1L << 40).column(1.0e-5).column(0.1).text();

    assertThat(text).isEqualTo("7\t1099511627776\t1.0E-5\t0.1");
  }

  @Test
  void an_instant_is_written_in_utc_rounded_half_up_to_the_microsecond_as_pgjdbc_binds_it() {
    Instant instant = Instant.parse("2026-12-01T05:59:59.999999500Z");

    assertThat(new CopyText().column(instant).text()).isEqualTo("2026-12-01T06:00:00Z");
    assertThat(new CopyText().column(Instant.parse("2026-12-01T06:00:00.123456499Z")).text())
        .isEqualTo("2026-12-01T06:00:00.123456Z");
  }

  @Test
  void a_value_of_another_type_is_refused_rather_than_written_as_its_toString() {
    assertThatThrownBy(() -> new CopyText().column(new Object()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

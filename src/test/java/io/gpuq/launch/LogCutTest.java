package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A cut log: where each byte of the job's output lies, and what its state file says")
class LogCutTest {

  // The head is 100 bytes, the marker follows it, then the latest part; 1,000 bytes were dropped.
  private final LogCut cut = new LogCut(100, 1_000);

  @Test
  void a_log_never_cut_is_its_output_byte_for_byte() {
    assertThat(LogCut.NONE.outputPosition(12_345)).isEqualTo(12_345);
    assertThat(LogCut.NONE.logPosition(12_345)).isEqualTo(12_345);
    assertThat(LogCut.NONE.body()).isZero();
  }

  @Test
  void the_head_never_moves() {
    assertThat(cut.outputPosition(42)).isEqualTo(42);
    assertThat(cut.logPosition(42)).isEqualTo(42);
    assertThat(cut.logPosition(100)).isEqualTo(100);
  }

  @Test
  void the_latest_part_starts_after_the_marker_and_counts_what_was_dropped() {
    assertThat(cut.body()).isEqualTo(100 + LogCut.MARKER_BYTES);
    assertThat(cut.outputPosition(cut.body())).isEqualTo(1_100);
    assertThat(cut.outputPosition(cut.body() + 7)).isEqualTo(1_107);
    assertThat(cut.logPosition(1_107)).isEqualTo(cut.body() + 7);
  }

  @Test
  void a_place_whose_bytes_were_dropped_is_moved_to_the_marker() {
    assertThat(cut.logPosition(101)).isEqualTo(100);
    assertThat(cut.logPosition(1_099)).isEqualTo(100);
  }

  @Test
  void a_place_inside_the_marker_is_moved_to_its_start_so_that_the_new_count_is_sent() {
    assertThat(cut.outputPosition(130)).isEqualTo(100);
  }

  @Test
  void a_reader_past_the_marker_keeps_its_place_when_a_later_cut_keeps_its_next_bytes() {
    LogCut later = new LogCut(100, 1_500);
    // Byte 2,000 of the output: at 100 + 80 + 1,000 before, 500 bytes nearer the marker after.
    long before = cut.logPosition(2_000);
    assertThat(later.logPosition(cut.outputPosition(before))).isEqualTo(before - 500);
  }

  @Test
  void the_first_cut_moves_the_latest_part_behind_a_marker_that_was_not_there() {
    LogCut first = new LogCut(100, 1_000);
    // Before it, byte 1,500 of the output was byte 1,500 of the log; 1,000 after the head went.
    assertThat(first.logPosition(LogCut.NONE.outputPosition(1_500))).isEqualTo(180 + 400);
  }

  @Test
  void the_state_file_is_read_as_head_and_dropped() {
    assertThat(LogCut.parse("16777216 1946152496\n")).isEqualTo(new LogCut(16777216, 1946152496));
  }

  @Test
  void a_half_written_or_garbled_state_file_reads_as_no_cut() {
    assertThat(LogCut.parse("")).isEqualTo(LogCut.NONE);
    assertThat(LogCut.parse("16777216")).isEqualTo(LogCut.NONE);
    assertThat(LogCut.parse("16777216 -1")).isEqualTo(LogCut.NONE);
    assertThat(LogCut.parse("a b")).isEqualTo(LogCut.NONE);
  }
}

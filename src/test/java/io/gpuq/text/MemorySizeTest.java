package io.gpuq.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MemorySizeTest {

  @ParameterizedTest(name = "{0} = {1} bytes")
  @CsvSource({
    "512MiB, 536870912",
    "6GiB,   6442450944",
    "6G,     6442450944",
    "6g,     6442450944",
    "6Gi,    6442450944",
    "1.5GiB, 1610612736",
    "6GB,    6000000000",
    "100,    100",
    "100B,   100",
    "1TiB,   1099511627776",
  })
  void parses_the_units_users_write(String text, long bytes) {
    assertThat(MemorySize.parse(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "GiB", "6 parsecs", "-1GiB", "0", "0GiB", "six", "6XiB"})
  void refuses_what_is_not_a_size(String text) {
    assertThatThrownBy(() -> MemorySize.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource({"6442450944, 6442450944", "1024, 1024"})
  void takes_whole_numbers_of_bytes(long number, long bytes) {
    assertThat(MemorySize.parse(number)).isEqualTo(bytes);
  }

  @org.junit.jupiter.api.Test
  void refuses_fractional_or_negative_byte_counts_and_other_types() {
    assertThatThrownBy(() -> MemorySize.parse(1.5)).hasMessageContaining("whole");
    assertThatThrownBy(() -> MemorySize.parse(-5)).hasMessageContaining("more than 0");
    assertThatThrownBy(() -> MemorySize.parse(true)).hasMessageContaining("512MiB");
  }

  @ParameterizedTest(name = "{0} bytes read {1}")
  @CsvSource({
    "6442450944,          6GiB",
    "1610612736,          1.5GiB",
    "100,                 100B",
    "1023,                1023B",
    "1024,                1KiB",
    "536870912,           512MiB",
    // Rounded down: a free capacity or a budget is never shown larger than it is.
    "2147483647,          1.99GiB",
    "16642998272,         15.5GiB",
    "1125899906842624,    1024TiB",
    "9223372036854775807, 8388607.99TiB"
  })
  void formats_for_messages_as_users_write_sizes(long bytes, String text) {
    assertThat(MemorySize.format(bytes)).isEqualTo(text);
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(longs = {1, 1023, 1024, 1536, 2147483647L, 16642998272L, 9223372036854775807L})
  void reads_back_what_it_formats_never_more_than_the_size(long bytes) {
    long readBack = MemorySize.parse(MemorySize.format(bytes));

    assertThat(readBack).isLessThanOrEqualTo(bytes).isGreaterThan(bytes / 100 * 99);
  }
}

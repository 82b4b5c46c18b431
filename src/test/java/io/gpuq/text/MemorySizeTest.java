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

  @org.junit.jupiter.api.Test
  void formats_for_messages() {
    assertThat(MemorySize.format(6442450944L)).isEqualTo("6GiB");
    assertThat(MemorySize.format(1610612736L)).isEqualTo("1.5GiB");
    assertThat(MemorySize.format(100)).isEqualTo("100B");
  }
}

package io.gpuq.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Quoting and checking what users send")
class UserTextTest {

  @Test
  void a_short_value_is_quoted_as_it_is() {
    assertThat(UserText.echo("caffe")).isEqualTo("caffe");
    assertThat(UserText.echo("🚀".repeat(50))).isEqualTo("🚀".repeat(50));
  }

  @Test
  void a_long_value_is_cut_at_100_characters_and_marked() {
    assertThat(UserText.echo("x".repeat(1_000_000))).isEqualTo("x".repeat(100) + "…");
  }

  @Test
  void a_cut_never_splits_a_surrogate_pair() {
    String echoed = UserText.echo("x".repeat(99) + "🚀🚀");

    assertThat(echoed).isEqualTo("x".repeat(99) + "…");
    assertThat(UserText.hasLoneSurrogate(echoed)).isFalse();
  }

  @Test
  void a_lone_surrogate_is_quoted_as_the_replacement_character() {
    assertThat(UserText.echo("a\ud800b\udc00")).isEqualTo("a\uFFFDb\uFFFD");
  }

  @Test
  void tells_lone_surrogates_and_control_characters() {
    assertThat(UserText.hasLoneSurrogate("a\ud800")).isTrue();
    assertThat(UserText.hasLoneSurrogate("\udc00a")).isTrue();
    assertThat(UserText.hasLoneSurrogate("🚀")).isFalse();
    assertThat(UserText.hasControlCharacter("a\nb")).isTrue();
    assertThat(UserText.hasControlCharacter("a\u007fb")).isTrue();
    assertThat(UserText.hasControlCharacter("a\u0085b")).isTrue();
    assertThat(UserText.hasControlCharacter("zoë 🚀")).isFalse();
  }

  @Test
  @DisplayName(
      "bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C) count as control"
          + " characters; the letters around them do not")
  void bidirectional_controls_are_control_characters() {
    String controls = "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C";
    for (char c : controls.toCharArray()) {
      String text = "job" + c + "gpj";
      assertThat(UserText.hasBidiControl(text)).as("U+%04X", (int) c).isTrue();
      assertThat(UserText.hasControlCharacter(text)).as("U+%04X", (int) c).isTrue();
    }
    // Neighbours of the ranges, and right-to-left letters themselves, are text.
    for (String text :
        List.of(
            "\u2029", "\u202F", "\u2065", "\u206A", "\u200D", "\u2010", "\u061B", "שלום",
            "مرحبا")) {
      assertThat(UserText.hasBidiControl(text)).as(text).isFalse();
      assertThat(UserText.hasControlCharacter(text)).as(text).isFalse();
    }
  }
}

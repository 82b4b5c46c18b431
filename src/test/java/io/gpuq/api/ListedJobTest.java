package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job in a listing: its beginning, within bounds, and which fields were cut")
class ListedJobTest {

  private final List<String> truncated = new ArrayList<>();

  @Test
  void a_command_within_the_bound_is_shown_whole() {
    List<String> command = List.of("python", "train.py", "x".repeat(1000));

    assertThat(ListedJob.command(command, truncated)).isEqualTo(command);
    assertThat(truncated).isEmpty();
  }

  @Test
  void a_longer_command_keeps_its_first_1024_characters_cut_in_the_argument_at_the_bound() {
    List<String> command = List.of("sh", "-c", "y".repeat(100_000), "later", "args");

    List<String> shown = ListedJob.command(command, truncated);

    assertThat(shown).hasSize(3).startsWith("sh", "-c");
    assertThat(shown.get(2)).isEqualTo("y".repeat(1024 - 4 - 1) + "…");
    assertThat(String.join("", shown)).hasSize(1024);
    assertThat(truncated).containsExactly("command");
  }

  @Test
  void a_cut_never_splits_a_surrogate_pair() {
    String rockets = "🚀".repeat(600);

    String shown = ListedJob.command(List.of(rockets), truncated).get(0);

    assertThat(shown).endsWith("🚀…").hasSizeLessThanOrEqualTo(1024);
  }

  @Test
  void labels_keep_the_first_16_by_key_with_values_of_at_most_64_characters() {
    Map<String, String> labels = new HashMap<>();
    IntStream.range(0, 64).forEach(n -> labels.put(String.format("k%02d", n), "v".repeat(256)));

    Map<String, String> shown = ListedJob.labels("labels", labels, truncated);

    assertThat(shown).hasSize(16).containsKey("k00").containsKey("k15").doesNotContainKey("k16");
    assertThat(shown.get("k00")).hasSize(64).endsWith("…");
    assertThat(truncated).containsExactly("labels");
    assertThat(ListedJob.labels("nodeSelector", Map.of("gpu", "h100"), truncated))
        .isEqualTo(Map.of("gpu", "h100"));
    assertThat(truncated).containsExactly("labels");
  }

  @Test
  void attempts_keep_the_latest_three_oldest_first() {
    assertThat(ListedJob.attempts(List.of(1, 2, 3), truncated)).containsExactly(1, 2, 3);
    assertThat(truncated).isEmpty();
    assertThat(ListedJob.attempts(List.of(1, 2, 3, 4, 5), truncated)).containsExactly(3, 4, 5);
    assertThat(truncated).containsExactly("attempts");
  }

  @Test
  void a_long_working_directory_keeps_its_first_256_characters() {
    assertThat(ListedJob.workingDir("/data/run", truncated)).isEqualTo("/data/run");
    assertThat(ListedJob.workingDir("/" + "d".repeat(4000), truncated)).hasSize(256).endsWith("…");
    assertThat(truncated).containsExactly("workingDir");
  }
}

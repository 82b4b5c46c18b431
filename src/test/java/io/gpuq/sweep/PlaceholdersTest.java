package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.sweep.ParameterValue.NumberValue;
import io.gpuq.sweep.ParameterValue.StringValue;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Placeholders: {name} as Python's str.format writes it, {{ and }} for braces")
class PlaceholdersTest {

  private static final Map<String, ParameterValue> VALUES =
      Map.of("lr", NumberValue.ofDouble(0.003), "opt", new StringValue("adam"));

  @Test
  void eachPlaceholderIsReplacedByItsValuesText() {
    assertThat(Placeholders.parse("--lr={lr} --opt={opt} {lr}").substitute(VALUES))
        .isEqualTo("--lr=0.003 --opt=adam 0.003");
  }

  @Test
  void doubledBracesAreLiteralBraces() {
    assertThat(Placeholders.parse("echo '{{\"lr\": {lr}}}'").substitute(VALUES))
        .isEqualTo("echo '{\"lr\": 0.003}'");
    assertThat(Placeholders.parse("awk '{{print $1}}'").hasPlaceholders()).isFalse();
  }

  @Test
  void aBraceThatOpensOrClosesNoPlaceholderIsRefusedWithTheHint() {
    assertThatThrownBy(() -> Placeholders.parse("awk '{print $1}'"))
        .isInstanceOf(Placeholders.SyntaxException.class)
        .hasMessage("'{' at character 6 opens no {name} placeholder; write '{{' for a literal '{'");
    assertThatThrownBy(() -> Placeholders.parse("{lr"))
        .isInstanceOf(Placeholders.SyntaxException.class);
    assertThatThrownBy(() -> Placeholders.parse("a}b"))
        .hasMessage("'}' at character 2 closes no placeholder; write '}}' for a literal '}'");
  }

  @Test
  void aShellVariableInBracesLooksLikeAPlaceholderAndIsReportedAsUnknown() {
    assertThat(Placeholders.parse("echo ${HOME}/{lr}").unknown(Set.of("lr")))
        .containsExactly("HOME");
  }

  @Test
  void aStringWithoutBracesIsLeftAsItIs() {
    assertThat(Placeholders.parse("python3").substitute(Map.of())).isEqualTo("python3");
    assertThat(Placeholders.parse("").substitute(Map.of())).isEmpty();
  }
}

package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.startup.StartRefusedException;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnerTermsTest {

  @Test
  void eachOwnerGetsTheTermsOfTheirTokens() {
    assertThat(
            OwnerTerms.agreed(
                List.of(
                    new OwnerTerms.OfToken(0, "alice", new OwnerTerms(2)),
                    new OwnerTerms.OfToken(1, "bob", OwnerTerms.DEFAULT),
                    new OwnerTerms.OfToken(2, "alice", new OwnerTerms(2)))))
        .containsEntry("alice", new OwnerTerms(2))
        .containsEntry("bob", new OwnerTerms(1))
        .hasSize(2);
  }

  @Test
  void tokensOfOneOwnerThatDisagreeRefuseTheStartNamingThem() {
    assertThatThrownBy(
            () ->
                OwnerTerms.agreed(
                    List.of(
                        new OwnerTerms.OfToken(0, "alice", new OwnerTerms(1)),
                        new OwnerTerms.OfToken(1, "bob", new OwnerTerms(3)),
                        new OwnerTerms.OfToken(2, "alice", new OwnerTerms(2.5)))))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("owner 'alice'")
        .hasMessageContaining("gpuq.auth.tokens[0].share=1")
        .hasMessageContaining("gpuq.auth.tokens[2].share=2.5")
        .hasMessageNotContaining("bob");
  }

  @Test
  void aShareIsPositive() {
    assertThatThrownBy(() -> new OwnerTerms(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OwnerTerms(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new OwnerTerms(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

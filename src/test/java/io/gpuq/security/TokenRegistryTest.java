package io.gpuq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.config.GpuqProperties.Auth.Token;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.job.Caller.Role;
import io.gpuq.startup.StartRefusedException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenRegistryTest {

  @TempDir Path dataDir;

  static Token token(String name, String secret, double share) {
    return new Token(name, secret, Role.SUBMITTER, null, share, null, null, null, null);
  }

  @Test
  void eachOwnerHasTheShareOfTheirTokens() {
    TokenRegistry registry =
        new TokenRegistry(
            List.of(
                token("alice", "alice-token-0123456789", 3),
                token("alice", "alice-laptop-0123456789", 3),
                token("bob", "bob-token-0123456789ab", 1)),
            dataDir,
            16);
    assertThat(registry.ownerTerms())
        .containsEntry("alice", new OwnerTerms(3))
        .containsEntry("bob", OwnerTerms.DEFAULT);
  }

  @Test
  void tokensOfOneOwnerWithDifferentSharesRefuseTheStartNamingTheTokensNotTheirSecrets() {
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(
                        token("alice", "alice-token-0123456789", 1),
                        token("bob", "bob-token-0123456789ab", 1),
                        token("alice", "alice-laptop-0123456789", 2)),
                    dataDir,
                    16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.auth.tokens[0].share=1")
        .hasMessageContaining("gpuq.auth.tokens[2].share=2")
        .hasMessageNotContaining("alice-token")
        .hasMessageNotContaining("alice-laptop");
  }

  @Test
  void aShareThatIsNotPositiveRefusesTheStart() {
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(token("alice", "alice-token-0123456789", 0)), dataDir, 16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.auth.tokens[0].share");
  }
}

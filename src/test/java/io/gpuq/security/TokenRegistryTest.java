package io.gpuq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.config.GpuqProperties.Auth.Token;
import io.gpuq.fairshare.Limits;
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

  static Token limited(
      String name, String secret, Long runningJobs, Double gpus, String gpuMemory, Long queued) {
    return new Token(name, secret, Role.SUBMITTER, null, 1, runningJobs, gpus, gpuMemory, queued);
  }

  @Test
  void eachOwnerHasTheLimitsOfTheirTokensAndTheDefaultsForTheRest() {
    TokenRegistry registry =
        new TokenRegistry(
            List.of(
                limited("alice", "alice-token-0123456789", 8L, 4.0, "40GiB", 500L),
                limited("alice", "alice-laptop-0123456789", 8L, 4.0, "40GiB", 500L),
                token("bob", "bob-token-0123456789ab", 1)),
            dataDir,
            16);
    assertThat(registry.ownerTerms().get("alice").limits())
        .isEqualTo(new Limits(8, 4.0, 40L << 30, 500));
    assertThat(registry.ownerTerms().get("bob").limits()).isEqualTo(Limits.DEFAULT);
  }

  @Test
  void tokensOfOneOwnerWithDifferentLimitsRefuseTheStartNamingTheTokensAndTheLimit() {
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(
                        limited("alice", "alice-token-0123456789", null, 4.0, null, null),
                        limited("alice", "alice-laptop-0123456789", null, 2.0, null, null)),
                    dataDir,
                    16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("owner 'alice'")
        .hasMessageContaining("gpuq.auth.tokens[0].max-gpus=4")
        .hasMessageContaining("gpuq.auth.tokens[1].max-gpus=2")
        .hasMessageNotContaining("max-running-jobs")
        .hasMessageNotContaining("alice-token");
  }

  @Test
  void aTokenWithALimitAndOneWithoutDisagree() {
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(
                        limited("alice", "alice-token-0123456789", null, null, null, 100L),
                        token("alice", "alice-laptop-0123456789", 1)),
                    dataDir,
                    16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.auth.tokens[0].max-queued-jobs=100")
        .hasMessageContaining("gpuq.auth.tokens[1].max-queued-jobs=10000");
  }

  @Test
  void aNegativeLimitOrAMemoryThatIsNotASizeRefusesTheStart() {
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(limited("alice", "alice-token-0123456789", -1L, null, null, null)),
                    dataDir,
                    16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.auth.tokens[0].max-running-jobs");
    assertThatThrownBy(
            () ->
                new TokenRegistry(
                    List.of(limited("alice", "alice-token-0123456789", null, null, "lots", null)),
                    dataDir,
                    16))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.auth.tokens[0].max-gpu-memory");
  }
}

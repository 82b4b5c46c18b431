package io.gpuq.isolation;

import java.util.Map;
import java.util.Objects;

/**
 * The account each owner's jobs run as on this node.
 *
 * @param mode whether gpuq can put jobs under accounts other than its own
 * @param gpuq the account gpuq itself runs as
 * @param fallback the account of owners no token names (jobs submitted under a token since removed)
 * @param byOwner the account of each configured owner (a token's name)
 */
public record Isolation(Mode mode, Account gpuq, Account fallback, Map<String, Account> byOwner) {

  public enum Mode {
    /** Each owner's jobs run as the account configured for it, never as gpuq's. */
    PER_ACCOUNT("per-account"),
    /** gpuq cannot switch accounts: every job runs as gpuq's own account. */
    SHARED_ACCOUNT("shared-account");

    private final String text;

    Mode(String text) {
      this.text = text;
    }

    @Override
    public String toString() {
      return text;
    }
  }

  public Isolation {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(gpuq, "gpuq");
    Objects.requireNonNull(fallback, "fallback");
    byOwner = Map.copyOf(byOwner);
  }

  /** The account the jobs of {@code owner} run as. */
  public Account accountOf(String owner) {
    return byOwner.getOrDefault(owner, fallback);
  }

  /** Whether a worker of this account must drop from gpuq's account to it. */
  public boolean needsSwitch(Account account) {
    return !account.sameAs(gpuq);
  }
}

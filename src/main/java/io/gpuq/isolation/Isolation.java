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
 * @param sharingAllowed whether several owners may run as one account ({@code
 *     gpuq.worker.allow-shared-account})
 */
public record Isolation(
    Mode mode,
    Account gpuq,
    Account fallback,
    Map<String, Account> byOwner,
    boolean sharingAllowed) {

  public enum Mode {
    /** Each owner's jobs run as the account configured for it, never as gpuq's. */
    PER_ACCOUNT("per-account"),
    /**
     * gpuq could switch accounts, but no token is configured: the only owner is the operator (the
     * generated admin token's), whose jobs run as gpuq's own account, as they would if gpuq ran as
     * the operator.
     */
    OPERATOR_ACCOUNT("operator-account"),
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

  /**
   * The account the jobs of {@code owner} run as.
   *
   * @throws IllegalStateException for an owner no token of this node names (a token since removed,
   *     another node's token) unless sharing is allowed: its jobs would share the fallback account
   *     with whoever else has it
   */
  public Account accountOf(String owner) {
    Account account = byOwner.get(owner);
    if (account != null) {
      return account;
    }
    if (!sharingAllowed) {
      throw new IllegalStateException(
          "no token of this node names the owner '"
              + owner
              + "', so gpuq cannot tell which account its jobs may run as without sharing one"
              + " with another owner's: give every node the same tokens, or set"
              + " gpuq.worker.allow-shared-account=true");
    }
    return fallback;
  }

  /** Whether a worker of this account must drop from gpuq's account to it. */
  public boolean needsSwitch(Account account) {
    return !account.sameAs(gpuq);
  }
}

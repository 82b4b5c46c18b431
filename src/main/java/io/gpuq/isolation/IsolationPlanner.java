package io.gpuq.isolation;

import io.gpuq.startup.StartRefusedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Decides, at start, which account each owner's jobs run as, and refuses a configuration that would
 * let one owner read another's jobs or that gpuq cannot carry out. HTCondor's and Slurm's rule: a
 * job never runs as gpuq's privileged account by default.
 */
public final class IsolationPlanner {

  /** The unprivileged account of last resort, present on every Linux system. */
  public static final String NOBODY = "nobody";

  static final String RUN_AS = "gpuq.worker.run-as";
  static final String ALLOW_SHARED = "gpuq.worker.allow-shared-account";

  private final AccountDirectory accounts;

  public IsolationPlanner(AccountDirectory accounts) {
    this.accounts = accounts;
  }

  /**
   * What was decided, and what an operator should read about it in the log.
   *
   * @param warnings said once at start, at WARN
   */
  public record Plan(Isolation isolation, List<String> warnings) {}

  /** A plan where every owner is a configured token's: none is the operator's own. */
  public Plan plan(
      Privileges privileges,
      Optional<String> defaultRunAs,
      Map<String, Optional<String>> ownersRunAs,
      boolean allowSharedAccount) {
    return plan(privileges, defaultRunAs, ownersRunAs, Optional.empty(), allowSharedAccount);
  }

  /**
   * @param defaultRunAs {@code gpuq.worker.run-as}, if set
   * @param ownersRunAs each owner (a token's name) and its token's {@code run-as}, if any
   * @param operator the owner of the generated admin token, present only when no token is
   *     configured: where it is the only owner and nothing names an account for jobs, its jobs run
   *     as gpuq's own account, even when gpuq could switch (root on a rented GPU machine)
   * @throws StartRefusedException when gpuq must not start so, with what to change
   */
  public Plan plan(
      Privileges privileges,
      Optional<String> defaultRunAs,
      Map<String, Optional<String>> ownersRunAs,
      Optional<String> operator,
      boolean allowSharedAccount) {
    // The process's own gid, which need not be its passwd entry's (docker run --user 1234:5678).
    Account gpuq =
        accounts
            .byUid(privileges.effectiveUid())
            .map(
                known ->
                    new Account(
                        known.name(),
                        known.uid(),
                        privileges.effectiveGid(),
                        known.home(),
                        known.inPasswd()))
            .orElse(
                new Account(
                    Integer.toString(privileges.effectiveUid()),
                    privileges.effectiveUid(),
                    privileges.effectiveGid(),
                    Optional.empty(),
                    false));
    if (privileges.hasAmbientCapabilities()) {
      throw new StartRefusedException(
          "gpuq holds ambient capabilities (CapAmb "
              + Long.toHexString(privileges.ambientCaps())
              + "), which every job it starts would inherit",
          "start it without them (systemd: no AmbientCapabilities=), as root, or as an ordinary"
              + " user");
    }
    List<String> warnings = new ArrayList<>();
    Map<String, Account> byOwner = new TreeMap<>();
    Account fallback;
    Isolation.Mode mode;
    if (privileges.canSwitchAccounts()) {
      List<String> missing = privileges.missingForOtherAccounts();
      if (!missing.isEmpty()) {
        throw new StartRefusedException(
            "gpuq can switch accounts but lacks "
                + String.join(", ", missing)
                + ", which it needs to give a job its directory, enter it and stop the job",
            "add them, or run gpuq as an ordinary user (jobs then run as gpuq's own account)");
      }
      if (operator.isPresent()
          && ownersRunAs.equals(Map.of(operator.get(), Optional.empty()))
          && defaultRunAs.filter(runAs -> !runAs.isBlank()).isEmpty()) {
        // The only owner is whoever can read the generated admin token, a file of gpuq's own
        // account: the operator, running their own code as themselves, as with gpuq run as them.
        warnings.add(
            "no token is configured (gpuq.auth.tokens): the jobs of the generated admin token,"
                + " the operator's own, run as gpuq's account "
                + gpuq
                + " (isolation: operator-account); configure tokens, each with its own run-as,"
                + " before anyone else submits");
        return new Plan(
            new Isolation(
                Isolation.Mode.OPERATOR_ACCOUNT,
                gpuq,
                quietFallback(gpuq),
                Map.of(operator.get(), gpuq),
                allowSharedAccount),
            List.copyOf(warnings));
      }
      mode = Isolation.Mode.PER_ACCOUNT;
      fallback = resolveDefault(defaultRunAs, warnings);
      for (Map.Entry<String, Optional<String>> owner : ownersRunAs.entrySet()) {
        byOwner.put(
            owner.getKey(),
            owner.getValue().isPresent()
                ? accounts.resolve(
                    owner.getValue().get(), "the run-as of token '" + owner.getKey() + "'")
                : fallback);
      }
      byOwner.forEach(
          (owner, account) -> {
            if (account.isRoot()) {
              warnings.add(
                  "jobs of '" + owner + "' run as root, as configured: they can do anything");
            }
          });
      if (fallback.isRoot()) {
        warnings.add(
            RUN_AS
                + " is root, as configured: jobs of tokens without their own run-as can do anything");
      }
    } else {
      mode = Isolation.Mode.SHARED_ACCOUNT;
      fallback = gpuq;
      List<String> elsewhere = new ArrayList<>();
      defaultRunAs.ifPresent(runAs -> requireOwn(gpuq, runAs, RUN_AS, elsewhere));
      ownersRunAs.forEach(
          (owner, runAs) -> {
            runAs.ifPresent(
                value -> requireOwn(gpuq, value, "the run-as of token '" + owner + "'", elsewhere));
            byOwner.put(owner, gpuq);
          });
      if (!elsewhere.isEmpty()) {
        throw new StartRefusedException(
            String.join("; ", elsewhere)
                + ": gpuq runs as "
                + gpuq
                + " and cannot switch accounts (it is neither root nor has CAP_SETUID and"
                + " CAP_SETGID)",
            "run it as root, or remove these settings");
      }
      warnings.add(
          "gpuq cannot switch accounts (not root with CAP_SETUID and CAP_SETGID): every job runs"
              + " as gpuq's own account "
              + gpuq
              + " and can read gpuq's database, tokens and other jobs (isolation: shared-account)");
    }
    refuseSharedAccounts(byOwner, allowSharedAccount, warnings);
    return new Plan(
        new Isolation(mode, gpuq, fallback, byOwner, allowSharedAccount), List.copyOf(warnings));
  }

  private Account resolveDefault(Optional<String> defaultRunAs, List<String> warnings) {
    if (defaultRunAs.isPresent() && !defaultRunAs.get().isBlank()) {
      return accounts.resolve(defaultRunAs.get(), RUN_AS);
    }
    Account nobody =
        accounts
            .byName(NOBODY)
            .orElseThrow(
                () ->
                    new StartRefusedException(
                        RUN_AS + " is not set and this machine has no '" + NOBODY + "' account",
                        "set it to an unprivileged account for jobs"));
    warnings.add(
        RUN_AS
            + " is not set: jobs of tokens without their own run-as run as "
            + nobody
            + "; set it to a dedicated account (the Docker image uses gpuq-job)");
    return nobody;
  }

  /**
   * The account of owners no token names, should {@code allow-shared-account} let their jobs run at
   * all: never gpuq's own, which belongs to the operator alone.
   */
  private Account quietFallback(Account gpuq) {
    return accounts
        .byName(NOBODY)
        .orElseThrow(
            () ->
                new StartRefusedException(
                    "gpuq runs as " + gpuq + " and this machine has no '" + NOBODY + "' account",
                    "set " + RUN_AS + " to an unprivileged account for jobs"));
  }

  private void requireOwn(Account gpuq, String runAs, String setting, List<String> elsewhere) {
    Account wanted = accounts.resolve(runAs, setting);
    if (!wanted.sameAs(gpuq)) {
      elsewhere.add(setting + "=" + runAs);
    }
  }

  private static void refuseSharedAccounts(
      Map<String, Account> byOwner, boolean allowSharedAccount, List<String> warnings) {
    Map<Integer, TreeSet<String>> ownersByUid = new LinkedHashMap<>();
    byOwner.forEach(
        (owner, account) ->
            ownersByUid.computeIfAbsent(account.uid(), uid -> new TreeSet<>()).add(owner));
    List<String> shared =
        ownersByUid.entrySet().stream()
            .filter(entry -> entry.getValue().size() > 1)
            .map(entry -> String.join(", ", entry.getValue()) + " all run as uid " + entry.getKey())
            .collect(Collectors.toList());
    if (shared.isEmpty()) {
      return;
    }
    String what = String.join("; ", shared);
    if (!allowSharedAccount) {
      throw new StartRefusedException(
          "the jobs of several owners would run as one account ("
              + what
              + "), so each could read and stop the others' jobs",
          "give each token its own run-as account, or set "
              + ALLOW_SHARED
              + "=true to accept that");
    }
    warnings.add("owners share an account, as " + ALLOW_SHARED + " allows: " + what);
  }
}

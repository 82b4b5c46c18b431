package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.startup.StartRefusedException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class IsolationPlannerTest {

  private static final long ALL_CAPS = 0x000001ffffffffffL;

  /** Root with every capability: gpuq as the Docker image and the systemd unit run it. */
  private static final Privileges ROOT = new Privileges(0, ALL_CAPS, 0);

  private static final int GPUQ_UID = 990;

  /** gpuq as an ordinary user: no capabilities at all. */
  private static final Privileges UNPRIVILEGED = new Privileges(GPUQ_UID, 0, 0);

  private static final Account NOBODY = account("nobody", 65534, 65534, "/nonexistent");
  private static final Account GPUQ = account("gpuq", GPUQ_UID, GPUQ_UID, "/var/lib/gpuq");

  private static Account account(String name, int uid, int gid, String home) {
    return new Account(name, uid, gid, Optional.of(Path.of(home)), true);
  }

  /**
   * The passwd database of a machine, in memory: root, nobody, gpuq, gpuq-job, alice and bob. A
   * fake of getent, which the planner only asks by name and by uid.
   */
  static final class Passwd implements AccountDirectory {
    private final Map<String, Account> accounts = new LinkedHashMap<>();

    static Passwd aPasswd() {
      return new Passwd()
          .with(account("root", 0, 0, "/root"))
          .with(NOBODY)
          .with(GPUQ)
          .with(account("gpuq-job", 991, 991, "/nonexistent"))
          .with(account("alice", 1001, 1001, "/home/alice"))
          .with(account("bob", 1002, 1002, "/home/bob"));
    }

    Passwd with(Account account) {
      accounts.put(account.name(), account);
      return this;
    }

    Passwd without(String name) {
      accounts.remove(name);
      return this;
    }

    @Override
    public Optional<Account> byName(String name) {
      return Optional.ofNullable(accounts.get(name));
    }

    @Override
    public Optional<Account> byUid(int uid) {
      return accounts.values().stream().filter(account -> account.uid() == uid).findFirst();
    }
  }

  private static Planning aPlan() {
    return new Planning();
  }

  /** The settings gpuq starts with: its privileges, run-as, tokens and allow-shared-account. */
  static final class Planning {
    private Passwd passwd = Passwd.aPasswd();
    private Privileges privileges = ROOT;
    private Optional<String> defaultRunAs = Optional.empty();
    private final Map<String, Optional<String>> owners = new LinkedHashMap<>();
    private boolean allowSharedAccount;
    private Optional<String> operator = Optional.empty();

    Planning on(Passwd passwd) {
      this.passwd = passwd;
      return this;
    }

    Planning as(Privileges privileges) {
      this.privileges = privileges;
      return this;
    }

    /** {@code gpuq.worker.run-as}. */
    Planning runAs(String runAs) {
      this.defaultRunAs = Optional.of(runAs);
      return this;
    }

    /** A token without a run-as of its own. */
    Planning owner(String name) {
      owners.put(name, Optional.empty());
      return this;
    }

    /** A token with its own run-as. */
    Planning owner(String name, String runAs) {
      owners.put(name, Optional.of(runAs));
      return this;
    }

    /** No token configured: the generated admin token's owner, the operator, is the only one. */
    Planning onlyTheOperator() {
      owners.put("admin", Optional.empty());
      this.operator = Optional.of("admin");
      return this;
    }

    Planning allowingSharedAccount() {
      this.allowSharedAccount = true;
      return this;
    }

    IsolationPlanner.Plan plan() {
      return new IsolationPlanner(passwd)
          .plan(privileges, defaultRunAs, owners, operator, allowSharedAccount);
    }
  }

  @Nested
  @DisplayName("gpuq that can switch accounts")
  class PerAccount {

    @Test
    @DisplayName("without a run-as, jobs run as nobody, and a warning says so")
    void nobodyByDefault() {
      var plan = aPlan().as(ROOT).owner("alice").plan();

      var isolation = plan.isolation();
      assertThat(isolation.mode()).isEqualTo(Isolation.Mode.PER_ACCOUNT);
      assertThat(isolation.gpuq().name()).isEqualTo("root");
      assertThat(isolation.accountOf("alice")).isEqualTo(NOBODY);
      assertThat(isolation.fallback()).isEqualTo(NOBODY);
      assertThat(plan.warnings())
          .anySatisfy(
              warning ->
                  assertThat(warning)
                      .contains("gpuq.worker.run-as is not set")
                      .contains("nobody (65534:65534)"));
    }

    @Test
    @DisplayName("a blank run-as counts as none")
    void blankRunAs() {
      var plan = aPlan().as(ROOT).runAs("  ").owner("alice").plan();

      assertThat(plan.isolation().accountOf("alice")).isEqualTo(NOBODY);
    }

    @Test
    @DisplayName("without a run-as on a machine with no nobody account, gpuq does not start")
    void noNobody() {
      var planning = aPlan().on(Passwd.aPasswd().without("nobody")).as(ROOT).owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("gpuq.worker.run-as is not set")
          .hasMessageContaining("no 'nobody' account");
    }

    @Test
    @DisplayName(
        "an explicit run-as is the account of tokens without their own, and of removed ones")
    void explicitDefault() {
      var plan = aPlan().as(ROOT).runAs("gpuq-job").owner("alice").plan();

      var isolation = plan.isolation();
      assertThat(isolation.accountOf("alice").name()).isEqualTo("gpuq-job");
      assertThat(plan.warnings()).noneSatisfy(w -> assertThat(w).contains("is not set"));
    }

    @Test
    @DisplayName(
        "an owner no token names (a token since removed) has no account, unless sharing is allowed")
    void unknownOwners() {
      var strict = aPlan().as(ROOT).runAs("gpuq-job").owner("alice").plan().isolation();
      var sharing =
          aPlan()
              .as(ROOT)
              .runAs("gpuq-job")
              .owner("alice")
              .allowingSharedAccount()
              .plan()
              .isolation();

      assertThatThrownBy(() -> strict.accountOf("a-token-since-removed"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("'a-token-since-removed'")
          .hasMessageContaining("gpuq.worker.allow-shared-account=true");
      assertThat(sharing.accountOf("a-token-since-removed").name()).isEqualTo("gpuq-job");
    }

    @Test
    @DisplayName("each token's run-as is its owner's account; others get the default")
    void perTokenRunAs() {
      var plan =
          aPlan()
              .as(ROOT)
              .runAs("gpuq-job")
              .owner("alice", "alice")
              .owner("bob", "bob")
              .owner("ci")
              .plan();

      var isolation = plan.isolation();
      assertThat(isolation.accountOf("alice").uid()).isEqualTo(1001);
      assertThat(isolation.accountOf("bob").uid()).isEqualTo(1002);
      assertThat(isolation.accountOf("ci").name()).isEqualTo("gpuq-job");
      assertThat(plan.warnings()).isEmpty();
    }

    @Test
    @DisplayName("uid:gid without a passwd entry is taken as given, named by its uid")
    void uidGidWithoutPasswdEntry() {
      var plan = aPlan().as(ROOT).owner("alice", "4000:4001").plan();

      assertThat(plan.isolation().accountOf("alice"))
          .isEqualTo(new Account("4000", 4000, 4001, Optional.empty(), false));
    }

    @Test
    @DisplayName("uid:gid of a known uid takes its name and home, and the gid given")
    void uidGidOfKnownAccount() {
      var plan = aPlan().as(ROOT).owner("alice", "1001:5000").plan();

      assertThat(plan.isolation().accountOf("alice"))
          .isEqualTo(new Account("alice", 1001, 5000, Optional.of(Path.of("/home/alice")), true));
    }

    @Test
    @DisplayName("a token's run-as naming an unknown account is refused, saying how to create it")
    void unknownTokenRunAs() {
      var planning = aPlan().as(ROOT).owner("alice", "ghost");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(StartRefusedException.class)
          .hasMessageContaining("the run-as of token 'alice'=ghost")
          .hasMessageContaining("useradd --system --user-group --shell /usr/sbin/nologin ghost")
          .hasMessageContaining("uid:gid");
    }

    @Test
    @DisplayName("a run-as naming an unknown account is refused, naming the setting")
    void unknownDefaultRunAs() {
      var planning = aPlan().as(ROOT).runAs("ghost").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(StartRefusedException.class)
          .hasMessageContaining("gpuq.worker.run-as=ghost")
          .hasMessageContaining("useradd");
    }

    @Test
    @DisplayName("a uid:gid whose gid is no number is refused")
    void malformedUidGid() {
      var planning = aPlan().as(ROOT).owner("alice", "1001:staff");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(StartRefusedException.class)
          .hasMessageContaining("the run-as of token 'alice'=1001:staff")
          .hasMessageContaining("uid:gid");
    }

    @Test
    @DisplayName("two owners on the default account are refused: each could read the other's jobs")
    void twoOwnersOnTheDefaultAccount() {
      var planning = aPlan().as(ROOT).runAs("gpuq-job").owner("alice").owner("bob");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("alice, bob all run as uid 991")
          .hasMessageContaining("gpuq.worker.allow-shared-account=true");
    }

    @Test
    @DisplayName("two owners on one account are accepted with allow-shared-account, with a warning")
    void twoOwnersAllowed() {
      var planning =
          aPlan().as(ROOT).runAs("gpuq-job").owner("alice").owner("bob").allowingSharedAccount();

      var result = planning.plan();

      assertThat(result.isolation().accountOf("alice"))
          .isEqualTo(result.isolation().accountOf("bob"));
      assertThat(result.warnings())
          .anySatisfy(
              warning ->
                  assertThat(warning)
                      .contains("gpuq.worker.allow-shared-account")
                      .contains("alice, bob all run as uid 991"));
    }

    @Test
    @DisplayName("two tokens naming the same account by name and by uid:gid count as shared")
    void sameAccountByNameAndUid() {
      var planning = aPlan().as(ROOT).owner("alice", "alice").owner("bob", "1001:1001");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("alice, bob all run as uid 1001");
    }

    @Test
    @DisplayName("an explicit run-as root is accepted, with a warning")
    void runAsRoot() {
      var plan = aPlan().as(ROOT).owner("admin", "root").plan();

      assertThat(plan.isolation().accountOf("admin").isRoot()).isTrue();
      assertThat(plan.warnings())
          .anySatisfy(warning -> assertThat(warning).contains("'admin' run as root"));
    }

    @Test
    @DisplayName(
        "with no token configured, the operator's jobs run as gpuq's own account, root too,"
            + " and a warning says so")
    void operatorsOwnJobsRunAsGpuq() {
      var plan = aPlan().as(ROOT).onlyTheOperator().plan();

      var isolation = plan.isolation();
      assertThat(isolation.mode()).isEqualTo(Isolation.Mode.OPERATOR_ACCOUNT);
      assertThat(isolation.mode()).hasToString("operator-account");
      assertThat(isolation.accountOf("admin").isRoot()).isTrue();
      assertThat(isolation.needsSwitch(isolation.accountOf("admin"))).isFalse();
      assertThat(plan.warnings())
          .singleElement()
          .satisfies(
              warning ->
                  assertThat(warning)
                      .contains("no token is configured")
                      .contains("root (0:0)")
                      .contains("operator-account"));
    }

    @Test
    @DisplayName(
        "with no token configured, the jobs of an owner no token names never get gpuq's account")
    void operatorRuleLeavesUnknownOwnersOnNobody() {
      var isolation = aPlan().as(ROOT).onlyTheOperator().allowingSharedAccount().plan().isolation();

      assertThat(isolation.accountOf("a-token-since-removed")).isEqualTo(NOBODY);
    }

    @Test
    @DisplayName(
        "with no token configured but a run-as (the image's gpuq-job), the operator's jobs run as"
            + " that account")
    void explicitRunAsOutranksTheOperatorRule() {
      var isolation = aPlan().as(ROOT).runAs("gpuq-job").onlyTheOperator().plan().isolation();

      assertThat(isolation.mode()).isEqualTo(Isolation.Mode.PER_ACCOUNT);
      assertThat(isolation.accountOf("admin").name()).isEqualTo("gpuq-job");
    }

    @Test
    @DisplayName("configured tokens get no operator rule: a token without run-as runs as nobody")
    void configuredOwnersStillNeedTheirOwnAccount() {
      var isolation = aPlan().as(ROOT).owner("admin").plan().isolation();

      assertThat(isolation.mode()).isEqualTo(Isolation.Mode.PER_ACCOUNT);
      assertThat(isolation.accountOf("admin")).isEqualTo(NOBODY);
    }

    @Test
    @DisplayName("gpuq lacking CAP_KILL does not start, naming CAP_KILL")
    void lackingKill() {
      var withoutKill = new Privileges(0, ALL_CAPS & ~(1L << Privileges.CAP_KILL), 0);
      var planning = aPlan().as(withoutKill).runAs("gpuq-job").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("lacks CAP_KILL")
          .hasMessageNotContaining("CAP_CHOWN");
    }

    @Test
    @DisplayName(
        "gpuq lacking CAP_DAC_OVERRIDE, which it needs to enter a job's directory, is refused")
    void lackingDacOverride() {
      var withoutDacOverride =
          new Privileges(0, ALL_CAPS & ~(1L << Privileges.CAP_DAC_OVERRIDE), 0);

      var planning = aPlan().as(withoutDacOverride).runAs("gpuq-job").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("CAP_DAC_OVERRIDE");
    }

    @Test
    @DisplayName(
        "a non-root gpuq with ambient capabilities is refused: every job would inherit them")
    void nonRootWithAmbientCapabilities() {
      long caps =
          (1L << Privileges.CAP_SETUID)
              | (1L << Privileges.CAP_SETGID)
              | (1L << Privileges.CAP_KILL)
              | (1L << Privileges.CAP_CHOWN)
              | (1L << Privileges.CAP_DAC_OVERRIDE);
      long ambient = (1L << Privileges.CAP_SETUID) | (1L << Privileges.CAP_SETGID);

      var planning =
          aPlan().as(new Privileges(GPUQ_UID, caps, ambient)).runAs("gpuq-job").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ambient capabilities")
          .hasMessageContaining("inherit");
    }

    @Test
    @DisplayName("a worker of a job's account must switch; one of gpuq's own account need not")
    void needsSwitch() {
      var isolation = aPlan().as(ROOT).runAs("gpuq-job").owner("alice").plan().isolation();

      assertThat(isolation.needsSwitch(isolation.accountOf("alice"))).isTrue();
      assertThat(isolation.needsSwitch(isolation.gpuq())).isFalse();
    }
  }

  @Nested
  @DisplayName("gpuq that cannot switch accounts")
  class SharedAccount {

    @Test
    @DisplayName("every owner's jobs run as gpuq's own account, and a warning says what that means")
    void everyOwnerOnGpuqsAccount() {
      var plan = aPlan().as(UNPRIVILEGED).owner("alice").plan();

      var isolation = plan.isolation();
      assertThat(isolation.mode()).isEqualTo(Isolation.Mode.SHARED_ACCOUNT);
      assertThat(isolation.gpuq()).isEqualTo(GPUQ);
      assertThat(isolation.accountOf("alice")).isEqualTo(GPUQ);
      assertThat(plan.warnings())
          .anySatisfy(
              warning ->
                  assertThat(warning)
                      .contains("every job runs as gpuq's own account gpuq (990:990)")
                      .contains("can read gpuq's database"));
    }

    @Test
    @DisplayName("gpuq's own account needs no passwd entry")
    void gpuqWithoutPasswdEntry() {
      var planning = aPlan().on(Passwd.aPasswd().without("gpuq")).as(UNPRIVILEGED).owner("alice");

      var isolation = planning.plan().isolation();
      assertThat(isolation.gpuq())
          .isEqualTo(new Account("990", GPUQ_UID, GPUQ_UID, Optional.empty(), false));
      assertThat(isolation.accountOf("alice")).isEqualTo(isolation.gpuq());
    }

    @Test
    @DisplayName("a run-as naming another account is refused, saying to run gpuq as root")
    void runAsAnotherAccount() {
      var planning = aPlan().as(UNPRIVILEGED).runAs("gpuq-job").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("gpuq.worker.run-as=gpuq-job")
          .hasMessageContaining("cannot switch accounts")
          .hasMessageContaining("run it as root");
    }

    @Test
    @DisplayName("a token's run-as naming another account is refused, naming the token")
    void tokenRunAsAnotherAccount() {
      var planning = aPlan().as(UNPRIVILEGED).owner("alice", "alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("the run-as of token 'alice'=alice")
          .hasMessageContaining("run it as root");
    }

    @Test
    @DisplayName("a run-as naming gpuq's own account, by uid:gid or by name, is fine")
    void runAsOwnAccount() {
      var plan = aPlan().as(UNPRIVILEGED).runAs("990:990").owner("alice", "gpuq").plan();

      assertThat(plan.isolation().mode()).isEqualTo(Isolation.Mode.SHARED_ACCOUNT);
      assertThat(plan.isolation().accountOf("alice")).isEqualTo(GPUQ);
    }

    @Test
    @DisplayName(
        "gpuq's own group is its process's, not its passwd entry's (docker run --user 990:5678)")
    void ownGroupFromTheProcess() {
      var plan =
          aPlan().as(new Privileges(GPUQ_UID, 5678, 0, 0)).runAs("990:5678").owner("alice").plan();

      assertThat(plan.isolation().gpuq().gid()).isEqualTo(5678);
      assertThat(plan.isolation().accountOf("alice").gid()).isEqualTo(5678);
    }

    @Test
    @DisplayName("a run-as of gpuq's uid with another gid is another account, and refused")
    void ownUidOtherGid() {
      var planning = aPlan().as(UNPRIVILEGED).runAs("990:0").owner("alice");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("gpuq.worker.run-as=990:0");
    }

    @Test
    @DisplayName("two owners are refused: both would run as gpuq's account")
    void twoOwnersRefused() {
      var planning = aPlan().as(UNPRIVILEGED).owner("alice").owner("bob");

      assertThatThrownBy(planning::plan)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("alice, bob all run as uid 990")
          .hasMessageContaining("gpuq.worker.allow-shared-account");
    }

    @Test
    @DisplayName("two owners are accepted with allow-shared-account")
    void twoOwnersAllowed() {
      var planning = aPlan().as(UNPRIVILEGED).owner("alice").owner("bob").allowingSharedAccount();

      var result = planning.plan();

      assertThat(result.isolation().accountOf("alice")).isEqualTo(GPUQ);
      assertThat(result.isolation().accountOf("bob")).isEqualTo(GPUQ);
      assertThat(result.warnings())
          .anySatisfy(w -> assertThat(w).contains("owners share an account"));
    }

    @Test
    @DisplayName("no worker needs to switch: they all run as gpuq's own account")
    void needsNoSwitch() {
      var isolation = aPlan().as(UNPRIVILEGED).owner("alice").plan().isolation();

      assertThat(isolation.needsSwitch(isolation.gpuq())).isFalse();
      assertThat(isolation.needsSwitch(isolation.accountOf("alice"))).isFalse();
    }
  }
}

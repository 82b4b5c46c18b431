package io.gpuq.isolation;

import static io.gpuq.isolation.Privileges.CAP_CHOWN;
import static io.gpuq.isolation.Privileges.CAP_DAC_OVERRIDE;
import static io.gpuq.isolation.Privileges.CAP_KILL;
import static io.gpuq.isolation.Privileges.CAP_SETGID;
import static io.gpuq.isolation.Privileges.CAP_SETUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.security.auth.module.UnixSystem;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PrivilegesTest {

  /** Every capability of a 6.x kernel (0..40): what a plain root shell has. */
  private static final String ALL_CAPS = "000001ffffffffff";

  /** Docker's default set for a container's root: CHOWN, DAC_OVERRIDE, KILL, SETUID, SETGID... */
  private static final String DOCKER_DEFAULT = "00000000a80425fb";

  private static final String NO_CAPS = "0000000000000000";

  /** The capabilities named, as the hexadecimal mask /proc/self/status shows. */
  private static String caps(int... capabilities) {
    return String.format("%016x", mask(capabilities));
  }

  private static long mask(int... capabilities) {
    return Arrays.stream(capabilities).mapToLong(cap -> 1L << cap).reduce(0, (a, b) -> a | b);
  }

  /** Everything but the capabilities named, within {@code set}. */
  private static String without(String set, int... capabilities) {
    return String.format("%016x", Long.parseUnsignedLong(set, 16) & ~mask(capabilities));
  }

  private static StatusBuilder aStatus() {
    return new StatusBuilder();
  }

  /** A /proc/[pid]/status as Linux 6.x writes it; only the uid and capabilities vary. */
  static final class StatusBuilder {
    private int uid = 1000;
    private String effective; // unset: root's is its bounding set, anyone else's is empty
    private String bounding = ALL_CAPS;
    private String ambient = NO_CAPS;

    StatusBuilder uid(int uid) {
      this.uid = uid;
      return this;
    }

    /** Permitted and effective set. */
    StatusBuilder effective(String hex) {
      this.effective = hex;
      return this;
    }

    /** The bounding set; unless set apart, root's effective set is this set, as after an exec. */
    StatusBuilder bounding(String hex) {
      this.bounding = hex;
      return this;
    }

    StatusBuilder ambient(String hex) {
      this.ambient = hex;
      return this;
    }

    String text() {
      String capEff = effective != null ? effective : uid == 0 ? bounding : NO_CAPS;
      return String.join(
          "\n",
          "Name:\tjava",
          "Umask:\t0022",
          "State:\tS (sleeping)",
          "Tgid:\t4242",
          "Ngid:\t0",
          "Pid:\t4242",
          "PPid:\t1",
          "TracerPid:\t0",
          "Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid,
          "Gid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid,
          "FDSize:\t256",
          "Groups:\t",
          "NStgid:\t4242",
          "NSpid:\t4242",
          "VmPeak:\t 8392516 kB",
          "VmRSS:\t  183420 kB",
          "Threads:\t41",
          "SigQ:\t0/513408",
          "SigBlk:\t0000000000000000",
          "CapInh:\t" + NO_CAPS,
          "CapPrm:\t" + capEff,
          "CapEff:\t" + capEff,
          "CapBnd:\t" + bounding,
          "CapAmb:\t" + ambient,
          "NoNewPrivs:\t0",
          "Seccomp:\t2",
          "Seccomp_filters:\t1",
          "Speculation_Store_Bypass:\tthread vulnerable",
          "Cpus_allowed_list:\t0-15",
          "voluntary_ctxt_switches:\t150",
          "nonvoluntary_ctxt_switches:\t545",
          "");
    }

    Privileges parse() {
      return Privileges.parse(text());
    }
  }

  @Nested
  @DisplayName("parsing /proc/self/status")
  class Parsing {

    @Test
    @DisplayName("the effective uid is the second field of the Uid line")
    void effectiveUidIsTheSecondUidField() {
      var status = "Name:\tjava\nUid:\t1000\t0\t0\t1000\nCapEff:\t0\nCapAmb:\t0\n";

      assertThat(Privileges.parse(status).effectiveUid()).isZero();
    }

    @Test
    @DisplayName("root with every capability: its effective set is read in full")
    void rootWithAllCapabilities() {
      var privileges = aStatus().uid(0).effective(ALL_CAPS).parse();

      assertThat(privileges).isEqualTo(new Privileges(0, 0x000001ffffffffffL, 0));
    }

    @Test
    @DisplayName("the effective group is read from the Gid line, which need not match the uid")
    void effectiveGroup() {
      var privileges =
          Privileges.parse(
              "Uid:\t1234\t1234\t1234\t1234\nGid:\t5678\t5678\t5678\t5678\nCapEff:\t0\nCapAmb:\t0");

      assertThat(privileges.effectiveGid()).isEqualTo(5678);
    }

    @Test
    @DisplayName("Docker's default capability set is read bit for bit")
    void dockerDefaultSet() {
      var privileges = aStatus().uid(0).effective(DOCKER_DEFAULT).parse();

      assertThat(privileges.effectiveCaps()).isEqualTo(0xa80425fbL);
      assertThat(privileges.ambientCaps()).isZero();
    }

    @Test
    @DisplayName("a capability set written as a bare 0 is empty")
    void bareZero() {
      var privileges = Privileges.parse("Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0\nCapAmb:\t0");

      assertThat(privileges).isEqualTo(new Privileges(1000, 0, 0));
    }

    @Test
    @DisplayName("the ambient set is read from CapAmb, apart from the effective set")
    void ambientSet() {
      var privileges =
          aStatus()
              .uid(1000)
              .effective(caps(CAP_SETUID, CAP_SETGID, CAP_KILL))
              .ambient(caps(CAP_SETUID, CAP_SETGID))
              .parse();

      assertThat(privileges.effectiveCaps()).isEqualTo(mask(CAP_SETUID, CAP_SETGID, CAP_KILL));
      assertThat(privileges.ambientCaps()).isEqualTo(mask(CAP_SETUID, CAP_SETGID));
    }

    @Test
    @DisplayName("a status without a Uid line is refused")
    void noUidLine() {
      assertThatThrownBy(() -> Privileges.parse("Name:\tjava\nCapEff:\t0\n"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Uid");
    }

    @Test
    @DisplayName("this process's own status parses, with this process's effective uid")
    void currentProcess() {
      var privileges = Privileges.current();

      assertThat((long) privileges.effectiveUid()).isEqualTo(new UnixSystem().getUid());
    }
  }

  @Nested
  @DisplayName("switching accounts")
  class SwitchingAccounts {

    @Test
    @DisplayName("root with every capability can switch")
    void rootWithAllCapabilities() {
      var privileges = aStatus().uid(0).effective(ALL_CAPS).parse();

      assertThat(privileges.canSwitchAccounts()).isTrue();
      assertThat(privileges.missingForOtherAccounts()).isEmpty();
    }

    @Test
    @DisplayName("root in a Docker container with the default capabilities can switch")
    void rootInDocker() {
      var privileges = aStatus().uid(0).effective(DOCKER_DEFAULT).parse();

      assertThat(privileges.canSwitchAccounts()).isTrue();
      assertThat(privileges.missingForOtherAccounts()).isEmpty();
    }

    @Test
    @DisplayName("root whose bounding set lacks CAP_SETUID and CAP_SETGID cannot switch")
    void rootWithoutSetuidInItsBoundingSet() {
      var privileges =
          aStatus().uid(0).bounding(without(DOCKER_DEFAULT, CAP_SETUID, CAP_SETGID)).parse();

      assertThat(privileges.canSwitchAccounts()).isFalse();
      assertThat(privileges.missingForOtherAccounts()).containsExactly("CAP_SETUID", "CAP_SETGID");
    }

    @Test
    @DisplayName("root lacking only CAP_SETGID cannot switch")
    void rootWithoutSetgid() {
      var privileges = aStatus().uid(0).bounding(without(ALL_CAPS, CAP_SETGID)).parse();

      assertThat(privileges.canSwitchAccounts()).isFalse();
      assertThat(privileges.missingForOtherAccounts()).containsExactly("CAP_SETGID");
    }

    @Test
    @DisplayName("root's ambient set does not matter: root keeps its effective set across exec")
    void rootIgnoresAmbient() {
      var privileges =
          aStatus()
              .uid(0)
              .effective(without(ALL_CAPS, CAP_SETUID, CAP_SETGID))
              .ambient(caps(CAP_SETUID, CAP_SETGID))
              .parse();

      assertThat(privileges.canSwitchAccounts()).isFalse();
    }

    @Test
    @DisplayName("an ordinary user without capabilities cannot switch")
    void ordinaryUser() {
      var privileges = aStatus().uid(1000).effective(NO_CAPS).ambient(NO_CAPS).parse();

      assertThat(privileges.canSwitchAccounts()).isFalse();
      assertThat(privileges.missingForOtherAccounts())
          .containsExactly("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN", "CAP_DAC_OVERRIDE");
    }

    @Test
    @DisplayName(
        "a non-root user with CAP_SETUID and CAP_SETGID cannot switch, whichever set holds them:"
            + " only leaving uid 0 clears a job's capabilities")
    void nonRootNeverSwitches() {
      var effective =
          aStatus().uid(1000).effective(caps(CAP_SETUID, CAP_SETGID, CAP_KILL, CAP_CHOWN)).parse();
      var ambient =
          aStatus()
              .uid(1000)
              .effective(caps(CAP_SETUID, CAP_SETGID, CAP_KILL, CAP_CHOWN))
              .ambient(caps(CAP_SETUID, CAP_SETGID))
              .parse();

      assertThat(effective.canSwitchAccounts()).isFalse();
      assertThat(ambient.canSwitchAccounts()).isFalse();
      assertThat(ambient.hasAmbientCapabilities()).isTrue();
      assertThat(effective.hasAmbientCapabilities()).isFalse();
    }
  }

  @Nested
  @DisplayName("what workers of other accounts need")
  class MissingForOtherAccounts {

    @Test
    @DisplayName("CAP_KILL and CAP_CHOWN are listed when gpuq's effective set lacks them")
    void killAndChown() {
      var privileges = aStatus().uid(0).bounding(without(ALL_CAPS, CAP_KILL, CAP_CHOWN)).parse();

      assertThat(privileges.canSwitchAccounts()).isTrue();
      assertThat(privileges.missingForOtherAccounts()).containsExactly("CAP_KILL", "CAP_CHOWN");
    }

    @Test
    @DisplayName("CAP_KILL alone is listed when only it is missing")
    void killOnly() {
      var privileges = aStatus().uid(0).bounding(without(DOCKER_DEFAULT, CAP_KILL)).parse();

      assertThat(privileges.missingForOtherAccounts()).containsExactly("CAP_KILL");
    }

    @Test
    @DisplayName("CAP_DAC_OVERRIDE is listed: gpuq enters each job's 0700 work directory")
    void dacOverride() {
      var privileges = aStatus().uid(0).bounding(without(ALL_CAPS, CAP_DAC_OVERRIDE)).parse();

      assertThat(privileges.missingForOtherAccounts()).containsExactly("CAP_DAC_OVERRIDE");
    }
  }
}

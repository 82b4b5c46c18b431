package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SystemAccountsTest {

  @Nested
  @DisplayName("a passwd line")
  class ParsingALine {

    @Test
    @DisplayName("gives the name, uid, primary gid and home of a known account")
    void ordinaryLine() {
      var account =
          SystemAccounts.parse("alice:x:1001:1002:Alice Liddell,,,:/home/alice:/bin/bash");

      assertThat(account)
          .contains(new Account("alice", 1001, 1002, Optional.of(Path.of("/home/alice")), true));
    }

    @Test
    @DisplayName("with an empty home field gives no home")
    void emptyHome() {
      var account = SystemAccounts.parse("svc:x:998:998:::/usr/sbin/nologin");

      assertThat(account).contains(new Account("svc", 998, 998, Optional.empty(), true));
    }

    @Test
    @DisplayName("with an empty shell field is still an account")
    void emptyShell() {
      assertThat(SystemAccounts.parse("svc:x:998:998::/var/lib/svc:"))
          .map(Account::home)
          .contains(Optional.of(Path.of("/var/lib/svc")));
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(
        strings = {
          "",
          "root",
          "root:x:0:0:root:/root", // six fields
          "alice:x:one:1001::/home/alice:/bin/sh", // uid no number
          "alice:x:1001:::/home/alice:/bin/sh", // empty gid
          "alice:x:-1:1001::/home/alice:/bin/sh", // negative uid
          "alice:x:99999999999:1001::/home/alice:/bin/sh" // uid beyond an int
        })
    @DisplayName("that is malformed gives nothing")
    void malformed(String line) {
      assertThat(SystemAccounts.parse(line)).isEmpty();
    }
  }

  @Nested
  @DisplayName("this machine's accounts, through getent")
  class ThisMachine {

    private final SystemAccounts accounts = new SystemAccounts();

    @Test
    @DisplayName("root by name is uid 0 with home /root")
    void rootByName() {
      var root = accounts.byName("root");

      assertThat(root).isPresent();
      assertThat(root.get().uid()).isZero();
      assertThat(root.get().gid()).isZero();
      assertThat(root.get().home()).contains(Path.of("/root"));
      assertThat(root.get().inPasswd()).isTrue();
    }

    @Test
    @DisplayName("uid 0 is root")
    void rootByUid() {
      assertThat(accounts.byUid(0)).map(Account::name).contains("root");
    }

    @Test
    @DisplayName("an unknown name is no account")
    void unknownName() {
      assertThat(accounts.byName("no-such-user-gpuq-xyz")).isEmpty();
    }

    @Test
    @DisplayName("an empty name is no account")
    void emptyName() {
      assertThat(accounts.byName("")).isEmpty();
    }

    @Test
    @DisplayName("a name starting with '-' is no account, and never reaches getent as an option")
    void nameThatLooksLikeAnOption() throws Exception {
      // Passed to getent, "-sfiles" would be its --service option: with no key left, getent lists
      // the whole passwd database, whose first entry is root.
      assertThat(getentPasswd("-sfiles")).startsWith("root:");

      assertThat(accounts.byName("-sfiles")).isEmpty();
      assertThat(accounts.byName("-root")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"root:x", ":root", "root:"})
    @DisplayName("a name containing ':' is no account")
    void nameWithColon(String name) {
      assertThat(accounts.byName(name)).isEmpty();
    }

    private static String getentPasswd(String argument) throws Exception {
      Process process = new ProcessBuilder("getent", "passwd", argument).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      return out;
    }
  }
}

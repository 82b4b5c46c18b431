package io.gpuq.launch;

import io.gpuq.isolation.Account;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How gpuq runs a program as another account: util-linux's setpriv sets the uid, the gid and the
 * groups, and forbids regaining privileges (no setuid programs), then execs it. One place for a
 * worker's launch and for a warm start's zygote (issue 36), so that both drop to an account alike.
 */
public final class Setpriv {

  private Setpriv() {}

  /**
   * The start of an argv that runs the command after it as {@code account}: a list to add it to.
   */
  public static List<String> runAs(Path setpriv, Account account) {
    List<String> argv = new ArrayList<>();
    argv.add(setpriv.toString());
    argv.add("--reuid=" + account.uid());
    argv.add("--regid=" + account.gid());
    // Supplementary groups as login would give them; an account only known by uid:gid gets none.
    argv.add(account.inPasswd() ? "--init-groups" : "--clear-groups");
    argv.add("--no-new-privs");
    // Leaving uid 0 clears the other capability sets; nothing inheritable may stay either.
    argv.add("--inh-caps=-all");
    argv.add("--");
    return argv;
  }
}

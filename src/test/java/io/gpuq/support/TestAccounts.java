package io.gpuq.support;

import com.sun.security.auth.module.UnixSystem;

/** The account the tests run as, for gpuqs whose jobs must write where the tests read. */
public final class TestAccounts {

  private TestAccounts() {}

  /** This JVM's own account as {@code uid:gid}, a {@code run-as} value that needs no switch. */
  public static String self() {
    UnixSystem unix = new UnixSystem();
    return unix.getUid() + ":" + unix.getGid();
  }

  /** Arguments that run every job of a separate gpuq JVM as the tests' own account. */
  public static String runAsSelfArgument() {
    return "--gpuq.worker.run-as=" + self();
  }
}

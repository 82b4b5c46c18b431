package io.gpuq.isolation;

import java.nio.file.Path;
import java.util.Optional;

/**
 * An OS account a worker may run as.
 *
 * @param name the user name, or the uid as text for a {@code uid:gid} with no passwd entry
 * @param home its home directory from the passwd database, if it has one
 * @param inPasswd whether the passwd database knows it (its supplementary groups are then used)
 */
public record Account(String name, int uid, int gid, Optional<Path> home, boolean inPasswd) {

  public Account {
    if (uid < 0 || gid < 0) {
      throw new IllegalArgumentException("uid and gid must not be negative: " + uid + ":" + gid);
    }
  }

  public boolean isRoot() {
    return uid == 0;
  }

  /** Whether a process of this account is a process of {@code other}'s too (same uid and gid). */
  public boolean sameAs(Account other) {
    return uid == other.uid && gid == other.gid;
  }

  @Override
  public String toString() {
    return name + " (" + uid + ":" + gid + ")";
  }
}

package io.gpuq.isolation;

import java.util.Optional;

/** Looks accounts up, as {@code getpwnam(3)} and {@code getpwuid(3)} would. */
public interface AccountDirectory {

  Optional<Account> byName(String name);

  Optional<Account> byUid(int uid);

  /**
   * The account a {@code run-as} value names: a user name, or {@code uid:gid} (which needs no
   * passwd entry).
   *
   * @throws IllegalArgumentException when it names no account, with what to do about it
   */
  default Account resolve(String runAs, String setting) {
    String text = runAs.trim();
    int colon = text.indexOf(':');
    if (colon > 0 && text.substring(0, colon).chars().allMatch(Character::isDigit)) {
      int uid;
      int gid;
      try {
        uid = Integer.parseInt(text.substring(0, colon));
        gid = Integer.parseInt(text.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            setting + "=" + runAs + ": expected a user name or uid:gid (two numbers)");
      }
      return byUid(uid)
          .map(known -> new Account(known.name(), uid, gid, known.home(), known.inPasswd()))
          .orElse(new Account(Integer.toString(uid), uid, gid, Optional.empty(), false));
    }
    return byName(text)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    setting
                        + "="
                        + runAs
                        + ": this machine has no account of that name; create it (useradd"
                        + " --system --user-group --shell /usr/sbin/nologin "
                        + text
                        + ") or give uid:gid"));
  }
}

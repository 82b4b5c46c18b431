package io.gpuq.isolation;

import io.gpuq.startup.StartRefusedException;
import java.util.Optional;

/** Looks accounts up, as {@code getpwnam(3)} and {@code getpwuid(3)} would. */
public interface AccountDirectory {

  Optional<Account> byName(String name);

  Optional<Account> byUid(int uid);

  /**
   * The account a {@code run-as} value names: a user name, or {@code uid:gid} (which needs no
   * passwd entry).
   *
   * @throws StartRefusedException when it names no account, with what to do about it
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
        throw new StartRefusedException(
            setting + "=" + runAs + " is neither a user name nor uid:gid",
            "give a user name or two numbers, uid:gid");
      }
      return byUid(uid)
          .map(known -> new Account(known.name(), uid, gid, known.home(), known.inPasswd()))
          .orElse(new Account(Integer.toString(uid), uid, gid, Optional.empty(), false));
    }
    return byName(text)
        .orElseThrow(
            () ->
                new StartRefusedException(
                    setting + "=" + runAs + ": this machine has no account of that name",
                    "create it (useradd --system --user-group --shell /usr/sbin/nologin "
                        + text
                        + ") or give uid:gid"));
  }
}

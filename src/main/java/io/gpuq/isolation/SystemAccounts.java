package io.gpuq.isolation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * This machine's accounts, through {@code getent passwd}: it asks NSS exactly as the C library
 * would (LDAP and SSSD included), and runs only at start-up, a few times.
 */
public final class SystemAccounts implements AccountDirectory {

  @Override
  public Optional<Account> byName(String name) {
    if (name.isEmpty() || name.startsWith("-") || name.contains(":")) {
      return Optional.empty();
    }
    return getent(name);
  }

  @Override
  public Optional<Account> byUid(int uid) {
    return getent(Integer.toString(uid));
  }

  private static Optional<Account> getent(String key) {
    try {
      Process process =
          new ProcessBuilder("getent", "passwd", key)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return parse(out.lines().findFirst().orElse(""));
    } catch (IOException e) {
      throw new IllegalStateException("cannot look accounts up with getent: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while looking accounts up", e);
    }
  }

  /** One line of the passwd database: {@code name:password:uid:gid:gecos:home:shell}. */
  static Optional<Account> parse(String line) {
    String[] fields = line.split(":", -1);
    if (fields.length < 7) {
      return Optional.empty();
    }
    try {
      Optional<Path> home =
          fields[5].isEmpty() ? Optional.empty() : Optional.of(Path.of(fields[5]));
      return Optional.of(
          new Account(
              fields[0], Integer.parseInt(fields[2]), Integer.parseInt(fields[3]), home, true));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}

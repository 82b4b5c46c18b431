package io.gpuq.support;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real OS accounts for tests of jobs that run as their owner: created with {@code useradd}, which
 * needs root. CI runs as root; elsewhere such tests are skipped, saying why.
 */
public final class OsAccounts {

  public static final String SKIPPED = "needs root and useradd to create the jobs' OS accounts";

  // In /tmp, not target/: builds of other checkouts create the same accounts.
  private static final Path LOCK =
      Path.of(System.getProperty("java.io.tmpdir"), "gpuq-it-accounts.lock");

  private OsAccounts() {}

  /** For {@code @EnabledIf}: whether this JVM may create accounts. */
  public static boolean canCreate() {
    return new UnixSystem().getUid() == 0 && Files.isExecutable(Path.of("/usr/sbin/useradd"));
  }

  /**
   * Creates a system account with its own group unless it exists; returns {@code uid}. Failsafe's
   * forks, and other builds on the machine, may ask for the same account at once: useradd fails
   * when another holds the lock on {@code /etc/passwd} or has just made the account, so the check
   * and the creation take turns through a file lock that every test JVM here shares.
   */
  public static synchronized int ensure(String name) {
    try (FileChannel lockFile =
            FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      return create(name);
    } catch (IOException e) {
      throw new IllegalStateException("cannot lock " + LOCK, e);
    }
  }

  private static int create(String name) {
    if (id("-u", name) < 0) {
      run(
          "/usr/sbin/useradd",
          "--system",
          "--user-group",
          "--no-create-home",
          "--home-dir",
          "/nonexistent",
          "--shell",
          "/usr/sbin/nologin",
          name);
    }
    return id("-u", name);
  }

  public static int uid(String name) {
    return id("-u", name);
  }

  public static int gid(String name) {
    return id("-g", name);
  }

  private static int id(String flag, String name) {
    String out = run("id", flag, name);
    return out == null ? -1 : Integer.parseInt(out.trim());
  }

  /** The command's output, or null when it failed. */
  private static String run(String... command) {
    try {
      Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not end");
      }
      return process.exitValue() == 0 ? out : null;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

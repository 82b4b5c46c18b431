package io.gpuq.support;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for one test, to fill a disk for real; needs root (as CI runs). Tests that
 * use it are skipped otherwise ({@code @EnabledIf("io.gpuq.support.Tmpfs#canMount")}).
 */
public final class Tmpfs implements AutoCloseable {

  private final Path mountPoint;

  private Tmpfs(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  public static boolean canMount() {
    return new UnixSystem().getUid() == 0 && Files.isExecutable(Path.of("/bin/mount"));
  }

  /** Mounts a tmpfs of {@code megabytes} on a new directory under target/test-data. */
  public static Tmpfs mount(String name, int megabytes) throws IOException, InterruptedException {
    Path dir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), name + "-");
    Path mountPoint = Files.createDirectory(dir.resolve("tmpfs"));
    run(
        "/bin/mount",
        "-t",
        "tmpfs",
        "-o",
        "size=" + megabytes + "m",
        "tmpfs",
        mountPoint.toString());
    return new Tmpfs(mountPoint);
  }

  public Path root() {
    return mountPoint;
  }

  /** Writes {@code file} until the file system is full; returns how much it took. */
  public static long fill(Path file) throws IOException {
    byte[] chunk = new byte[64 * 1024];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException full) {
      if (!String.valueOf(full.getMessage()).contains("No space left")) {
        throw full;
      }
    }
    // The last partial chunk: the file system may still have had a few bytes.
    try (OutputStream out = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
      for (int i = 0; i < chunk.length; i++) {
        out.write(0);
        out.flush();
        written++;
      }
    } catch (IOException full) {
      // full now
    }
    return written;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    run("/bin/umount", "-l", mountPoint.toString());
  }

  private static void run(String... argv) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(String.join(" ", argv) + " failed: " + output);
    }
  }
}

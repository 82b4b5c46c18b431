package io.gpuq.cgroup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * Whom the kernel's OOM killer takes first when memory runs out above the workers' own caps (their
 * parent group's cap, gpuq's container, the host): a worker, never gpuq. The killer takes the
 * process with the highest score, its resident memory plus {@code oom_score_adj} thousandths of the
 * memory at stake; gpuq (a JVM of a gigabyte or so) would otherwise often be the largest. See
 * docs/design/worker-cgroups.md, "Who the kernel kills".
 *
 * <p>Raising one's own score needs no privilege, so every worker's wrapper raises its job's before
 * the job runs, while it is still gpuq's account: where that is root (with {@code
 * CAP_SYS_RESOURCE}) the kernel also makes it the job's floor, which the job, once it runs as its
 * own account, cannot go below. Lowering needs {@code CAP_SYS_RESOURCE}: gpuq lowers its own where
 * it may.
 */
public final class OomScoreAdj {

  /**
   * A worker whose job set no {@code resources.memory}: it has no cap of its own and shares the
   * node's memory with every job, the first to go (as Kubernetes' BestEffort pods).
   */
  public static final int UNCAPPED_WORKER = 1000;

  /** A worker with a cap of its own: after the uncapped ones, long before gpuq. */
  public static final int CAPPED_WORKER = 500;

  /**
   * gpuq itself, where it may: the last to go, but not exempt (-1000 would be), so that a gpuq that
   * leaks beyond its heap can still be stopped before the host's own daemons.
   */
  public static final int GPUQ = -900;

  private OomScoreAdj() {}

  /** The score of a worker, by whether its job set {@code resources.memory}. */
  public static int forWorker(boolean capped) {
    return capped ? CAPPED_WORKER : UNCAPPED_WORKER;
  }

  /**
   * Lowers this process's score to {@link #GPUQ}, where it is not that low already.
   *
   * @return empty once done, else why not (not root, no {@code CAP_SYS_RESOURCE})
   */
  public static Optional<String> protectThisProcess() {
    return protect(Path.of("/proc/self/oom_score_adj"));
  }

  static Optional<String> protect(Path file) {
    try {
      if (read(file) <= GPUQ) {
        return Optional.empty();
      }
      Files.write(
          file,
          Integer.toString(GPUQ).getBytes(StandardCharsets.US_ASCII),
          StandardOpenOption.WRITE);
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("cannot write " + GPUQ + " to " + file + ": " + e.getMessage());
    }
  }

  /** A process's score, or empty when it is gone. */
  public static Optional<Integer> of(long pid) {
    try {
      return Optional.of(read(Path.of("/proc/" + pid + "/oom_score_adj")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** In one read, as /proc's small files are best read (see ProcessLimit.pidMax). */
  private static int read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return Integer.parseInt(new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip());
    }
  }
}

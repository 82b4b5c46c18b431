package io.gpuq.launch;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a worker's whole process tree: SIGTERM to its process group and to every descendant, then
 * SIGKILL to whatever is left after the grace period. Both the group and the tree are signalled
 * because a child may leave either one (a new session, or a re-parenting to init).
 */
public final class ProcessTreeStopper {

  private static final Logger log = LoggerFactory.getLogger(ProcessTreeStopper.class);
  private static final long POLL_MILLIS = 50;

  private final ScheduledExecutorService timer;
  private final Duration grace;

  /**
   * @param grace time between SIGTERM and SIGKILL
   */
  public ProcessTreeStopper(ScheduledExecutorService timer, Duration grace) {
    this.timer = timer;
    this.grace = grace;
  }

  /** The time between SIGTERM and SIGKILL. */
  public Duration grace() {
    return grace;
  }

  /** Completes when no process of the tree or group is left. */
  public CompletableFuture<Void> stop(long rootPid) {
    Set<ProcessHandle> tree = treeOf(rootPid);
    ProcessSignals.signalGroup(rootPid, ProcessSignals.SIGTERM);
    tree.forEach(ProcessHandle::destroy);
    CompletableFuture<Void> done = new CompletableFuture<>();
    long killAt = System.nanoTime() + grace.toNanos();
    timer.execute(() -> awaitOrKill(rootPid, tree, killAt, done));
    return done;
  }

  /** Kills at once whatever is left of a group whose leader has exited. */
  public void killLeftovers(long pgid) {
    if (ProcessSignals.groupAlive(pgid)) {
      log.info("killing processes left behind in process group {}", pgid);
      ProcessSignals.signalGroup(pgid, ProcessSignals.SIGKILL);
    }
  }

  private void awaitOrKill(
      long rootPid, Set<ProcessHandle> tree, long killAt, CompletableFuture<Void> done) {
    try {
      // Children forked during the grace period belong to the tree too.
      ProcessHandle.of(rootPid).ifPresent(root -> root.descendants().forEach(tree::add));
      boolean anyAlive =
          tree.stream().anyMatch(ProcessHandle::isAlive) || ProcessSignals.groupAlive(rootPid);
      if (!anyAlive) {
        done.complete(null);
      } else if (System.nanoTime() - killAt >= 0) {
        log.info("process tree of {} outlived its grace period; sending SIGKILL", rootPid);
        ProcessSignals.signalGroup(rootPid, ProcessSignals.SIGKILL);
        tree.forEach(ProcessHandle::destroyForcibly);
        timer.schedule(
            () -> awaitOrKill(rootPid, tree, killAt, done), POLL_MILLIS, TimeUnit.MILLISECONDS);
      } else {
        timer.schedule(
            () -> awaitOrKill(rootPid, tree, killAt, done), POLL_MILLIS, TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      log.error("stopping process tree of {} failed", rootPid, e);
      done.completeExceptionally(e);
    }
  }

  private static Set<ProcessHandle> treeOf(long rootPid) {
    Set<ProcessHandle> tree = new HashSet<>();
    ProcessHandle.of(rootPid)
        .ifPresent(
            root -> {
              tree.add(root);
              root.descendants().forEach(tree::add);
            });
    return tree;
  }
}

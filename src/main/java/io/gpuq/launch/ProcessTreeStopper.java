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
 * Stops a worker's whole process tree: SIGTERM to its process group and to every descendant, then,
 * at the end of the grace period, SIGKILL to all of it at once, again until nothing is left. Both
 * the group and the tree are signalled because a child may leave either one (a new session, or a
 * re-parenting to init); at the deadline its session too, and its cgroup where it has one, which no
 * child can leave.
 *
 * <p>Issue 34: a job that forked continuously and ignored SIGTERM outlived its 10 s grace period by
 * 9 to 32 s, 3,208 processes at last, while the stopper signalled one process at a time from scans
 * of {@code /proc} that its forks outran. The deadline now kills the cgroup first, in one step
 * ({@link WorkerConfinement#killAll}), and the scans only after.
 */
public final class ProcessTreeStopper {

  private static final Logger log = LoggerFactory.getLogger(ProcessTreeStopper.class);
  private static final long POLL_MILLIS = 50;
  private static final long LEFTOVERS_POLL_MILLIS = 20;
  private static final Duration LEFTOVERS_WAIT = Duration.ofMinutes(2);

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
    return stop(rootPid, () -> {});
  }

  /**
   * As {@link #stop(long)}; at the deadline, and at each look after it while something is left,
   * {@code killAll} runs first: what kills the worker's cgroup at once.
   */
  public CompletableFuture<Void> stop(long rootPid, Runnable killAll) {
    return stop(rootPid, ProcessSignals.SIGTERM, grace, killAll);
  }

  /**
   * As {@link #stop(long, Runnable)}, with another first signal and grace: a preemption's (issue
   * 35), which the job chose so that it can checkpoint before SIGKILL.
   */
  public CompletableFuture<Void> stop(
      long rootPid, int signal, Duration graceOfThisStop, Runnable killAll) {
    Set<ProcessHandle> tree = treeOf(rootPid);
    ProcessSignals.signalGroup(rootPid, signal);
    if (signal == ProcessSignals.SIGTERM) {
      tree.forEach(ProcessHandle::destroy);
    } else {
      tree.forEach(process -> ProcessSignals.signal(process.pid(), signal));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    long killAt = System.nanoTime() + graceOfThisStop.toNanos();
    timer.execute(() -> awaitOrKill(rootPid, tree, killAt, killAll, false, done));
    return done;
  }

  /**
   * Kills whatever is left of a group whose leader has exited, and of its session, until none of it
   * is left (or two minutes have passed: a process in uninterruptible sleep dies only once its I/O
   * returns). Without cgroups this is what frees a worker's place only once its processes have
   * gone.
   */
  public void killLeftovers(long pgid) {
    long giveUpAt = System.nanoTime() + LEFTOVERS_WAIT.toNanos();
    boolean logged = false;
    try {
      while (ProcessSignals.groupAlive(pgid)
          | ProcessSignals.signalSession(pgid, ProcessSignals.SIGKILL) > 0) {
        if (!logged) {
          log.info("killing processes left behind in process group or session {}", pgid);
          logged = true;
        }
        ProcessSignals.signalGroup(pgid, ProcessSignals.SIGKILL);
        if (System.nanoTime() - giveUpAt > 0) {
          log.warn("processes of group or session {} outlived {} of SIGKILL", pgid, LEFTOVERS_WAIT);
          return;
        }
        Thread.sleep(LEFTOVERS_POLL_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitOrKill(
      long rootPid,
      Set<ProcessHandle> tree,
      long killAt,
      Runnable killAll,
      boolean killing,
      CompletableFuture<Void> done) {
    try {
      boolean pastDeadline = System.nanoTime() - killAt >= 0;
      if (pastDeadline) {
        if (!killing) {
          log.info("process tree of {} outlived its grace period; killing all of it", rootPid);
        }
        // All at once first (its cgroup), before anything that scans /proc while it forks.
        killAll.run();
        ProcessSignals.signalGroup(rootPid, ProcessSignals.SIGKILL);
        ProcessSignals.signalSession(rootPid, ProcessSignals.SIGKILL);
        tree.forEach(ProcessHandle::destroyForcibly);
      }
      // Children forked during the grace period belong to the tree too.
      ProcessHandle.of(rootPid).ifPresent(root -> root.descendants().forEach(tree::add));
      boolean anyAlive =
          tree.stream().anyMatch(ProcessHandle::isAlive) || ProcessSignals.groupAlive(rootPid);
      if (!anyAlive) {
        done.complete(null);
      } else {
        if (pastDeadline) {
          tree.forEach(ProcessHandle::destroyForcibly);
        }
        timer.schedule(
            () -> awaitOrKill(rootPid, tree, killAt, killAll, pastDeadline, done),
            POLL_MILLIS,
            TimeUnit.MILLISECONDS);
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

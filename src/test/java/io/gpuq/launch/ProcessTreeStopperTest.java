package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Without cgroups (the affinity fallback, issue 34) a stop reaches as far as the worker's session:
 * what left its process tree and its process group is killed, until none of it is left, before its
 * place counts as free.
 */
@DisplayName("Stopping a process tree without cgroups")
class ProcessTreeStopperTest {

  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private Process root;

  @AfterEach
  void stop() throws InterruptedException {
    if (root != null) {
      ProcessSignals.signalSession(root.pid(), ProcessSignals.SIGKILL);
      root.destroyForcibly();
      root.waitFor(10, TimeUnit.SECONDS);
    }
    timer.shutdownNow();
  }

  @Test
  void what_forks_out_of_its_tree_and_group_and_ignores_sigterm_is_killed_session_and_all()
      throws Exception {
    // A session of its own, as launch gives a worker; each child forks a grandchild into a process
    // group of its own and exits, so the grandchildren are in neither its tree nor its group.
    root =
        new ProcessBuilder(
                "setsid",
                "python3",
                "-c",
                "import os, signal, time\n"
                    + "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                    + "while True:\n"
                    + "    if os.fork() == 0:\n"
                    + "        if os.fork() == 0:\n"
                    + "            os.setpgid(0, 0)\n"
                    + "            time.sleep(600)\n"
                    + "        os._exit(0)\n"
                    + "    os.wait()\n"
                    + "    time.sleep(0.01)\n")
            .start();
    long session = root.pid();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ProcessSignals.signalSession(session, 0) >= 10);
    ProcessTreeStopper stopper = new ProcessTreeStopper(timer, Duration.ofMillis(300));

    stopper.stop(root.pid()).get(60, TimeUnit.SECONDS);
    // What a worker's exit does next, before its place is freed.
    stopper.killLeftovers(root.pid());

    assertThat(ProcessSignals.signalSession(session, 0)).isZero();
  }

  @Test
  void a_group_whose_last_process_is_a_zombie_counts_as_gone_at_once() throws Exception {
    // $! makes a process group and session of its own and exits at once; its parent then becomes
    // sleep, which never waits for it: a zombie, as an orphan is until init reaps it (which may
    // take seconds), while kill(-pgid, 0) still finds it.
    Path pidFile = Files.createTempFile("gpuq-zombie-", ".pid");
    try {
      root =
          new ProcessBuilder(
                  "sh",
                  "-c",
                  "setsid sh -c 'exit 0' & echo $! >\"$1\"; exec sleep 60",
                  "sh",
                  pidFile.toString())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.size(pidFile) > 0);
      long zombie = Long.parseLong(Files.readString(pidFile).strip());
      await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(zombie).equals("Z"));
      assertThat(ProcessSignals.signalGroup(zombie, 0)).as("kill(2) still finds it").isTrue();

      assertThat(ProcessSignals.groupAlive(zombie)).isFalse();
      long start = System.nanoTime();
      new ProcessTreeStopper(timer, Duration.ofMillis(300)).killLeftovers(zombie);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    } finally {
      Files.deleteIfExists(pidFile);
    }
  }

  /** A process's state letter from /proc ("Z" for a zombie), or "" once it is gone. */
  private static String stateOf(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch (java.io.IOException gone) {
      return "";
    }
  }
}

package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The binding itself, on programs it starts directly (no wrapper shell in between). */
class PosixSpawnTest {

  private static final int SIG_BLOCK = 0;
  private static final int SIG_SETMASK = 2;
  private static final int SIGTERM = 15;
  private static final int SIGWINCH = 28;
  private static final Pointer SIG_IGN = new Pointer(1);
  private static final TestLibC LIBC = Native.load("c", TestLibC.class);

  @TempDir Path dir;

  @Test
  void anExitStatusGivesTheExitCode() {
    assertThat(PosixSpawn.exitCodeOf(0)).isZero();
    assertThat(PosixSpawn.exitCodeOf(3 << 8)).isEqualTo(3);
    assertThat(PosixSpawn.exitCodeOf(255 << 8)).isEqualTo(255);
  }

  @Test
  void deathBySignalNGives128PlusNWithOrWithoutACoreDump() {
    assertThat(PosixSpawn.exitCodeOf(9)).isEqualTo(137);
    assertThat(PosixSpawn.exitCodeOf(15)).isEqualTo(143);
    assertThat(PosixSpawn.exitCodeOf(0x80 | 11)).isEqualTo(139);
  }

  @Test
  void theLauncherChoosesPosixSpawnWhereverItBinds() {
    boolean binds;
    try {
      PosixSpawn.bind();
      binds = true;
    } catch (UnsupportedOperationException e) {
      binds = false;
    }

    WorkerLauncher launcher = new WorkerLauncher(new JobFiles(dir), Clock.systemUTC());

    assertThat(launcher.mechanism())
        .isEqualTo(binds ? SpawnMechanism.POSIX_SPAWN : SpawnMechanism.PROCESS_BUILDER);
  }

  @Test
  void theChildStartsWithNoSignalBlockedOrIgnoredWhateverTheSpawningThreadHad() throws Exception {
    PosixSpawn spawn = PosixSpawn.bind();
    Path out = dir.resolve("status");
    int pid;
    try (Memory blocked = new Memory(1024);
        Memory previous = new Memory(1024)) {
      LIBC.sigemptyset(blocked);
      LIBC.sigaddset(blocked, SIGTERM);
      assertThat(LIBC.pthread_sigmask(SIG_BLOCK, blocked, previous)).isZero();
      // SIG_IGN is the one disposition that survives exec, as under nohup.
      Pointer winch = LIBC.signal(SIGWINCH, SIG_IGN);
      try {
        pid =
            spawn.spawn(
                List.of("/bin/grep", "^Sig\\(Blk\\|Ign\\):", "/proc/self/status"),
                Map.of(),
                dir,
                out);
      } finally {
        LIBC.signal(SIGWINCH, winch);
        LIBC.pthread_sigmask(SIG_SETMASK, previous, null);
      }
    }

    assertThat(spawn.exitOf(pid).get(10, TimeUnit.SECONDS)).isZero();
    List<String> masks = Files.readAllLines(out);
    assertThat(masks).hasSize(2);
    assertThat(masks.get(0)).isEqualTo("SigBlk:\t0000000000000000");
    // Signals 32 and 33 stay ignored: glibc's own (SIGCANCEL, SIGSETXID), which posix_spawn
    // ignores in the child and sigfillset leaves out. ProcessBuilder's children get the same, and
    // a program's libc installs its handlers for them.
    assertThat(masks.get(1)).startsWith("SigIgn:\t");
    long ignored = Long.parseUnsignedLong(masks.get(1).substring("SigIgn:\t".length()), 16);
    assertThat(ignored & 0xffff_ffffL).as("signals 1 to 32 ignored").isEqualTo(1L << 31);
  }

  @Test
  void aFailedExecIsAnErrorWithItsText() {
    PosixSpawn spawn = PosixSpawn.bind();

    assertThatThrownBy(
            () -> spawn.spawn(List.of("/no/such/program"), Map.of(), dir, dir.resolve("out")))
        .isInstanceOf(IOException.class)
        .hasMessage("posix_spawn /no/such/program: No such file or directory (errno 2)");
  }

  interface TestLibC extends Library {
    int sigemptyset(Pointer set);

    int sigaddset(Pointer set, int signal);

    int pthread_sigmask(int how, Pointer set, Pointer oldSet);

    Pointer signal(int signal, Pointer handler);
  }
}

package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Whether an account can reach a directory")
class ReachabilityTest {

  private static final Account STRANGER =
      new Account("stranger", 54321, 54321, Optional.empty(), false);

  @TempDir Path base;

  @Test
  void an_account_passes_through_directories_open_to_others() throws IOException {
    Path work = Files.createDirectories(base.resolve("data/work"));
    open(base, base.resolve("data"), work);

    assertThat(Reachability.blocker(work, STRANGER)).isEmpty();
  }

  @Test
  void a_directory_closed_to_others_on_the_way_blocks_and_is_named() throws IOException {
    Path data = Files.createDirectories(base.resolve("data"));
    Path work = Files.createDirectories(data.resolve("work"));
    open(base, work);
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));

    assertThat(Reachability.blocker(work, STRANGER))
        .hasValueSatisfying(blocker -> assertThat(blocker).startsWith(data + " (rwx------"));
  }

  @Test
  void root_reaches_everything() throws IOException {
    Path closed = Files.createDirectories(base.resolve("closed"));
    Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));

    assertThat(
            Reachability.blocker(
                closed, new Account("root", 0, 0, Optional.of(Path.of("/root")), true)))
        .isEmpty();
  }

  private static void open(Path... dirs) throws IOException {
    for (Path dir : dirs) {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    }
  }
}

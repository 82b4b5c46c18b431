package io.gpuq.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {

  @TempDir Path temp;

  private int previousUmask;

  /** prepare() sets the process-wide umask; every test starts from a shell's usual one. */
  @BeforeEach
  void ordinaryUmask() {
    previousUmask = SafeFiles.umask(0022);
  }

  @AfterEach
  void restoreUmask() {
    SafeFiles.umask(previousUmask);
  }

  private static Set<PosixFilePermission> mode(String text) {
    return PosixFilePermissions.fromString(text);
  }

  private static String modeOf(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }

  /** A data directory as an earlier gpuq, before the private layout, left it. */
  private DataDirectory anEarlierVersionsDataDirectory() throws IOException {
    var data = new DataDirectory(temp.resolve("data"));
    Files.createDirectory(data.root());
    Files.createDirectory(data.jobs());
    Files.createDirectory(data.database());
    Files.writeString(data.database().resolve("gpuq.mv.db"), "H2");
    Files.writeString(data.adminToken(), "gpuq_admin_0123456789");
    for (Path path : new Path[] {data.root(), data.jobs(), data.database()}) {
      Files.setPosixFilePermissions(path, mode("rwxr-xr-x"));
    }
    for (Path path : new Path[] {data.database().resolve("gpuq.mv.db"), data.adminToken()}) {
      Files.setPosixFilePermissions(path, mode("rw-r--r--"));
    }
    return data;
  }

  @Nested
  @DisplayName("prepare()")
  class Prepare {

    @Test
    @DisplayName("on a fresh directory lays out every directory with its mode, and fixes nothing")
    void freshLayout() throws Exception {
      var data = new DataDirectory(temp.resolve("data"));

      var fixes = data.prepare();

      assertThat(fixes).isEmpty();
      assertThat(modeOf(data.root())).isEqualTo("rwx--x--x");
      assertThat(modeOf(data.database())).isEqualTo("rwx------");
      assertThat(modeOf(data.backups()))
          .as("the database's copies, as private")
          .isEqualTo("rwx------");
      assertThat(modeOf(data.bin())).isEqualTo("rwx------");
      assertThat(modeOf(data.jobs())).isEqualTo("rwx------");
      assertThat(modeOf(data.work())).isEqualTo("rwx--x--x");
      assertThat(modeOf(data.jaxCache())).isEqualTo("rwx--x--x");
      assertThat(modeOf(data.python())).isEqualTo("rwxr-xr-x");
    }

    @Test
    @DisplayName("on an existing, empty directory lays out the rest and fixes nothing else")
    void existingEmptyRoot() throws Exception {
      var data = new DataDirectory(temp.resolve("data"));
      Files.createDirectory(data.root(), PosixFilePermissions.asFileAttribute(mode("rwx--x--x")));

      assertThat(data.prepare()).isEmpty();
      assertThat(data.python()).isDirectory();
    }

    @Test
    @DisplayName("tightens what an earlier version left looser, one line per fix with both modes")
    void tightensLooserModes() throws Exception {
      var data = anEarlierVersionsDataDirectory();
      Path database = data.database().resolve("gpuq.mv.db");

      var fixes = data.prepare();

      assertThat(modeOf(data.root())).isEqualTo("rwx--x--x");
      assertThat(modeOf(data.jobs())).isEqualTo("rwx------");
      assertThat(modeOf(data.database())).isEqualTo("rwx------");
      assertThat(modeOf(database)).isEqualTo("rw-------");
      assertThat(modeOf(data.adminToken())).isEqualTo("rw-------");
      assertThat(fixes)
          .containsExactlyInAnyOrder(
              "fixed the mode of " + data.root() + ": rwxr-xr-x -> rwx--x--x",
              "fixed the mode of " + data.database() + ": rwxr-xr-x -> rwx------",
              "fixed the mode of " + data.jobs() + ": rwxr-xr-x -> rwx------",
              "fixed the mode of " + data.adminToken() + ": rw-r--r-- -> rw-------",
              "fixed the mode of " + database + ": rw-r--r-- -> rw-------");
    }

    @Test
    @DisplayName("keeps the contents of what it tightens")
    void keepsContents() throws Exception {
      var data = anEarlierVersionsDataDirectory();

      data.prepare();

      assertThat(data.adminToken()).hasContent("gpuq_admin_0123456789");
      assertThat(data.database().resolve("gpuq.mv.db")).hasContent("H2");
    }

    @Test
    @DisplayName("a second time fixes nothing")
    void secondTimeFixesNothing() throws Exception {
      var data = anEarlierVersionsDataDirectory();
      data.prepare();

      assertThat(data.prepare()).isEmpty();
    }

    @Test
    @DisplayName("restores a mode that is too strict as well: others must pass through to work/")
    void loosensTooStrictPassThrough() throws Exception {
      var data = new DataDirectory(temp.resolve("data"));
      data.prepare();
      Files.setPosixFilePermissions(data.work(), mode("rwx------"));

      assertThat(data.prepare())
          .containsExactly("fixed the mode of " + data.work() + ": rwx------ -> rwx--x--x");
      assertThat(modeOf(data.work())).isEqualTo("rwx--x--x");
    }

    @Test
    @DisplayName("leaves a symbolic link in db/ alone, and its target's mode too")
    void symbolicLinkInDatabase() throws Exception {
      var data = new DataDirectory(temp.resolve("data"));
      data.prepare();
      Path elsewhere = Files.writeString(temp.resolve("elsewhere"), "not gpuq's");
      Files.setPosixFilePermissions(elsewhere, mode("rw-r--r--"));
      Files.createSymbolicLink(data.database().resolve("gpuq.trace.db"), elsewhere);

      assertThat(data.prepare()).isEmpty();
      assertThat(modeOf(elsewhere)).isEqualTo("rw-r--r--");
    }

    @Test
    @DisplayName("refuses to start where one of its own paths is a link, following none of them")
    void refusesLinks() throws Exception {
      var data = new DataDirectory(temp.resolve("data"));
      Path elsewhere = Files.createDirectories(temp.resolve("etc"));
      Files.setPosixFilePermissions(elsewhere, mode("rwxr-xr-x"));
      Files.createDirectories(data.root());
      Files.createSymbolicLink(data.database(), elsewhere);

      assertThatThrownBy(data::prepare)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(data.database() + " is a symbolic link");
      assertThat(modeOf(elsewhere)).isEqualTo("rwxr-xr-x");
    }

    @Test
    @DisplayName("creates missing parents that job accounts can pass through to work/ and python/")
    void missingParentsArePassable() throws Exception {
      var data = new DataDirectory(temp.resolve("srv/gpuq/data"));

      data.prepare();

      assertThat(modeOf(temp.resolve("srv"))).matches("rwx..x..x");
      assertThat(modeOf(temp.resolve("srv/gpuq"))).matches("rwx..x..x");
    }

    @Test
    @DisplayName("sets the process umask to 077, so that whatever gpuq creates next is private")
    void setsUmask() throws Exception {
      new DataDirectory(temp.resolve("data")).prepare();

      Path created = Files.createFile(temp.resolve("created-after"));

      assertThat(modeOf(created)).isEqualTo("rw-------");
      assertThat(SafeFiles.umask(0022)).isEqualTo(0077);
    }
  }

  @Nested
  @DisplayName("createWithMode()")
  class CreateWithMode {

    @Test
    @DisplayName("gives a directory exactly the mode asked for, which umask 077 would strip")
    void exactModeDespiteStrictUmask() throws Exception {
      SafeFiles.umask(0077);
      Path dir = temp.resolve("python");

      DataDirectory.createWithMode(dir, DataDirectory.PUBLIC_DIR);

      assertThat(modeOf(dir)).isEqualTo("rwxr-xr-x");
    }

    @Test
    @DisplayName("gives a directory exactly the mode asked for, which umask 022 would loosen")
    void exactModeDespiteLooseUmask() throws Exception {
      Path dir = temp.resolve("jobs");

      DataDirectory.createWithMode(dir, DataDirectory.PRIVATE_DIR);

      assertThat(modeOf(dir)).isEqualTo("rwx------");
    }

    @Test
    @DisplayName("gives a directory even group and world write when asked, umask notwithstanding")
    void exactModeWithWriteBits() throws Exception {
      Path dir = temp.resolve("shared");

      DataDirectory.createWithMode(dir, mode("rwxrwxrwx"));

      assertThat(modeOf(dir)).isEqualTo("rwxrwxrwx");
    }

    @Test
    @DisplayName("refuses a directory already there, and leaves its mode")
    void refusesExistingDirectory() throws Exception {
      Path dir = Files.createDirectory(temp.resolve("jobs"));
      Files.setPosixFilePermissions(dir, mode("rwxr-xr-x"));

      assertThatThrownBy(() -> DataDirectory.createWithMode(dir, DataDirectory.PRIVATE_DIR))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(modeOf(dir)).isEqualTo("rwxr-xr-x");
    }

    @Test
    @DisplayName("refuses a file already there")
    void refusesExistingFile() throws Exception {
      Path file = Files.writeString(temp.resolve("jobs"), "");

      assertThatThrownBy(() -> DataDirectory.createWithMode(file, DataDirectory.PRIVATE_DIR))
          .isInstanceOf(FileAlreadyExistsException.class);
    }

    @Test
    @DisplayName("refuses a symbolic link to a directory, and leaves the target's mode")
    void refusesSymbolicLink() throws Exception {
      Path target = Files.createDirectory(temp.resolve("elsewhere"));
      Files.setPosixFilePermissions(target, mode("rwxr-xr-x"));
      Path link = Files.createSymbolicLink(temp.resolve("work"), target);

      assertThatThrownBy(() -> DataDirectory.createWithMode(link, DataDirectory.PASS_THROUGH))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(modeOf(target)).isEqualTo("rwxr-xr-x");
      assertThat(Files.isSymbolicLink(link)).isTrue();
    }

    @Test
    @DisplayName("refuses a dangling symbolic link rather than creating its target")
    void refusesDanglingSymbolicLink() throws Exception {
      Path target = temp.resolve("created-through-the-link");
      Path link = Files.createSymbolicLink(temp.resolve("work"), target);

      assertThatThrownBy(() -> DataDirectory.createWithMode(link, DataDirectory.PASS_THROUGH))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(target).doesNotExist();
    }
  }
}

package io.gpuq.fs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafeFilesTest {

  /**
   * A deadline against hanging forever in {@code open(2)} or in reading an endless device, not a
   * speed test: on a loaded machine the JVM alone may take seconds.
   */
  private static final Duration HANG = Duration.ofSeconds(60);

  @TempDir Path dir;

  private Path fifo(String name) throws Exception {
    Path path = dir.resolve(name);
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).as("mkfifo's exit status").isZero();
    return path;
  }

  private Path file(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private Path link(String name, Path target) throws IOException {
    return Files.createSymbolicLink(dir.resolve(name), target);
  }

  private static void refusedAs(String kind, ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOf(NotARegularFileException.class)
        .hasMessageContaining("not a regular file")
        .extracting(e -> ((NotARegularFileException) e).kind())
        .isEqualTo(kind);
  }

  @Nested
  @DisplayName("a FIFO")
  class Fifo {

    @Test
    @DisplayName("is refused for reading at once, without waiting for a writer")
    void reading() throws Exception {
      Path fifo = fifo("output.log");

      assertTimeoutPreemptively(
          HANG, () -> refusedAs("a FIFO", () -> SafeFiles.openForReading(fifo)));
    }

    @Test
    @DisplayName("is refused by readTail, readSmall and readSmallFile at once")
    void readTailAndReadSmall() throws Exception {
      Path fifo = fifo("attempt-1.exit");

      assertTimeoutPreemptively(
          HANG,
          () -> {
            refusedAs("a FIFO", () -> SafeFiles.readTail(fifo, 4096));
            assertThat(SafeFiles.readSmall(fifo, 64)).isEmpty();
            assertThat(SafeFiles.readSmallFile(fifo, 64)).isEmpty();
          });
    }

    @Test
    @DisplayName("without a reader is refused for appending at once")
    void appendingWithoutAReader() throws Exception {
      Path fifo = fifo("output.log");

      assertTimeoutPreemptively(
          HANG, () -> refusedAs("a FIFO", () -> SafeFiles.appendLine(fifo, "started")));
    }

    @Test
    @DisplayName("with a reader is refused for appending too")
    void appendingWithAReader() throws Exception {
      Path fifo = fifo("output.log");

      assertTimeoutPreemptively(
          HANG,
          () -> {
            // Linux opens a FIFO for reading and writing at once without blocking.
            try (var reader =
                FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
              refusedAs("a FIFO", () -> SafeFiles.openForAppending(fifo));
            }
          });
    }
  }

  @Nested
  @DisplayName("a symbolic link")
  class SymbolicLink {

    @Test
    @DisplayName("to a regular file is refused for reading, and its target is not read")
    void toARegularFileForReading() throws Exception {
      Path link = link("output.log", file("gpuq.mv.db", "secret"));

      refusedAs("a symbolic link", () -> SafeFiles.openForReading(link));
      refusedAs("a symbolic link", () -> SafeFiles.readTail(link, 4096));
      assertThat(SafeFiles.readSmall(link, 4096)).isEmpty();
      assertThat(SafeFiles.readSmallFile(link, 4096)).isEmpty();
    }

    @Test
    @DisplayName("to a regular file is refused for appending, and its target is left alone")
    void toARegularFileForAppending() throws Exception {
      Path target = file("gpuq.mv.db", "secret");
      Path link = link("output.log", target);

      refusedAs("a symbolic link", () -> SafeFiles.openForAppending(link));
      refusedAs("a symbolic link", () -> SafeFiles.appendLine(link, "overwritten"));
      assertThat(target).hasContent("secret");
    }

    @Test
    @DisplayName("to /dev/zero is refused at once rather than read without end")
    void toDevZero() throws Exception {
      Path link = link("metrics.json", Path.of("/dev/zero"));

      assertTimeoutPreemptively(
          HANG,
          () -> {
            refusedAs("a symbolic link", () -> SafeFiles.readTail(link, 4096));
            refusedAs("a symbolic link", () -> SafeFiles.openForReading(link));
            assertThat(SafeFiles.readSmall(link, 4096)).isEmpty();
          });
    }

    @Test
    @DisplayName("dangling, is refused for appending rather than created through")
    void dangling() throws Exception {
      Path target = dir.resolve("created-through-the-link");
      Path link = link("output.log", target);

      refusedAs("a symbolic link", () -> SafeFiles.appendLine(link, "started"));
      assertThat(target).doesNotExist();
    }
  }

  @Nested
  @DisplayName("a device or a directory")
  class DeviceOrDirectory {

    @Test
    @DisplayName("/dev/zero itself is refused as a character device at once")
    void devZero() {
      Path zero = Path.of("/dev/zero");

      assertTimeoutPreemptively(
          HANG,
          () -> {
            refusedAs("a character device", () -> SafeFiles.readTail(zero, 4096));
            assertThat(SafeFiles.readSmall(zero, 4096)).isEmpty();
          });
    }

    @Test
    @DisplayName("a directory is refused for reading")
    void directoryForReading() throws Exception {
      Path sub = Files.createDirectory(dir.resolve("attempt-1.exit"));

      refusedAs("a directory", () -> SafeFiles.openForReading(sub));
      refusedAs("a directory", () -> SafeFiles.readTail(sub, 4096));
      assertThat(SafeFiles.readSmall(sub, 4096)).isEmpty();
    }

    @Test
    @DisplayName("a directory is refused for appending, and left empty")
    void directoryForAppending() throws Exception {
      Path sub = Files.createDirectory(dir.resolve("output.log"));

      // open(2) itself refuses a directory for writing (EISDIR), before any check of the file type.
      assertThatThrownBy(() -> SafeFiles.appendLine(sub, "started"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(sub.toString());
      assertThat(sub).isEmptyDirectory();
    }
  }

  @Nested
  @DisplayName("a missing file")
  class Missing {

    @Test
    @DisplayName("is NoSuchFileException for openForReading and readTail")
    void noSuchFile() {
      Path missing = dir.resolve("attempt-1.exit");

      assertThatThrownBy(() -> SafeFiles.openForReading(missing))
          .isInstanceOf(NoSuchFileException.class)
          .hasMessageContaining(missing.toString());
      assertThatThrownBy(() -> SafeFiles.readTail(missing, 4096))
          .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    @DisplayName("is empty for readSmall")
    void readSmallEmpty() {
      assertThat(SafeFiles.readSmall(dir.resolve("attempt-1.pid"), 64)).isEmpty();
    }
  }

  @Nested
  @DisplayName("a regular file")
  class RegularFile {

    @Test
    @DisplayName("is read whole by readSmall when within its bound")
    void readSmallWithinBound() throws Exception {
      Path pid = file("attempt-1.pid", "12345 678\n");

      assertThat(SafeFiles.readSmall(pid, 10)).contains("12345 678\n");
      assertThat(SafeFiles.readSmall(pid, 64)).contains("12345 678\n");
    }

    @Test
    @DisplayName("is read by readSmallFile with the time it was last written")
    void readSmallFileWithItsTime() throws Exception {
      Path exit = file("attempt-1.exit", "3\n");
      Instant written = Instant.parse("2026-11-29T12:00:00.123456789Z");
      Files.setLastModifiedTime(exit, FileTime.from(written));

      assertThat(SafeFiles.readSmallFile(exit, 64))
          .contains(new SafeFiles.SmallFile("3\n", written));
      assertThat(SafeFiles.readSmallFile(exit, 1)).isEmpty();
      assertThat(SafeFiles.readSmallFile(dir.resolve("missing"), 64)).isEmpty();
    }

    @Test
    @DisplayName("larger than readSmall's bound gives nothing")
    void readSmallBeyondBound() throws Exception {
      Path pid = file("attempt-1.pid", "12345 678\n");

      assertThat(SafeFiles.readSmall(pid, 9)).isEmpty();
    }

    @Test
    @DisplayName("empty, is read by readSmall as empty text")
    void readSmallEmptyFile() throws Exception {
      assertThat(SafeFiles.readSmall(file("attempt-1.exit", ""), 64)).contains("");
    }

    @Test
    @DisplayName("gives exactly its last N bytes to readTail")
    void readTailLastBytes() throws Exception {
      Path log = file("output.log", "line 1\nline 2\nline 3\n");

      assertThat(SafeFiles.readTail(log, 7)).isEqualTo("line 3\n");
      assertThat(SafeFiles.readTail(log, 8)).isEqualTo("\nline 3\n");
      assertThat(SafeFiles.readTail(log, 0)).isEmpty();
    }

    @Test
    @DisplayName("shorter than N is read whole by readTail")
    void readTailShortFile() throws Exception {
      Path log = file("output.log", "only line\n");

      assertThat(SafeFiles.readTail(log, 4096)).isEqualTo("only line\n");
    }

    @Test
    @DisplayName("of a megabyte gives readTail only its tail")
    void readTailOfALargeFile() throws Exception {
      Path log = dir.resolve("output.log");
      Files.write(log, new byte[1 << 20]);
      Files.writeString(log, "the end\n", StandardOpenOption.APPEND);

      assertThat(SafeFiles.readTail(log, 8)).isEqualTo("the end\n");
    }

    @Test
    @DisplayName("can be read through the channel openForReading gives")
    void openForReading() throws Exception {
      Path log = file("output.log", "hello");

      try (FileChannel channel = SafeFiles.openForReading(log)) {
        assertThat(channel.size()).isEqualTo(5);
        assertThat(SafeFiles.read(channel, 1, 3)).isEqualTo("ell");
      }
    }
  }

  @Nested
  @DisplayName("appending lines")
  class AppendingLines {

    private int previousUmask;

    @BeforeEach
    void ordinaryUmask() {
      previousUmask = SafeFiles.umask(0022);
    }

    @AfterEach
    void restoreUmask() {
      SafeFiles.umask(previousUmask);
    }

    @Test
    @DisplayName("creates a missing file as rw------- even under umask 022")
    void createsPrivateFile() throws Exception {
      Path log = dir.resolve("output.log");

      SafeFiles.appendLine(log, "started");

      assertThat(Files.getPosixFilePermissions(log))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(log).hasContent("started\n");
    }

    @Test
    @DisplayName("appends lines in order, each ended by a newline")
    void appendsInOrder() throws Exception {
      Path log = dir.resolve("output.log");

      SafeFiles.appendLine(log, "one");
      SafeFiles.appendLine(log, "two");
      SafeFiles.appendLine(log, "three");

      assertThat(Files.readString(log, UTF_8)).isEqualTo("one\ntwo\nthree\n");
    }

    @Test
    @DisplayName("appends to an existing file without truncating it or changing its mode")
    void appendsToExistingFile() throws Exception {
      Path log = file("output.log", "earlier\n");
      Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-r-----"));

      SafeFiles.appendLine(log, "later");

      assertThat(log).hasContent("earlier\nlater\n");
      assertThat(Files.getPosixFilePermissions(log))
          .isEqualTo(PosixFilePermissions.fromString("rw-r-----"));
    }

    @Test
    @DisplayName("writes text as UTF-8")
    void utf8() throws Exception {
      Path log = dir.resolve("output.log");

      SafeFiles.appendLine(log, "épochs: 3 — λ=0.1");

      assertThat(Files.readString(log, UTF_8)).isEqualTo("épochs: 3 — λ=0.1\n");
      assertThat(SafeFiles.readTail(log, 4096)).isEqualTo("épochs: 3 — λ=0.1\n");
    }
  }
}

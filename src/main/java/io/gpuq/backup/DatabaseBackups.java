package io.gpuq.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Online backups of the embedded H2 database into one directory, each a gzipped copy of the
 * database file ({@code gpuq-20261202T201500Z.mv.db.gz}), the newest {@code keep} kept.
 *
 * <p>H2's {@code BACKUP TO} copies the database consistently while gpuq goes on writing; its zip is
 * unpacked into a gzip so that a restore needs nothing but {@code gunzip}, which every Linux has
 * (the image's JRE has no {@code jar}, and no {@code unzip}). A backup is written under a {@code
 * .partial-} name, flushed to disk, and only then renamed: a crash or a full disk during a backup
 * never leaves a half-written file under a backup's name, nor costs an older backup.
 */
public final class DatabaseBackups {

  /** The file name of every complete backup starts with this, then its UTC time. */
  public static final String PREFIX = "gpuq-";

  /** ... and ends with this. */
  public static final String SUFFIX = ".mv.db.gz";

  static final String PARTIAL = ".partial-";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final OnlineCopy database;
  private final Path directory;
  private final int keep;
  private final Clock clock;

  /**
   * @param database the embedded H2 database, as its online copy
   * @param directory where the backups go; created if missing
   * @param keep how many of the newest backups are kept, at least 1
   */
  public DatabaseBackups(OnlineCopy database, Path directory, int keep, Clock clock) {
    if (keep < 1) {
      throw new IllegalArgumentException("keep at least one backup, not " + keep);
    }
    this.database = database;
    this.directory = directory;
    this.keep = keep;
    this.clock = clock;
  }

  public Path directory() {
    return directory;
  }

  /** Writes a new backup, then deletes all but the newest {@code keep}; returns the new one. */
  public Path backUp() {
    try {
      Files.createDirectories(directory);
      deletePartials();
      String stamp = STAMP.format(clock.instant());
      Path zip = directory.resolve(PARTIAL + stamp + ".zip");
      Path partial = directory.resolve(PARTIAL + stamp + SUFFIX);
      try {
        database.copyTo(zip);
        gzipDatabaseFile(zip, partial);
        Path done = directory.resolve(PREFIX + stamp + SUFFIX);
        Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory();
        deleteOlderThanNewest(keep);
        return done;
      } finally {
        Files.deleteIfExists(zip);
        Files.deleteIfExists(partial);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("backing up the database into " + directory + " failed", e);
    }
  }

  /** The complete backups, newest first. */
  public List<Path> backups() {
    return list(directory);
  }

  /** The newest complete backup in {@code directory}, if any. */
  public static Optional<Path> latest(Path directory) {
    return list(directory).stream().findFirst();
  }

  private static List<Path> list(Path directory) {
    List<Path> found = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*" + SUFFIX)) {
      files.forEach(found::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the backups in " + directory, e);
    }
    // The names carry the time in a fixed width: by name is by time.
    found.sort(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed());
    return found;
  }

  /** The database file out of H2's zip into a gzip, flushed to disk before it is renamed. */
  private static void gzipDatabaseFile(Path zip, Path gzip) throws IOException {
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
      for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
        if (entry.getName().endsWith(".mv.db")) {
          try (FileChannel channel =
                  FileChannel.open(gzip, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
              FastGzip out = new FastGzip(Channels.newOutputStream(channel))) {
            copy(in, out);
            out.finish();
            channel.force(true);
          }
          return;
        }
      }
    }
    throw new IOException("H2's backup " + zip + " holds no database file");
  }

  private static void copy(InputStream in, OutputStream out) throws IOException {
    byte[] buffer = new byte[1 << 16];
    for (int n; (n = in.read(buffer)) > 0; ) {
      out.write(buffer, 0, n);
    }
  }

  private void deletePartials() throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PARTIAL + "*")) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
    }
  }

  private void deleteOlderThanNewest(int kept) throws IOException {
    List<Path> all = backups();
    for (Path old : all.subList(Math.min(kept, all.size()), all.size())) {
      Files.deleteIfExists(old);
    }
  }

  /** The rename itself reaches the disk before an older backup is deleted. */
  private void syncDirectory() {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException e) {
      // Not every file system can sync a directory; the backup is written all the same.
    }
  }

  /**
   * Gzip at the fastest level: a backup of a large database runs every interval on a node whose
   * cores are the training runs', and the database's pages compress well at any level.
   */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }
}

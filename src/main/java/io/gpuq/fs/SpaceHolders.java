package io.gpuq.fs;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What holds the space of a data directory: each job's files ({@code jobs/<id>/} and {@code
 * work/<id>/} together), and each other entry at its top (the database, its backups), largest
 * first. Measured only when the directory runs short, by walking it without following links; the
 * sizes are the files' lengths, which a sparse file overstates.
 */
public final class SpaceHolders {

  /**
   * One holder.
   *
   * @param jobId the job whose files these are; null for gpuq's own
   * @param path its largest directory, or the entry at the top
   * @param bytes the length of its files, all together
   */
  public record Holder(String jobId, Path path, long bytes) {}

  private SpaceHolders() {}

  /** The {@code limit} largest holders, largest first. */
  public static List<Holder> largest(DataDirectory layout, int limit) {
    Map<String, Holder> jobs = new HashMap<>();
    List<Holder> holders = new ArrayList<>();
    Path jobsDir = layout.jobs();
    Path workDir = layout.work();
    for (Path entry : entries(layout.root())) {
      if (entry.equals(jobsDir) || entry.equals(workDir)) {
        for (Path jobDir : entries(entry)) {
          long bytes = bytesUnder(jobDir);
          jobs.merge(
              jobDir.getFileName().toString(),
              new Holder(jobDir.getFileName().toString(), jobDir, bytes),
              (a, b) ->
                  new Holder(
                      a.jobId(),
                      a.bytes() >= b.bytes() ? a.path() : b.path(),
                      a.bytes() + b.bytes()));
        }
      } else {
        holders.add(new Holder(null, entry, bytesUnder(entry)));
      }
    }
    holders.addAll(jobs.values());
    holders.sort(Comparator.comparingLong(Holder::bytes).reversed());
    return List.copyOf(holders.subList(0, Math.min(limit, holders.size())));
  }

  private static List<Path> entries(Path dir) {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      stream.forEach(entries::add);
    } catch (IOException e) {
      // Gone, or unreadable: it holds nothing this can name.
    }
    return entries;
  }

  private static long bytesUnder(Path path) {
    return bytesUnder(path, Long.MAX_VALUE);
  }

  /**
   * The length of the files under {@code path}, walked without following links; the walk ends as
   * soon as the total passes {@code stopPast}, so that measuring a tree against a cap costs at most
   * what lies under the cap.
   */
  public static long bytesUnder(Path path, long stopPast) {
    long[] total = {0};
    try {
      if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
            .size();
      }
      // walkFileTree follows no link unless told to.
      Files.walkFileTree(
          path,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (attrs.isRegularFile()) {
                total[0] += attrs.size();
              }
              return total[0] > stopPast ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              // Removed meanwhile, or closed to gpuq: counted as nothing.
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      // What was counted before the failure.
    }
    return total[0];
  }
}

package io.gpuq.retention;

import io.gpuq.fs.DataDirectory;
import io.gpuq.fs.TreeDeletion;
import io.gpuq.job.JobIds;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * This node's directories of jobs: {@code jobs/<id>/} (log, exit and process files) and {@code
 * work/<id>/} (the job's scratch space, which its account owned). A job's directories live on the
 * node that ran it, so each node deletes its own.
 */
public final class JobDirectories {

  private final DataDirectory layout;

  public JobDirectories(DataDirectory layout) {
    this.layout = layout;
  }

  /**
   * Deletes both directories of a job, never following a link the job left in them.
   *
   * @return whether either existed here
   */
  public boolean delete(String jobId) throws IOException {
    boolean found = TreeDeletion.deleteTree(layout.jobs().resolve(jobId));
    return TreeDeletion.deleteTree(layout.work().resolve(jobId)) || found;
  }

  /**
   * Deletes a job's work directory only, never following a link the job left in it.
   *
   * @return whether it existed here
   */
  public boolean deleteWorkDirectory(String jobId) throws IOException {
    return TreeDeletion.deleteTree(layout.work().resolve(jobId));
  }

  /**
   * The ids of the jobs that have a directory here and were created before {@code cutoff} (read
   * from the id, a ULID): a job that finished before the cutoff was created before it, and a
   * younger directory is never a candidate, whatever the database says.
   */
  public Set<String> createdBefore(Instant cutoff) throws IOException {
    Set<String> ids = new TreeSet<>();
    for (Path parent : List.of(layout.jobs(), layout.work())) {
      try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent)) {
        for (Path entry : entries) {
          String name = entry.getFileName().toString();
          JobIds.creationTime(name)
              .filter(created -> created.isBefore(cutoff))
              .ifPresent(created -> ids.add(name));
        }
      } catch (NoSuchFileException e) {
        // Not made yet: nothing ran here.
      }
    }
    return ids;
  }
}

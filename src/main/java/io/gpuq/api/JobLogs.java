package io.gpuq.api;

import io.gpuq.fs.SafeFiles;
import io.gpuq.job.Caller;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LogCursor;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Streams a job's log: all of it or its last lines, and with {@code follow} the lines that come
 * until the job has ended and its log is read to the end ({@link LogFollowers}). The log is opened
 * the safe way ({@link SafeFiles}) each time: a job sharing gpuq's account could replace it with a
 * FIFO or a link.
 */
public class JobLogs {

  private static final int BUFFER = 64 * 1024;

  private final JobFiles files;
  private final LogFollowers followers;

  public JobLogs(JobFiles files, LogFollowers followers) {
    this.files = files;
    this.followers = followers;
  }

  /**
   * Fails before anything is streamed when the log is there but is no regular file.
   *
   * @throws io.gpuq.fs.NotARegularFileException then
   */
  public void checkReadable(String id) throws IOException {
    try (FileChannel ignored = SafeFiles.openForReading(files.log(id))) {
      // readable
    } catch (NoSuchFileException e) {
      // nothing written yet: an empty log
    }
  }

  /**
   * What the log holds now, all of it or its last {@code tail} lines; what is written meanwhile
   * waits for another request. Read in chunks, each under the log's lock, so that a cut of its
   * middle while this is sent neither repeats nor skips what was kept ({@link LogCursor}).
   */
  public StreamingResponseBody stream(String id, Integer tail) {
    Path log = files.log(id);
    return out -> {
      LogCursor cursor = LogCursor.at(log, tail);
      long end = cursor.outputEnd();
      while (cursor.outputPosition() < end) {
        byte[] bytes = cursor.read((int) Math.min(BUFFER, end - cursor.outputPosition()));
        if (bytes.length == 0) {
          break;
        }
        out.write(bytes);
      }
    };
  }

  /**
   * Answers with the log (all of it or its last {@code tail} lines) and then each new line as it
   * comes, until the job has ended, without holding the request's thread. For a job that has not
   * ended yet: one that has is served by {@link #stream}, which then sends all there is.
   *
   * @throws TooManyLogFollowersException when the caller already follows as many logs as it may
   */
  public void follow(
      Caller caller,
      String id,
      Integer tail,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    LogCursor cursor = LogCursor.at(files.log(id), tail);
    response.setStatus(HttpServletResponse.SC_OK);
    response.setContentType("text/plain;charset=UTF-8");
    response.setHeader("X-Content-Type-Options", "nosniff");
    // Tells nginx, often in front of gpuq, to pass each line on instead of buffering the answer.
    response.setHeader("X-Accel-Buffering", "no");
    followers.follow(caller, id, cursor, request, response);
  }
}

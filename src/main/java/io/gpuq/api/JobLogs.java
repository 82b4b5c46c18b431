package io.gpuq.api;

import io.gpuq.fs.SafeFiles;
import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LogFiles;
import io.gpuq.security.Caller;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Streams a job's log: all of it or its last lines, and with {@code follow} the lines that come
 * until the job has ended and its log is read to the end. The log is opened the safe way ({@link
 * SafeFiles}) each time: a job sharing gpuq's account could replace it with a FIFO or a link.
 */
public class JobLogs {

  private static final int BUFFER = 64 * 1024;

  private final JobService jobs;
  private final JobFiles files;
  private final Duration followPoll;

  public JobLogs(JobService jobs, JobFiles files, Duration followPoll) {
    this.jobs = jobs;
    this.files = files;
    this.followPoll = followPoll;
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

  public StreamingResponseBody stream(Caller caller, String id, Integer tail, boolean follow) {
    Path log = files.log(id);
    return out -> {
      long offset = tail == null ? 0 : offsetOfLastLines(log, tail);
      offset = copyFrom(log, offset, out);
      if (!follow) {
        return;
      }
      while (true) {
        // Read the state before the file: whatever was written before the job ended is then
        // certain to be copied by the last round.
        boolean ended = jobs.get(caller, id).state().isTerminal();
        offset = copyFrom(log, offset, out);
        out.flush();
        if (ended) {
          return;
        }
        sleep();
      }
    };
  }

  private static long offsetOfLastLines(Path log, int lines) throws IOException {
    try (FileChannel file = SafeFiles.openForReading(log)) {
      return LogFiles.offsetOfLastLines(file, lines);
    } catch (NoSuchFileException e) {
      return 0;
    }
  }

  /** Copies what the log holds past {@code offset} now; a log that grows meanwhile waits. */
  private static long copyFrom(Path log, long offset, OutputStream out) throws IOException {
    try (FileChannel file = SafeFiles.openForReading(log)) {
      long end = file.size();
      ByteBuffer buffer = ByteBuffer.allocate(BUFFER);
      while (offset < end) {
        buffer.clear().limit((int) Math.min(BUFFER, end - offset));
        int n = file.read(buffer, offset);
        if (n <= 0) {
          break;
        }
        out.write(buffer.array(), 0, n);
        offset += n;
      }
      return offset;
    } catch (NoSuchFileException e) {
      return offset;
    }
  }

  private void sleep() throws IOException {
    try {
      Thread.sleep(followPoll.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while following the log", e);
    }
  }
}

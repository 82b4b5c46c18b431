package io.gpuq.api;

import io.gpuq.job.JobService;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LogFiles;
import io.gpuq.security.Caller;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * Streams a job's log: all of it or its last lines, and with {@code follow} the lines that come
 * until the job has ended and its log is read to the end.
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

  public StreamingResponseBody stream(Caller caller, String id, Integer tail, boolean follow) {
    Path log = files.log(id);
    return out -> {
      long offset = tail == null ? 0 : LogFiles.offsetOfLastLines(log, tail);
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

  private static long copyFrom(Path log, long offset, OutputStream out) throws IOException {
    if (!Files.exists(log)) {
      return offset;
    }
    try (RandomAccessFile raf = new RandomAccessFile(log.toFile(), "r")) {
      raf.seek(offset);
      byte[] buffer = new byte[BUFFER];
      int n;
      while ((n = raf.read(buffer)) > 0) {
        out.write(buffer, 0, n);
        offset += n;
      }
    }
    return offset;
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

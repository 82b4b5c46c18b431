package io.gpuq.guard;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.fs.SpaceHolders;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import io.gpuq.text.MemorySize;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps what each running job writes into its work directory in the data directory ({@code
 * work/<id>/}: its working directory unless it names one, its {@code TMPDIR}, its metrics file)
 * under {@code gpuq.worker.max-work-size}: a job past it is stopped and fails {@code
 * OVER_WORK_SIZE}, so that one job cannot fill the disk every job and gpuq's database share. Its
 * log has a cap of its own ({@code gpuq.worker.max-log-size}) and is never counted here.
 *
 * <p>Measured by walking the directory without following links, as {@link SpaceHolders} does, and
 * the walk ends once it passes the cap: a run costs at most what the jobs may hold. Between two
 * runs a job can write past the cap by what it writes in one interval; the data directory's {@code
 * gpuq.storage.min-free} is the room for that.
 */
public final class WorkSizeGuard extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(WorkSizeGuard.class);

  private final Workers workers;
  private final JobFiles files;
  private final long maxBytes;

  /**
   * @param maxBytes the cap on each job's work directory, at least 1
   */
  public WorkSizeGuard(Workers workers, JobFiles files, long maxBytes, Duration interval) {
    super("work-size", interval);
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("no cap: " + maxBytes);
    }
    this.workers = workers;
    this.files = files;
    this.maxBytes = maxBytes;
  }

  @Override
  public void runOnce() {
    for (RunningWorker worker : workers.live()) {
      if (worker.stopReason() != null) {
        continue;
      }
      try {
        long bytes = SpaceHolders.bytesUnder(files.workDir(worker.jobId()), maxBytes);
        if (bytes > maxBytes && workers.stop(worker, StopReason.OVER_WORK_SIZE, words(bytes))) {
          log.warn(
              "job {} wrote more than gpuq.worker.max-work-size ({}) into {}: stopped",
              worker.jobId(),
              MemorySize.format(maxBytes),
              files.workDir(worker.jobId()));
        }
      } catch (RuntimeException e) {
        // One job's directory must not keep the others unmeasured.
        log.warn("cannot measure the work directory of job {}: {}", worker.jobId(), e.toString());
      }
    }
  }

  private String words(long bytes) {
    return "it wrote more than max-work-size ("
        + MemorySize.format(maxBytes)
        + ") into its work directory ("
        + MemorySize.format(bytes)
        + " or more); a job that writes more names a workingDir of its own";
  }
}

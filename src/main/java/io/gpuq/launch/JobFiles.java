package io.gpuq.launch;

import io.gpuq.fs.DataDirectory;
import io.gpuq.launch.env.WorkerEnvironment;
import java.nio.file.Path;

/**
 * Where a job's files live under the data directory ({@link DataDirectory}): what gpuq reads back
 * under {@code jobs/<id>/}, where no job can reach it; what the job may write under {@code
 * work/<id>/}, owned by the job's account.
 */
public record JobFiles(Path dataDir) {

  public JobFiles {
    dataDir = dataDir.toAbsolutePath().normalize();
  }

  public DataDirectory layout() {
    return new DataDirectory(dataDir);
  }

  /** gpuq's own files of the job: log, exit and process files. */
  public Path jobDir(String jobId) {
    return layout().jobs().resolve(jobId);
  }

  /** stdout and stderr of every attempt, appended in order. */
  public Path log(String jobId) {
    return jobDir(jobId).resolve("output.log");
  }

  /** The job's own directory: its working directory unless it names one, owned by its account. */
  public Path workDir(String jobId) {
    return layout().work().resolve(jobId);
  }

  /** The worker's {@code TMPDIR}, inside its work directory. */
  public Path tmpDir(String jobId) {
    return workDir(jobId).resolve("tmp");
  }

  /**
   * The run's metrics ({@code GPUQ_METRICS_FILE}), in its work directory: the job's account appends
   * to it (creating it on its first report), gpuq reads it the safe way, as the job may have
   * replaced it by anything.
   */
  public Path metricsFile(String jobId) {
    return workDir(jobId).resolve(WorkerEnvironment.METRICS_FILE_NAME);
  }

  /**
   * The metrics file of the attempts before {@code attempt} that ran on this node, moved aside when
   * {@code attempt} starts here so that its own file starts empty.
   */
  public Path earlierMetricsFile(String jobId, int attempt) {
    return workDir(jobId).resolve("metrics-before-attempt-" + attempt + ".jsonl");
  }

  /** Written by the worker wrapper when the attempt's command exits, even if gpuq is down. */
  public Path exitFile(String jobId, int attempt) {
    return jobDir(jobId).resolve("attempt-" + attempt + ".exit");
  }

  /**
   * Written by gpuq as soon as the attempt's worker is spawned: its PID and kernel start time, on
   * disk before they reach the database, for a gpuq that dies in between.
   */
  public Path processFile(String jobId, int attempt) {
    return jobDir(jobId).resolve("attempt-" + attempt + ".pid");
  }

  public Path binDir() {
    return layout().bin();
  }
}

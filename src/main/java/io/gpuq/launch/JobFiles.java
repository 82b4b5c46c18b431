package io.gpuq.launch;

import java.nio.file.Path;

/** Where a job's files live under the data directory: {@code jobs/<id>/}. */
public record JobFiles(Path dataDir) {

  public Path jobDir(String jobId) {
    return dataDir.resolve("jobs").resolve(jobId);
  }

  /** stdout and stderr of every attempt, appended in order. */
  public Path log(String jobId) {
    return jobDir(jobId).resolve("output.log");
  }

  public Path tmpDir(String jobId) {
    return jobDir(jobId).resolve("tmp");
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
    return dataDir.resolve("bin");
  }
}

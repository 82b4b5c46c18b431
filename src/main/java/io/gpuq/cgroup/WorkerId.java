package io.gpuq.cgroup;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Names a worker's cgroup: one attempt of one job, as {@code <jobId>@<attempt>}. Job ids hold no
 * {@code @}, so a directory name reads back unambiguously, and nothing else below gpuq's parent
 * group reads as a worker.
 */
public record WorkerId(String jobId, int attempt) {

  private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,200}");

  public WorkerId {
    if (!JOB_ID.matcher(jobId).matches()) {
      throw new IllegalArgumentException("job id '" + jobId + "' cannot name a cgroup");
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt " + attempt + " is below 1");
    }
  }

  public String directoryName() {
    return jobId + "@" + attempt;
  }

  /** The worker a directory below gpuq's parent group is for; empty for any other name. */
  public static Optional<WorkerId> ofDirectoryName(String name) {
    int at = name.lastIndexOf('@');
    if (at <= 0) {
      return Optional.empty();
    }
    String job = name.substring(0, at);
    String attempt = name.substring(at + 1);
    if (!JOB_ID.matcher(job).matches() || !attempt.matches("[1-9][0-9]{0,8}")) {
      return Optional.empty();
    }
    return Optional.of(new WorkerId(job, Integer.parseInt(attempt)));
  }

  @Override
  public String toString() {
    return directoryName();
  }
}

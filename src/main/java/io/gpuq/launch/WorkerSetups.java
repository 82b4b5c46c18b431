package io.gpuq.launch;

import io.gpuq.isolation.Account;
import io.gpuq.isolation.Isolation;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.env.WorkerEnvironment;
import io.gpuq.launch.env.WorkerSpec;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Decides each claimed job's launch ({@link LaunchRequest}): who its worker runs as, and its
 * environment (gpuq's own minus its secrets, the job's, then gpuq's rules).
 *
 * @param gpuqEnvironment gpuq's own environment, which a worker inherits less its secrets
 */
public record WorkerSetups(
    WorkerEnvironment environment,
    JobFiles files,
    Isolation isolation,
    Map<String, String> gpuqEnvironment)
    implements BiFunction<ClaimedJob, JobPlacement, LaunchRequest> {

  @Override
  public LaunchRequest apply(ClaimedJob job, JobPlacement placement) {
    Account account = isolation.accountOf(job.owner());
    WorkerSpec spec =
        new WorkerSpec(
            job.id(),
            job.framework(),
            placement.gpus(),
            files.workDir(job.id()),
            account,
            // A fraction's runtimes get a thread for each core it may touch: 0.25 runs one.
            Math.toIntExact(job.host().cpus().wholeCoresUp()),
            job.attempt());
    return LaunchRequest.of(
        job,
        placement,
        isolation.needsSwitch(account) ? account : null,
        environment.environment(spec, gpuqEnvironment, job.env(), job.trial()),
        environment.directoriesToCreate(spec));
  }
}

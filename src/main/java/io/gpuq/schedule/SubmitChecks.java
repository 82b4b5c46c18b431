package io.gpuq.schedule;

import io.gpuq.fs.StorageGuard;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobSpec;
import io.gpuq.job.SubmitAdmission;

/**
 * What a submission passes before anything of it is stored: the request is validated, there must be
 * room to store it, and its job must be one this cluster could ever run, under its owner's limits.
 */
public record SubmitChecks(
    JobRequestValidator validator, StorageGuard storage, SubmitAdmission admission) {

  /** The job a request describes, once it passed every check; {@code owner}'s limits count. */
  JobSpec check(String owner, JobRequest request) {
    JobSpec spec = validator.validate(request);
    // Before anything reads the database, which a full disk may have closed.
    storage.requireRoom();
    admission.check(owner, spec);
    return spec;
  }
}

package io.gpuq.schedule;

import io.gpuq.fs.StorageGuard;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobSpec;
import io.gpuq.job.SubmitAdmission;

/**
 * What a submission passes before anything of it is stored: the request is validated, there must be
 * room to store it, and its job must be one this cluster could ever run.
 */
public record SubmitChecks(
    JobRequestValidator validator, StorageGuard storage, SubmitAdmission admission) {

  /** The job a request describes, once it passed every check. */
  JobSpec check(JobRequest request) {
    JobSpec spec = validator.validate(request);
    // Before anything reads the database, which a full disk may have closed.
    storage.requireRoom();
    admission.check(spec);
    return spec;
  }
}

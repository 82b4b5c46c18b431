package io.gpuq.ship;

import java.util.List;

/**
 * What gpuq's container is allowed beyond an unprivileged process, the same in the Dockerfile's run
 * command, both compose files and the Helm chart (docs/deploy.md, "Privileges"): root, with every
 * capability dropped but the five it needs to run each job as another account.
 */
final class Privileges {

  private Privileges() {}

  /**
   * CHOWN gives a job's work directory to the job's account; DAC_OVERRIDE reads and deletes inside
   * job-owned 0700 directories; KILL signals workers running as other uids; SETUID and SETGID let
   * the worker wrapper's setpriv drop the user's program to the job's account.
   */
  static final List<String> CAPABILITIES =
      List.of("CHOWN", "DAC_OVERRIDE", "KILL", "SETUID", "SETGID");

  /** The unprivileged account the image creates for jobs (GPUQ_WORKER_RUN_AS). */
  static final String JOB_ACCOUNT = "gpuq-job";

  static final int JOB_UID = 10002;
}

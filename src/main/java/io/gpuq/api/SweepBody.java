package io.gpuq.api;

import io.gpuq.job.JobRequest;
import io.gpuq.sweep.SweepRequest;
import io.gpuq.sweep.SweepRequest.EarlyStoppingRequest;
import io.gpuq.sweep.SweepRequest.MetricRequest;
import io.gpuq.sweep.SweepRequest.ParameterRequest;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code POST /api/v1/sweeps} as sent: every job field (the trials' template) and the
 * sweep's own fields, side by side at the top level, read as strictly as a job's body.
 */
@Schema(name = "SweepRequest")
public record SweepBody(
    String name,
    @Schema(description = "argv; {name} placeholders are replaced by each trial's parameters")
        List<String> command,
    String workingDir,
    Map<String, String> env,
    String framework,
    JobRequest.Resources resources,
    Integer priority,
    String timeout,
    JobRequest.Retry retry,
    Map<String, String> labels,
    Map<String, String> nodeSelector,
    @Schema(description = "new (issue 36): modules each trial's warm start imports once")
        List<String> preload,
    @Schema(
            description =
                "per name: {\"values\": [...]} or {\"min\", \"max\", \"scale\", \"type\"}")
        Map<String, ParameterRequest> parameters,
    @Schema(description = "grid, random or external") String method,
    @Schema(description = "method random: how many trials to sample") Integer trials,
    @Schema(description = "method random: the seed that makes the samples reproducible") Long seed,
    MetricRequest metric,
    Integer maxConcurrent,
    EarlyStoppingRequest earlyStopping,
    @Schema(
            description =
                "new (issue 37): what every trial waits for, as a job's dependsOn; the trials"
                    + " stay QUEUED and held until it is met")
        List<JobRequest.DependsOn> dependsOn,
    @Schema(description = "new (issue 35): whether its trials may be preempted")
        Boolean preemptible,
    @Schema(description = "new (issue 35): ISO-8601, signal to SIGKILL") String preemptGrace,
    @Schema(description = "new (issue 35): TERM, USR1, USR2 or INT") String preemptSignal,
    @Schema(description = "new (issue 35): a signal that long before the timeout")
        JobRequest.TimeoutSignalRequest timeoutSignal,
    @Schema(
            description =
                "new (issue 37): where the sweep's end (DONE) is POSTed; its trials send none")
        @com.fasterxml.jackson.annotation.JsonProperty("notify")
        List<JobRequest.Notify> notifications) {

  JobRequest template() {
    return new JobRequest(
        name,
        command,
        workingDir,
        env,
        framework,
        resources,
        priority,
        timeout,
        retry,
        labels,
        nodeSelector,
        preload,
        dependsOn,
        preemptible,
        preemptGrace,
        preemptSignal,
        timeoutSignal,
        // Where the sweep's end is POSTed; its trials send none.
        null);
  }

  SweepRequest sweep() {
    return new SweepRequest(parameters, method, trials, seed, metric, maxConcurrent, earlyStopping);
  }
}

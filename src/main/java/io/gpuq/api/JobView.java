package io.gpuq.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.gpuq.job.BoundCores;
import io.gpuq.job.FailureReason;
import io.gpuq.job.Job;
import io.gpuq.job.JobAttempt;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;
import io.gpuq.reported.ReportedMetrics;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A job as the API shows it (see API.md, "The job"). The environment is never shown back; a listing
 * shows each job within bounds ({@link #listed}).
 */
@Schema(name = "Job")
public record JobView(
    String id,
    String name,
    String owner,
    JobState state,
    @Schema(
            description =
                "while QUEUED, why it waits, in words and numbers, from what this node's last"
                    + " scheduling pass saw; null otherwise")
        String queuedReason,
    @Schema(
            description =
                "why it failed, when FAILED; HOST_OUT_OF_MEMORY (new): the kernel killed it at its"
                    + " host memory cap, resources.memory")
        FailureReason failureReason,
    @Schema(description = "what went wrong, in words, when FAILED") String failureMessage,
    Integer exitCode,
    int attempt,
    List<String> command,
    String workingDir,
    String framework,
    @Schema(description = "the resources as submitted") ResourcesView resources,
    @Schema(
            description =
                "the resources the running or next attempt gets: as submitted, with the budget"
                    + " grown by retry.oomGrowth after each attempt that failed for lack of GPU"
                    + " memory, and the host memory after each HOST_OUT_OF_MEMORY")
        ResourcesView effectiveResources,
    int priority,
    @Schema(description = "ISO-8601 duration, or null", example = "PT2H") String timeout,
    RetryView retry,
    Map<String, String> labels,
    @Schema(description = "labels a node must carry to run it") Map<String, String> nodeSelector,
    @Schema(description = "where it runs; null while queued") JobPlacement placement,
    Long peakGpuMemoryBytes,
    Instant createdAt,
    Instant startedAt,
    Instant finishedAt,
    @Schema(description = "every attempt so far, oldest first") List<AttemptView> attempts,
    @Schema(description = "the id of the sweep it is a trial of; absent for a job of its own")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        String sweep,
    @Schema(description = "its trial number in the sweep, from 0; absent for a job of its own")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        Integer trial,
    @Schema(
            type = "object",
            description = "the trial's parameters, by name; absent for a job of its own")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        @JsonRawValue
        String parameters,
    @Schema(
            description =
                "what the run reported through GPUQ_METRICS_FILE; null when it reported nothing")
        MetricsView metrics,
    @Schema(description = "new (issue 35): whether gpuq may preempt it for fair share")
        boolean preemptible,
    @Schema(description = "new (issue 35): ISO-8601, from its preemption signal to SIGKILL")
        String preemptGrace,
    @Schema(description = "new (issue 35): TERM, USR1, USR2 or INT") String preemptSignal,
    @Schema(description = "new (issue 35): the warning before its timeout; absent for none")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        TimeoutSignalView timeoutSignal,
    @Schema(description = "new (issue 35): its attempts that ended PREEMPTED") int requeues,
    @Schema(
            description =
                "new (issue 37): what it waits for, each a job or a sweep and a condition;"
                    + " absent when it waits for nothing")
        @JsonInclude(JsonInclude.Include.NON_EMPTY)
        List<DependencyView> dependsOn,
    @Schema(
            description =
                "new (issue 37): true while it is QUEUED but waits for a dependency: no"
                    + " scheduling pass reads it; absent otherwise")
        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        boolean held,
    @Schema(
            description =
                "new (issue 34): in a listing, the fields cut to its bounds (command,"
                    + " workingDir, labels, nodeSelector, attempts); absent when none was, and"
                    + " in the job's own answer, which has them whole")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        List<String> truncated,
    @Schema(
            description =
                "new (issue 36): the modules its warm start imports once; absent for a cold start")
        @JsonInclude(JsonInclude.Include.NON_NULL)
        List<String> preload) {

  /** One dependency (issue 37): a job or a sweep, and the condition it must end in. */
  @Schema(name = "JobDependency")
  public record DependencyView(
      @JsonInclude(JsonInclude.Include.NON_NULL) String job,
      @JsonInclude(JsonInclude.Include.NON_NULL) String sweep,
      @Schema(description = "afterok, afternotok or afterany") String condition) {

    static DependencyView of(io.gpuq.job.Dependency dependency) {
      return new DependencyView(
          dependency.job(), dependency.sweep(), dependency.condition().wireName());
    }
  }

  /**
   * The latest value of each metric and their step; for a sweep's trial, the best value of the
   * sweep's metric ({@code null} until reported). NaN and infinite values are null.
   */
  @Schema(name = "JobMetrics")
  public record MetricsView(
      Map<String, Double> latest,
      Long step,
      @JsonInclude(JsonInclude.Include.NON_NULL)
          @Schema(description = "for a sweep's trial: {\"<metric>\": best value}")
          Map<String, Double> best) {

    static MetricsView of(ReportedMetrics metrics) {
      Map<String, Double> best = null;
      if (metrics.metric() != null) {
        best = new java.util.LinkedHashMap<>();
        best.put(metrics.metric(), metrics.best());
      }
      return new MetricsView(metrics.latest(), metrics.step(), best);
    }
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "Resources")
  public record ResourcesView(
      int gpus,
      Long gpuMemory,
      Double gpuFraction,
      @Schema(
              description =
                  "cores: a whole number (cores of its own) or a fraction in thousandths such as"
                      + " 0.25 (a share of a pool of cores)",
              type = "number",
              example = "0.25")
          Number cpus,
      @Schema(description = "host memory in bytes, reserved and capped; absent for none")
          Long memory) {}

  @Schema(name = "TimeoutSignal")
  public record TimeoutSignalView(String signal, String before) {}

  @Schema(name = "Retry")
  public record RetryView(int maxAttempts, double oomGrowth) {}

  @Schema(name = "Attempt")
  public record AttemptView(
      int attempt,
      String node,
      JobPlacement placement,
      long budgetBytes,
      Long pid,
      @Schema(
              description =
                  "the cores its worker was given (cpus, a CPU list such as \"2-3\") and how it"
                      + " is held to them (boundBy: cgroup, or affinity where gpuq cannot make"
                      + " cgroups); absent when it was bound to none, or before its worker ran")
          BoundCores cores,
      Instant startedAt,
      Instant finishedAt,
      JobState outcome,
      FailureReason failureReason,
      String failureMessage,
      Integer exitCode,
      Long peakGpuMemoryBytes,
      @Schema(
              description =
                  "(issue 35) the waiting job a fair-share preemption of this attempt served;"
                      + " shown to admins only (its owner reads \"another owner's job\" in"
                      + " failureMessage), null otherwise")
          String preemptedFor) {

    static AttemptView of(JobAttempt a) {
      return of(a, false);
    }

    static AttemptView of(JobAttempt a, boolean admin) {
      return new AttemptView(
          a.attempt(),
          a.node(),
          a.placement(),
          a.budgetBytes(),
          a.pid(),
          a.cores(),
          a.startedAt(),
          a.finishedAt(),
          a.outcome(),
          a.failureReason(),
          a.failureMessage(),
          a.exitCode(),
          a.peakGpuMemoryBytes(),
          admin ? a.preemptedFor() : null);
    }
  }

  public static JobView of(Job job) {
    return of(job, null);
  }

  public static JobView of(Job job, String queuedReason) {
    return view(job, queuedReason, false, false);
  }

  /** The job as an admin sees it: with the job each preempted attempt served (issue 35). */
  public static JobView forAdmin(Job job, String queuedReason) {
    return view(job, queuedReason, false, true);
  }

  /**
   * The job as a listing shows it: bounded ({@link ListedJob}), with the fields it cut named in
   * {@code truncated}.
   */
  public static JobView listed(Job job, String queuedReason) {
    return view(job, queuedReason, true, false);
  }

  private static JobView view(Job job, String queuedReason, boolean listed, boolean admin) {
    Optional<SweepTrial> trial = job.sweepTrial();
    List<String> truncated = new ArrayList<>();
    List<AttemptView> attempts =
        job.attempts().stream().map(a -> AttemptView.of(a, admin)).toList();
    return new JobView(
        job.id(),
        job.name(),
        job.owner(),
        job.state(),
        queuedReason,
        job.failureReason(),
        job.failureMessage(),
        job.exitCode(),
        job.attempt(),
        listed ? ListedJob.command(job.command(), truncated) : job.command(),
        listed ? ListedJob.workingDir(job.workingDir(), truncated) : job.workingDir(),
        job.framework().wireName(),
        new ResourcesView(
            job.gpus(),
            job.requestedGpuMemoryBytes(),
            job.requestedGpuFraction(),
            job.host().cpus().number(),
            job.requestedMemoryBytes()),
        new ResourcesView(
            job.gpus(),
            job.gpuMemoryBytes(),
            job.gpuFraction(),
            job.host().cpus().number(),
            job.host().memoryBytes()),
        job.priority(),
        job.timeout() == null ? null : job.timeout().toString(),
        new RetryView(job.maxAttempts(), job.oomGrowth()),
        listed ? ListedJob.labels("labels", job.labels(), truncated) : new TreeMap<>(job.labels()),
        listed
            ? ListedJob.labels("nodeSelector", job.nodeSelector(), truncated)
            : new TreeMap<>(job.nodeSelector()),
        job.placement(),
        job.peakGpuMemoryBytes(),
        job.createdAt(),
        job.startedAt(),
        job.finishedAt(),
        listed ? ListedJob.attempts(attempts, truncated) : attempts,
        trial.map(SweepTrial::sweepId).orElse(null),
        trial.map(SweepTrial::number).orElse(null),
        trial.map(SweepTrial::parametersJson).orElse(null),
        job.reportedMetrics().map(MetricsView::of).orElse(null),
        job.preemption().preemptible(),
        job.preemption().grace().toString(),
        job.preemption().signal().name(),
        job.timeoutSignal()
            .map(t -> new TimeoutSignalView(t.signal().name(), t.before().toString()))
            .orElse(null),
        job.requeues(),
        job.dependsOn().stream().map(DependencyView::of).toList(),
        job.held() && job.state() == io.gpuq.job.JobState.QUEUED,
        truncated.isEmpty() ? null : List.copyOf(truncated),
        job.preload().isEmpty() ? null : job.preload());
  }
}

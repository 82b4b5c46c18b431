package io.gpuq.api;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Held;
import io.gpuq.job.Caller;
import io.gpuq.schedule.OwnersReport;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;

/** {@code GET /api/v1/owners} (docs/api.md, "Owners"). */
@Schema(name = "Owners")
public record OwnersView(
    @Schema(description = "when the figures were read") Instant at,
    @Schema(description = "lowest position first, then by name; to a submitter only their own row")
        List<Owner> owners,
    @Schema(description = "the sums over every owner, and the cluster's capacity") Totals totals) {

  /**
   * The report as the caller may see it: an admin every owner, a submitter their own row only (no
   * other owner's name or figures) and the totals, which name no one.
   */
  public static OwnersView of(OwnersReport report, Caller caller) {
    List<Owner> owners =
        report.owners().stream()
            .filter(owner -> caller.mayAccessJobOf(owner.name()))
            .map(Owner::of)
            .toList();
    OwnersReport.Totals totals = report.totals();
    return new OwnersView(report.at(), owners, Totals.of(totals));
  }

  /** One owner's row. Per-owner limits (issue 26) have their place beside {@code share}. */
  @Schema(name = "Owner")
  public record Owner(
      @Schema(description = "the token name that owns the jobs") String owner,
      @Schema(description = "the weight in fair share, gpuq.auth.tokens[N].share") double share,
      @Schema(description = "RUNNING jobs, over every node") long runningJobs,
      @Schema(description = "QUEUED jobs") long queuedJobs,
      @Schema(
              description =
                  "GPUs the running jobs hold: whole GPUs, plus each shared GPU's part (a"
                      + " gpuFraction as asked, a gpuMemory budget over the GPU's total)")
          double gpus,
      @Schema(
              description =
                  "GPUs held whole, by jobs that asked for neither gpuMemory nor" + " gpuFraction")
          long wholeGpus,
      @Schema(description = "the GPU memory budgets of the running jobs, on each of their GPUs")
          long gpuMemoryBytes,
      @Schema(description = "the cpus of the running jobs, added up (0.25 for a quarter core)")
          Number cpus,
      @Schema(description = "the host memory of the running jobs, added up") long memoryBytes,
      @Schema(
              description =
                  "usage decayed with gpuq.fair-share.half-life, as an average dominant share")
          double recentUsage,
      Standing standing) {

    static Owner of(OwnersReport.Owner owner) {
      Held held = owner.held();
      return new Owner(
          owner.name(),
          owner.share(),
          held.jobs(),
          owner.queuedJobs(),
          owner.gpus(),
          held.wholeGpus(),
          held.gpuMemoryBytes(),
          held.cores().number(),
          held.hostMemoryBytes(),
          owner.recent(),
          new Standing(
              owner.position(),
              owner.dominantShare(),
              owner.dominantShare() > 0 ? owner.dominantResource().name() : null));
    }
  }

  /** The owner's place in fair share, as a scheduling pass computes it. */
  @Schema(name = "OwnerStanding")
  public record Standing(
      @Schema(
              description =
                  "(dominantShare + recentUsage) / share: the owner with the lowest is served"
                      + " first")
          double position,
      @Schema(description = "the largest share, 0..1, the owner holds of one resource")
          double dominantShare,
      @Schema(
              description =
                  "that resource: GPU_MEMORY, WHOLE_GPUS, CPU_SLOTS, CORES or HOST_MEMORY; null while"
                      + " nothing is held")
          String dominantResource) {}

  /** The cluster's figures. */
  @Schema(name = "OwnerTotals")
  public record Totals(
      long runningJobs,
      long queuedJobs,
      double gpus,
      long wholeGpus,
      long gpuMemoryBytes,
      @Schema(type = "number") Number cpus,
      long memoryBytes,
      @Schema(description = "what every live node has: the denominators of the dominant shares")
          ClusterCapacity capacity) {

    static Totals of(OwnersReport.Totals totals) {
      Held held = totals.held();
      Capacity capacity = totals.capacity();
      return new Totals(
          held.jobs(),
          totals.queuedJobs(),
          totals.gpus(),
          held.wholeGpus(),
          held.gpuMemoryBytes(),
          held.cores().number(),
          held.hostMemoryBytes(),
          new ClusterCapacity(
              capacity.gpus(),
              capacity.gpuMemoryBytes(),
              capacity.cpuSlots(),
              capacity.cores(),
              capacity.hostMemoryBytes()));
    }
  }

  @Schema(name = "ClusterCapacity")
  public record ClusterCapacity(
      long gpus,
      long gpuMemoryBytes,
      long cpuSlots,
      @Schema(description = "the cores the live nodes give their jobs") long cores,
      @Schema(description = "the host memory the live nodes give their jobs, in bytes")
          long memoryBytes) {}
}

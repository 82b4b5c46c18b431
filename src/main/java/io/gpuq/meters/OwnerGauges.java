package io.gpuq.meters;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.schedule.OwnersReport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * {@code gpuq_owner_*{owner}}: each owner's share, jobs, holdings and fair-share standing, as
 * {@code GET /api/v1/owners} shows them to an admin, with owner names as the operator configured
 * them. Refreshed on a cadence from one reading of the owners' figures (three grouped queries,
 * never one per owner), so that a scrape costs no query. Like {@code gpuq_jobs}, every node exports
 * the whole cluster's figures: aggregate several nodes' series with {@code max by (owner)}.
 */
public final class OwnerGauges extends FixedDelayDuty {

  private final Supplier<OwnersReport> report;
  private final Map<LiveGauges, ToDoubleFunction<OwnersReport.Owner>> gauges = new HashMap<>();

  public OwnerGauges(MeterRegistry registry, Supplier<OwnersReport> report, Duration interval) {
    super("owner metrics", interval);
    this.report = report;
    gauge(
        registry, MeterNames.OWNER_SHARE, null, "The owner's weight in fair share", o -> o.share());
    gauge(
        registry,
        MeterNames.OWNER_RUNNING_JOBS,
        null,
        "The owner's RUNNING jobs, over every node",
        o -> o.held().jobs());
    gauge(
        registry,
        MeterNames.OWNER_QUEUED_JOBS,
        null,
        "The owner's QUEUED jobs",
        o -> o.queuedJobs());
    gauge(
        registry,
        MeterNames.OWNER_GPUS_HELD,
        null,
        "GPUs the owner's running jobs hold: whole GPUs plus the parts of shared ones",
        o -> o.gpus());
    gauge(
        registry,
        MeterNames.OWNER_GPU_MEMORY_HELD,
        MeterNames.BYTES,
        "The GPU memory budgets of the owner's running jobs",
        o -> o.held().gpuMemoryBytes());
    gauge(
        registry,
        MeterNames.OWNER_RECENT_USAGE,
        null,
        "The owner's usage decayed with gpuq.fair-share.half-life, as an average dominant share",
        o -> o.recent());
    gauge(
        registry,
        MeterNames.OWNER_DOMINANT_SHARE,
        null,
        "The largest share, 0..1, the owner's running jobs hold of one resource of the cluster",
        o -> o.dominantShare());
    gauge(
        registry,
        MeterNames.OWNER_FAIR_SHARE_POSITION,
        null,
        "(dominant share + recent usage) / share: the owner with the lowest is served first",
        o -> o.position());
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String baseUnit,
      String description,
      ToDoubleFunction<OwnersReport.Owner> value) {
    gauges.put(new LiveGauges(registry, name, baseUnit, description), value);
  }

  @Override
  public void runOnce() {
    OwnersReport now = report.get();
    gauges.forEach(
        (gauge, value) -> {
          Map<Tags, Double> series = new HashMap<>();
          for (OwnersReport.Owner owner : now.owners()) {
            series.put(Tags.of(MeterNames.OWNER, owner.name()), value.applyAsDouble(owner));
          }
          gauge.update(series);
        });
  }
}

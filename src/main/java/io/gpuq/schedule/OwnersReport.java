package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fairshare.Resource;
import io.gpuq.fairshare.Standing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Every owner's share, jobs, holdings and fair-share standing at one instant, with the cluster's
 * totals: what {@code GET /api/v1/owners} and the {@code gpuq_owner_*} gauges show. The standing is
 * computed as a scheduling pass computes it ({@link Standing#position}), from the same figures:
 * what the owners' running jobs hold over every node (the pass's own query), their recent usage as
 * the node last read it, and the cluster's capacity.
 *
 * @param owners every configured owner and every owner with a running or queued job, lowest
 *     position first (the order fair share serves them in), then by name
 * @param totals the sums over every owner, and the cluster's capacity
 */
public record OwnersReport(Instant at, List<Owner> owners, Totals totals) {

  private static final Comparator<Owner> SERVED_FIRST =
      Comparator.comparingDouble(Owner::position).thenComparing(Owner::name);

  public OwnersReport {
    owners = List.copyOf(owners);
  }

  /**
   * The report of these figures.
   *
   * @param terms each configured owner's terms; an owner with jobs and no terms has {@link
   *     OwnerTerms#DEFAULT}
   * @param queued each owner's queued jobs ({@link OwnerCounts})
   * @param held what each owner's running jobs hold, as the scheduling pass reads it: their count,
   *     GPUs, cores and host memory too
   * @param recent each owner's recent usage as an average dominant share
   */
  public static OwnersReport of(
      Instant at,
      Map<String, OwnerTerms> terms,
      Map<String, Long> queued,
      Map<String, Held> held,
      Map<String, Double> recent,
      Capacity capacity) {
    TreeSet<String> names = new TreeSet<>(terms.keySet());
    names.addAll(queued.keySet());
    names.addAll(held.keySet());
    List<Owner> owners = new ArrayList<>(names.size());
    long queuedInAll = 0;
    Held heldInAll = Held.NONE;
    for (String name : names) {
      Held holds = held.getOrDefault(name, Held.NONE);
      long queuedJobs = queued.getOrDefault(name, 0L);
      Standing standing =
          new Standing(
              terms.getOrDefault(name, OwnerTerms.DEFAULT).share(),
              holds,
              recent.getOrDefault(name, 0.0));
      Capacity.Dominant dominant = capacity.dominant(holds);
      owners.add(
          new Owner(
              name,
              standing.share(),
              queuedJobs,
              holds.gpus(capacity),
              holds,
              standing.recent(),
              dominant.resource(),
              dominant.share(),
              standing.position(capacity)));
      queuedInAll += queuedJobs;
      heldInAll = heldInAll.plus(holds);
    }
    owners.sort(SERVED_FIRST);
    return new OwnersReport(at, owners, new Totals(queuedInAll, heldInAll, capacity));
  }

  /** One owner's row, if the report has it. */
  public Optional<Owner> owner(String name) {
    return owners.stream().filter(o -> o.name().equals(name)).findFirst();
  }

  /**
   * One owner.
   *
   * @param share their weight ({@code gpuq.auth.tokens[N].share})
   * @param queuedJobs their QUEUED jobs
   * @param gpus the GPUs their running jobs hold, as {@code max-gpus} counts them ({@link
   *     Held#gpus})
   * @param held what their running jobs hold: their count, cores and host memory, and the measures
   *     of fair share
   * @param recent their recent usage, an average dominant share decayed with the half-life
   * @param dominantResource the resource of which they hold the largest share
   * @param dominantShare that share, 0..1, of the cluster's capacity
   * @param position {@code (dominantShare + recent) / share}: the lowest is served first
   */
  public record Owner(
      String name,
      double share,
      long queuedJobs,
      double gpus,
      Held held,
      double recent,
      Resource dominantResource,
      double dominantShare,
      double position) {}

  /**
   * The cluster's figures: every owner's added up, and what the cluster has.
   *
   * @param queuedJobs every QUEUED job
   * @param held what every running job holds
   * @param capacity the GPU memory, GPUs and CPU slots of every live node, the denominators of the
   *     dominant shares
   */
  public record Totals(long queuedJobs, Held held, Capacity capacity) {

    /** The GPUs every running job holds, as {@code max-gpus} counts them ({@link Held#gpus}). */
    public double gpus() {
      return held.gpus(capacity);
    }
  }
}

package io.gpuq.fairshare;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Which running jobs of one node to preempt so that a waiting job fits (issue 35): a pure function
 * of the waiting job's needs, what the node has free, its running jobs and the owners' positions in
 * fair share.
 *
 * <p>The rules, in order:
 *
 * <ul>
 *   <li>Only an owner below their share is served: their position is under {@code fairPosition} (1
 *       / the sum of the shares of the owners who run or wait: where an owner whose dominant share
 *       equals their weighted part of the cluster stands).
 *   <li>A victim is preemptible, of an owner above their share (position over {@code
 *       fairPosition}), and has run at least {@code minRuntime}.
 *   <li>The fewest victims that make the job fit, and only if some set does; among sets of that
 *       size, the one whose victims come first in preference: the owner furthest above their share
 *       first, then the job started last (the least work lost), then the job id.
 * </ul>
 *
 * <p>What a victim frees is what it holds on the node: its GPU memory on each of its GPUs (the
 * caller gives the larger of its budget and its measured use), its GPUs whole if it has them so,
 * its cores and its host memory. A whole-GPU need is met only by a GPU no remaining job is on.
 *
 * <p>The search is over combinations, smallest first, of at most {@value #MAX_CANDIDATES}
 * candidates and {@value #MAX_COMBINATIONS} combinations; beyond that it preempts nothing, which is
 * always safe (the job waits as it did before preemption existed).
 */
public final class VictimChoice {

  static final int MAX_CANDIDATES = 24;
  static final int MAX_COMBINATIONS = 200_000;

  /**
   * A GPU of the node.
   *
   * @param freeBytes what a new budget may take of it now, with every running job on it
   */
  public record Gpu(int index, long freeBytes) {}

  /**
   * What the waiting job needs on one node (a gang: all of it, or nothing).
   *
   * @param bytesPerGpu its budget on each GPU; for whole GPUs, what the placer requires free of a
   *     GPU it gives whole
   * @param wholeGpus whether its GPUs must carry no other job
   */
  public record Need(
      String owner,
      int gpus,
      long bytesPerGpu,
      boolean wholeGpus,
      long millicores,
      long hostMemoryBytes) {}

  /** What the node has free now: its GPUs, cores (in thousandths) and host memory. */
  public record Free(List<Gpu> gpus, long millicores, long hostMemoryBytes) {
    public Free {
      gpus = List.copyOf(gpus);
    }
  }

  /**
   * A job running on the node.
   *
   * @param gpuBytes what it holds on each GPU it is on, by GPU index
   * @param wholeGpus whether it holds its GPUs whole
   */
  public record Running(
      String jobId,
      String owner,
      Instant startedAt,
      boolean preemptible,
      Map<Integer, Long> gpuBytes,
      boolean wholeGpus,
      long millicores,
      long hostMemoryBytes) {
    public Running {
      Objects.requireNonNull(jobId, "jobId");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(startedAt, "startedAt");
      gpuBytes = Map.copyOf(gpuBytes);
    }
  }

  /**
   * The owners' standing.
   *
   * @param positions each owner's position in fair share ({@link Standing#position}); an owner
   *     missing holds nothing
   * @param fairPosition the position of an owner who holds exactly their share
   */
  public record Standings(Map<String, Double> positions, double fairPosition) {
    public Standings {
      positions = Map.copyOf(positions);
    }

    public double positionOf(String owner) {
      return positions.getOrDefault(owner, 0.0);
    }

    /** Above their share, by more than rounding: an owner at it is never preempted. */
    public boolean isAbove(String owner) {
      return positionOf(owner) > fairPosition + EPSILON;
    }

    /** Below their share, by more than rounding. */
    public boolean isBelow(String owner) {
      return positionOf(owner) < fairPosition - EPSILON;
    }
  }

  static final double EPSILON = 1e-9;

  private VictimChoice() {}

  /** Whether the need fits what is free now, without preempting anything. */
  public static boolean fits(Need need, Free free, List<Running> running) {
    return fitsWithout(need, free, running, List.of());
  }

  /**
   * The jobs to preempt so that {@code need} fits, in preference order; empty when no preemption is
   * allowed or none makes it fit, or when it fits already (the caller asks only when the placer
   * could not place it).
   */
  public static Optional<List<Running>> choose(
      Need need,
      Free free,
      List<Running> running,
      Standings standings,
      Instant now,
      Duration minRuntime) {
    if (fits(need, free, running)) {
      return Optional.empty();
    }
    return choose(
        need.owner(),
        running,
        standings,
        now,
        minRuntime,
        victims -> fitsWithout(need, free, running, victims));
  }

  /**
   * As {@link #choose(Need, Free, List, Standings, Instant, Duration)}, with whether the waiting
   * job fits once some jobs are gone decided by {@code fitsWithout}: a scheduler asks its own
   * placer, so that what is preempted is what its next pass needs.
   *
   * @param owner the waiting job's owner
   */
  public static Optional<List<Running>> choose(
      String owner,
      List<Running> running,
      Standings standings,
      Instant now,
      Duration minRuntime,
      Predicate<List<Running>> fitsWithout) {
    if (!standings.isBelow(owner)) {
      return Optional.empty();
    }
    List<Running> candidates =
        running.stream()
            .filter(Running::preemptible)
            .filter(r -> !r.owner().equals(owner))
            .filter(r -> standings.isAbove(r.owner()))
            .filter(r -> !r.startedAt().plus(minRuntime).isAfter(now))
            .sorted(preference(standings))
            .limit(MAX_CANDIDATES)
            .toList();
    if (candidates.isEmpty() || !fitsWithout.test(candidates)) {
      return Optional.empty();
    }
    int[] budget = {MAX_COMBINATIONS};
    for (int size = 1; size <= candidates.size(); size++) {
      Optional<List<Running>> found =
          firstFitting(fitsWithout, candidates, size, 0, new ArrayList<>(), budget);
      if (found.isPresent()) {
        return found;
      }
      if (budget[0] <= 0) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The order victims are preferred in. */
  static Comparator<Running> preference(Standings standings) {
    return Comparator.<Running>comparingDouble(r -> -standings.positionOf(r.owner()))
        .thenComparing(Running::startedAt, Comparator.reverseOrder())
        .thenComparing(Running::jobId);
  }

  /**
   * The first combination of {@code size} candidates, in lexicographic order of the preference,
   * that makes the need fit: the best set of that size.
   */
  private static Optional<List<Running>> firstFitting(
      Predicate<List<Running>> fitsWithout,
      List<Running> candidates,
      int size,
      int from,
      List<Running> chosen,
      int[] budget) {
    if (chosen.size() == size) {
      budget[0]--;
      return fitsWithout.test(chosen) ? Optional.of(List.copyOf(chosen)) : Optional.empty();
    }
    for (int i = from; i <= candidates.size() - (size - chosen.size()); i++) {
      if (budget[0] <= 0) {
        return Optional.empty();
      }
      chosen.add(candidates.get(i));
      Optional<List<Running>> found =
          firstFitting(fitsWithout, candidates, size, i + 1, chosen, budget);
      chosen.remove(chosen.size() - 1);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** Whether the need fits once {@code victims} have freed what they hold. */
  static boolean fitsWithout(Need need, Free free, List<Running> running, List<Running> victims) {
    long cores = free.millicores();
    long memory = free.hostMemoryBytes();
    Map<Integer, Long> freed = new HashMap<>();
    for (Running victim : victims) {
      cores += victim.millicores();
      memory += victim.hostMemoryBytes();
      victim.gpuBytes().forEach((gpu, bytes) -> freed.merge(gpu, bytes, Long::sum));
    }
    if (cores < need.millicores() || memory < need.hostMemoryBytes()) {
      return false;
    }
    if (need.gpus() == 0) {
      return true;
    }
    int usable = 0;
    for (Gpu gpu : free.gpus()) {
      long bytes = gpu.freeBytes() + freed.getOrDefault(gpu.index(), 0L);
      if (bytes < need.bytesPerGpu()) {
        continue;
      }
      if (need.wholeGpus() && occupied(gpu.index(), running, victims)) {
        continue;
      }
      if (!need.wholeGpus() && heldWhole(gpu.index(), running, victims)) {
        continue;
      }
      usable++;
    }
    return usable >= need.gpus();
  }

  private static boolean occupied(int gpu, List<Running> running, List<Running> victims) {
    return running.stream().anyMatch(r -> r.gpuBytes().containsKey(gpu) && !isVictim(r, victims));
  }

  private static boolean heldWhole(int gpu, List<Running> running, List<Running> victims) {
    return running.stream()
        .anyMatch(r -> r.wholeGpus() && r.gpuBytes().containsKey(gpu) && !isVictim(r, victims));
  }

  private static boolean isVictim(Running job, List<Running> victims) {
    for (Running victim : victims) {
      if (victim.jobId().equals(job.jobId())) {
        return true;
      }
    }
    return false;
  }
}

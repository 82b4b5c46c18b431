package io.gpuq.cgroup;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * This node's cores, handed to workers: each starting worker of whole cores gets as many distinct
 * cores as its job asks for, the least loaded first, and gives them back when it ends. Rebuilt at
 * start from the cores of the workers re-adopted ({@link #hold}, {@link #holdShare}).
 *
 * <p>Workers that ask for a fraction of a core (0.25, 1.5) share one pool of cores instead ({@link
 * #takeShare}): as many cores as their fractions add up to, rounded up, taken like a whole-core
 * worker's and grown or shrunk as they come and go. Each such worker is held to its own fraction by
 * CPU bandwidth (its group's quota), so together they never use more than the pool. Whoever binds
 * workers rebinds the pool's members after it changed ({@link #pool}).
 *
 * <p>It never refuses: placement decides whether a job fits (by free cores, once it counts them);
 * when fewer are free than asked, the worker shares the least-loaded ones, and {@link
 * Allocation#shared} says so for the log. Thread-safe.
 */
public final class CoreAllocator {

  /**
   * The cores one worker was given.
   *
   * @param shared whether any of them was already another worker's (fewer were free than asked)
   * @param freeBefore how many cores were free before these were taken
   */
  public record Allocation(CpuList cores, boolean shared, int freeBefore) {}

  private final CpuList usable;
  // Per worker (a WorkerId's directory name), its cores.
  private final Map<String, CpuList> held = new HashMap<>();
  // Per worker that asked for a fraction, its millicores; and the cores they share.
  private final Map<String, Long> shares = new HashMap<>();
  private CpuList pool = new CpuList(new BitSet());

  /**
   * @param usable the cores workers may be given: gpuq's affinity mask minus the reserved ones
   */
  public CoreAllocator(CpuList usable) {
    if (usable.isEmpty()) {
      throw new IllegalArgumentException("no usable cores");
    }
    this.usable = usable;
  }

  /**
   * The cores workers may use: {@code mask} without its {@code reserved} lowest cores (the ones the
   * kernel's interrupts and system daemons favour), always at least one.
   */
  public static CpuList usable(CpuList mask, int reserved) {
    int keep = Math.max(1, mask.count() - Math.max(0, reserved));
    BitSet bits = mask.cpus();
    int drop = mask.count() - keep;
    for (int cpu = bits.nextSetBit(0); cpu >= 0 && drop > 0; cpu = bits.nextSetBit(cpu + 1)) {
      bits.clear(cpu);
      drop--;
    }
    return new CpuList(bits);
  }

  public CpuList usable() {
    return usable;
  }

  /**
   * Gives worker {@code key} {@code count} distinct cores (at most all usable ones), the least
   * loaded first, lowest number on a tie.
   *
   * @throws IllegalStateException when {@code key} holds cores already
   */
  public synchronized Allocation take(String key, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a worker takes at least 1 core, not " + count);
    }
    requireNew(key);
    int[] load = loads();
    List<Integer> cores = new ArrayList<>();
    BitSet all = usable.cpus();
    for (int cpu = all.nextSetBit(0); cpu >= 0; cpu = all.nextSetBit(cpu + 1)) {
      cores.add(cpu);
    }
    int free = (int) cores.stream().filter(cpu -> load[cpu] == 0).count();
    cores.sort(Comparator.<Integer>comparingInt(cpu -> load[cpu]).thenComparingInt(cpu -> cpu));
    BitSet chosen = new BitSet();
    boolean shared = false;
    for (int cpu : cores.subList(0, Math.min(count, cores.size()))) {
      chosen.set(cpu);
      shared |= load[cpu] > 0;
    }
    CpuList given = new CpuList(chosen);
    held.put(key, given);
    return new Allocation(given, shared, free);
  }

  /**
   * Makes worker {@code key}, which asks for {@code millicores} (a fraction, such as 250), one of
   * the pool's: the pool grows to the cores its members' fractions add up to, rounded up, taking
   * the least loaded cores outside it.
   *
   * @return the pool's cores now; shared when the pool had to take cores another worker holds
   * @throws IllegalStateException when {@code key} holds cores already
   */
  public synchronized Allocation takeShare(String key, long millicores) {
    if (millicores < 1) {
      throw new IllegalArgumentException("a share of no core: " + millicores);
    }
    requireNew(key);
    int freeBefore = free();
    shares.put(key, millicores);
    boolean shared = resizePool();
    return new Allocation(pool, shared, freeBefore);
  }

  /**
   * Records that worker {@code key}, re-adopted after a restart, shares the pool with {@code
   * millicores} and was bound to {@code cores}: they join the pool, which the next change sizes
   * again.
   */
  public synchronized void holdShare(String key, long millicores, CpuList cores) {
    shares.put(key, Math.max(1, millicores));
    BitSet bits = pool.cpus();
    bits.or(cores.cpus());
    pool = new CpuList(bits);
  }

  /** The pool's cores now: empty when no worker asks for a fraction. */
  public synchronized CpuList pool() {
    return pool;
  }

  /** The workers that share the pool now. */
  public synchronized Set<String> poolMembers() {
    return Set.copyOf(shares.keySet());
  }

  /** Whether worker {@code key} is one of the pool's. */
  public synchronized boolean sharesPool(String key) {
    return shares.containsKey(key);
  }

  private void requireNew(String key) {
    if (held.containsKey(key) || shares.containsKey(key)) {
      throw new IllegalStateException(key + " holds cores already: " + coresOf(key).orElseThrow());
    }
  }

  /**
   * Sizes the pool to its members' fractions, rounded up: adds the least loaded cores outside it
   * (lowest first), or drops its highest ones. Whole-core workers' cores count as load; the pool's
   * own do not.
   *
   * @return whether a core added was another worker's already
   */
  private boolean resizePool() {
    long millis = 0;
    for (long share : shares.values()) {
      millis += share;
    }
    int needed = (int) Math.min(usable.count(), (millis + 999) / 1000);
    BitSet bits = pool.cpus();
    boolean shared = false;
    if (bits.cardinality() < needed) {
      int[] load = loadsOf(held.values());
      List<Integer> candidates = new ArrayList<>();
      BitSet all = usable.cpus();
      for (int cpu = all.nextSetBit(0); cpu >= 0; cpu = all.nextSetBit(cpu + 1)) {
        if (!bits.get(cpu)) {
          candidates.add(cpu);
        }
      }
      candidates.sort(
          Comparator.<Integer>comparingInt(cpu -> load[cpu]).thenComparingInt(cpu -> cpu));
      for (int cpu :
          candidates.subList(0, Math.min(candidates.size(), needed - bits.cardinality()))) {
        bits.set(cpu);
        shared |= load[cpu] > 0;
      }
    }
    while (bits.cardinality() > needed) {
      bits.clear(bits.length() - 1);
    }
    pool = new CpuList(bits);
    return shared;
  }

  /**
   * Records that worker {@code key} holds {@code cores} (a worker re-adopted after a restart, bound
   * by an earlier gpuq). Cores outside the usable ones still count as its own but are never given.
   */
  public synchronized void hold(String key, CpuList cores) {
    held.put(key, cores);
  }

  /**
   * Gives back the cores of worker {@code key}; nothing when it holds none. A member of the pool
   * leaves it, and the pool shrinks to what the others need.
   */
  public synchronized Optional<CpuList> release(String key) {
    if (shares.remove(key) != null) {
      CpuList was = pool;
      resizePool();
      return Optional.of(was);
    }
    return Optional.ofNullable(held.remove(key));
  }

  /** The cores of worker {@code key}, if it holds any: a member of the pool, the pool's. */
  public synchronized Optional<CpuList> coresOf(String key) {
    if (shares.containsKey(key)) {
      return Optional.of(pool);
    }
    return Optional.ofNullable(held.get(key));
  }

  /** How many usable cores no worker holds. */
  public synchronized int free() {
    int[] load = loads();
    BitSet all = usable.cpus();
    int free = 0;
    for (int cpu = all.nextSetBit(0); cpu >= 0; cpu = all.nextSetBit(cpu + 1)) {
      if (load[cpu] == 0) {
        free++;
      }
    }
    return free;
  }

  /** Workers per core: the whole-core workers', and the pool's cores once each. */
  private int[] loads() {
    List<CpuList> all = new ArrayList<>(held.values());
    all.add(pool);
    return loadsOf(all);
  }

  private int[] loadsOf(Collection<CpuList> holders) {
    int size = usable.cpus().length();
    for (CpuList cores : holders) {
      size = Math.max(size, cores.cpus().length());
    }
    int[] load = new int[size];
    for (CpuList cores : holders) {
      BitSet bits = cores.cpus();
      for (int cpu = bits.nextSetBit(0); cpu >= 0; cpu = bits.nextSetBit(cpu + 1)) {
        load[cpu]++;
      }
    }
    return load;
  }
}

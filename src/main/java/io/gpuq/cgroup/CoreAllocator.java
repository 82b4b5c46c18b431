package io.gpuq.cgroup;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * This node's cores, handed to workers: each starting worker gets as many distinct cores as its job
 * asks for, the least loaded first, and gives them back when it ends. Rebuilt at start from the
 * cores of the workers re-adopted ({@link #hold}).
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
    if (held.containsKey(key)) {
      throw new IllegalStateException(key + " holds cores already: " + held.get(key));
    }
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
   * Records that worker {@code key} holds {@code cores} (a worker re-adopted after a restart, bound
   * by an earlier gpuq). Cores outside the usable ones still count as its own but are never given.
   */
  public synchronized void hold(String key, CpuList cores) {
    held.put(key, cores);
  }

  /** Gives back the cores of worker {@code key}; nothing when it holds none. */
  public synchronized Optional<CpuList> release(String key) {
    return Optional.ofNullable(held.remove(key));
  }

  /** The cores of worker {@code key}, if it holds any. */
  public synchronized Optional<CpuList> coresOf(String key) {
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

  private int[] loads() {
    int size = usable.cpus().length();
    for (CpuList cores : held.values()) {
      size = Math.max(size, cores.cpus().length());
    }
    int[] load = new int[size];
    for (CpuList cores : held.values()) {
      BitSet bits = cores.cpus();
      for (int cpu = bits.nextSetBit(0); cpu >= 0; cpu = bits.nextSetBit(cpu + 1)) {
        load[cpu]++;
      }
    }
    return load;
  }
}

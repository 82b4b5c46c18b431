package io.gpuq.cgroup;

import java.util.BitSet;
import java.util.Objects;

/**
 * A set of CPU numbers, read and written in the kernel's list format ({@code 0-3,8,10-11}), as
 * {@code cpuset.cpus} and {@code Cpus_allowed_list} hold them.
 */
public record CpuList(BitSet cpus) {

  /** Above any CPU number a kernel gives today (8,192 is x86-64's maximum NR_CPUS). */
  static final int MAX_CPUS = 8192;

  public CpuList {
    Objects.requireNonNull(cpus, "cpus");
    cpus = (BitSet) cpus.clone();
    if (cpus.length() > MAX_CPUS) {
      throw new IllegalArgumentException("CPU number above " + (MAX_CPUS - 1));
    }
  }

  public static CpuList of(int... cpuNumbers) {
    BitSet bits = new BitSet();
    for (int cpu : cpuNumbers) {
      if (cpu < 0) {
        throw new IllegalArgumentException("negative CPU number " + cpu);
      }
      bits.set(cpu);
    }
    return new CpuList(bits);
  }

  /** Parses the list format; blank is the empty set (a new v1 cpuset holds that). */
  public static CpuList parse(String list) {
    BitSet bits = new BitSet();
    String trimmed = list.strip();
    if (trimmed.isEmpty()) {
      return new CpuList(bits);
    }
    for (String part : trimmed.split(",")) {
      try {
        int dash = part.indexOf('-');
        if (dash < 0) {
          bits.set(checked(Integer.parseInt(part.strip())));
        } else {
          int from = checked(Integer.parseInt(part.substring(0, dash).strip()));
          int to = checked(Integer.parseInt(part.substring(dash + 1).strip()));
          if (to < from) {
            throw new IllegalArgumentException("descending CPU range '" + part + "'");
          }
          bits.set(from, to + 1);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a CPU list: '" + list + "'", e);
      }
    }
    return new CpuList(bits);
  }

  private static int checked(int cpu) {
    if (cpu < 0 || cpu >= MAX_CPUS) {
      throw new IllegalArgumentException("CPU number " + cpu + " out of range");
    }
    return cpu;
  }

  @Override
  public BitSet cpus() {
    return (BitSet) cpus.clone();
  }

  public int count() {
    return cpus.cardinality();
  }

  public boolean isEmpty() {
    return cpus.isEmpty();
  }

  public boolean contains(int cpu) {
    return cpus.get(cpu);
  }

  /** The {@code n} lowest CPUs of this set. */
  public CpuList first(int n) {
    if (n > count()) {
      throw new IllegalArgumentException("asked for " + n + " of " + count() + " CPUs");
    }
    BitSet bits = new BitSet();
    for (int cpu = cpus.nextSetBit(0);
        cpu >= 0 && bits.cardinality() < n;
        cpu = cpus.nextSetBit(cpu + 1)) {
      bits.set(cpu);
    }
    return new CpuList(bits);
  }

  /** The kernel's list format, ranges collapsed: what {@link #parse} reads back. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    int from = cpus.nextSetBit(0);
    while (from >= 0) {
      int to = cpus.nextClearBit(from) - 1;
      if (!out.isEmpty()) {
        out.append(',');
      }
      out.append(from);
      if (to > from) {
        out.append('-').append(to);
      }
      from = cpus.nextSetBit(to + 1);
    }
    return out.toString();
  }
}

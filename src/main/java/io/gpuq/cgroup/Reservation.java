package io.gpuq.cgroup;

/**
 * What a node keeps back from jobs for gpuq and the system ({@code gpuq.node.reserved-cpus}, {@code
 * gpuq.node.reserved-memory}).
 */
public record Reservation(int cpus, long memoryBytes) {

  static final long GIB = 1L << 30;

  public Reservation {
    if (cpus < 0 || memoryBytes < 0) {
      throw new IllegalArgumentException("a negative reservation");
    }
  }

  /**
   * The defaults for a host: cores, none on 1 or 2 (one kept back would halve or take all of what
   * jobs get, and gpuq's own CPU use is small and bursty), 1 up to 31, 2 from 32 (more GPUs, NICs
   * and their interrupts and daemons); memory, 5% and at least 1 GiB (gpuq's JVM, the kernel's own
   * tables, which grow with the host's memory, and system daemons), but never more than half the
   * host. See docs/design/worker-cgroups.md.
   */
  public static Reservation defaultsFor(MeasuredHost host) {
    int cpus = host.cpus() <= 2 ? 0 : host.cpus() < 32 ? 1 : 2;
    long memory = Math.max(GIB, host.memoryBytes() / 20);
    return new Reservation(cpus, Math.min(memory, host.memoryBytes() / 2));
  }
}

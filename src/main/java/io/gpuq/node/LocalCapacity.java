package io.gpuq.node;

import io.gpuq.cgroup.MeasuredHost;
import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.cgroup.Reservation;
import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;

/**
 * What this node gives its jobs, decided once at start: what it measured ({@link MeasuredHost})
 * less what it keeps for gpuq and the system ({@code gpuq.node.reserved-cpus} and {@code
 * gpuq.node.reserved-memory}, or their defaults, {@link Reservation#defaultsFor}).
 *
 * @param reservedByDefault whether neither setting was given and the defaults apply (one given, the
 *     other keeps its default)
 */
public record LocalCapacity(
    MeasuredHost measured,
    Reservation reserved,
    boolean reservedByDefault,
    NodeCapacity allocatable) {

  /**
   * Subtracts the reservation: a setting left unset (null) takes its default.
   *
   * @throws StartRefusedException where the reservation leaves no core or no memory to jobs
   */
  public static LocalCapacity decide(
      MeasuredHost measured, Integer reservedCpus, Long reservedMemoryBytes) {
    Reservation defaults = Reservation.defaultsFor(measured);
    if (reservedCpus != null && reservedCpus < 0) {
      throw new StartRefusedException(
          "gpuq.node.reserved-cpus=" + reservedCpus + " is negative", "set 0 or more cores");
    }
    if (reservedMemoryBytes != null && reservedMemoryBytes < 0) {
      throw new StartRefusedException(
          "gpuq.node.reserved-memory is negative", "set a size of 0 or more");
    }
    Reservation reserved =
        new Reservation(
            reservedCpus == null ? defaults.cpus() : reservedCpus,
            reservedMemoryBytes == null ? defaults.memoryBytes() : reservedMemoryBytes);
    if (reserved.cpus() >= measured.cpus()) {
      throw new StartRefusedException(
          "gpuq.node.reserved-cpus="
              + reserved.cpus()
              + " leaves no core to jobs: this node gives gpuq "
              + measured.cpus()
              + " (from "
              + measured.cpusFrom()
              + ")",
          "set gpuq.node.reserved-cpus below " + measured.cpus() + ", or give gpuq more CPUs");
    }
    if (reserved.memoryBytes() >= measured.memoryBytes()) {
      throw new StartRefusedException(
          "gpuq.node.reserved-memory="
              + MemorySize.format(reserved.memoryBytes())
              + " leaves no memory to jobs: this node gives gpuq "
              + MemorySize.format(measured.memoryBytes())
              + " (from "
              + measured.memoryFrom()
              + ")",
          "set gpuq.node.reserved-memory below "
              + MemorySize.format(measured.memoryBytes())
              + ", or give gpuq more memory");
    }
    return new LocalCapacity(
        measured,
        reserved,
        reservedCpus == null && reservedMemoryBytes == null,
        measured.minus(reserved));
  }

  /** One line for the log at start: what jobs get, and where each figure came from. */
  public String describe() {
    return "jobs get "
        + allocatable.cpus()
        + (allocatable.cpus() == 1 ? " core" : " cores")
        + " and "
        + MemorySize.format(allocatable.memoryBytes())
        + " of host memory: "
        + measured.cpus()
        + " CPUs from "
        + measured.cpusFrom()
        + " less "
        + reserved.cpus()
        + " reserved; "
        + MemorySize.format(measured.memoryBytes())
        + " from "
        + measured.memoryFrom()
        + " less "
        + MemorySize.format(reserved.memoryBytes())
        + " reserved"
        + (reservedByDefault
            ? " (the default reservation; gpuq.node.reserved-cpus and reserved-memory change it)"
            : "");
  }
}

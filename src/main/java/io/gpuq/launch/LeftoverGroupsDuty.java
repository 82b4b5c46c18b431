package io.gpuq.launch;

import io.gpuq.duty.FixedDelayDuty;

/**
 * Removes the cgroups of ended workers that still held processes when their worker's end gave up
 * waiting for them (thousands of processes, a kernel slow to let them go), so that no group waits
 * for gpuq's next restart.
 */
public final class LeftoverGroupsDuty extends FixedDelayDuty {

  private final WorkerConfinement confinement;

  public LeftoverGroupsDuty(WorkerConfinement confinement) {
    super("leftover-cgroups", WorkerConfinement.LEFTOVER_RETRY);
    this.confinement = confinement;
  }

  @Override
  public void runOnce() {
    confinement.removeLeftovers();
  }
}

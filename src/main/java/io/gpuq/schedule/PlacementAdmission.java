package io.gpuq.schedule;

import io.gpuq.api.SubmitAdmission;
import io.gpuq.api.UnsatisfiableRequestException;
import io.gpuq.job.JobSpec;
import io.gpuq.placement.Feasibility;
import io.gpuq.placement.Placer;
import java.time.Clock;

/** Refuses at submit what could not start on this node even if it were empty. */
public final class PlacementAdmission implements SubmitAdmission {

  private final Placer placer;
  private final Dispatcher dispatcher;
  private final Clock clock;

  public PlacementAdmission(Placer placer, Dispatcher dispatcher, Clock clock) {
    this.placer = placer;
    this.dispatcher = dispatcher;
    this.clock = clock;
  }

  @Override
  public void check(JobSpec spec) {
    if (spec.gpus() == 0) {
      return;
    }
    Feasibility feasibility =
        placer.feasibility(JobDemands.requestOf(spec, clock.instant()), dispatcher.capacities());
    if (feasibility instanceof Feasibility.Infeasible infeasible) {
      throw new UnsatisfiableRequestException("resources", infeasible.reason());
    }
  }
}

package io.gpuq.placement;

import java.util.Arrays;
import java.util.List;

/**
 * The order in which one pass examines the queued jobs. The placer asks for the next job, examines
 * it, and says which of them started: an order may change what comes next by what started (fair
 * share between owners does). One instance serves one pass.
 */
public interface PassOrder {

  /** The next job to examine, or null when none is left. */
  PlacementRequest next();

  /** The job {@link #next} returned last starts with this decision. */
  void started(PlacementRequest request, PlacementDecision decision);

  /** The jobs in {@link Placer#QUEUE_ORDER}, whatever starts. */
  static PassOrder queueOrder(List<PlacementRequest> queue) {
    PlacementRequest[] ordered = queue.toArray(new PlacementRequest[0]);
    Arrays.sort(ordered, Placer.QUEUE_ORDER);
    return new PassOrder() {
      private int next;

      @Override
      public PlacementRequest next() {
        return next < ordered.length ? ordered[next++] : null;
      }

      @Override
      public void started(PlacementRequest request, PlacementDecision decision) {}
    };
  }
}

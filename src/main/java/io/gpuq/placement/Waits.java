package io.gpuq.placement;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Why each job a pass examined and did not start waits. Kept as the pass's own arrays, by position
 * in the examined order, and turned into a map only on demand: a pass over a long queue leaves most
 * jobs waiting, and hashing each of them would cost it more than placing them.
 */
public final class Waits {

  static final Waits NONE = new Waits(new PlacementRequest[0], new Wait[0]);

  private final PlacementRequest[] examined;
  private final Wait[] waits;

  /** {@code waits[i]} is why {@code examined[i]} waits, or null when it started or was not seen. */
  Waits(PlacementRequest[] examined, Wait[] waits) {
    this.examined = examined;
    this.waits = waits;
  }

  public void forEach(BiConsumer<String, Wait> action) {
    for (int i = 0; i < waits.length; i++) {
      if (waits[i] != null) {
        action.accept(examined[i].jobId(), waits[i]);
      }
    }
  }

  public Map<String, Wait> asMap() {
    Map<String, Wait> map = new HashMap<>();
    forEach(map::put);
    return map;
  }
}

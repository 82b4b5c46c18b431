package io.gpuq.sweep;

/** No sweep has this id. */
public class SweepNotFoundException extends RuntimeException {

  public SweepNotFoundException(String id) {
    super("no sweep " + id);
  }
}

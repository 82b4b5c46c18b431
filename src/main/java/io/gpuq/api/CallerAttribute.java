package io.gpuq.api;

/**
 * The request attribute that holds the request's authenticated {@link io.gpuq.job.Caller}: the
 * authentication filter in front of the API sets it, the controllers read it.
 */
public final class CallerAttribute {

  public static final String NAME = "gpuq.caller";

  private CallerAttribute() {}
}

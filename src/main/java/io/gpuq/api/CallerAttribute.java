package io.gpuq.api;

/**
 * The request attribute that holds the request's authenticated {@link io.gpuq.job.Caller}: the
 * authentication filter in front of the API sets it; {@link CallerArgumentResolver} hands it to the
 * controllers, and {@link JobListingCache} keys its answers by it.
 */
public final class CallerAttribute {

  public static final String NAME = "gpuq.caller";

  private CallerAttribute() {}
}

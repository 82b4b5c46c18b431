package io.gpuq.job;

/** How long an API read may run before the database cancels it. */
public final class QueryTimeouts {

  /**
   * The default of {@code gpuq.api.query-timeout}: far above any page of the indexed listing (a
   * page of 1,000 of a million jobs takes milliseconds), far below the 17 minutes an unbounded read
   * took.
   */
  public static final String DEFAULT = "10s";

  private QueryTimeouts() {}
}

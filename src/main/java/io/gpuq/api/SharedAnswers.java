package io.gpuq.api;

/**
 * The meanings of answers that several operations give for one reason, written once for their
 * {@code ApiResponse}s.
 */
final class SharedAnswers {

  /** 429 of a request that would take its owner past their queued jobs' limit. */
  static final String TOO_MANY_QUEUED =
      "the caller has its token's max-queued-jobs queued already (max, queued and requested in the"
          + " problem); nothing was stored";

  /** 507 of a request that would store something while the data directory is short of space. */
  static final String NO_ROOM = "the data directory has less free space than gpuq.storage.min-free";

  private SharedAnswers() {}
}

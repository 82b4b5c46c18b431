package io.gpuq.job;

import java.util.List;

/** One page of a listing, newest first, and the id to continue before (null on the last page). */
public record JobPage(List<Job> items, String nextBeforeId) {}

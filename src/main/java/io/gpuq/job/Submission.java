package io.gpuq.job;

/** The job a submission created, or the one an earlier submission with its key created. */
public record Submission(Job job, boolean created) {}

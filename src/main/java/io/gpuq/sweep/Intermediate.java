package io.gpuq.sweep;

import java.time.Instant;

/**
 * One intermediate value of the sweep's metric that a trial reported: at which step, and when gpuq
 * read it (ASHA compares a trial with those that reached a rung before it).
 */
public record Intermediate(long step, double value, Instant at) {}

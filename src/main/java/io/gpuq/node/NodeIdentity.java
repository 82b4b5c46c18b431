package io.gpuq.node;

/** This node's name in placements and in {@code /api/v1/gpus}. */
public record NodeIdentity(String name) {}

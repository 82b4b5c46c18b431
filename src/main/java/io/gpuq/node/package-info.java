/**
 * Several gpuq nodes on one database: this node's name and GPUs ({@code NodeGpu}), the registry
 * each node heartbeats into, and reaping the running jobs of silent nodes.
 */
package io.gpuq.node;

/**
 * Giving each worker its cores and host memory, and enforcing them: a cgroup per worker (v1's
 * cpuset, memory and cpuacct hierarchies, or v2's unified one) below gpuq's own cgroup, the {@code
 * sched_setaffinity} fallback where gpuq cannot make cgroups, and what a node can give after its
 * reservations. Plain Java; libc through JNA. See docs/design/worker-cgroups.md.
 */
package io.gpuq.cgroup;

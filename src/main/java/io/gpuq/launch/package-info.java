/**
 * Starting and keeping workers: launching a job's process as its account ({@code posix_spawn} or
 * {@code ProcessBuilder}), re-adopting workers after a restart, the registry of live workers and
 * their budgets, and stopping a process tree. Plain Java.
 */
package io.gpuq.launch;

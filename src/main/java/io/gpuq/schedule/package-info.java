/**
 * The scheduler: the loop that wakes on submissions and freed capacity, the dispatcher that asks
 * the placer and claims and starts jobs, running a job to its end, recovering workers after a
 * restart, timeouts, and admission at submit.
 */
package io.gpuq.schedule;

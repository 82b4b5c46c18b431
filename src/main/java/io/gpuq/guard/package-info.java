/**
 * What happens to a job on a GPU: the budget guard that stops (or warns about) a job over its
 * budget, the peak recorder, and how a worker died (out of memory, recognised from its exit and
 * log, or an ordinary exit code), in words for failure messages. Plain Java.
 */
package io.gpuq.guard;

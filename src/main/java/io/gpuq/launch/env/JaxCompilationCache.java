package io.gpuq.launch.env;

/**
 * Where a JAX worker keeps its persistent compilation cache ({@code JAX_COMPILATION_CACHE_DIR}).
 *
 * <p>{@link #PER_NODE} shares compiled programs between the jobs of one account on the node (one
 * directory per account: a cache another owner could write would run that owner's code): a sweep
 * runs the same model with different seeds or learning rates, and every job after the first skips
 * compilations that take seconds to minutes. JAX keys entries by program, backend, device kind and
 * jax/jaxlib version, so jobs with different models or versions never read each other's entries.
 *
 * <p>{@link #PER_JOB} keeps the cache in the job's own directory: only retries and the job's own
 * processes share it. Choose it when hundreds of processes start together and would all write one
 * directory at once, or when the cache lives on a file system where concurrent writers have
 * corrupted entries (network file systems without atomic rename).
 *
 * <p>{@link #OFF} leaves the variable unset, so JAX uses no persistent cache.
 */
public enum JaxCompilationCache {
  PER_NODE,
  PER_JOB,
  OFF
}

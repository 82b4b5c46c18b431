package io.gpuq.launch.env;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Node-wide choices behind every worker's environment.
 *
 * @param jaxCompilationCache where JAX workers keep compiled programs; see {@link
 *     JaxCompilationCache} for why each choice exists
 * @param nodeJaxCacheDir where {@link JaxCompilationCache#PER_NODE} keeps one cache per account (a
 *     directory named by its uid); ignored otherwise (may then be null)
 * @param pythonHookDir the directory holding gpuq's {@code sitecustomize.py} (see {@link
 *     PythonHook}); it is put first on every worker's {@code PYTHONPATH}
 * @param preallocateJax {@code XLA_PYTHON_CLIENT_PREALLOCATE} for {@code jax} jobs. True (the
 *     default) takes the whole budget at start: usage is visible and stable from the first second,
 *     a job that cannot get its budget fails at once rather than hours later, and XLA's allocator
 *     fragments less. Other frameworks always get {@code false}, so a program that merely imports
 *     jax takes nothing it does not use.
 */
public record WorkerEnvironmentSettings(
    JaxCompilationCache jaxCompilationCache,
    Path nodeJaxCacheDir,
    Path pythonHookDir,
    boolean preallocateJax) {

  public WorkerEnvironmentSettings {
    Objects.requireNonNull(jaxCompilationCache, "jaxCompilationCache");
    requireAbsolute(pythonHookDir, "pythonHookDir");
    if (jaxCompilationCache == JaxCompilationCache.PER_NODE) {
      requireAbsolute(nodeJaxCacheDir, "nodeJaxCacheDir");
    }
  }

  /** A per-node JAX cache and preallocation for jax jobs. */
  public static WorkerEnvironmentSettings defaults(Path nodeJaxCacheDir, Path pythonHookDir) {
    return new WorkerEnvironmentSettings(
        JaxCompilationCache.PER_NODE, nodeJaxCacheDir, pythonHookDir, true);
  }

  public WorkerEnvironmentSettings withJaxCompilationCache(JaxCompilationCache cache) {
    return new WorkerEnvironmentSettings(cache, nodeJaxCacheDir, pythonHookDir, preallocateJax);
  }

  public WorkerEnvironmentSettings withPreallocateJax(boolean preallocate) {
    return new WorkerEnvironmentSettings(
        jaxCompilationCache, nodeJaxCacheDir, pythonHookDir, preallocate);
  }

  private static void requireAbsolute(Path path, String name) {
    // Workers run in the user's working directory; a relative path would resolve there.
    if (path == null || !path.isAbsolute()) {
      throw new IllegalArgumentException(name + " must be an absolute path: " + path);
    }
  }
}

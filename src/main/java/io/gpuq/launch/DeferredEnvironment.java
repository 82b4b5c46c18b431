package io.gpuq.launch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A worker's environment as it may pass through gpuq's own processes. The wrapper and {@code
 * setpriv} run as gpuq, before the drop to the job's account; the variables the dynamic loader, the
 * C library or a shell act on ({@code LD_PRELOAD}, {@code GCONV_PATH}, {@code BASH_ENV}, ...) would
 * run the job's code with gpuq's rights there. glibc ignores them in setuid programs for that
 * reason; gpuq's root processes are not setuid, so gpuq hides them itself: each travels renamed
 * ({@value #PREFIX}NAME) and is restored by a shell that runs after the drop.
 */
public record DeferredEnvironment(Map<String, String> environment, List<String> deferred) {

  /** Lists the deferred names, separated by spaces, for the restoring shell. */
  public static final String NAMES = "GPUQ_DEFERRED";

  public static final String PREFIX = "GPUQ_DEFERRED_";

  /**
   * Restores the deferred variables; {@code $0} is a directory to enter first, or empty. Runs as
   * the job's account; names are shell identifiers (checked when deferred), values are never
   * evaluated.
   */
  public static final String RESTORE_SCRIPT =
      "[ -z \"$0\" ] || cd \"$0\" || exit; for n in $"
          + NAMES
          + "; do eval \"export $n=\\\"\\${"
          + PREFIX
          + "$n}\\\"\"; unset \""
          + PREFIX
          + "$n\"; done; unset "
          + NAMES
          + "; exec \"$@\"";

  // glibc's UNSECURE_ENVVARS (what it strips for setuid programs), and what shells read.
  private static final Set<String> UNSAFE =
      Set.of(
          "GCONV_PATH",
          "GETCONF_DIR",
          "GLIBC_TUNABLES",
          "HOSTALIASES",
          "LOCALDOMAIN",
          "LOCPATH",
          "MALLOC_TRACE",
          "NIS_PATH",
          "NLSPATH",
          "RESOLV_HOST_CONF",
          "RES_OPTIONS",
          "TZDIR",
          "ENV",
          "BASH_ENV",
          "CDPATH",
          "IFS",
          "PS4",
          "SHELLOPTS",
          "BASHOPTS");

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public DeferredEnvironment {
    environment = Map.copyOf(environment);
    deferred = List.copyOf(deferred);
  }

  /** Whether a variable must not reach a process that runs with gpuq's rights. */
  public static boolean unsafeBeforeTheDrop(String name) {
    return UNSAFE.contains(name)
        || name.startsWith("LD_")
        || name.startsWith("MALLOC_")
        || name.startsWith("BASH_FUNC_")
        || name.startsWith(PREFIX)
        || name.equals(NAMES);
  }

  /**
   * Splits a worker's environment. Names gpuq itself uses for the deferral are dropped, and so is
   * an unsafe variable whose name no shell could restore (exported functions, say).
   */
  public static DeferredEnvironment of(Map<String, String> environment) {
    Map<String, String> safe = new LinkedHashMap<>();
    Map<String, String> renamed = new LinkedHashMap<>();
    List<String> deferred = new ArrayList<>();
    environment.forEach(
        (name, value) -> {
          if (!unsafeBeforeTheDrop(name)) {
            safe.put(name, value);
          } else if (IDENTIFIER.matcher(name).matches()
              && !name.startsWith(PREFIX)
              && !name.equals(NAMES)) {
            deferred.add(name);
            renamed.put(PREFIX + name, value);
          }
        });
    safe.putAll(renamed);
    if (!deferred.isEmpty()) {
      safe.put(NAMES, String.join(" ", deferred));
    }
    return new DeferredEnvironment(safe, deferred);
  }
}

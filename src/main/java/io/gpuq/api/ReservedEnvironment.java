package io.gpuq.api;

import java.util.Set;

/** The environment variables gpuq imposes on workers, which a request's {@code env} may not set. */
@FunctionalInterface
public interface ReservedEnvironment {
  Set<String> names();
}

package io.gpuq.sweep;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** The sweep's parameters by name, in the order the request declared them. */
public record ParameterSpace(Map<String, Parameter> parameters) {

  public ParameterSpace {
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  public Set<String> names() {
    return parameters.keySet();
  }

  public boolean declares(String name) {
    return parameters.containsKey(name);
  }

  public Parameter get(String name) {
    return parameters.get(name);
  }
}

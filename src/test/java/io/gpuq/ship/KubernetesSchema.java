package io.gpuq.ship;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectFieldSelector;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplate;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimVolumeSource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.RuleGroup;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitorSpec;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Kubernetes manifests checked against the API types of Kubernetes and the Prometheus Operator, as
 * the API server (or {@code kubectl apply --validate=strict}) would: fabric8's model classes, which
 * are generated from Kubernetes' OpenAPI schema and the operator's CRDs, read each manifest with no
 * type coercion, so that a string where a number belongs fails; and since those classes keep any
 * field they do not know in an {@code additionalProperties} map instead of failing, every such map
 * in the whole object tree must be empty. The OpenAPI schema's {@code required} fields are not in
 * fabric8's classes: {@link #REQUIRED} lists them for the types this chart renders.
 */
final class KubernetesSchema {

  private KubernetesSchema() {}

  /** The kinds this chart renders, by {@code apiVersion/kind}. */
  private static final Map<String, Class<? extends HasMetadata>> KINDS =
      Map.of(
          "v1/ConfigMap", ConfigMap.class,
          "v1/Secret", Secret.class,
          "v1/Service", Service.class,
          "apps/v1/DaemonSet", DaemonSet.class,
          "monitoring.coreos.com/v1/ServiceMonitor", ServiceMonitor.class,
          "monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class);

  /** The OpenAPI schema's required fields of the types the chart uses (JSON names). */
  private static final Map<Class<?>, List<String>> REQUIRED =
      Map.ofEntries(
          Map.entry(DaemonSetSpec.class, List.of("selector", "template")),
          Map.entry(Container.class, List.of("name")),
          Map.entry(ContainerPort.class, List.of("containerPort")),
          Map.entry(EnvVar.class, List.of("name")),
          Map.entry(SecretKeySelector.class, List.of("key")),
          Map.entry(ObjectFieldSelector.class, List.of("fieldPath")),
          Map.entry(HTTPGetAction.class, List.of("port")),
          Map.entry(Volume.class, List.of("name")),
          Map.entry(VolumeMount.class, List.of("name", "mountPath")),
          Map.entry(HostPathVolumeSource.class, List.of("path")),
          Map.entry(PersistentVolumeClaimVolumeSource.class, List.of("claimName")),
          Map.entry(PersistentVolumeClaimTemplate.class, List.of("spec")),
          Map.entry(KeyToPath.class, List.of("key", "path")),
          Map.entry(LocalObjectReference.class, List.of("name")),
          Map.entry(ServicePort.class, List.of("port")),
          Map.entry(ServiceMonitorSpec.class, List.of("selector")),
          Map.entry(RuleGroup.class, List.of("name")),
          Map.entry(Rule.class, List.of("expr")));

  /** Reads as a strict client does: no "8080" for 8080, no "true" for true, no null for 0. */
  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

  /** What is wrong with each manifest, as "Kind name: path: problem"; empty when all are valid. */
  static List<String> problems(Collection<?> manifests) {
    List<String> problems = new ArrayList<>();
    for (Object manifest : manifests) {
      problems.addAll(problems(manifest));
    }
    return problems;
  }

  /** What is wrong with one manifest (parsed YAML); empty when it is valid. */
  static List<String> problems(Object manifest) {
    if (!(manifest instanceof Map<?, ?> document)) {
      return List.of("not a mapping: " + manifest);
    }
    String name = document.get("kind") + " " + nameOf(document);
    Class<? extends HasMetadata> type =
        KINDS.get(document.get("apiVersion") + "/" + document.get("kind"));
    if (type == null) {
      return List.of(
          name
              + ": no schema known for apiVersion "
              + document.get("apiVersion")
              + " (known: "
              + new TreeSet<>(KINDS.keySet())
              + ")");
    }
    HasMetadata typed;
    try {
      typed = STRICT.convertValue(document, type);
    } catch (IllegalArgumentException e) {
      return List.of(name + ": " + mismatch(e));
    }
    List<String> problems = new ArrayList<>();
    if (typed.getMetadata() == null || typed.getMetadata().getName() == null) {
      problems.add(name + ": metadata.name is missing");
    }
    walk(typed, "", problems, new IdentityHashMap<>());
    return problems.stream().map(p -> name + ": " + p).toList();
  }

  /** "spec.template.spec.containers[0].ports[0].containerPort: Cannot coerce String ...". */
  private static String mismatch(IllegalArgumentException e) {
    if (!(e.getCause() instanceof JsonMappingException mapping)) {
      return e.getMessage();
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference step : mapping.getPath()) {
      if (step.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(step.getFieldName());
      } else if (step.getIndex() >= 0) {
        path.append('[').append(step.getIndex()).append(']');
      }
    }
    return path + ": " + mapping.getOriginalMessage();
  }

  private static String nameOf(Map<?, ?> document) {
    return document.get("metadata") instanceof Map<?, ?> metadata
        ? String.valueOf(metadata.get("name"))
        : "(no metadata)";
  }

  private static void walk(
      Object node, String path, List<String> problems, Map<Object, Boolean> seen) {
    if (node == null || seen.put(node, true) != null) {
      return;
    }
    if (node instanceof Map<?, ?> map) {
      map.forEach((key, value) -> walk(value, path + "." + key, problems, seen));
      return;
    }
    if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        walk(list.get(i), path + "[" + i + "]", problems, seen);
      }
      return;
    }
    if (!node.getClass().getName().startsWith("io.fabric8.")) {
      return; // String, Integer, Boolean...
    }
    if (node instanceof Quantity quantity) {
      try {
        Quantity.getAmountInBytes(quantity);
      } catch (RuntimeException e) {
        problems.add(
            at(path) + ": \"" + quantity + "\" is not a quantity (" + e.getMessage() + ")");
      }
    }
    for (String field : REQUIRED.getOrDefault(node.getClass(), List.of())) {
      if (read(node, field) == null) {
        problems.add(at(path + "." + field) + ": required by " + simpleName(node) + ", missing");
      }
    }
    for (Class<?> c = node.getClass(); c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers())) {
          continue;
        }
        Object value = get(field, node);
        if (field.getName().equals("additionalProperties")) {
          if (value instanceof Map<?, ?> unknown) {
            unknown.forEach(
                (key, v) ->
                    problems.add(at(path + "." + key) + ": no such field in " + simpleName(node)));
          }
        } else {
          walk(value, path + "." + jsonName(field), problems, seen);
        }
      }
    }
  }

  private static String at(String path) {
    return path.startsWith(".") ? path.substring(1) : path;
  }

  private static String simpleName(Object node) {
    return node.getClass().getSimpleName();
  }

  private static String jsonName(Field field) {
    JsonProperty property = field.getAnnotation(JsonProperty.class);
    return property != null && !property.value().isEmpty() ? property.value() : field.getName();
  }

  private static Object read(Object node, String jsonName) {
    for (Class<?> c = node.getClass(); c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (!Modifier.isStatic(field.getModifiers()) && jsonName(field).equals(jsonName)) {
          return get(field, node);
        }
      }
    }
    throw new IllegalStateException(node.getClass() + " has no field " + jsonName);
  }

  private static Object get(Field field, Object node) {
    try {
      field.setAccessible(true);
      return field.get(node);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}

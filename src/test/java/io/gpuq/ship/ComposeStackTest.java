package io.gpuq.ship;

import static io.gpuq.ship.Tree.has;
import static io.gpuq.ship.Tree.list;
import static io.gpuq.ship.Tree.map;
import static io.gpuq.ship.Tree.string;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * docker-compose.yml (GPU) and docker-compose.cpu.yml (emulated GPUs), with the Prometheus and
 * Grafana provisioning they mount, read and cross-checked: every name, port and path one file
 * relies on is where the other puts it. (No Docker engine here: never run by a test.)
 */
class ComposeStackTest {

  private static final String GPU = "docker-compose.yml";
  private static final String CPU = "docker-compose.cpu.yml";
  private static final Pattern DEFAULTED = Pattern.compile("\\$\\{(\\w+):-([^}]*)}");

  @Nested
  @DisplayName("docker-compose.yml")
  class Gpu {

    private final Map<String, Object> gpuq = service(GPU, "gpuq");

    @Test
    void reservesTheNvidiaGpusAndSharesTheHostPidNamespace() {
      Map<String, Object> device = map(gpuq, "deploy", "resources", "reservations", "devices", 0);

      assertThat(device).containsEntry("driver", "nvidia");
      assertThat(list(device, "capabilities")).contains("gpu");
      assertThat(gpuq).containsEntry("pid", "host");
      assertThat(environment(gpuq)).containsEntry("GPUQ_GPU_BACKEND", "nvml");
    }
  }

  @Nested
  @DisplayName("docker-compose.cpu.yml")
  class Cpu {

    private final Map<String, Object> gpuq = service(CPU, "gpuq");

    @Test
    void emulatesTheGpusWithoutReservingAny() {
      assertThat(has(gpuq, "deploy")).isFalse();
      assertThat(gpuq).doesNotContainKey("pid");
      assertThat(environment(gpuq)).containsEntry("GPUQ_GPU_BACKEND", "emulated");
    }

    @Test
    void differsFromTheGpuStackInTheGpuqServiceOnly() {
      Map<String, Object> gpu = new java.util.LinkedHashMap<>(map(Repo.yaml(GPU)));
      Map<String, Object> cpu = new java.util.LinkedHashMap<>(map(Repo.yaml(CPU)));
      Map<String, Object> gpuServices = new java.util.LinkedHashMap<>(map(gpu, "services"));
      Map<String, Object> cpuServices = new java.util.LinkedHashMap<>(map(cpu, "services"));
      gpuServices.remove("gpuq");
      cpuServices.remove("gpuq");

      assertThat(cpuServices).isEqualTo(gpuServices);
      assertThat(cpu.get("volumes")).isEqualTo(gpu.get("volumes"));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void buildsTheImageHereAndPublishesPort8080(String file) {
    Map<String, Object> gpuq = service(file, "gpuq");

    assertThat(gpuq).containsEntry("build", ".");
    assertThat(containerPorts(gpuq)).containsExactly(8080);
    assertThat(mountTargets(gpuq)).contains("/var/lib/gpuq");
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void runsGpuqAsRootWithOnlyTheCapabilitiesItNeedsToRunJobsAsAnotherAccount(String file) {
    Map<String, Object> gpuq = service(file, "gpuq");

    assertThat(gpuq)
        .as("the image's USER (root): added capabilities need it")
        .doesNotContainKey("user");
    assertThat(list(gpuq, "cap_drop")).containsExactly("ALL");
    assertThat(list(gpuq, "cap_add")).containsExactlyInAnyOrderElementsOf(Privileges.CAPABILITIES);
    assertThat(list(gpuq, "security_opt")).contains("no-new-privileges:true");
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  @DisplayName("uses only top-level keys that Compose v1.29 accepts too (no `name:`)")
  void usesOnlyTopLevelKeysComposeV1Accepts(String file) {
    assertThat(((Map<?, ?>) Repo.yaml(file)).keySet())
        .allSatisfy(
            key ->
                assertThat(key.toString())
                    .matches("services|volumes|networks|configs|secrets|x-.*"));
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void pointsGpuqAtThePostgresqlOfTheStack(String file) {
    Map<String, String> gpuq = environment(service(file, "gpuq"));
    Map<String, String> postgres = environment(service(file, "postgres"));

    assertThat(gpuq.get("SPRING_DATASOURCE_URL"))
        .isEqualTo("jdbc:postgresql://postgres:5432/" + postgres.get("POSTGRES_DB"));
    assertThat(gpuq.get("SPRING_DATASOURCE_USERNAME")).isEqualTo(postgres.get("POSTGRES_USER"));
    assertThat(gpuq.get("SPRING_DATASOURCE_PASSWORD")).isEqualTo(postgres.get("POSTGRES_PASSWORD"));
    assertThat(map(service(file, "gpuq"), "depends_on", "postgres"))
        .containsEntry("condition", "service_healthy");
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void configuresADemoAdminTokenThatGpuqAccepts(String file) {
    Map<String, String> env = environment(service(file, "gpuq"));

    assertThat(env).containsEntry("GPUQ_AUTH_TOKENS_0_ROLE", "ADMIN");
    Matcher token = DEFAULTED.matcher(env.get("GPUQ_AUTH_TOKENS_0_TOKEN"));
    assertThat(token.matches()).as("the token is ${VARIABLE:-demo default}").isTrue();
    assertThat(token.group(2)).hasSizeGreaterThanOrEqualTo(16);
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void mountsOnlyFilesThatExist(String file) {
    for (Object name : map(Repo.yaml(file), "services").keySet()) {
      for (Object volume : volumes(service(file, (String) name))) {
        String source = volume.toString().split(":")[0];
        if (source.startsWith("./")) {
          assertThat(Repo.path(source)).as(name + ": " + volume).exists();
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void prometheusScrapesGpuqsActuatorAsJobGpuqAndLoadsTheAlertRules(String file) {
    Map<String, Object> prometheus = service(file, "prometheus");
    String configPath = flag(list(prometheus, "command"), "--config.file").orElseThrow();
    assertThat(hostPathMountedAt(prometheus, configPath))
        .isEqualTo("./deploy/prometheus/prometheus.yml");
    Object config = Repo.yaml("deploy/prometheus/prometheus.yml");

    Map<String, Object> job = map(config, "scrape_configs", 0);
    assertThat(job).containsEntry("job_name", "gpuq");
    assertThat(job).containsEntry("metrics_path", "/actuator/prometheus");
    String target = string(job, "static_configs", 0, "targets", 0);
    assertThat(target).isEqualTo("gpuq:" + containerPorts(service(file, "gpuq")).get(0));

    for (Object rules : list(config, "rule_files")) {
      String inContainer = Path.of(configPath).resolveSibling(rules.toString()).toString();
      assertThat(hostPathMountedAt(prometheus, inContainer))
          .isEqualTo("./deploy/prometheus/alerts.yml");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {GPU, CPU})
  void grafanaGetsThePrometheusDatasourceAndTheGpuqDashboard(String file) {
    Map<String, Object> grafana = service(file, "grafana");
    assertThat(hostPathMountedAt(grafana, "/etc/grafana/provisioning"))
        .isEqualTo("./deploy/grafana/provisioning");

    Map<String, Object> datasource =
        map(Repo.yaml("deploy/grafana/provisioning/datasources/prometheus.yml"), "datasources", 0);
    assertThat(datasource).containsEntry("type", "prometheus");
    assertThat(datasource)
        .containsEntry(
            "url", "http://prometheus:" + containerPorts(service(file, "prometheus")).get(0));

    String dashboards =
        string(
            Repo.yaml("deploy/grafana/provisioning/dashboards/gpuq.yml"),
            "providers",
            0,
            "options",
            "path");
    assertThat(hostPathMountedAt(grafana, dashboards)).isEqualTo("./deploy/grafana/dashboards");
    String home = environment(grafana).get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH");
    assertThat(home).isEqualTo(dashboards + "/gpuq.json");
  }

  @Test
  @DisplayName("every panel of the dashboard queries the provisioned datasource")
  void dashboardUsesTheProvisionedDatasource() {
    String uid =
        string(
            Repo.yaml("deploy/grafana/provisioning/datasources/prometheus.yml"),
            "datasources",
            0,
            "uid");
    JsonNode dashboard =
        JsonMapper.builder().build().readTree(Repo.read("deploy/grafana/dashboards/gpuq.json"));

    List<String> used = new ArrayList<>();
    collectDatasourceUids(dashboard, used);
    assertThat(used).isNotEmpty().allMatch(u -> u.equals(uid) || u.startsWith("$"));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static Map<String, Object> service(String file, String name) {
    return map(Repo.yaml(file), "services", name);
  }

  /** The environment as compose passes it, ${VAR:-default} left as written. */
  private static Map<String, String> environment(Map<String, Object> service) {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    map(service, "environment").forEach((k, v) -> env.put(k, v == null ? null : v.toString()));
    return env;
  }

  private static List<Object> volumes(Map<String, Object> service) {
    return has(service, "volumes") ? list(service, "volumes") : List.of();
  }

  private static List<String> mountTargets(Map<String, Object> service) {
    return volumes(service).stream().map(v -> v.toString().split(":")[1]).toList();
  }

  private static String hostPathMountedAt(Map<String, Object> service, String target) {
    return volumes(service).stream()
        .map(v -> v.toString().split(":"))
        .filter(parts -> parts[1].equals(target))
        .map(parts -> parts[0])
        .findFirst()
        .orElseThrow(() -> new AssertionError("nothing mounted at " + target + " in " + service));
  }

  /** Container ports of "HOST_IP:HOST_PORT:CONTAINER_PORT" mappings. */
  private static List<Integer> containerPorts(Map<String, Object> service) {
    return list(service, "ports").stream()
        .map(p -> p.toString().substring(p.toString().lastIndexOf(':') + 1))
        .map(Integer::valueOf)
        .toList();
  }

  private static Optional<String> flag(List<Object> command, String name) {
    return command.stream()
        .map(Object::toString)
        .filter(arg -> arg.startsWith(name + "="))
        .map(arg -> arg.substring(name.length() + 1))
        .findFirst();
  }

  private static void collectDatasourceUids(JsonNode node, List<String> uids) {
    if (node.isObject()) {
      JsonNode datasource = node.get("datasource");
      if (datasource != null && datasource.isObject() && datasource.has("uid")) {
        uids.add(datasource.get("uid").asString());
      }
      node.values().forEach(child -> collectDatasourceUids(child, uids));
    } else if (node.isArray()) {
      node.values().forEach(child -> collectDatasourceUids(child, uids));
    }
  }
}

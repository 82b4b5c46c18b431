package io.gpuq.ship;

import static io.gpuq.ship.Tree.at;
import static io.gpuq.ship.Tree.list;
import static io.gpuq.ship.Tree.map;
import static io.gpuq.ship.Tree.string;
import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.comments.CommentType;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/** helm/gpuq, linted and rendered by Helm itself (helm-java), the manifests read back. */
class HelmChartTest {

  private static final String FULL_VALUES = "helm/gpuq/ci/full-values.yaml";
  private static final String SCHEMA = "helm/gpuq/values.schema.json";

  @Nested
  @DisplayName("helm lint --strict")
  class Lint {

    @Test
    void passesWithTheDefaultValues() {
      LintResult result = new Helm(RenderedChart.CHART).lint().strict().call();

      assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
    }

    @Test
    void passesWithNonDefaultValues(@TempDir Path copy) throws IOException {
      LintResult result = lintWith(FULL_VALUES, copy);

      assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
    }

    @Test
    void passesWithTheDefaultValuesOnOneNamedNode(@TempDir Path copy) throws IOException {
      // helm lint takes a template's fail for information only, so the bare defaults (which fail
      // for want of database.url or singleNode.hostname) pass without rendering the DaemonSet:
      // this lints them with the one value they lack.
      LintResult result = lintWith(RenderedChart.SINGLE_NODE_VALUES, copy);

      assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
    }

    @Test
    void failsOnAValueTheSchemaRefuses(@TempDir Path copy) throws IOException {
      copyTree(RenderedChart.CHART, copy);
      Files.writeString(
          copy.resolve("values.yaml"),
          Repo.read("helm/gpuq/values.yaml").replace("backend: nvml", "backend: cuda"));

      LintResult result = new Helm(copy).lint().strict().call();

      assertThat(result.isFailed()).isTrue();
      assertThat(String.join("\n", result.getMessages())).contains("/gpu/backend");
    }

    /**
     * helm lint reads only the chart's own values.yaml: lints a copy whose values.yaml is the
     * defaults overlaid with {@code valuesFile}.
     */
    private static LintResult lintWith(String valuesFile, Path copy) throws IOException {
      copyTree(RenderedChart.CHART, copy);
      Map<String, Object> values = Tree.map(Repo.yaml("helm/gpuq/values.yaml"));
      deepMerge(values, Tree.map(Repo.yaml(valuesFile)));
      DumperOptions block = new DumperOptions();
      block.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
      Files.writeString(copy.resolve("values.yaml"), new Yaml(block).dump(values));
      return new Helm(copy).lint().strict().call();
    }
  }

  @Nested
  @DisplayName("values.schema.json")
  class ValuesSchema {

    @Test
    void describesEveryValueOfValuesYaml() {
      Map<String, Object> schema = Tree.map(Repo.yaml(SCHEMA));

      assertThat(Tree.string(schema, "$schema"))
          .isEqualTo("http://json-schema.org/draft-07/schema#");
      assertThat(undescribed(Repo.yaml("helm/gpuq/values.yaml"), schema, schema, "")).isEmpty();
    }

    @Test
    void acceptsTheDefaultAndTheCiValues() {
      assertThat(RenderedChart.withDefaults().all("DaemonSet")).hasSize(1);
      assertThat(RenderedChart.withValuesFile(FULL_VALUES).all("DaemonSet")).hasSize(1);
      assertThat(RenderedChart.withValuesFile(RenderedChart.SINGLE_NODE_VALUES).all("DaemonSet"))
          .hasSize(1);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
        delimiter = '|',
        value = {
          "gpu.count           | two                | at '/gpu/count': got string, want integer",
          "gpu.cuont           | 2                  | at '/gpu': additional properties 'cuont'",
          "databse.url         | jdbc:postgresql:db | additional properties 'databse'",
          "gpu.backend         | cuda               | at '/gpu/backend': value must be one of",
          "auth.tokens[0].role | OWNER              | at '/auth/tokens/0/role': value must be one of",
          "database.url        | postgres://db/gpuq | at '/database/url'",
          "service.port        | http               | at '/service/port'",
          "image.pullPolicy    | Sometimes          | at '/image/pullPolicy'",
          "persistence.type    | nfs                | at '/persistence/type'",
          "persistence.ephemeral.size | lots        | at '/persistence/ephemeral/size'",
          "serviceMonitor.interval | 15 seconds     | at '/serviceMonitor/interval'",
          "hostPID             | yes                | at '/hostPID'",
        })
    void refusesABadValueNamingIt(String key, String value, String message) {
      assertThatThrownBy(() -> RenderedChart.render(t -> t.set(key, value)))
          .hasMessageContaining("values don't meet the specifications of the schema")
          .hasMessageContaining(message);
    }
  }

  @Nested
  @DisplayName("rendered manifests against the Kubernetes and Prometheus Operator schemas")
  class ManifestSchemas {

    @Test
    void everyManifestOfTheDefaultsIsValidWithEveryOptionalObjectOn() {
      RenderedChart chart =
          RenderedChart.render(
              t ->
                  t.set("serviceMonitor.enabled", true)
                      .set("prometheusRule.enabled", true)
                      .set("auth.tokens[0].name", "admin")
                      .set("auth.tokens[0].token", "admin-token-0123456789")
                      .set("database.url", "jdbc:postgresql://pg:5432/gpuq")
                      .set("database.password", "s3cret"));

      assertThat(chart.manifests())
          .extracting(m -> Tree.string(m, "kind"))
          .containsExactlyInAnyOrder(
              "DaemonSet",
              "Service",
              "ConfigMap",
              "Secret",
              "Secret",
              "ServiceMonitor",
              "PrometheusRule");
      assertThat(KubernetesSchema.problems(chart.manifests())).isEmpty();
    }

    @Test
    void everyManifestOfTheNonDefaultValuesIsValid() {
      RenderedChart chart = RenderedChart.withValuesFile(FULL_VALUES);

      assertThat(chart.all("ServiceMonitor")).hasSize(1);
      assertThat(chart.all("PrometheusRule")).hasSize(1);
      assertThat(KubernetesSchema.problems(chart.manifests())).isEmpty();
    }

    @Test
    void aMisspelledFieldPassedThroughTheValuesIsCaught() {
      RenderedChart chart = RenderedChart.render(t -> t.set("podSecurityContext.runAsUsr", 1000));

      assertThat(KubernetesSchema.problems(chart.manifests()))
          .containsExactly(
              "DaemonSet gpuq: spec.template.spec.securityContext.runAsUsr: no such field in"
                  + " PodSecurityContext");
    }

    @Test
    void aValueOfTheWrongTypeOrFormIsCaught() {
      RenderedChart wrongType =
          RenderedChart.render(
              t ->
                  t.set("extraVolumes[0].name", "scratch")
                      .set("extraVolumes[0].emptyDir.medium", "")
                      .set("extraVolumeMounts[0].name", "scratch")
                      .set("extraVolumeMounts[0].mountPath", "/scratch")
                      .set("extraVolumeMounts[0].readOnly", "yes"));
      RenderedChart badQuantity =
          RenderedChart.render(
              t ->
                  t.set("extraVolumes[0].name", "scratch")
                      .set("extraVolumes[0].emptyDir.sizeLimit", "8 GiB"));

      assertThat(KubernetesSchema.problems(wrongType.manifests()))
          .singleElement(as(InstanceOfAssertFactories.STRING))
          .startsWith("DaemonSet gpuq: spec.template.spec.containers[0].volumeMounts[2].readOnly:")
          .contains("Boolean");
      assertThat(KubernetesSchema.problems(badQuantity.manifests()))
          .singleElement(as(InstanceOfAssertFactories.STRING))
          .startsWith("DaemonSet gpuq: spec.template.spec.volumes[2].emptyDir.sizeLimit:")
          .contains("not a quantity");
    }

    @Test
    void handMadeManifestsWithUnknownOrMissingFieldsOrKindsAreCaught() {
      Object service =
          Repo.parse(
              """
              apiVersion: v1
              kind: Service
              metadata: {name: gpuq}
              spec:
                prots: [{port: 80}]
                ports: [{name: http, targetPort: http}]
              """);
      Object rule =
          Repo.parse(
              """
              apiVersion: monitoring.coreos.com/v1
              kind: PrometheusRule
              metadata: {name: gpuq}
              spec:
                groups:
                  - name: gpuq
                    rules: [{alert: GpuqDown, expr: up == 0, annotation: {summary: down}}]
              """);
      Object deployment =
          Repo.parse("{apiVersion: apps/v1, kind: Deployment, metadata: {name: x}}");

      assertThat(KubernetesSchema.problems(service))
          .containsExactlyInAnyOrder(
              "Service gpuq: spec.prots: no such field in ServiceSpec",
              "Service gpuq: spec.ports[0].port: required by ServicePort, missing");
      assertThat(KubernetesSchema.problems(rule))
          .containsExactly(
              "PrometheusRule gpuq: spec.groups[0].rules[0].annotation: no such field in Rule");
      assertThat(KubernetesSchema.problems(deployment))
          .singleElement(as(InstanceOfAssertFactories.STRING))
          .contains("no schema known");
    }
  }

  @Nested
  @DisplayName("one queue: a PostgreSQL every node shares, or gpuq pinned to one node")
  class OneQueue {

    @Test
    void withNeitherDatabaseUrlNorSingleNodeHostnameTheInstallFailsSayingWhatToSet() {
      assertThatThrownBy(() -> RenderedChart.renderAsIs(t -> t))
          .hasMessageContaining("database.url is empty")
          .hasMessageContaining("(404)")
          .hasMessageContaining("Set database.url to a PostgreSQL that every node shares")
          .hasMessageContaining("or singleNode.hostname to the one node gpuq runs on");
    }

    @Test
    void withoutDatabaseUrlGpuqRunsOnTheNamedNodeOnlyWithItsOwnH2() {
      RenderedChart chart = RenderedChart.renderAsIs(t -> t.set("singleNode.hostname", "gpu-7"));

      assertThat(map(chart.podSpec(), "nodeSelector"))
          .isEqualTo(Map.of("nvidia.com/gpu.present", "true", "kubernetes.io/hostname", "gpu-7"));
      assertThat(chart.envEntry("SPRING_DATASOURCE_URL")).isEmpty();
    }

    @Test
    void withDatabaseUrlGpuqRunsOnEveryMatchingNode() {
      RenderedChart chart =
          RenderedChart.renderAsIs(t -> t.set("database.url", "jdbc:postgresql://pg:5432/gpuq"));

      assertThat(map(chart.podSpec(), "nodeSelector"))
          .isEqualTo(Map.of("nvidia.com/gpu.present", "true"));
      assertThat(chart.env("SPRING_DATASOURCE_URL"))
          .containsEntry("value", "jdbc:postgresql://pg:5432/gpuq");
    }

    @Test
    void withDatabaseUrlGpuqMayStillBePinnedToOneNode() {
      RenderedChart chart =
          RenderedChart.renderAsIs(
              t ->
                  t.set("database.url", "jdbc:postgresql://pg:5432/gpuq")
                      .set("singleNode.hostname", "gpu-7"));

      assertThat(map(chart.podSpec(), "nodeSelector"))
          .containsEntry("kubernetes.io/hostname", "gpu-7");
    }
  }

  @Nested
  @DisplayName(
      "with the default values on one named node (" + RenderedChart.SINGLE_NODE_VALUES + ")")
  class Defaults {

    private final RenderedChart chart = RenderedChart.withDefaults();

    @Test
    void runsOneGpuqPerGpuNodeWithTheNvidiaRuntimeInTheHostPidNamespace() {
      Map<String, Object> pod = chart.podSpec();

      assertThat(pod.get("hostPID")).isEqualTo(true);
      assertThat(pod.get("runtimeClassName")).isEqualTo("nvidia");
      assertThat(map(pod, "nodeSelector")).containsEntry("nvidia.com/gpu.present", "true");
      assertThat(list(pod, "tolerations"))
          .contains(Map.of("key", "nvidia.com/gpu", "operator", "Exists", "effect", "NoSchedule"));
      assertThat(at(chart.container(), "resources", "limits", "nvidia.com/gpu")).isEqualTo(1);
      assertThat(chart.envEntry("NVIDIA_VISIBLE_DEVICES"))
          .as("the device plugin picks the GPUs")
          .isEmpty();
    }

    @Test
    void probesTheActuatorHealthGroupsOnTheHttpPort() {
      Map<String, Object> container = chart.container();

      assertThat(at(container, "ports", 0))
          .isEqualTo(Map.of("name", "http", "containerPort", 8080, "protocol", "TCP"));
      assertThat(at(container, "livenessProbe", "httpGet"))
          .isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "http"));
      assertThat(at(container, "readinessProbe", "httpGet"))
          .isEqualTo(Map.of("path", "/actuator/health/readiness", "port", "http"));
      assertThat(at(container, "startupProbe", "httpGet"))
          .isEqualTo(Map.of("path", "/actuator/health/liveness", "port", "http"));
    }

    @Test
    void namesTheGpuqNodeAfterTheKubernetesNode() {
      assertThat(at(chart.env("GPUQ_NODE_NAME"), "valueFrom", "fieldRef", "fieldPath"))
          .isEqualTo("spec.nodeName");
    }

    @Test
    void keepsTheDataDirInAHostPathOfTheNode() {
      assertThat(chart.env("GPUQ_DATA_DIR")).containsEntry("value", "/var/lib/gpuq");
      assertThat(list(chart.container(), "volumeMounts"))
          .contains(Map.of("name", "data", "mountPath", "/var/lib/gpuq"));
      Map<String, Object> data = volume(chart, "data");
      assertThat(map(data, "hostPath"))
          .isEqualTo(Map.of("path", "/var/lib/gpuq", "type", "DirectoryOrCreate"));
      // kubelet creates it owned by root, gpuq's own user: nothing to chown beforehand.
      assertThat(chart.podSpec()).doesNotContainKey("initContainers");
    }

    @Test
    void runsGpuqAsRootWithOnlyTheCapabilitiesItNeedsToRunJobsAsAnotherAccount() {
      Map<String, Object> security = map(chart.container(), "securityContext");

      assertThat(security).containsEntry("runAsUser", 0).containsEntry("runAsNonRoot", false);
      assertThat(security).containsEntry("allowPrivilegeEscalation", false);
      assertThat(list(security, "capabilities", "drop")).containsExactly("ALL");
      assertThat(list(security, "capabilities", "add"))
          .containsExactlyInAnyOrderElementsOf(Privileges.CAPABILITIES);
      assertThat(chart.podSpec().get("securityContext"))
          .as("nothing at the pod level overrides it, no fsGroup relabels the job directories")
          .isNull();
      assertThat(chart.env("GPUQ_WORKER_RUN_AS")).containsEntry("value", Privileges.JOB_ACCOUNT);
    }

    @Test
    void leavesTheAdminTokenToGpuqWhenNoTokensAreGiven() {
      assertThat(chart.all("Secret")).isEmpty();
      assertThat(chart.envEntry("GPUQ_AUTH_TOKENS_0_TOKEN")).isEmpty();
    }

    @Test
    void usesTheH2DatabaseInTheDataDirWhenNoPostgresqlIsGiven() {
      assertThat(chart.envEntry("SPRING_DATASOURCE_URL")).isEmpty();
      assertThat(chart.envEntry("SPRING_DATASOURCE_PASSWORD")).isEmpty();
    }

    @Test
    void exposesTheDaemonSetsPodsThroughAServiceOnPort8080() {
      Map<String, Object> service = chart.one("Service");
      Map<String, Object> podLabels = map(chart.one("DaemonSet"), "spec", "template", "metadata");

      assertThat(map(podLabels, "labels")).containsAllEntriesOf(map(service, "spec", "selector"));
      assertThat(at(service, "spec", "ports", 0))
          .isEqualTo(Map.of("name", "http", "port", 8080, "targetPort", "http", "protocol", "TCP"));
    }

    @Test
    void leavesThePrometheusOperatorObjectsOut() {
      assertThat(chart.find("ServiceMonitor")).isEmpty();
      assertThat(chart.find("PrometheusRule")).isEmpty();
    }

    @Test
    void shipsTheDashboardInAConfigMapForTheGrafanaSidecar() {
      Map<String, Object> configMap = chart.one("ConfigMap", "gpuq-dashboard");

      assertThat(map(configMap, "metadata", "labels")).containsEntry("grafana_dashboard", "1");
      assertThat(string(configMap, "data", "gpuq.json"))
          .isEqualToIgnoringWhitespace(Repo.read("deploy/grafana/dashboards/gpuq.json"));
    }

    @Test
    void givesPytorchAMemoryBackedDevShm() {
      assertThat(list(chart.container(), "volumeMounts"))
          .contains(Map.of("name", "shm", "mountPath", "/dev/shm"));
      assertThat(map(volume(chart, "shm"), "emptyDir"))
          .isEqualTo(Map.of("medium", "Memory", "sizeLimit", "8Gi"));
    }
  }

  @Nested
  @DisplayName("with non-default values (" + FULL_VALUES + ")")
  class NonDefaults {

    private final RenderedChart chart = RenderedChart.withValuesFile(FULL_VALUES);

    @Test
    void requestsEveryGpuOfTheNodeBesideTheOtherResources() {
      Map<String, Object> resources = map(chart.container(), "resources");

      assertThat(map(resources, "limits"))
          .isEqualTo(Map.of("nvidia.com/gpu", 8, "memory", "512Gi"));
      assertThat(map(resources, "requests")).isEqualTo(Map.of("cpu", "2", "memory", "4Gi"));
      assertThat(chart.podSpec()).doesNotContainKey("runtimeClassName");
      assertThat(chart.podSpec().get("hostPID")).isEqualTo(true);
      assertThat(map(chart.podSpec(), "nodeSelector"))
          .isEqualTo(Map.of("node.kubernetes.io/instance-type", "p5.48xlarge"));
      assertThat(string(chart.container(), "image"))
          .isEqualTo("registry.example.com/ml/gpuq-torch:2026.11");
    }

    @Test
    void pointsGpuqAtTheExternalPostgresqlWithThePasswordFromTheExistingSecret() {
      assertThat(chart.env("SPRING_DATASOURCE_URL"))
          .containsEntry("value", "jdbc:postgresql://postgres.db.svc:5432/gpuq");
      assertThat(chart.env("SPRING_DATASOURCE_USERNAME")).containsEntry("value", "gpuq_app");
      assertThat(at(chart.env("SPRING_DATASOURCE_PASSWORD"), "valueFrom", "secretKeyRef"))
          .isEqualTo(Map.of("name", "gpuq-postgres", "key", "postgres-password"));
    }

    @Test
    void readsEveryTokenFromTheExistingSecretAndCreatesNone() {
      assertThat(chart.all("Secret")).isEmpty();
      assertThat(chart.env("GPUQ_AUTH_TOKENS_0_NAME")).containsEntry("value", "root");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_0_ROLE")).containsEntry("value", "ADMIN");
      assertThat(at(chart.env("GPUQ_AUTH_TOKENS_0_TOKEN"), "valueFrom", "secretKeyRef"))
          .isEqualTo(Map.of("name", "gpuq-api-tokens", "key", "root"));
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_NAME")).containsEntry("value", "alice");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_ROLE")).containsEntry("value", "SUBMITTER");
      assertThat(at(chart.env("GPUQ_AUTH_TOKENS_1_TOKEN"), "valueFrom", "secretKeyRef"))
          .isEqualTo(Map.of("name", "gpuq-api-tokens", "key", "alice"));
    }

    @Test
    void givesATokenItsShareAndLimitsAndLeavesTheOthersToTheirDefaults() {
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_SHARE")).containsEntry("value", "2");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_MAX_RUNNING_JOBS")).containsEntry("value", "8");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_MAX_GPUS")).containsEntry("value", "2.5");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_MAX_GPU_MEMORY")).containsEntry("value", "40GiB");
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_MAX_QUEUED_JOBS")).containsEntry("value", "20000");
      assertThat(chart.envEntry("GPUQ_AUTH_TOKENS_0_SHARE")).isEmpty();
      assertThat(chart.envEntry("GPUQ_AUTH_TOKENS_0_MAX_GPUS")).isEmpty();
    }

    @Test
    void runsJobsAsTheConfiguredAccountOrAsTheirTokensOwn() {
      assertThat(chart.env("GPUQ_WORKER_RUN_AS")).containsEntry("value", "training");
      assertThat(chart.envEntry("GPUQ_AUTH_TOKENS_0_RUN_AS")).isEmpty();
      assertThat(chart.env("GPUQ_AUTH_TOKENS_1_RUN_AS")).containsEntry("value", "alice");
      assertThat(list(chart.container(), "securityContext", "capabilities", "add"))
          .containsExactlyInAnyOrderElementsOf(Privileges.CAPABILITIES);
    }

    @Test
    void givesEachPodItsOwnClaimAndMountsTheExtraVolumes() {
      Map<String, Object> template = map(volume(chart, "data"), "ephemeral", "volumeClaimTemplate");

      assertThat(string(template, "spec", "storageClassName")).isEqualTo("fast-ssd");
      assertThat(at(template, "spec", "resources", "requests", "storage")).isEqualTo("200Gi");
      assertThat(chart.podSpec()).doesNotContainKey("initContainers");
      assertThat(list(chart.container(), "volumeMounts"))
          .contains(Map.of("name", "datasets", "mountPath", "/datasets", "readOnly", true));
    }

    @Test
    void scrapesEveryPodOnTheActuatorAsJobGpuq() {
      Map<String, Object> monitor = chart.one("ServiceMonitor");
      Map<String, Object> endpoint = map(monitor, "spec", "endpoints", 0);

      assertThat(string(monitor, "apiVersion")).isEqualTo("monitoring.coreos.com/v1");
      assertThat(map(monitor, "metadata", "labels"))
          .containsEntry("release", "kube-prometheus-stack");
      assertThat(map(monitor, "spec", "selector", "matchLabels"))
          .isEqualTo(map(chart.one("Service"), "spec", "selector"));
      assertThat(endpoint).containsEntry("port", "http");
      assertThat(endpoint).containsEntry("path", "/actuator/prometheus");
      assertThat(list(endpoint, "relabelings"))
          .contains(Map.of("action", "replace", "targetLabel", "job", "replacement", "gpuq"));
    }

    @Test
    void turnsTheAlertRulesFileIntoAPrometheusRule() {
      Map<String, Object> rule = chart.one("PrometheusRule");

      assertThat(map(rule, "metadata", "labels")).containsEntry("release", "kube-prometheus-stack");
      assertThat(at(rule, "spec", "groups"))
          .isEqualTo(at(Repo.yaml("deploy/prometheus/alerts.yml"), "groups"));
    }

    @Test
    void labelsTheDashboardAsTheSidecarIsConfigured() {
      Map<String, Object> metadata = map(chart.one("ConfigMap", "gpuq-dashboard"), "metadata");

      assertThat(map(metadata, "labels")).containsEntry("my_dashboards", "yes");
      assertThat(map(metadata, "annotations")).containsEntry("grafana_folder", "GPU");
    }
  }

  @Test
  @DisplayName("gpu.count 0 requests no GPU from the device plugin and shows gpuq all of them")
  void gpuCountZeroMakesAllGpusVisibleThroughTheRuntime() {
    RenderedChart chart = RenderedChart.render(t -> t.set("gpu.count", 0));

    assertThat(Tree.has(chart.container(), "resources", "limits", "nvidia.com/gpu")).isFalse();
    assertThat(chart.env("NVIDIA_VISIBLE_DEVICES")).containsEntry("value", "all");
  }

  @Test
  @DisplayName("an empty worker.runAs leaves the jobs' account to the image (GPUQ_WORKER_RUN_AS)")
  void emptyWorkerRunAsLeavesTheImagesAccount() {
    RenderedChart chart = RenderedChart.render(t -> t.set("worker.runAs", ""));

    assertThat(chart.envEntry("GPUQ_WORKER_RUN_AS")).isEmpty();
  }

  @Test
  @DisplayName("tokens given in the values go into the chart's Secret, which the container reads")
  void givenTokensAreStoredInASecretThatTheContainerReads() {
    RenderedChart chart =
        RenderedChart.render(
            t ->
                t.set("auth.tokens[0].name", "admin")
                    .set("auth.tokens[0].role", "ADMIN")
                    .set("auth.tokens[0].token", "admin-token-0123456789")
                    .set("auth.tokens[1].name", "alice")
                    .set("auth.tokens[1].token", "alice-token-0123456789")
                    .set("auth.tokens[1].runAs", "alice"));

    Map<String, Object> secret = chart.one("Secret", "gpuq-tokens");
    assertThat(decode(string(secret, "data", "admin"))).isEqualTo("admin-token-0123456789");
    assertThat(decode(string(secret, "data", "alice"))).isEqualTo("alice-token-0123456789");
    assertThat(chart.env("GPUQ_AUTH_TOKENS_0_NAME")).containsEntry("value", "admin");
    assertThat(chart.env("GPUQ_AUTH_TOKENS_0_ROLE")).containsEntry("value", "ADMIN");
    assertThat(at(chart.env("GPUQ_AUTH_TOKENS_0_TOKEN"), "valueFrom", "secretKeyRef"))
        .isEqualTo(Map.of("name", "gpuq-tokens", "key", "admin"));
    assertThat(chart.env("GPUQ_AUTH_TOKENS_1_ROLE"))
        .as("the role defaults to SUBMITTER")
        .containsEntry("value", "SUBMITTER");
    assertThat(at(chart.env("GPUQ_AUTH_TOKENS_1_TOKEN"), "valueFrom", "secretKeyRef"))
        .isEqualTo(Map.of("name", "gpuq-tokens", "key", "alice"));
    assertThat(chart.envEntry("GPUQ_AUTH_TOKENS_0_RUN_AS")).isEmpty();
    assertThat(chart.env("GPUQ_AUTH_TOKENS_1_RUN_AS")).containsEntry("value", "alice");
  }

  @Test
  @DisplayName("tokens whose jobs would share an account fail the install, as gpuq would at start")
  void tokensSharingAnAccountFailRenderingUnlessAllowed() {
    UnaryOperator<TemplateCommand> aliceAndBobShare =
        t ->
            t.set("auth.existingSecret", "tokens")
                .set("auth.tokens[0].name", "alice")
                .set("auth.tokens[1].name", "bob")
                .set("auth.tokens[2].name", "carol")
                .set("auth.tokens[2].runAs", "carol");

    assertThatThrownBy(() -> RenderedChart.render(aliceAndBobShare))
        .hasMessageContaining("alice and bob would both run their jobs as gpuq-job")
        .hasMessageContaining("worker.allowSharedAccount");
    RenderedChart allowed =
        RenderedChart.render(t -> aliceAndBobShare.apply(t).set("worker.allowSharedAccount", true));
    assertThat(allowed.env("GPUQ_WORKER_ALLOW_SHARED_ACCOUNT")).containsEntry("value", "true");
    assertThat(RenderedChart.withDefaults().envEntry("GPUQ_WORKER_ALLOW_SHARED_ACCOUNT")).isEmpty();
  }

  @Test
  @DisplayName("a token entry without a token and without existingSecret fails the install")
  void tokenWithoutValueFailsRendering() {
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("auth.tokens[0].name", "admin")))
        .hasMessageContaining("auth.tokens[0] (admin) has no token");
  }

  @Test
  @DisplayName("the PostgreSQL password given in the values goes into a Secret of the chart")
  void givenDatabasePasswordIsStoredInASecret() {
    RenderedChart chart =
        RenderedChart.render(
            t ->
                t.set("database.url", "jdbc:postgresql://pg:5432/gpuq")
                    .set("database.password", "s3cret"));

    Map<String, Object> secret = chart.one("Secret", "gpuq-database");
    assertThat(decode(string(secret, "data", "password"))).isEqualTo("s3cret");
    assertThat(at(chart.env("SPRING_DATASOURCE_PASSWORD"), "valueFrom", "secretKeyRef"))
        .isEqualTo(Map.of("name", "gpuq-database", "key", "password"));
  }

  @Test
  @DisplayName("a token gpuq would refuse at start fails the install instead")
  void shortTokenFailsRendering() {
    assertThatThrownBy(
            () ->
                RenderedChart.render(
                    t ->
                        t.set("auth.tokens[0].name", "admin").set("auth.tokens[0].token", "short")))
        .hasMessageContaining("at '/auth/tokens/0/token': minLength: got 5, want 16");
  }

  @Test
  @DisplayName("an unknown persistence type fails the install")
  void unknownPersistenceTypeFailsRendering() {
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("persistence.type", "nfs")))
        .hasMessageContaining("at '/persistence/type': value must be one of");
  }

  @Test
  @DisplayName("the chart's copies of the alert rules and the dashboard equal deploy/")
  void chartFilesAreInStepWithDeploy() {
    assertThat(Repo.read("helm/gpuq/files/alerts.yml"))
        .as("helm/gpuq/files/alerts.yml: cp deploy/prometheus/alerts.yml helm/gpuq/files/")
        .isEqualTo(Repo.read("deploy/prometheus/alerts.yml"));
    assertThat(Repo.read("helm/gpuq/files/gpuq.json"))
        .as("helm/gpuq/files/gpuq.json: cp deploy/grafana/dashboards/gpuq.json helm/gpuq/files/")
        .isEqualTo(Repo.read("deploy/grafana/dashboards/gpuq.json"));
  }

  @Test
  @DisplayName("every value in values.yaml has a comment (its own or its parent's)")
  void everyValueIsDocumented() {
    Node root =
        new Yaml(commentsKept()).compose(new StringReader(Repo.read("helm/gpuq/values.yaml")));

    assertThat(undocumented(root, "")).isEmpty();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /**
   * The paths of values.yaml that the schema does not describe: keys missing from a closed object's
   * {@code properties}. An object the schema leaves open (Kubernetes objects passed through, such
   * as securityContext) is described as a whole.
   */
  private static List<String> undescribed(
      Object value, Map<String, Object> schema, Map<String, Object> root, String path) {
    Map<String, Object> node = resolve(schema, root);
    List<String> missing = new ArrayList<>();
    if (value instanceof Map<?, ?> values) {
      Map<String, Object> properties =
          Tree.has(node, "properties") ? map(node, "properties") : Map.of();
      Object additional = node.get("additionalProperties");
      values.forEach(
          (key, child) -> {
            String at = path + "/" + key;
            if (properties.containsKey(key)) {
              missing.addAll(undescribed(child, map(properties, key), root, at));
            } else if (additional instanceof Map<?, ?>) {
              missing.addAll(undescribed(child, map(node, "additionalProperties"), root, at));
            } else if (Boolean.FALSE.equals(additional) || !properties.isEmpty()) {
              missing.add(at);
            }
          });
    } else if (value instanceof List<?> items && Tree.has(node, "items")) {
      for (int i = 0; i < items.size(); i++) {
        missing.addAll(undescribed(items.get(i), map(node, "items"), root, path + "/" + i));
      }
    }
    return missing;
  }

  private static Map<String, Object> resolve(Map<String, Object> schema, Map<String, Object> root) {
    Object ref = schema.get("$ref");
    if (ref == null) {
      return schema;
    }
    assertThat(ref.toString()).startsWith("#/definitions/");
    return map(root, "definitions", ref.toString().substring("#/definitions/".length()));
  }

  private static Map<String, Object> volume(RenderedChart chart, String name) {
    return list(chart.podSpec(), "volumes").stream()
        .map(Tree::map)
        .filter(v -> name.equals(v.get("name")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name + " in\n" + chart.text()));
  }

  private static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  private static LoaderOptions commentsKept() {
    LoaderOptions options = new LoaderOptions();
    options.setProcessComments(true);
    return options;
  }

  /**
   * Keys with neither a comment of their own nor a documented parent. A mapping without a comment
   * (such as {@code image:}) is documented when each of its keys is.
   */
  private static List<String> undocumented(Node node, String path) {
    List<String> missing = new ArrayList<>();
    if (!(node instanceof MappingNode mapping)) {
      return missing;
    }
    for (NodeTuple tuple : mapping.getValue()) {
      Node key = tuple.getKeyNode();
      String name = path + ((ScalarNode) key).getValue();
      boolean commented =
          key.getBlockComments() != null
              && key.getBlockComments().stream()
                  .anyMatch(line -> line.getCommentType() == CommentType.BLOCK);
      if (commented) {
        continue;
      }
      if (tuple.getValueNode() instanceof MappingNode child && !child.getValue().isEmpty()) {
        missing.addAll(undocumented(child, name + "."));
      } else {
        missing.add(name);
      }
    }
    return missing;
  }

  @SuppressWarnings("unchecked")
  private static void deepMerge(Map<String, Object> into, Map<String, Object> from) {
    from.forEach(
        (key, value) -> {
          if (value instanceof Map && into.get(key) instanceof Map) {
            deepMerge((Map<String, Object>) into.get(key), (Map<String, Object>) value);
          } else {
            into.put(key, value);
          }
        });
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path source : paths.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
  }
}

package io.gpuq.ship;

import static io.gpuq.ship.Tree.map;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every way gpuq is started carries {@code -XX:+ExitOnOutOfMemoryError}: after an OutOfMemoryError
 * it must never go on writing its database (issue 24). Read from the files as they ship; the chart
 * rendered by Helm itself. What the flag does to a running gpuq is {@code
 * recovery.HeapExhaustionTest}.
 */
@DisplayName("Every start command ends gpuq at once on an OutOfMemoryError")
class ExitOnOutOfMemoryTest {

  static final String FLAG = "-XX:+ExitOnOutOfMemoryError";

  /** The non-default values HelmChartTest lints and renders too. */
  private static final String FULL_VALUES = "helm/gpuq/ci/full-values.yaml";

  @Test
  void theReadmesMavenCommandRunsTheJvmWithTheFlag() {
    Matcher arguments =
        Pattern.compile("<jvmArguments>([^<]*)</jvmArguments>").matcher(Repo.read("pom.xml"));
    assertThat(arguments.find()).as("spring-boot-maven-plugin's jvmArguments").isTrue();
    assertThat(arguments.group(1).split("\\s+")).contains(FLAG);
  }

  @Test
  void theReadmesJavaJarCommandCarriesTheFlag() {
    Matcher commands =
        Pattern.compile("`(java [^`]*-jar target/gpuq[^`]*)`").matcher(Repo.read("README.md"));
    int found = 0;
    while (commands.find()) {
      found++;
      assertThat(commands.group(1).split("\\s+")).as(commands.group(1)).contains(FLAG);
    }
    assertThat(found).as("java -jar commands in the README").isPositive();
  }

  @Test
  void theImagesEntryPointCarriesTheFlagWhereNoJavaOptionsVariableCanDropIt() {
    Dockerfile.Stage runtime = Dockerfile.parse(Repo.read("Dockerfile")).last();
    List<String> entrypoint = runtime.arguments("ENTRYPOINT");
    assertThat(entrypoint).hasSize(1);
    String command = entrypoint.get(0);
    assertThat(command.indexOf("\"java\"")).isNotNegative();
    assertThat(command.indexOf("\"" + FLAG + "\""))
        .as("an option of java, before -jar: " + command)
        .isGreaterThan(command.indexOf("\"java\""))
        .isLessThan(command.indexOf("\"-jar\""));
    assertThat(String.join(" ", runtime.arguments("ENV"))).doesNotContain("ExitOnOutOfMemoryError");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"docker-compose.yml", "docker-compose.cpu.yml"})
  void composeRunsTheImagesEntryPointAsItIs(String file) {
    Map<String, Object> gpuq = map(Repo.yaml(file), "services", "gpuq");

    assertThat(gpuq).doesNotContainKeys("entrypoint", "command");
    assertThat(String.valueOf(gpuq.get("environment"))).doesNotContain("-XX:-ExitOnOutOfMemory");
  }

  @ParameterizedTest(name = "values: {0}")
  @ValueSource(strings = {"defaults", FULL_VALUES})
  void theChartRunsTheImagesEntryPointAsItIs(String values) {
    RenderedChart chart =
        values.equals("defaults")
            ? RenderedChart.withDefaults()
            : RenderedChart.withValuesFile(FULL_VALUES);
    Map<String, Object> container = chart.container();

    assertThat(container).doesNotContainKeys("command", "args");
    chart
        .envEntry("JAVA_TOOL_OPTIONS")
        .ifPresent(
            options ->
                assertThat(String.valueOf(options.get("value")))
                    .doesNotContain("-XX:-ExitOnOutOfMemory"));
  }
}

package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job's preload (issue 36)")
class PreloadRequestTest {

  private final JobRequestValidator validator = new JobRequestValidator(Set.of("GPUQ_JOB_ID"));

  @Test
  @DisplayName("is kept for a Python interpreter running a script, -m module or -c code")
  void kept_for_python_commands() {
    for (List<String> command :
        List.of(
            List.of("python3", "train.py", "--lr", "0.1"),
            List.of("/opt/venv/bin/python", "-u", "-m", "pkg.train"),
            List.of("python3.11", "-X", "dev", "-c", "print(1)"))) {
      JobSpec spec = validator.validate(request(command, List.of("torch", "gymnasium.envs")));
      assertThat(spec.preload()).containsExactly("torch", "gymnasium.envs");
    }
  }

  @Test
  @DisplayName("is none when absent or empty: a cold start")
  void absent_is_cold() {
    assertThat(validator.validate(request(List.of("python3", "t.py"), null)).preload()).isEmpty();
    assertThat(validator.validate(request(List.of("bash", "-c", "x"), List.of())).preload())
        .isEmpty();
  }

  @Test
  @DisplayName("is refused, naming the field, for any other command")
  void refused_for_other_commands() {
    for (List<String> command :
        List.of(
            List.of("bash", "train.sh"),
            List.of("python3"),
            List.of("python3", "-i", "t.py"),
            List.of("python3", "-m"),
            List.of("torchrun", "t.py"))) {
      InvalidJobRequestException refused =
          catchThrowableOfType(
              InvalidJobRequestException.class,
              () -> validator.validate(request(command, List.of("torch"))));
      assertThat(refused).as(command.toString()).isNotNull();
      assertThat(refused.errors()).extracting(FieldError::field).containsExactly("preload");
    }
  }

  @Test
  @DisplayName("names each entry that is no module name")
  void module_names_only() {
    InvalidJobRequestException refused =
        catchThrowableOfType(
            InvalidJobRequestException.class,
            () ->
                validator.validate(
                    request(List.of("python3", "t.py"), List.of("torch", "os; rm -rf", ".x"))));
    assertThat(refused.errors())
        .extracting(FieldError::field)
        .containsExactly("preload[1]", "preload[2]");
  }

  @Test
  @DisplayName("reads the command as the interpreter would")
  void parses_the_command() {
    PythonCommand parsed =
        PythonCommand.parse(List.of("python3", "-u", "-W", "ignore", "-m", "pkg", "a", "b"))
            .orElseThrow();
    assertThat(parsed.options()).containsExactly("-u", "-W", "ignore");
    assertThat(parsed.kind()).isEqualTo(PythonCommand.Kind.MODULE);
    assertThat(parsed.target()).isEqualTo("pkg");
    assertThat(parsed.arguments()).containsExactly("a", "b");
  }

  private static JobRequest request(List<String> command, List<String> preload) {
    return new JobRequest(
        null, command, null, Map.of(), null, null, null, null, null, null, null, preload, null,
        null, null, null, null, null);
  }
}

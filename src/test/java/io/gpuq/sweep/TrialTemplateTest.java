package io.gpuq.sweep;

import static io.gpuq.sweep.SweepRequests.aGridSweep;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.FieldError;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobSpec;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A trial's job: the template with its parameters, labels and environment")
class TrialTemplateTest {

  /** The job validator as gpuq runs it, with the trial variables reserved too. */
  private static final JobRequestValidator JOBS =
      new JobRequestValidator(new HashSet<>(TrialEnvironment.NAMES));

  @Test
  void placeholdersAreReplacedInTheCommandTheWorkingDirAndEnvValues() {
    SweepDefinition sweep =
        aGridSweep()
            .values("lr", 0.003)
            .values("opt", "adam")
            .values("seed", 1)
            .command("python3", "train.py", "--lr={lr}", "--opt={opt}", "--seed={seed}")
            .workingDir("/data/exp/{opt}-{seed}")
            .env(Map.of("RUN", "lr{lr}", "{lr}", "{{literal}}"))
            .definition();

    JobRequest job = sweep.template().instantiate("SW1", sweep.initialTrials().get(0));

    assertThat(job.command())
        .containsExactly("python3", "train.py", "--lr=0.003", "--opt=adam", "--seed=1");
    assertThat(job.workingDir()).isEqualTo("/data/exp/adam-1");
    // Only values are templates: a variable's name is never substituted.
    assertThat(job.env()).containsEntry("RUN", "lr0.003").containsEntry("{lr}", "{literal}");
    assertThat(job.framework()).isEqualTo("jax");
  }

  @Test
  void aTrialIsLabelledWithItsSweepAndWithItsParametersWhereTheyFit() {
    SweepDefinition sweep =
        aGridSweep()
            .values("lr", 0.003)
            .values("_private", 1)
            .values("note", "x".repeat(300))
            .values("team", "b")
            .values("opt", "a\tb")
            .labels(Map.of("team", "rl"))
            .definition();

    JobRequest job = sweep.template().instantiate("SW1", sweep.initialTrials().get(0));

    // "_private" is no label key, the note is too long, "a\tb" is not printable, and the
    // template's own "team" label wins over the parameter.
    assertThat(job.labels())
        .containsExactlyInAnyOrderEntriesOf(Map.of("team", "rl", "sweep", "SW1", "lr", "0.003"));
  }

  @Test
  void parameterLabelsStopAtTheJobLabelLimit() {
    SweepRequests request = aGridSweep();
    for (int i = 0; i < 32; i++) {
      request.values("p" + i, i);
    }
    Map<String, String> template = new LinkedHashMap<>();
    for (int i = 0; i < 40; i++) {
      template.put("t" + i, "v");
    }
    SweepDefinition sweep = request.labels(template).definition();

    JobRequest job = sweep.template().instantiate("SW1", sweep.initialTrials().get(0));

    assertThat(job.labels()).hasSize(64).containsEntry("sweep", "SW1").containsKey("p22");
    assertThat(job.labels()).doesNotContainKey("p23");
    assertThat(JOBS.validate(job).labels()).isEqualTo(job.labels());
  }

  @Test
  void everyTrialOfAGridPassesTheJobValidator() {
    SweepDefinition sweep =
        aGridSweep()
            .values("lr", 0.1, 0.01, 1e-7)
            .values("opt", "adam", "sgd", "ü ✓")
            .command("python3", "train.py", "--lr={lr}", "--opt={opt}")
            .definition();

    for (Trial trial : sweep.initialTrials()) {
      JobSpec spec = JOBS.validate(sweep.template().instantiate("SW1", trial));
      assertThat(spec.labels()).containsEntry("sweep", "SW1");
    }
  }

  @Test
  void theTrialEnvironmentCarriesTheSweepTheNumberAndTheParametersAsJson() {
    Trial trial = aGridSweep().values("lr", 0.1, 0.01).definition().initialTrials().get(1);

    assertThat(TrialEnvironment.of("SW1", trial))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("GPUQ_SWEEP_ID", "SW1", "GPUQ_TRIAL", "1", "GPUQ_PARAMS", "{\"lr\":0.01}"));
  }

  @Test
  void anUnknownPlaceholderIsRefusedNamingTheFieldAndTheKnownParameters() {
    List<FieldError> errors =
        aGridSweep()
            .values("lr", 0.1)
            .values("seed", 1)
            .command("train", "--lr={lr}", "--opt={optimizer}")
            .workingDir("/data/{dataset}")
            .env(Map.of("X", "{x}"))
            .errors();

    assertThat(errors)
        .containsExactly(
            new FieldError(
                "command[2]",
                "{optimizer} names no parameter; the parameters are lr, seed (write '{{' and '}}'"
                    + " for literal braces)"),
            new FieldError(
                "workingDir",
                "{dataset} names no parameter; the parameters are lr, seed (write '{{' and '}}'"
                    + " for literal braces)"),
            new FieldError(
                "env.X",
                "{x} names no parameter; the parameters are lr, seed (write '{{' and '}}' for"
                    + " literal braces)"));
  }

  @Test
  void theSweepLabelAndTheTrialVariablesAreReserved() {
    assertThat(
            aGridSweep()
                .values("lr", 0.1)
                .labels(Map.of("sweep", "mine"))
                .env(Map.of("GPUQ_PARAMS", "{{}}"))
                .errors())
        .extracting(FieldError::field)
        .containsExactlyInAnyOrder("labels.sweep", "env.GPUQ_PARAMS");
    assertThat(Set.copyOf(TrialEnvironment.NAMES))
        .containsExactlyInAnyOrder("GPUQ_SWEEP_ID", "GPUQ_TRIAL", "GPUQ_PARAMS");
  }
}

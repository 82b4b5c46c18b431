package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.text.Cpus;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Validating a job request")
class JobRequestValidatorTest {

  private final JobRequestValidator validator =
      new JobRequestValidator(Set.of("CUDA_VISIBLE_DEVICES", "GPUQ_JOB_ID"));

  @Test
  void fills_in_the_documented_defaults() {
    JobSpec spec = validator.validate(aRequest().build());

    assertThat(spec.name()).isEqualTo("python3");
    assertThat(spec.framework()).isEqualTo(Framework.GENERIC);
    assertThat(spec.gpus()).isEqualTo(1);
    assertThat(spec.wantsWholeGpus()).isTrue();
    assertThat(spec.priority()).isZero();
    assertThat(spec.timeout()).isNull();
    assertThat(spec.maxAttempts()).isEqualTo(1);
    assertThat(spec.oomGrowth()).isEqualTo(1.5);
    assertThat(spec.env()).isEmpty();
    assertThat(spec.labels()).isEmpty();
  }

  @Test
  void keeps_what_the_user_asked_for() {
    JobSpec spec =
        validator.validate(
            aRequest()
                .name("sac-humanoid-seed1")
                .framework("jax")
                .resources(2, "6GiB", null)
                .timeout("PT2H")
                .retry(3, 2.0)
                .env("WANDB_MODE", "offline")
                .label("sweep", "lr-search")
                .build());

    assertThat(spec.name()).isEqualTo("sac-humanoid-seed1");
    assertThat(spec.framework()).isEqualTo(Framework.JAX);
    assertThat(spec.gpus()).isEqualTo(2);
    assertThat(spec.memory()).isEqualTo(MemoryDemand.bytes(6L << 30));
    assertThat(spec.timeout()).isEqualTo(Duration.ofHours(2));
    assertThat(spec.maxAttempts()).isEqualTo(3);
    assertThat(spec.oomGrowth()).isEqualTo(2.0);
    assertThat(spec.env()).containsEntry("WANDB_MODE", "offline");
    assertThat(spec.labels()).containsEntry("sweep", "lr-search");
  }

  @Test
  void a_cpu_only_job_has_no_budget() {
    assertThat(validator.validate(aRequest().resources(0, null, null).build()).gpus()).isZero();
    assertThat(errorsOf(aRequest().resources(0, "1GiB", null))).containsExactly("resources");
  }

  @Test
  void a_job_that_does_not_ask_for_cores_or_host_memory_gets_the_configured_defaults() {
    assertThat(validator.validate(aRequest().build()).host()).isEqualTo(new HostResources(1, null));

    JobRequestValidator configured =
        new JobRequestValidator(Set.of(), new HostResources(2, 8L << 30));
    assertThat(configured.validate(aRequest().build()).host())
        .isEqualTo(new HostResources(2, 8L << 30));
    assertThat(configured.validate(aRequest().host(4, null).build()).host())
        .isEqualTo(new HostResources(4, 8L << 30));
  }

  @Test
  void cores_and_host_memory_are_taken_as_asked_for_a_gpu_job_and_a_cpu_only_one() {
    assertThat(validator.validate(aRequest().host(8, "16GiB").build()).host())
        .isEqualTo(new HostResources(8, 16L << 30));
    assertThat(
            validator.validate(aRequest().resources(0, null, null).host(2, 1 << 28).build()).host())
        .isEqualTo(new HostResources(2, 1L << 28));
  }

  @Test
  void cores_are_a_whole_number_from_1_and_host_memory_a_size() {
    assertThat(errorsOf(aRequest().host(0, null))).containsExactly("resources.cpus");
    assertThat(errorsOf(aRequest().host(-2, null))).containsExactly("resources.cpus");
    assertThat(errorsOf(aRequest().host(JobRequestValidator.MAX_CPUS + 1, null)))
        .containsExactly("resources.cpus");
    assertThat(errorsOf(aRequest().host(null, "16 parsecs"))).containsExactly("resources.memory");
    assertThat(errorsOf(aRequest().host(null, 0))).containsExactly("resources.memory");
    assertThat(errorsOf(aRequest().host(null, "-1GiB"))).containsExactly("resources.memory");
    assertThat(errorsOf(aRequest().resources(1, "y", null).host(0, "x")))
        .containsExactlyInAnyOrder("resources.gpuMemory", "resources.cpus", "resources.memory");
  }

  @Test
  void cores_may_be_a_fraction_in_thousandths_from_a_hundredth() {
    assertThat(validator.validate(aRequest().host(0.25, null).build()).host().cpus())
        .isEqualTo(Cpus.ofMillis(250));
    assertThat(validator.validate(aRequest().host(new BigDecimal("1.500"), null).build()).host())
        .isEqualTo(new HostResources(Cpus.ofMillis(1500), null));
    assertThat(validator.validate(aRequest().host(0.01, null).build()).host().cpus())
        .isEqualTo(Cpus.SMALLEST);
    assertThat(validator.validate(aRequest().host(0.125, null).build()).host().cpus())
        .isEqualTo(Cpus.ofMillis(125));
    // A whole number, however written, is whole cores as before.
    assertThat(validator.validate(aRequest().host(2.0, null).build()).host())
        .isEqualTo(new HostResources(2, null));
    assertThat(validator.validate(aRequest().host(3L, null).build()).host())
        .isEqualTo(new HostResources(3, null));
  }

  @Test
  void cores_below_a_hundredth_finer_than_thousandths_or_not_a_number_are_refused() {
    for (Object cpus :
        List.of(
            0,
            0.0,
            -0.25,
            -1,
            0.001,
            0.009,
            0.0125,
            new BigDecimal("0.2501"),
            4096.5,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            "0.25",
            "1",
            "NaN",
            true,
            List.of(1),
            Map.of("cores", 1))) {
      assertThat(errorsOf(aRequest().host(cpus, null)))
          .as("%s", cpus)
          .containsExactly("resources.cpus");
    }
  }

  @Test
  void names_each_wrong_field() {
    assertThat(errorsOf(aRequest().command())).containsExactly("command");
    assertThat(errorsOf(aRequest().command((String[]) null))).containsExactly("command");
    assertThat(errorsOf(aRequest().command("echo", null))).containsExactly("command[1]");
    assertThat(errorsOf(aRequest().framework("caffe"))).containsExactly("framework");
    assertThat(errorsOf(aRequest().timeout("2h"))).containsExactly("timeout");
    assertThat(errorsOf(aRequest().timeout("PT0S"))).containsExactly("timeout");
    assertThat(errorsOf(aRequest().resources(1, "6 parsecs", null)))
        .containsExactly("resources.gpuMemory");
    assertThat(errorsOf(aRequest().resources(1, "1GiB", 0.5))).containsExactly("resources");
    assertThat(errorsOf(aRequest().resources(1, null, 0.0)))
        .containsExactly("resources.gpuFraction");
    assertThat(errorsOf(aRequest().resources(1, null, 1.01)))
        .containsExactly("resources.gpuFraction");
    assertThat(errorsOf(aRequest().resources(-1, null, null))).containsExactly("resources.gpus");
    assertThat(errorsOf(aRequest().retry(0, null))).containsExactly("retry.maxAttempts");
    assertThat(errorsOf(aRequest().retry(null, 0.9))).containsExactly("retry.oomGrowth");
    assertThat(errorsOf(aRequest().env("CUDA_VISIBLE_DEVICES", "1")))
        .containsExactly("env.CUDA_VISIBLE_DEVICES");
    assertThat(errorsOf(aRequest().env("A-B", "1"))).containsExactly("env.A-B");
    assertThat(errorsOf(aRequest().label("a:b", "v"))).containsExactly("labels.a:b");
    assertThat(errorsOf(aRequest().nodeSelector("gpu type", "h200")))
        .containsExactly("nodeSelector.gpu type");
    assertThat(errorsOf(aRequest().workingDir("relative/dir"))).containsExactly("workingDir");
    assertThat(errorsOf(aRequest().name("x".repeat(201)))).containsExactly("name");
  }

  @Test
  void names_and_labels_hold_no_control_characters_and_no_lone_surrogates() {
    assertThat(errorsOf(aRequest().name("a\u0000b"))).containsExactly("name");
    assertThat(errorsOf(aRequest().name("a\nb"))).containsExactly("name");
    assertThat(errorsOf(aRequest().name("a\ud800b"))).containsExactly("name");
    assertThat(errorsOf(aRequest().label("team", "a\tb"))).containsExactly("labels.team");
    assertThat(errorsOf(aRequest().label("team", "\udc00"))).containsExactly("labels.team");
    assertThat(errorsOf(aRequest().nodeSelector("gpu", "h\u0085")))
        .containsExactly("nodeSelector.gpu");
    assertThat(errorsOf(aRequest().workingDir("/tmp/a\nb"))).containsExactly("workingDir");
    assertThat(validator.validate(aRequest().name("résumé 🚀").label("who", "zoë").build()).name())
        .isEqualTo("résumé 🚀");
  }

  @Test
  @DisplayName(
      "names, labels, selectors and directories hold no bidirectional control; arguments may")
  void names_and_labels_hold_no_bidirectional_controls() {
    assertThat(errorsOf(aRequest().name("a\u202Eb"))).containsExactly("name");
    assertThat(errorsOf(aRequest().label("team", "\u2066x\u2069"))).containsExactly("labels.team");
    assertThat(errorsOf(aRequest().nodeSelector("gpu", "h\u200F")))
        .containsExactly("nodeSelector.gpu");
    assertThat(errorsOf(aRequest().workingDir("/tmp/\u061C"))).containsExactly("workingDir");
    InvalidJobRequestException refused =
        catchThrowableOfType(
            InvalidJobRequestException.class,
            () -> validator.validate(aRequest().name("a\u202Eb").build()));
    assertThat(refused.errors().get(0).message()).contains("bidirectional", "U+202A-202E");
    // A script may hold them (in a string it prints, say): it runs, it is not shown in a list.
    assertThat(validator.validate(aRequest().command("echo", "\u202E").build()).command())
        .containsExactly("echo", "\u202E");
  }

  @Test
  void arguments_and_variables_may_span_lines_but_hold_no_nul_or_lone_surrogate() {
    JobSpec script =
        validator.validate(
            aRequest().command("sh", "-c", "echo a\necho b").env("NOTE", "x\ty").build());
    assertThat(script.command()).contains("echo a\necho b");

    assertThat(errorsOf(aRequest().command("echo", "a\u0000"))).containsExactly("command[1]");
    assertThat(errorsOf(aRequest().command("echo", "\ud800"))).containsExactly("command[1]");
    assertThat(errorsOf(aRequest().env("NOTE", "\ud800"))).containsExactly("env.NOTE");
  }

  @Test
  void counts_and_sizes_are_bounded() {
    RequestBuilder manyLabels = aRequest();
    for (int i = 0; i <= JobRequestValidator.MAX_LABELS; i++) {
      manyLabels.label("l" + i, "v");
    }
    assertThat(errorsOf(manyLabels)).containsExactly("labels");
    assertThat(errorsOf(aRequest().label("team", "v".repeat(257)))).containsExactly("labels.team");
    assertThat(errorsOf(aRequest().command(new String[JobRequestValidator.MAX_ARGUMENTS + 1])))
        .containsExactly("command");
    assertThat(errorsOf(aRequest().command("echo", "é".repeat(70_000), "é".repeat(70_000))))
        .as("UTF-8 bytes count, not characters")
        .containsExactly("command");
    RequestBuilder manyVariables = aRequest();
    for (int i = 0; i <= JobRequestValidator.MAX_VARIABLES; i++) {
      manyVariables.env("V" + i, "x");
    }
    assertThat(errorsOf(manyVariables)).containsExactly("env");
    assertThat(errorsOf(aRequest().env("BIG", "x".repeat(300_000)))).containsExactly("env");
    assertThat(errorsOf(aRequest().resources(1, "9".repeat(1_000_000), null)))
        .containsExactly("resources.gpuMemory");
    assertThat(errorsOf(aRequest().timeout("PT" + "1".repeat(100) + "S")))
        .containsExactly("timeout");
  }

  @Test
  void a_timeout_is_between_one_second_and_a_year() {
    assertThat(errorsOf(aRequest().timeout("PT0.0001S"))).containsExactly("timeout");
    assertThat(errorsOf(aRequest().timeout("PT0.999S"))).containsExactly("timeout");
    assertThat(errorsOf(aRequest().timeout("PT9999999999999H"))).containsExactly("timeout");
    assertThat(errorsOf(aRequest().timeout("P366D"))).containsExactly("timeout");
    assertThat(validator.validate(aRequest().timeout("PT1S").build()).timeout())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(validator.validate(aRequest().timeout("P365D").build()).timeout())
        .isEqualTo(Duration.ofDays(365));
    assertThat(validator.validate(aRequest().timeout("PT1.0000001S").build()).timeout())
        .as("kept in milliseconds, as stored")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void a_gpu_memory_number_beyond_a_long_is_refused() {
    assertThat(errorsOf(aRequest().resources(1, Double.POSITIVE_INFINITY, null)))
        .containsExactly("resources.gpuMemory");
    assertThat(errorsOf(aRequest().resources(1, new java.math.BigInteger("9".repeat(30)), null)))
        .containsExactly("resources.gpuMemory");
  }

  @Test
  void messages_quote_at_most_100_characters_of_a_value() {
    InvalidJobRequestException e =
        catchThrowableOfType(
            InvalidJobRequestException.class,
            () -> validator.validate(aRequest().framework("f".repeat(10_000)).build()));

    assertThat(e.getMessage()).doesNotContain("f".repeat(101)).contains("f".repeat(100) + "…");
  }

  @Test
  void at_most_twenty_mistakes_are_listed_and_the_rest_counted() {
    String[] argv = new String[30];
    java.util.Arrays.fill(argv, "a\u0000");

    InvalidJobRequestException e =
        catchThrowableOfType(
            InvalidJobRequestException.class,
            () -> validator.validate(aRequest().command(argv).build()));

    assertThat(e.errors()).hasSize(21);
    assertThat(e.errors().get(20).message()).isEqualTo("10 more mistakes are not listed");
  }

  @Test
  void a_fraction_of_exactly_one_is_a_whole_gpu_budget() {
    assertThat(validator.validate(aRequest().resources(1, null, 1.0).build()).memory())
        .isEqualTo(MemoryDemand.fraction(1.0));
  }

  @Test
  void reports_all_mistakes_at_once() {
    assertThat(errorsOf(aRequest().command().framework("caffe").timeout("soon")))
        .containsExactlyInAnyOrder("command", "framework", "timeout");
  }

  @Test
  void refuses_a_missing_body() {
    assertThatThrownBy(() -> validator.validate(null))
        .isInstanceOf(InvalidJobRequestException.class);
  }

  @Test
  @DisplayName("a job is not preemptible unless it says so; then TERM after the default grace")
  void preemption_defaults() {
    JobSpec plain = validator.validate(aRequest().build());
    JobSpec preemptible = validator.validate(aRequest().preemptible(true, null, null).build());

    assertThat(plain.preemption().preemptible()).isFalse();
    assertThat(preemptible.preemption())
        .isEqualTo(new Preemption(true, Duration.ofSeconds(60), StopSignal.TERM));
    assertThat(plain.timeoutSignal()).isNull();
  }

  @Test
  @DisplayName("a preemption's grace is at most gpuq.preemption.max-grace, its signal one of four")
  void preemption_bounds() {
    JobRequestValidator tight =
        new JobRequestValidator(
            Set.of(),
            HostResources.ONE_CORE,
            new JobRequestValidator.PreemptionSettings(
                Duration.ofSeconds(5), Duration.ofSeconds(30)));

    assertThat(
            tight.validate(aRequest().preemptible(true, "PT30S", "sigusr1").build()).preemption())
        .isEqualTo(new Preemption(true, Duration.ofSeconds(30), StopSignal.USR1));
    assertThat(tight.validate(aRequest().preemptible(true, null, "INT").build()).preemption())
        .isEqualTo(new Preemption(true, Duration.ofSeconds(5), StopSignal.INT));
    InvalidJobRequestException e =
        catchThrowableOfType(
            InvalidJobRequestException.class,
            () -> tight.validate(aRequest().preemptible(true, "PT31S", "KILL").build()));
    assertThat(e.errors())
        .extracting(FieldError::field)
        .containsExactly("preemptGrace", "preemptSignal");
    assertThat(errorsOf(aRequest().preemptible(true, "soon", null)))
        .containsExactly("preemptGrace");
  }

  @Test
  @DisplayName("a timeout signal comes before a timeout, and within it")
  void timeout_signal() {
    assertThat(
            validator
                .validate(aRequest().timeout("PT1H").timeoutSignal("USR1", "PT5M").build())
                .timeoutSignal())
        .isEqualTo(new TimeoutSignal(StopSignal.USR1, Duration.ofMinutes(5)));
    assertThat(errorsOf(aRequest().timeoutSignal("USR1", "PT5M"))).containsExactly("timeoutSignal");
    assertThat(errorsOf(aRequest().timeout("PT1M").timeoutSignal("USR1", "PT5M")))
        .containsExactly("timeoutSignal.before");
    assertThat(errorsOf(aRequest().timeout("PT1H").timeoutSignal("HUP", "PT5M")))
        .containsExactly("timeoutSignal.signal");
  }

  private List<String> errorsOf(RequestBuilder request) {
    try {
      validator.validate(request.build());
    } catch (InvalidJobRequestException e) {
      return e.errors().stream().map(FieldError::field).toList();
    }
    throw new AssertionError("expected the request to be refused");
  }

  static RequestBuilder aRequest() {
    return new RequestBuilder();
  }

  /** Test-data builder: a valid request unless told otherwise. */
  static final class RequestBuilder {
    private String name;
    private List<String> command = List.of("python3", "train.py");
    private String workingDir;
    private final Map<String, String> env = new HashMap<>();
    private String framework;
    private JobRequest.Resources resources;
    private String timeout;
    private JobRequest.Retry retry;
    private final Map<String, String> labels = new HashMap<>();
    private final Map<String, String> nodeSelector = new HashMap<>();
    private Boolean preemptible;
    private String preemptGrace;
    private String preemptSignal;
    private JobRequest.TimeoutSignalRequest timeoutSignal;

    RequestBuilder preemptible(Boolean preemptible, String grace, String signal) {
      this.preemptible = preemptible;
      this.preemptGrace = grace;
      this.preemptSignal = signal;
      return this;
    }

    RequestBuilder timeoutSignal(String signal, String before) {
      this.timeoutSignal = new JobRequest.TimeoutSignalRequest(signal, before);
      return this;
    }

    RequestBuilder nodeSelector(String key, String value) {
      nodeSelector.put(key, value);
      return this;
    }

    RequestBuilder name(String name) {
      this.name = name;
      return this;
    }

    RequestBuilder command(String... argv) {
      this.command = argv == null ? null : Arrays.asList(argv);
      return this;
    }

    RequestBuilder workingDir(String dir) {
      this.workingDir = dir;
      return this;
    }

    RequestBuilder env(String key, String value) {
      env.put(key, value);
      return this;
    }

    RequestBuilder framework(String framework) {
      this.framework = framework;
      return this;
    }

    RequestBuilder host(Object cpus, Object memory) {
      JobRequest.Resources gpus =
          resources == null ? new JobRequest.Resources(null, null, null) : resources;
      this.resources =
          new JobRequest.Resources(gpus.gpus(), gpus.gpuMemory(), gpus.gpuFraction(), cpus, memory);
      return this;
    }

    RequestBuilder resources(Integer gpus, Object gpuMemory, Double fraction) {
      this.resources = new JobRequest.Resources(gpus, gpuMemory, fraction);
      return this;
    }

    RequestBuilder timeout(String timeout) {
      this.timeout = timeout;
      return this;
    }

    RequestBuilder retry(Integer attempts, Double growth) {
      this.retry = new JobRequest.Retry(attempts, growth);
      return this;
    }

    RequestBuilder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    JobRequest build() {
      return new JobRequest(
          name,
          command,
          workingDir,
          env,
          framework,
          resources,
          null,
          timeout,
          retry,
          labels,
          nodeSelector,
          null,
          null,
          preemptible,
          preemptGrace,
          preemptSignal,
          timeoutSignal,
          null);
    }
  }
}

package io.gpuq.job;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.text.Cpus;
import io.gpuq.text.MemorySize;
import io.gpuq.text.UserText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns a {@link JobRequest} into a {@link JobSpec}, or reports every field that is wrong. Rules
 * that depend on this node's GPUs (does the request ever fit?) live in placement, not here.
 *
 * <p>Every size is bounded, and a value over its bound is refused before it is parsed, so that a
 * bad request costs time linear in its size. No string may hold NUL or a lone surrogate (not
 * Unicode: the job list would stop being valid JSON); names, working directories and labels may
 * hold no control character at all (bidirectional controls included), while arguments and variables
 * may hold tabs and newlines (a {@code sh -c} script).
 */
public final class JobRequestValidator {

  static final int MAX_NAME_LENGTH = 200;
  static final int MAX_ATTEMPTS = 100;
  static final double MAX_OOM_GROWTH = 10.0;
  static final int MAX_LABELS = 64;
  static final int MAX_LABEL_VALUE_LENGTH = 256;
  static final int MAX_PRIORITY = 1_000_000;
  static final int MAX_ARGUMENTS = 1024;
  static final int MAX_VARIABLES = 256;

  /** More cores than any one machine gpuq runs on has; a larger number is a mistake. */
  static final int MAX_CPUS = 4096;

  /**
   * For the argv and for the environment, each counted as execve(2) does: the UTF-8 bytes of each
   * string plus its NUL. Both together stay under Linux's usual 2 MiB ARG_MAX.
   */
  static final int MAX_ARGV_BYTES = 256 * 1024;

  static final int MAX_ENV_BYTES = 256 * 1024;
  static final int MAX_WORKING_DIR_LENGTH = 4096;
  static final int MAX_TIMEOUT_LENGTH = 64;
  static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
  static final Duration MAX_TIMEOUT = Duration.ofDays(365);

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern LABEL_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./-]{0,62}");

  static final int MAX_PRELOAD_MODULES = 32;
  private static final java.util.regex.Pattern MODULE_NAME =
      java.util.regex.Pattern.compile(
          "[A-Za-z_][A-Za-z0-9_]{0,99}(\\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,9}");

  private final Set<String> reservedEnvNames;
  private final HostResources hostDefaults;
  private final PreemptionSettings preemptionSettings;

  /**
   * The operator's grace for a preemption (issue 35): {@code gpuq.preemption.grace}, what a
   * preemptible job that names none gets, and {@code gpuq.preemption.max-grace}, the most one may
   * ask for.
   */
  public record PreemptionSettings(Duration defaultGrace, Duration maxGrace) {
    public static final PreemptionSettings DEFAULTS =
        new PreemptionSettings(Preemption.DEFAULT_GRACE, Duration.ofMinutes(10));
  }

  /**
   * @param reservedEnvNames variables gpuq imposes on every worker; a request may not set them
   */
  public JobRequestValidator(Set<String> reservedEnvNames) {
    this(reservedEnvNames, HostResources.ONE_CORE);
  }

  /**
   * @param hostDefaults the cores and host memory of a job that does not say ({@code
   *     gpuq.scheduler.default-cpus}, {@code gpuq.scheduler.default-memory})
   */
  public JobRequestValidator(Set<String> reservedEnvNames, HostResources hostDefaults) {
    this(reservedEnvNames, hostDefaults, PreemptionSettings.DEFAULTS);
  }

  public JobRequestValidator(
      Set<String> reservedEnvNames,
      HostResources hostDefaults,
      PreemptionSettings preemptionSettings) {
    this.reservedEnvNames = Set.copyOf(reservedEnvNames);
    this.hostDefaults = hostDefaults;
    this.preemptionSettings = preemptionSettings;
  }

  public JobSpec validate(JobRequest request) {
    if (request == null) {
      throw new InvalidJobRequestException("", "a JSON object describing the job is required");
    }
    FieldErrors errors = new FieldErrors();
    List<String> command = command(request.command(), errors);
    String name = name(request.name(), command, errors);
    String workingDir = workingDir(request.workingDir(), errors);
    Map<String, String> env = env(request.env(), errors);
    Framework framework = framework(request.framework(), errors);
    JobRequest.Resources resources =
        request.resources() == null
            ? new JobRequest.Resources(null, null, null, null, null)
            : request.resources();
    int gpus = gpus(resources.gpus(), errors);
    Long gpuMemory = size("resources.gpuMemory", resources.gpuMemory(), errors);
    Double gpuFraction = gpuFraction(resources.gpuFraction(), errors);
    if (gpuMemory != null && gpuFraction != null) {
      errors.add("resources", "give either gpuMemory or gpuFraction, not both");
    }
    if (gpus == 0 && (resources.gpuMemory() != null || resources.gpuFraction() != null)) {
      errors.add(
          "resources", "a job with gpus: 0 runs on no GPU and cannot have a GPU-memory budget");
    }
    Cpus cpus = cpus(resources.cpus(), errors);
    Long memory = hostMemory(resources.memory(), errors);
    int priority = priority(request.priority(), errors);
    Duration timeout = timeout(request.timeout(), errors);
    JobRequest.Retry retry =
        request.retry() == null ? new JobRequest.Retry(null, null) : request.retry();
    int maxAttempts = maxAttempts(retry.maxAttempts(), errors);
    double oomGrowth = oomGrowth(retry.oomGrowth(), errors);
    Map<String, String> labels = labels("labels", request.labels(), errors);
    Map<String, String> nodeSelector = labels("nodeSelector", request.nodeSelector(), errors);
    List<String> preload = preload(request.preload(), command, errors);
    Preemption preemption = preemption(request, errors);
    TimeoutSignal timeoutSignal = timeoutSignal(request.timeoutSignal(), timeout, errors);
    errors.throwIfAny(InvalidJobRequestException::new);
    return new JobSpec(
        name,
        command,
        workingDir,
        env,
        framework,
        gpus,
        MemoryDemand.of(gpuMemory, gpuFraction),
        new HostResources(cpus, memory),
        priority,
        timeout,
        maxAttempts,
        oomGrowth,
        labels,
        nodeSelector,
        preload,
        preemption,
        timeoutSignal);
  }

  /**
   * The modules a warm start imports once (issue 36): module names, for a command that a warm start
   * can run as a fresh interpreter would ({@link PythonCommand}).
   */
  private static List<String> preload(
      List<String> preload, List<String> command, FieldErrors errors) {
    if (preload == null || preload.isEmpty()) {
      return List.of();
    }
    if (preload.size() > MAX_PRELOAD_MODULES) {
      errors.add("preload", "must name at most " + MAX_PRELOAD_MODULES + " modules");
      return List.of();
    }
    for (int i = 0; i < preload.size(); i++) {
      String module = preload.get(i);
      if (module == null || !MODULE_NAME.matcher(module).matches()) {
        errors.add(
            "preload[" + i + "]", "must be a Python module name such as torch or gymnasium.envs");
      }
    }
    if (!command.isEmpty() && PythonCommand.parse(command).isEmpty()) {
      errors.add(
          "preload",
          "applies only to a Python interpreter running a script, -m module or -c code"
              + " (command: [\"python3\", \"train.py\", ...])");
    }
    return List.copyOf(preload);
  }

  private Preemption preemption(JobRequest request, FieldErrors errors) {
    Duration grace = preemptionSettings.defaultGrace();
    if (request.preemptGrace() != null) {
      Duration asked = duration("preemptGrace", request.preemptGrace(), errors);
      if (asked != null) {
        if (asked.isNegative() || asked.compareTo(preemptionSettings.maxGrace()) > 0) {
          errors.add(
              "preemptGrace",
              "must be between PT0S and "
                  + preemptionSettings.maxGrace()
                  + " (gpuq.preemption.max-grace)");
        } else {
          grace = asked;
        }
      }
    }
    StopSignal signal = StopSignal.TERM;
    if (request.preemptSignal() != null) {
      signal = signal("preemptSignal", request.preemptSignal(), errors);
    }
    return new Preemption(Boolean.TRUE.equals(request.preemptible()), grace, signal);
  }

  private static TimeoutSignal timeoutSignal(
      JobRequest.TimeoutSignalRequest request, Duration timeout, FieldErrors errors) {
    if (request == null) {
      return null;
    }
    StopSignal signal =
        request.signal() == null
            ? StopSignal.USR1
            : signal("timeoutSignal.signal", request.signal(), errors);
    if (request.before() == null) {
      errors.add("timeoutSignal.before", "is required: an ISO-8601 duration such as \"PT5M\"");
      return null;
    }
    Duration before = duration("timeoutSignal.before", request.before(), errors);
    if (before == null) {
      return null;
    }
    if (timeout == null) {
      errors.add("timeoutSignal", "needs a timeout to come before");
      return null;
    }
    if (before.compareTo(Duration.ofSeconds(1)) < 0 || before.compareTo(timeout) >= 0) {
      errors.add("timeoutSignal.before", "must be at least PT1S and shorter than the timeout");
      return null;
    }
    return new TimeoutSignal(signal, before);
  }

  private static StopSignal signal(String field, String name, FieldErrors errors) {
    if (name.length() > 16) {
      errors.add(field, "must be one of " + StopSignal.allowed());
      return StopSignal.TERM;
    }
    return StopSignal.named(name)
        .orElseGet(
            () -> {
              errors.add(
                  field, "\"" + UserText.echo(name) + "\" is not one of " + StopSignal.allowed());
              return StopSignal.TERM;
            });
  }

  /** An ISO-8601 duration in milliseconds, or null with the field named in {@code errors}. */
  private static Duration duration(String field, String text, FieldErrors errors) {
    String example = " such as \"PT60S\" or \"PT5M\"";
    if (text.length() > MAX_TIMEOUT_LENGTH) {
      errors.add(field, "must be at most " + MAX_TIMEOUT_LENGTH + " characters" + example);
      return null;
    }
    try {
      Duration duration = Duration.parse(text);
      if (duration.compareTo(MAX_TIMEOUT) > 0 || duration.isNegative()) {
        errors.add(field, "must be between PT0S and 365 days (P365D)");
        return null;
      }
      return duration.truncatedTo(ChronoUnit.MILLIS);
    } catch (DateTimeParseException | ArithmeticException e) {
      errors.add(field, "\"" + UserText.echo(text) + "\" is not an ISO-8601 duration" + example);
      return null;
    }
  }

  private static List<String> command(List<String> command, FieldErrors errors) {
    if (command == null || command.isEmpty()) {
      errors.add("command", "is required: a non-empty list of strings (argv, no shell)");
      return List.of();
    }
    if (command.size() > MAX_ARGUMENTS) {
      errors.add("command", "must have at most " + MAX_ARGUMENTS + " arguments");
      return List.of();
    }
    long bytes = 0;
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      Optional<String> wrong = unpassable(arg);
      if (wrong.isPresent()) {
        errors.add("command[" + i + "]", wrong.get());
      } else {
        bytes += utf8Length(arg) + 1;
      }
    }
    if (bytes > MAX_ARGV_BYTES) {
      errors.add("command", "must be at most " + MAX_ARGV_BYTES + " bytes in all (UTF-8)");
    }
    if (command.get(0) != null && command.get(0).isBlank()) {
      errors.add("command[0]", "the program to run must not be blank");
    }
    return command;
  }

  private static String name(String name, List<String> command, FieldErrors errors) {
    if (name == null || name.isBlank()) {
      if (command.isEmpty() || command.get(0) == null) {
        return "job";
      }
      String program = command.get(0);
      return program.substring(program.lastIndexOf('/') + 1);
    }
    if (name.length() > MAX_NAME_LENGTH) {
      errors.add("name", "must be at most " + MAX_NAME_LENGTH + " characters");
    } else {
      printable("name", name, errors);
    }
    return name;
  }

  private static String workingDir(String workingDir, FieldErrors errors) {
    if (workingDir == null) {
      return null;
    }
    if (workingDir.length() > MAX_WORKING_DIR_LENGTH) {
      errors.add("workingDir", "must be at most " + MAX_WORKING_DIR_LENGTH + " characters");
    } else if (!workingDir.startsWith("/")) {
      errors.add("workingDir", "must be an absolute path");
    } else {
      printable("workingDir", workingDir, errors);
    }
    return workingDir;
  }

  private Map<String, String> env(Map<String, String> env, FieldErrors errors) {
    if (env == null) {
      return Map.of();
    }
    if (env.size() > MAX_VARIABLES) {
      errors.add("env", "must have at most " + MAX_VARIABLES + " variables");
      return Map.of();
    }
    Map<String, String> copy = new LinkedHashMap<>();
    long bytes = 0;
    for (Map.Entry<String, String> entry : env.entrySet()) {
      String key = entry.getKey();
      String value = entry.getValue();
      String field = "env." + UserText.echo(key);
      Optional<String> wrongValue = unpassable(value);
      if (!ENV_NAME.matcher(key).matches()) {
        errors.add(field, "is not a valid environment variable name");
      } else if (reservedEnvNames.contains(key)) {
        errors.add(field, "is set by gpuq for every worker and cannot be overridden");
      } else if (wrongValue.isPresent()) {
        errors.add(field, wrongValue.get());
      } else {
        bytes += key.length() + 1 + utf8Length(value) + 1;
        copy.put(key, value);
      }
    }
    if (bytes > MAX_ENV_BYTES) {
      errors.add("env", "must be at most " + MAX_ENV_BYTES + " bytes in all (NAME=value, UTF-8)");
    }
    return copy;
  }

  private static Framework framework(String framework, FieldErrors errors) {
    if (framework == null) {
      return Framework.GENERIC;
    }
    return Framework.fromWireName(framework)
        .orElseGet(
            () -> {
              errors.add(
                  "framework",
                  "unknown framework \""
                      + UserText.echo(framework)
                      + "\"; use one of "
                      + Arrays.stream(Framework.values())
                          .map(Framework::wireName)
                          .collect(Collectors.joining(", ")));
              return Framework.GENERIC;
            });
  }

  private static int gpus(Integer gpus, FieldErrors errors) {
    if (gpus == null) {
      return 1;
    }
    if (gpus < 0) {
      errors.add("resources.gpus", "must be 0 or more");
      return 0;
    }
    return gpus;
  }

  /**
   * A JSON number of cores, whole or in thousandths (0.25), from {@link Cpus#SMALLEST} to {@link
   * #MAX_CPUS}. A string, even one that reads as a number, is refused: {@code "0.25"} and {@code
   * "NaN"} are mistakes of the client to be named, not guessed at.
   */
  private Cpus cpus(Object cpus, FieldErrors errors) {
    if (cpus == null) {
      return hostDefaults.cpus();
    }
    Optional<Cpus> exact = decimal(cpus).flatMap(Cpus::exactly);
    if (exact.isEmpty()
        || exact.get().compareTo(Cpus.SMALLEST) < 0
        || exact.get().compareTo(Cpus.of(MAX_CPUS)) > 0) {
      errors.add(
          "resources.cpus",
          "must be a number of cores from "
              + Cpus.SMALLEST
              + " to "
              + MAX_CPUS
              + ", whole or in thousandths at most (such as 1, 0.25 or 2.5)");
      return hostDefaults.cpus();
    }
    return exact.get();
  }

  /** A JSON number as an exact decimal; empty for anything else, NaN and infinities included. */
  private static Optional<BigDecimal> decimal(Object value) {
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      return Double.isFinite(d)
          ? Optional.of(new BigDecimal(Double.toString(d)))
          : Optional.empty();
    }
    if (value instanceof BigDecimal d) {
      return Optional.of(d);
    }
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof BigInteger) {
      return Optional.of(new BigDecimal(value.toString()));
    }
    return Optional.empty();
  }

  private Long hostMemory(Object memory, FieldErrors errors) {
    return memory == null ? hostDefaults.memoryBytes() : size("resources.memory", memory, errors);
  }

  /** A size in bytes ({@link MemorySize}), or null when absent or wrong (and then reported). */
  private static Long size(String field, Object value, FieldErrors errors) {
    if (value == null) {
      return null;
    }
    try {
      return MemorySize.parse(value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      errors.add(field, e.getMessage());
      return null;
    }
  }

  private static Double gpuFraction(Double gpuFraction, FieldErrors errors) {
    if (gpuFraction == null) {
      return null;
    }
    if (!(gpuFraction > 0 && gpuFraction <= 1)) {
      errors.add("resources.gpuFraction", "must be in (0, 1]");
      return null;
    }
    return gpuFraction;
  }

  private static int priority(Integer priority, FieldErrors errors) {
    if (priority == null) {
      return 0;
    }
    if (Math.abs((long) priority) > MAX_PRIORITY) {
      errors.add("priority", "must be between -" + MAX_PRIORITY + " and " + MAX_PRIORITY);
    }
    return priority;
  }

  private static Duration timeout(String timeout, FieldErrors errors) {
    if (timeout == null) {
      return null;
    }
    String example = " such as \"PT2H\" or \"PT90S\"";
    if (timeout.length() > MAX_TIMEOUT_LENGTH) {
      errors.add(
          "timeout",
          "must be at most " + MAX_TIMEOUT_LENGTH + " characters: an ISO-8601 duration" + example);
      return null;
    }
    Duration duration;
    try {
      duration = Duration.parse(timeout);
    } catch (DateTimeParseException | ArithmeticException e) {
      errors.add(
          "timeout", "\"" + UserText.echo(timeout) + "\" is not an ISO-8601 duration" + example);
      return null;
    }
    // The upper bound also keeps the timeout within what milliseconds in a long can hold.
    if (duration.compareTo(MIN_TIMEOUT) < 0 || duration.compareTo(MAX_TIMEOUT) > 0) {
      errors.add("timeout", "must be between 1 second (PT1S) and 365 days (P365D)");
      return null;
    }
    // gpuq keeps milliseconds: the spec says what is stored, and compares so.
    return duration.truncatedTo(ChronoUnit.MILLIS);
  }

  private static int maxAttempts(Integer maxAttempts, FieldErrors errors) {
    if (maxAttempts == null) {
      return 1;
    }
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
      errors.add("retry.maxAttempts", "must be between 1 and " + MAX_ATTEMPTS);
    }
    return maxAttempts;
  }

  private static double oomGrowth(Double oomGrowth, FieldErrors errors) {
    if (oomGrowth == null) {
      return 1.5;
    }
    if (!(oomGrowth >= 1.0 && oomGrowth <= MAX_OOM_GROWTH)) {
      errors.add("retry.oomGrowth", "must be between 1.0 and " + MAX_OOM_GROWTH);
    }
    return oomGrowth;
  }

  private static Map<String, String> labels(
      String name, Map<String, String> labels, FieldErrors errors) {
    if (labels == null) {
      return Map.of();
    }
    if (labels.size() > MAX_LABELS) {
      errors.add(name, "must have at most " + MAX_LABELS + " entries");
      return Map.of();
    }
    labels.forEach(
        (key, value) -> {
          String field = name + "." + UserText.echo(key);
          if (!LABEL_KEY.matcher(key).matches()) {
            errors.add(
                field,
                "a label key is 1 to 63 letters, digits, '_', '.', '-' or '/', starting with a"
                    + " letter or digit");
          } else if (value == null) {
            errors.add(field, "must be a string, not null");
          } else if (value.length() > MAX_LABEL_VALUE_LENGTH) {
            errors.add(field, "must be at most " + MAX_LABEL_VALUE_LENGTH + " characters");
          } else {
            printable(field, value, errors);
          }
        });
    return labels;
  }

  /**
   * What keeps a string from being passed to a worker as an argument or an environment value, if
   * anything: the kernel takes neither null nor NUL, and the bytes must encode valid Unicode.
   */
  private static Optional<String> unpassable(String text) {
    if (text == null) {
      return Optional.of("must be a string, not null");
    } else if (text.indexOf('\0') >= 0) {
      return Optional.of("must not contain a NUL character");
    } else if (UserText.hasLoneSurrogate(text)) {
      return Optional.of("must be valid Unicode (it holds a lone surrogate)");
    }
    return Optional.empty();
  }

  /** Text shown in lists and logs: no control characters, and valid Unicode. */
  private static void printable(String field, String text, FieldErrors errors) {
    if (UserText.hasBidiControl(text)) {
      errors.add(
          field,
          "must not contain bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F,"
              + " U+061C), which reorder the text shown after them");
    } else if (UserText.hasControlCharacter(text)) {
      errors.add(field, "must not contain control characters (such as NUL, tab or newline)");
    } else if (UserText.hasLoneSurrogate(text)) {
      errors.add(field, "must be valid Unicode (it holds a lone surrogate)");
    }
  }

  /** UTF-8 bytes of a string without lone surrogates, without encoding it. */
  private static long utf8Length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}

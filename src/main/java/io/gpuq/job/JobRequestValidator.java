package io.gpuq.job;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns a {@link JobRequest} into a {@link JobSpec}, or reports every field that is wrong. Rules
 * that depend on this node's GPUs (does the request ever fit?) live in placement, not here.
 */
public final class JobRequestValidator {

  static final int MAX_NAME_LENGTH = 200;
  static final int MAX_ATTEMPTS = 100;
  static final double MAX_OOM_GROWTH = 10.0;
  static final int MAX_LABEL_VALUE_LENGTH = 256;
  static final int MAX_PRIORITY = 1_000_000;
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern LABEL_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./-]{0,62}");

  private final Set<String> reservedEnvNames;

  /**
   * @param reservedEnvNames variables gpuq imposes on every worker; a request may not set them
   */
  public JobRequestValidator(Set<String> reservedEnvNames) {
    this.reservedEnvNames = Set.copyOf(reservedEnvNames);
  }

  public JobSpec validate(JobRequest request) {
    if (request == null) {
      throw new InvalidJobRequestException("", "a JSON object describing the job is required");
    }
    Errors errors = new Errors();
    List<String> command = command(request.command(), errors);
    String name = name(request.name(), command, errors);
    String workingDir = workingDir(request.workingDir(), errors);
    Map<String, String> env = env(request.env(), errors);
    Framework framework = framework(request.framework(), errors);
    JobRequest.Resources resources =
        request.resources() == null
            ? new JobRequest.Resources(null, null, null)
            : request.resources();
    int gpus = gpus(resources.gpus(), errors);
    Long gpuMemory = gpuMemory(resources.gpuMemory(), errors);
    Double gpuFraction = gpuFraction(resources.gpuFraction(), errors);
    if (gpuMemory != null && gpuFraction != null) {
      errors.add("resources", "give either gpuMemory or gpuFraction, not both");
    }
    if (gpus == 0 && (resources.gpuMemory() != null || resources.gpuFraction() != null)) {
      errors.add(
          "resources", "a job with gpus: 0 runs on no GPU and cannot have a GPU-memory budget");
    }
    int priority = priority(request.priority(), errors);
    Duration timeout = timeout(request.timeout(), errors);
    JobRequest.Retry retry =
        request.retry() == null ? new JobRequest.Retry(null, null) : request.retry();
    int maxAttempts = maxAttempts(retry.maxAttempts(), errors);
    double oomGrowth = oomGrowth(retry.oomGrowth(), errors);
    Map<String, String> labels = labels("labels", request.labels(), errors);
    Map<String, String> nodeSelector = labels("nodeSelector", request.nodeSelector(), errors);
    errors.throwIfAny();
    return new JobSpec(
        name,
        command,
        workingDir,
        env,
        framework,
        gpus,
        gpuMemory,
        gpuFraction,
        priority,
        timeout,
        maxAttempts,
        oomGrowth,
        labels,
        nodeSelector);
  }

  private static List<String> command(List<String> command, Errors errors) {
    if (command == null || command.isEmpty()) {
      errors.add("command", "is required: a non-empty list of strings (argv, no shell)");
      return List.of();
    }
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      if (arg == null) {
        errors.add("command[" + i + "]", "must be a string, not null");
      } else if (arg.indexOf('\0') >= 0) {
        errors.add("command[" + i + "]", "must not contain a NUL character");
      }
    }
    if (command.get(0) != null && command.get(0).isBlank()) {
      errors.add("command[0]", "the program to run must not be blank");
    }
    return command;
  }

  private static String name(String name, List<String> command, Errors errors) {
    if (name == null || name.isBlank()) {
      if (command.isEmpty() || command.get(0) == null) {
        return "job";
      }
      String program = command.get(0);
      return program.substring(program.lastIndexOf('/') + 1);
    }
    if (name.length() > MAX_NAME_LENGTH) {
      errors.add("name", "must be at most " + MAX_NAME_LENGTH + " characters");
    }
    return name;
  }

  private static String workingDir(String workingDir, Errors errors) {
    if (workingDir == null) {
      return null;
    }
    if (!workingDir.startsWith("/") || workingDir.indexOf('\0') >= 0) {
      errors.add("workingDir", "must be an absolute path");
    }
    return workingDir;
  }

  private Map<String, String> env(Map<String, String> env, Errors errors) {
    if (env == null) {
      return Map.of();
    }
    Map<String, String> copy = new LinkedHashMap<>();
    env.forEach(
        (key, value) -> {
          String field = "env." + key;
          if (!ENV_NAME.matcher(key).matches()) {
            errors.add(field, "is not a valid environment variable name");
          } else if (reservedEnvNames.contains(key)) {
            errors.add(field, "is set by gpuq for every worker and cannot be overridden");
          } else if (value == null) {
            errors.add(field, "must be a string, not null");
          } else if (value.indexOf('\0') >= 0) {
            errors.add(field, "must not contain a NUL character");
          } else {
            copy.put(key, value);
          }
        });
    return copy;
  }

  private static Framework framework(String framework, Errors errors) {
    if (framework == null) {
      return Framework.GENERIC;
    }
    return Framework.fromWireName(framework)
        .orElseGet(
            () -> {
              errors.add(
                  "framework",
                  "unknown framework \""
                      + framework
                      + "\"; use one of "
                      + Arrays.stream(Framework.values())
                          .map(Framework::wireName)
                          .collect(Collectors.joining(", ")));
              return Framework.GENERIC;
            });
  }

  private static int gpus(Integer gpus, Errors errors) {
    if (gpus == null) {
      return 1;
    }
    if (gpus < 0) {
      errors.add("resources.gpus", "must be 0 or more");
      return 0;
    }
    return gpus;
  }

  private static Long gpuMemory(Object gpuMemory, Errors errors) {
    if (gpuMemory == null) {
      return null;
    }
    try {
      return MemorySize.parse(gpuMemory);
    } catch (IllegalArgumentException | ArithmeticException e) {
      errors.add("resources.gpuMemory", e.getMessage());
      return null;
    }
  }

  private static Double gpuFraction(Double gpuFraction, Errors errors) {
    if (gpuFraction == null) {
      return null;
    }
    if (!(gpuFraction > 0 && gpuFraction <= 1)) {
      errors.add("resources.gpuFraction", "must be in (0, 1]");
      return null;
    }
    return gpuFraction;
  }

  private static int priority(Integer priority, Errors errors) {
    if (priority == null) {
      return 0;
    }
    if (Math.abs((long) priority) > MAX_PRIORITY) {
      errors.add("priority", "must be between -" + MAX_PRIORITY + " and " + MAX_PRIORITY);
    }
    return priority;
  }

  private static Duration timeout(String timeout, Errors errors) {
    if (timeout == null) {
      return null;
    }
    try {
      Duration duration = Duration.parse(timeout);
      if (duration.isNegative() || duration.isZero()) {
        errors.add("timeout", "must be a positive duration");
      }
      return duration;
    } catch (DateTimeParseException e) {
      errors.add(
          "timeout",
          "\"" + timeout + "\" is not an ISO-8601 duration such as \"PT2H\" or \"PT90S\"");
      return null;
    }
  }

  private static int maxAttempts(Integer maxAttempts, Errors errors) {
    if (maxAttempts == null) {
      return 1;
    }
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
      errors.add("retry.maxAttempts", "must be between 1 and " + MAX_ATTEMPTS);
    }
    return maxAttempts;
  }

  private static double oomGrowth(Double oomGrowth, Errors errors) {
    if (oomGrowth == null) {
      return 1.5;
    }
    if (!(oomGrowth >= 1.0 && oomGrowth <= MAX_OOM_GROWTH)) {
      errors.add("retry.oomGrowth", "must be between 1.0 and " + MAX_OOM_GROWTH);
    }
    return oomGrowth;
  }

  private static Map<String, String> labels(
      String name, Map<String, String> labels, Errors errors) {
    if (labels == null) {
      return Map.of();
    }
    labels.forEach(
        (key, value) -> {
          String field = name + "." + key;
          if (!LABEL_KEY.matcher(key).matches()) {
            errors.add(
                field,
                "a label key is 1 to 63 letters, digits, '_', '.', '-' or '/', starting with a"
                    + " letter or digit");
          } else if (value == null) {
            errors.add(field, "must be a string, not null");
          } else if (value.length() > MAX_LABEL_VALUE_LENGTH) {
            errors.add(field, "must be at most " + MAX_LABEL_VALUE_LENGTH + " characters");
          }
        });
    return labels;
  }

  private static final class Errors {
    private final List<FieldError> list = new ArrayList<>();

    void add(String field, String message) {
      list.add(new FieldError(field, message));
    }

    void throwIfAny() {
      if (!list.isEmpty()) {
        throw new InvalidJobRequestException(list);
      }
    }
  }
}

package io.gpuq.sweep;

import io.gpuq.job.FieldErrors;
import io.gpuq.job.JobRequest;
import io.gpuq.text.UserText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job fields of a sweep request, made into each trial's job: {@code {name}} placeholders in
 * {@code command}, {@code workingDir} and {@code env} values replaced by the trial's parameters
 * (see {@link Placeholders}), and the trial's labels added. Everything else is the template's as
 * is; the job validator then checks each trial's job like any other.
 */
public final class TrialTemplate {

  private final JobRequest template;
  private final List<Placeholders> command;
  private final Placeholders workingDir;
  private final Map<String, Placeholders> env;

  private TrialTemplate(
      JobRequest template,
      List<Placeholders> command,
      Placeholders workingDir,
      Map<String, Placeholders> env) {
    this.template = template;
    this.command = command;
    this.workingDir = workingDir;
    this.env = env;
  }

  /**
   * Checks the template's placeholders against the declared parameters and its labels and variables
   * against what gpuq reserves for trials.
   *
   * @throws InvalidSweepException naming each field that is wrong
   */
  public static TrialTemplate of(JobRequest template, ParameterSpace space) {
    FieldErrors errors = new FieldErrors();
    TrialTemplate parsed = parse(template, space, errors);
    errors.throwIfAny(InvalidSweepException::new);
    return parsed;
  }

  static TrialTemplate parse(JobRequest template, ParameterSpace space, FieldErrors errors) {
    List<Placeholders> command = new ArrayList<>();
    if (template.command() != null) {
      for (int i = 0; i < template.command().size(); i++) {
        command.add(parsed("command[" + i + "]", template.command().get(i), space, errors));
      }
    }
    Placeholders workingDir = parsed("workingDir", template.workingDir(), space, errors);
    Map<String, Placeholders> env = new LinkedHashMap<>();
    if (template.env() != null) {
      template
          .env()
          .forEach(
              (name, value) -> {
                String field = "env." + UserText.echo(name);
                if (TrialEnvironment.NAMES.contains(name)) {
                  errors.add(field, "is set by gpuq for every trial and cannot be overridden");
                }
                env.put(name, parsed(field, value, space, errors));
              });
    }
    if (template.labels() != null && template.labels().containsKey(TrialLabels.SWEEP)) {
      errors.add(
          "labels." + TrialLabels.SWEEP,
          "is reserved: gpuq labels every trial with sweep=<the sweep's id>");
    }
    return new TrialTemplate(template, command, workingDir, env);
  }

  private static Placeholders parsed(
      String field, String text, ParameterSpace space, FieldErrors errors) {
    if (text == null) {
      // The job validator says what a missing or null value should have been.
      return null;
    }
    try {
      Placeholders placeholders = Placeholders.parse(text);
      List<String> unknown = placeholders.unknown(space.names());
      if (!unknown.isEmpty()) {
        errors.add(
            field,
            "{"
                + UserText.echo(unknown.get(0))
                + "} names no parameter; the parameters are "
                + String.join(", ", space.names())
                + " (write '{{' and '}}' for literal braces)");
      }
      return placeholders;
    } catch (Placeholders.SyntaxException e) {
      errors.add(field, e.getMessage());
      return null;
    }
  }

  /** The job request of one trial, before the job validator checks it. */
  public JobRequest instantiate(String sweepId, Trial trial) {
    Map<String, ParameterValue> values = trial.parameters();
    List<String> trialCommand = null;
    if (template.command() != null) {
      trialCommand = new ArrayList<>(command.size());
      for (Placeholders argument : command) {
        trialCommand.add(argument == null ? null : argument.substitute(values));
      }
    }
    Map<String, String> trialEnv = null;
    if (template.env() != null) {
      trialEnv = new LinkedHashMap<>();
      for (Map.Entry<String, Placeholders> entry : env.entrySet()) {
        Placeholders value = entry.getValue();
        trialEnv.put(entry.getKey(), value == null ? null : value.substitute(values));
      }
    }
    Map<String, String> templateLabels = template.labels() == null ? Map.of() : template.labels();
    return new JobRequest(
        template.name(),
        trialCommand,
        workingDir == null ? template.workingDir() : workingDir.substitute(values),
        trialEnv,
        template.framework(),
        template.resources(),
        template.priority(),
        template.timeout(),
        template.retry(),
        TrialLabels.of(templateLabels, sweepId, trial),
        template.nodeSelector(),
        template.preload(),
        // A sweep's dependsOn holds its trials as the sweep creates them (issue 37), not per trial.
        null,
        template.preemptible(),
        template.preemptGrace(),
        template.preemptSignal(),
        template.timeoutSignal(),
        // A trial sends no notifications: its sweep may (issue 37).
        null);
  }
}

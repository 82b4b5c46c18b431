package io.gpuq.sweep;

import io.gpuq.job.SweepTrial;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The variables gpuq adds to a trial's worker environment (besides every worker's), so that a
 * script can read its parameters without parsing its command line.
 */
public final class TrialEnvironment {

  public static final String SWEEP_ID = "GPUQ_SWEEP_ID";
  public static final String TRIAL = "GPUQ_TRIAL";
  public static final String PARAMS = "GPUQ_PARAMS";

  /** Reserved: a sweep's template, like any job, may not set them. */
  public static final Set<String> NAMES = Set.of(SWEEP_ID, TRIAL, PARAMS);

  private TrialEnvironment() {}

  /** {@code GPUQ_SWEEP_ID}, {@code GPUQ_TRIAL} (its number) and {@code GPUQ_PARAMS} (JSON). */
  public static Map<String, String> of(String sweepId, Trial trial) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(SWEEP_ID, sweepId);
    env.put(TRIAL, Integer.toString(trial.number()));
    env.put(PARAMS, trial.parametersJson());
    return env;
  }

  /** The same variables for a stored trial, as a claim reads it. */
  public static Map<String, String> of(SweepTrial trial) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put(SWEEP_ID, trial.sweepId());
    env.put(TRIAL, Integer.toString(trial.number()));
    env.put(PARAMS, trial.parametersJson());
    return env;
  }
}

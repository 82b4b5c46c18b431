"""Replays sweeps into Optuna's own pruners: the oracle of OptunaOracleTest.

Reads a JSON list of scenarios on stdin. Each names a rule ("median" or "asha") and its
parameters, a direction, a number of trials and the reads in the order gpuq read them: a trial and
the (step, value) pairs it reported in that read, and whether it was the trial's last. Each value
is reported with trial.report and judged with trial.should_prune at once, as a training loop does;
a pruned trial is told PRUNED and its later values are not reported; a trial whose last read passes
is told COMPLETE with its last value. Prints one line per scenario: for each trial, the step
(last_step) at which Optuna pruned it, or "-".
"""

import json
import sys

import optuna
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.ERROR)


def pruner_of(scenario):
    if scenario["rule"] == "median":
        return optuna.pruners.MedianPruner(
            n_startup_trials=scenario["startupTrials"],
            n_warmup_steps=scenario["warmupSteps"],
            interval_steps=1,
            n_min_trials=1,
        )
    return optuna.pruners.SuccessiveHalvingPruner(
        min_resource=scenario["minSteps"],
        reduction_factor=scenario["factor"],
        min_early_stopping_rate=0,
        bootstrap_count=0,
    )


def replay(scenario):
    study = optuna.create_study(
        storage=optuna.storages.InMemoryStorage(),
        direction=scenario["direction"],
        pruner=pruner_of(scenario),
    )
    n = scenario["trials"]
    trials = [study.ask() for _ in range(n)]
    pruned = [None] * n
    told = [False] * n
    highest = [None] * n
    last_value = [None] * n
    for read in scenario["reads"]:
        number = read["trial"]
        if told[number]:
            continue
        trial = trials[number]
        for step, value in read["values"]:
            trial.report(value, step)
            highest[number] = step if highest[number] is None else max(highest[number], step)
            last_value[number] = value
            if trial.should_prune():
                pruned[number] = highest[number]
                study.tell(trial, state=TrialState.PRUNED)
                told[number] = True
                break
        if not told[number] and read["last"]:
            study.tell(trial, last_value[number])
            told[number] = True
    return " ".join("-" if p is None else str(p) for p in pruned)


for scenario in json.load(sys.stdin):
    print(replay(scenario))

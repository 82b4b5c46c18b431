"""An ask/tell optimiser (Optuna's shape) driving gpuq through a sweep of method "external".

    GPUQ_URL=http://localhost:8080 python3 optuna_style.py --trials 12 --parallel 2

The loop: ask the optimiser for a trial, add it to the sweep (gpuq runs it as a job), wait for
it, read the metric it reported, tell the optimiser; at the end, close the sweep. gpuq keeps
every trial's parameters and metrics, ranks them, and can stop bad ones early (earlyStopping).

StandInStudy below is a small random search that narrows around the best trial so far; it has
Optuna's ask/tell interface, so that with Optuna installed the same loop runs unchanged with

    import optuna
    study = optuna.create_study(direction="minimize")
    run_study(client, study, ..., states={"PRUNED": optuna.trial.TrialState.PRUNED,
                                          "FAIL": optuna.trial.TrialState.FAIL})

(study.ask() returns an optuna.Trial, whose suggest_float/suggest_int/suggest_categorical are
the ones suggest() calls; study.tell(trial, value) and study.tell(trial, state=...) as here.)
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

from gpuq import Client, TERMINAL_STATES  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

# The search space, written once in gpuq's form: the sweep declares it (gpuq checks every added
# trial against it) and suggest() asks the optimiser for a value of each.
SPACE = {
    "lr": {"min": 1e-4, "max": 1.0, "scale": "log"},
    "layers": {"min": 1, "max": 6, "type": "int"},
}


class StandInTrial:
    """What study.ask() returns: a number, and suggest_* methods that fill in params."""

    def __init__(self, number, sample):
        self.number = number
        self.params = {}
        self._sample = sample

    def suggest_float(self, name, low, high, log=False):
        return self._suggest(name, ("float", low, high, log))

    def suggest_int(self, name, low, high, log=False):
        return self._suggest(name, ("int", low, high, log))

    def suggest_categorical(self, name, choices):
        return self._suggest(name, ("categorical", list(choices)))

    def _suggest(self, name, distribution):
        self.params[name] = self._sample(name, distribution)
        return self.params[name]


class StandInStudy:
    """Random search for n_startup_trials, then samples around the best trial, ever closer.

    The shape of optuna.Study for ask/tell: ask(), tell(trial, value) or tell(trial,
    state="PRUNED"|"FAIL"), best_trial, best_value, best_params. Reproducible from its seed.
    """

    STATES = {"PRUNED": "PRUNED", "FAIL": "FAIL"}

    def __init__(self, direction="minimize", seed=0, n_startup_trials=4, shrink=0.7):
        self.direction = direction
        self.n_startup_trials = n_startup_trials
        self.shrink = shrink
        self.trials = []  # (trial, value or None, state)
        self._random = random.Random(seed)
        self._asked = 0

    def ask(self):
        trial = StandInTrial(self._asked, self._sampler())
        self._asked += 1
        return trial

    def tell(self, trial, value=None, state="COMPLETE"):
        if state == "COMPLETE" and (value is None or math.isnan(value)):
            state = "FAIL"
        self.trials.append((trial, value if state == "COMPLETE" else None, state))

    @property
    def best_trial(self):
        complete = [(trial, value) for trial, value, state in self.trials if state == "COMPLETE"]
        if not complete:
            raise ValueError("no trial has completed")
        sign = 1 if self.direction == "minimize" else -1
        return min(complete, key=lambda told: sign * told[1])[0]

    @property
    def best_value(self):
        best = self.best_trial
        return next(value for trial, value, _ in self.trials if trial is best)

    @property
    def best_params(self):
        return dict(self.best_trial.params)

    def _sampler(self):
        complete = sum(1 for _, _, state in self.trials if state == "COMPLETE")
        if complete < self.n_startup_trials:
            return self._uniform
        centre = self.best_trial.params
        # Each completed trial past the start-up narrows the search around the best.
        width = 0.5 * self.shrink ** (complete - self.n_startup_trials + 1)
        return lambda name, distribution: self._near(centre.get(name), width, distribution)

    def _uniform(self, name, distribution):
        if distribution[0] == "categorical":
            return self._random.choice(distribution[1])
        return _from_unit(self._random.random(), distribution)

    def _near(self, centre, width, distribution):
        if centre is None:
            return self._uniform(None, distribution)
        if distribution[0] == "categorical":
            choices = distribution[1]
            return centre if self._random.random() < 1 - width else self._random.choice(choices)
        unit = _to_unit(centre, distribution) + self._random.uniform(-width, width)
        return _from_unit(min(1.0, max(0.0, unit)), distribution)


def _scale(distribution):
    kind, low, high, log = distribution
    return (math.log(low), math.log(high)) if log else (low, high)


def _from_unit(unit, distribution):
    low, high = _scale(distribution)
    value = low + unit * (high - low)
    if distribution[3]:
        value = math.exp(value)
    if distribution[0] == "int":
        return int(min(distribution[2], max(distribution[1], round(value))))
    return min(distribution[2], max(distribution[1], value))


def _to_unit(value, distribution):
    low, high = _scale(distribution)
    position = math.log(value) if distribution[3] else value
    return (position - low) / (high - low) if high > low else 0.0


def suggest(trial, space):
    """Asks the trial for a value of each parameter of a gpuq parameter space."""
    params = {}
    for name, spec in space.items():
        if "values" in spec:
            params[name] = trial.suggest_categorical(name, spec["values"])
        elif spec.get("type") == "int":
            params[name] = trial.suggest_int(name, spec["min"], spec["max"],
                                             log=spec.get("scale") == "log")
        else:
            params[name] = trial.suggest_float(name, spec["min"], spec["max"],
                                               log=spec.get("scale") == "log")
    return params


def last_value(client, job_id, metric):
    """The last value of `metric` the trial reported (what an Optuna objective returns)."""
    values = [point["values"].get(metric) for point in client.metrics(job_id)
              if point["values"].get(metric) is not None]
    return values[-1] if values else None


def run_study(client, study, command, space, n_trials, metric, goal="minimize", parallel=1,
              poll=1.0, states=StandInStudy.STATES, **job_fields):
    """Runs n_trials trials asked of study on gpuq, `parallel` at a time; returns the sweep.

    command: argv with a {name} placeholder per parameter of space (gpuq parameter dicts).
    Trials that end PRUNED are told as pruned, FAILED or CANCELLED ones as failed.
    """
    sweep = client.create_sweep(command, space, method="external", metric=metric, goal=goal,
                                **job_fields)
    running = {}  # job id -> the optimiser's trial
    asked = 0
    try:
        while asked < n_trials or running:
            while asked < n_trials and len(running) < parallel:
                trial = study.ask()
                asked += 1
                job = client.add_trial(sweep["id"], suggest(trial, space))
                running[job["id"]] = trial
            time.sleep(poll)
            for job_id in list(running):
                job = client.get(job_id)
                if job["state"] not in TERMINAL_STATES:
                    continue
                trial = running.pop(job_id)
                if job["state"] == "SUCCEEDED":
                    study.tell(trial, last_value(client, job_id, metric))
                elif job["state"] == "PRUNED":
                    study.tell(trial, state=states["PRUNED"])
                else:
                    study.tell(trial, state=states["FAIL"])
    finally:
        client.close_sweep(sweep["id"])
    return client.get_sweep(sweep["id"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=None, help="gpuq's URL (default $GPUQ_URL or :8080)")
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    client = Client(args.url)
    study = StandInStudy(direction="minimize", seed=args.seed)
    command = [sys.executable, os.path.join(HERE, "quadratic_trainer.py"),
               "--lr={lr}", "--layers={layers}", "--steps=20"]
    sweep = run_study(client, study, command, SPACE, args.trials, "val_loss",
                      parallel=args.parallel, name="optuna-style", gpus=0)
    print("sweep %s: %s" % (sweep["id"], sweep["state"]))
    print("optimiser's best: %s -> %.4f" % (study.best_params, study.best_value))
    print("gpuq's best:      %s" % client.best(sweep["id"]))


if __name__ == "__main__":
    main()

"""An Optuna study whose trials run as gpuq jobs (`pip install ./clients/python[optuna]`).

    import optuna, gpuq, gpuq.optuna
    study = optuna.create_study(study_name="lr", storage="sqlite:///lr.db", load_if_exists=True,
                                pruner=optuna.pruners.MedianPruner())
    gpuq.optuna.optimize(
        study, gpuq.Client(), n_trials=40, n_parallel=4,
        command=lambda trial: ["python3", "train.py",
                               "--lr=%g" % trial.suggest_float("lr", 1e-5, 1e-2, log=True)],
        resources={"gpus": 1, "gpuFraction": 0.25}, framework="jax", metric="val_loss")

replaces `study.optimize(objective, n_trials=40, n_jobs=4)`. The trials run inside one gpuq sweep
of method `external` (the web page's sweep view, `gpuq sweep show|trials|best` work on it). Each
value a job reports with `gpuq.report(step=..., val_loss=...)` reaches Optuna as
`trial.report(value, step)` while the job runs; when the study's pruner (any of Optuna's) says
`trial.should_prune()`, gpuq stops the job (state PRUNED) and the trial is told PRUNED. A job that
succeeds is told its last reported value; one that fails is told FAIL, with gpuq's reason in
`trial.user_attrs["gpuq_failure"]`. Every trial records `user_attrs["gpuq_job_id"]`.

A driver that was killed and is started again on the same study and storage resumes: trials whose
jobs still run are followed to their end, a trial asked but never given to gpuq is given to it
now, and no trial runs twice; `n_trials` counts what the predecessor started.

Optuna is imported only when optimize() is called: `import gpuq` needs only the standard library.
"""

import json
import time
import uuid

from .client import TERMINAL_STATES

__all__ = ["optimize", "JOB_ATTR", "FAILURE_ATTR", "SWEEP_ATTR"]

JOB_ATTR = "gpuq_job_id"
FAILURE_ATTR = "gpuq_failure"
SWEEP_ATTR = "gpuq_sweep_id"
# The study's open run of optimize (until its sweep is closed), and each trial's tag of it: a
# restarted driver adopts the trials its predecessor tagged, and no other study's or driver's.
RUN_ATTR = "gpuq_run"
DECLARED_ATTR = "gpuq_parameters"  # the names the sweep declares, in order
TRIAL_PARAM = "optuna_trial"
ARGV_PARAM = "argv"

# The job's command: the trial's argv travels as one parameter (JSON text, the command the lambda
# built), which this launcher executes as it is (no shell). No braces: gpuq's placeholders.
_LAUNCHER = "import json, os, sys; a = json.loads(sys.argv[1]); os.execvp(a[0], a)"


def optimize(study, client, n_trials, n_parallel=1, command=None, resources=None,
             framework=None, working_dir=None, metric="val_loss", timeout=None, catch=(),
             env=None, name=None, poll=1.0, job_timeout=None):
    """Runs the study's trials as gpuq jobs, at most n_parallel at once; returns the sweep.

    study: an optuna.Study (one objective), ideally with a database storage, so that a driver
    started again after a crash resumes it.
    client: a gpuq.Client.
    n_trials: how many trials this sweep runs in all (a resumed driver counts its predecessor's).
    n_parallel: the most trials running at once (also the sweep's maxConcurrent).
    command: a function of an optuna.Trial that returns the job's argv, calling trial.suggest_*
    for its parameters as an objective would.
    resources: the jobs' resources as the API takes them ({"gpus": 1, "gpuFraction": 0.25,
    "cpus": 2, ...}). framework, working_dir, env, job_timeout: the jobs' (job_timeout in seconds).
    metric: the reported value Optuna is told, minimised or maximised as the study's direction.
    timeout: seconds after which no new trial is started (those running are followed to the end).
    catch: exception classes that, raised by command or by gpuq when the trial is added, fail that
    trial (FAIL) and let the study go on; others fail it and are raised.
    """
    try:
        import optuna
    except ImportError:
        raise ImportError("gpuq.optuna needs Optuna: pip install './clients/python[optuna]' "
                          "(or pip install optuna)") from None
    if command is None or not callable(command):
        raise TypeError("command must be a function of the trial that returns the job's argv")
    if n_parallel < 1 or n_trials < 0:
        raise ValueError("n_parallel must be at least 1 and n_trials at least 0")
    if len(study.directions) != 1:
        raise ValueError("gpuq.optuna.optimize runs single-objective studies only")
    driver = _Driver(optuna, study, client, dict(
        n_trials=n_trials, n_parallel=n_parallel, command=command, resources=resources,
        framework=framework, working_dir=working_dir, metric=metric, catch=tuple(catch or ()),
        env=env, name=name, poll=poll, job_timeout=job_timeout))
    return driver.run(timeout)


class _Running:
    """A trial whose job gpuq runs: the Optuna trial, its job and the steps told so far."""

    def __init__(self, trial, job_id, told):
        self.trial = trial
        self.job_id = job_id
        self.told = told  # steps already reported to Optuna


class _Driver:

    def __init__(self, optuna, study, client, options):
        self.optuna = optuna
        self.study = study
        self.client = client
        self.o = options
        self.sweep_id = None
        self.declared = None  # the names the sweep declares, Optuna's first, then ours
        self.run_id = None
        self.active = {}
        self.started = 0

    # ---- the loop -----------------------------------------------------------------------------

    def run(self, timeout):
        deadline = None if timeout is None else time.monotonic() + timeout
        self._resume()
        # A driver that stops on an error leaves the sweep open and its run to be resumed.
        while True:
            while (len(self.active) < self.o["n_parallel"]
                   and self.started < self.o["n_trials"]
                   and (deadline is None or time.monotonic() < deadline)):
                self._start_trial()
            if not self.active:
                break
            for running in list(self.active.values()):
                self._follow(running)
            if self.active:
                time.sleep(self.o["poll"])
        return self._finish()

    def _finish(self):
        if self.sweep_id is None:
            self._forget_run()
            return None
        sweep = self.client.close_sweep(self.sweep_id)
        self._forget_run()
        return sweep

    def _forget_run(self):
        self.study.set_user_attr(RUN_ATTR, None)

    # ---- resuming -----------------------------------------------------------------------------

    def _resume(self):
        attrs = self.study.user_attrs
        self.run_id = attrs.get(RUN_ATTR)
        if not self.run_id:
            self.run_id = uuid.uuid4().hex
            self.study.set_user_attr(RUN_ATTR, self.run_id)
            return
        sweep_id = attrs.get(SWEEP_ATTR)
        ours = [t for t in self.study.get_trials(deepcopy=False)
                if t.user_attrs.get(RUN_ATTR) == self.run_id]
        self.started = len(ours)
        if sweep_id:
            self.sweep_id = sweep_id
            self.declared = list(attrs.get(DECLARED_ATTR) or [])
        jobs_by_trial = {}
        if self.sweep_id:
            for row in self.client.trials(self.sweep_id):
                number = row.get(TRIAL_PARAM)
                if isinstance(number, (int, float)):
                    jobs_by_trial[int(number)] = row["jobId"]
        State = self.optuna.trial.TrialState
        for frozen in ours:
            if frozen.state != State.RUNNING:
                continue
            trial = self.optuna.trial.Trial(self.study, frozen._trial_id)
            job_id = frozen.user_attrs.get(JOB_ATTR) or jobs_by_trial.get(frozen.number)
            if job_id:
                # Its job was added (perhaps just before the predecessor died): followed, not rerun.
                if not frozen.user_attrs.get(JOB_ATTR):
                    trial.set_user_attr(JOB_ATTR, job_id)
                self.active[job_id] = _Running(trial, job_id, set(frozen.intermediate_values))
            else:
                # Asked but never given to gpuq: given now, with what it had suggested already.
                self._give(trial)

    # ---- starting a trial ---------------------------------------------------------------------

    def _start_trial(self):
        trial = self.study.ask()
        trial.set_user_attr(RUN_ATTR, self.run_id)
        self.started += 1
        self._give(trial)

    def _give(self, trial):
        try:
            argv = [str(a) for a in self.o["command"](trial)]
            if not argv:
                raise ValueError("command returned no argv for trial %d" % trial.number)
            job = self._add(trial, argv)
        except Exception as e:  # told FAIL whatever it is; raised unless it is to be caught
            trial.set_user_attr(FAILURE_ATTR, "%s: %s" % (type(e).__name__, e))
            self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
            if isinstance(e, self.o["catch"]):
                return
            raise
        trial.set_user_attr(JOB_ATTR, job["id"])
        self.active[job["id"]] = _Running(trial, job["id"], set())

    def _add(self, trial, argv):
        text = json.dumps(argv, separators=(",", ":"))
        if self.sweep_id is None:
            self._create_sweep(trial)
        params = {}
        for name in self.declared:
            if name == ARGV_PARAM:
                params[name] = text
            elif name == TRIAL_PARAM:
                params[name] = trial.number
            else:
                params[name] = _plain(trial.params.get(name, ""))
        return self.client.add_trial(self.sweep_id, params)

    def _create_sweep(self, first):
        # The sweep declares the first trial's Optuna parameters (any value: Optuna checks them),
        # the trial's number (to find a trial's job after a crash) and the argv the job runs.
        names = [n for n in first.params if n not in (ARGV_PARAM, TRIAL_PARAM)]
        parameters = {n: {} for n in names}
        parameters[TRIAL_PARAM] = {}
        parameters[ARGV_PARAM] = {}
        goal = ("maximize" if self.study.direction == self.optuna.study.StudyDirection.MAXIMIZE
                else "minimize")
        fields = {}
        for key, value in (("framework", self.o["framework"]),
                           ("working_dir", self.o["working_dir"]), ("env", self.o["env"]),
                           ("timeout", self.o["job_timeout"])):
            if value is not None:
                fields[key] = value
        if self.o["resources"] is not None:
            fields["resources"] = dict(self.o["resources"])
        sweep = self.client.create_sweep(
            ["python3", "-c", _LAUNCHER, "{%s}" % ARGV_PARAM], parameters, method="external",
            metric=self.o["metric"], goal=goal, max_concurrent=self.o["n_parallel"],
            idempotency_key="optuna-%s" % self.run_id,
            name=self.o["name"] or ("optuna-" + self.study.study_name)[:100], **fields)
        self.sweep_id = sweep["id"]
        self.declared = names + [TRIAL_PARAM, ARGV_PARAM]
        self.study.set_user_attr(DECLARED_ATTR, self.declared)
        self.study.set_user_attr(SWEEP_ATTR, self.sweep_id)

    # ---- following a trial --------------------------------------------------------------------

    def _follow(self, running):
        job = self.client.get(running.job_id)
        points = self.client.metrics(running.job_id)
        metric = self.o["metric"]
        last = None
        State = self.optuna.trial.TrialState
        for point in points:
            value = (point.get("values") or {}).get(metric)
            step = point.get("step")
            if value is None or step is None:
                continue
            last = value
            if step in running.told:
                continue
            running.told.add(step)
            if job["state"] == "RUNNING":
                running.trial.report(value, step)
                if running.trial.should_prune():
                    self._prune(running, step)
                    return
            else:
                running.trial.report(value, step)
        if job["state"] not in TERMINAL_STATES:
            return
        del self.active[running.job_id]
        if job["state"] == "SUCCEEDED" and last is not None:
            self.study.tell(running.trial, last)
        elif job["state"] == "PRUNED":
            self.study.tell(running.trial, state=State.PRUNED)
        else:
            running.trial.set_user_attr(FAILURE_ATTR, _failure(job, metric))
            self.study.tell(running.trial, state=State.FAIL)

    def _prune(self, running, step):
        job = self.client.prune_trial(self.sweep_id, running.job_id,
                                      reason="Optuna's pruner at step %d" % step)
        if job["state"] not in ("PRUNED", "RUNNING"):
            # It ended before gpuq could stop it: Optuna is told how, as gpuq has it.
            self._follow(running)
            return
        del self.active[running.job_id]
        self.study.tell(running.trial, state=self.optuna.trial.TrialState.PRUNED)


def _plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return "" if value is None else value
    return str(value)


def _failure(job, metric):
    if job["state"] == "SUCCEEDED":
        return "SUCCEEDED without reporting %s" % metric
    reason = job.get("failureReason") or job["state"]
    message = job.get("failureMessage")
    if job.get("exitCode") is not None and not message:
        message = "exit code %s" % job["exitCode"]
    return "%s: %s" % (reason, message) if message else reason

"""gpuq.optuna against a LIVE gpuq and the real Optuna (issue 38).

    GPUQ_URL=http://localhost:8080 GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_optuna.py

Trials run examples/quadratic_trainer.py (CPU only, a quarter core each), whose val_loss falls
with the steps towards a known function of lr and layers. The studies live in SQLite databases
in a temporary directory. The Maven build runs this file against a gpuq it starts
(io.gpuq.ship.PythonOptunaTest); without Optuna every test here is skipped and says so.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpuq import Client  # noqa: E402

try:
    import optuna
    from optuna.trial import TrialState
    import gpuq.optuna as gpuq_optuna
except ImportError:  # pragma: no cover - said by the skip below
    optuna = None

URL = os.environ.get("GPUQ_URL")
TOKEN = os.environ.get("GPUQ_TOKEN")
TRAINER = os.path.join(HERE, "examples", "quadratic_trainer.py")
RESOURCES = {"gpus": 0, "cpus": 0.25}


def trainer(steps, sleep):
    def command(trial):
        return [sys.executable, TRAINER,
                "--lr=%r" % trial.suggest_float("lr", 1e-4, 1.0, log=True),
                "--layers=%d" % trial.suggest_int("layers", 1, 6),
                "--steps=%d" % steps, "--sleep=%g" % sleep]
    return command


# The driver of the resume test, as a process of its own that the test kills with SIGKILL.
DRIVER = r"""
import os, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
import optuna
import gpuq, gpuq.optuna
import test_optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
# No pruner: Optuna's default (the median pruner) would prune the last trials now and then,
# by the random learning rates, and this test is about resuming, not pruning.
study = optuna.load_study(study_name="resume", storage=os.environ["STORAGE"],
                          sampler=optuna.samplers.TPESampler(seed=3),
                          pruner=optuna.pruners.NopPruner())
gpuq.optuna.optimize(study, gpuq.Client(), n_trials=6, n_parallel=2,
                     command=test_optuna.trainer(steps=8, sleep=0.5),
                     resources=test_optuna.RESOURCES, poll=0.3)
"""


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
@unittest.skipIf(optuna is None, "Optuna is not installed (pip install optuna)")
class OptimizeTest(unittest.TestCase):

    def setUp(self):
        self.gq = Client(URL, TOKEN)
        self.tmp = tempfile.mkdtemp(prefix="gpuq-optuna-")
        self.storage = "sqlite:///" + os.path.join(self.tmp, "study.db")
        optuna.logging.set_verbosity(optuna.logging.WARNING)

    def test_tpe_with_the_median_pruner_three_at_once(self):
        study = optuna.create_study(
            study_name="tpe", storage=self.storage, direction="minimize",
            sampler=optuna.samplers.TPESampler(seed=11, n_startup_trials=4),
            pruner=optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=1))
        started = time.monotonic()
        sweep = gpuq_optuna.optimize(study, self.gq, n_trials=14, n_parallel=3,
                                     command=trainer(steps=10, sleep=0.3),
                                     resources=RESOURCES, metric="val_loss", poll=0.2,
                                     timeout=100)
        took = time.monotonic() - started
        trials = study.get_trials()
        self.assertEqual(14, len(trials))
        self.assertEqual("DONE", self.gq.wait_sweep(sweep["id"], poll=0.2, timeout=30,
                                                   progress=False)["state"])
        rows = {row["jobId"]: row for row in self.gq.trials(sweep["id"])}
        self.assertEqual(14, len(rows), "one gpuq trial per Optuna trial")
        self.assertEqual(sweep["id"], study.user_attrs[gpuq_optuna.SWEEP_ATTR])
        pruned = [t for t in trials if t.state == TrialState.PRUNED]
        self.assertTrue(pruned, "the median pruner stopped some trials: %s"
                        % [(t.number, t.state.name) for t in trials])
        for trial in trials:
            job_id = trial.user_attrs[gpuq_optuna.JOB_ATTR]
            job = self.gq.get(job_id)
            self.assertIn(trial.state, (TrialState.COMPLETE, TrialState.PRUNED), trial)
            if trial.state == TrialState.PRUNED:
                # Stopped in gpuq, not left to run to the end.
                self.assertEqual("PRUNED", job["state"], job)
                self.assertLess(max(trial.intermediate_values), 9, trial)
            else:
                self.assertEqual("SUCCEEDED", job["state"], job)
                series = [p["values"]["val_loss"] for p in self.gq.metrics(job_id)]
                self.assertEqual(series[-1], trial.value)
                # What Optuna was told, step by step, is what the job reported.
                self.assertEqual(series, [trial.intermediate_values[s] for s in range(10)])
        best = self.gq.best(sweep["id"])
        self.assertEqual(study.best_value, best["value"])
        self.assertEqual(study.best_trial.user_attrs[gpuq_optuna.JOB_ATTR], best["jobId"])
        # At most 3 at once: 14 trials of about 3 s in 5 rounds, not 14 one after another.
        self.assertLess(took, 100)

    def test_a_failed_job_is_a_failed_trial_with_gpuq_s_reason(self):
        study = optuna.create_study(study_name="fails", storage=self.storage)

        def command(trial):
            trial.suggest_int("code", 3, 3)
            return [sys.executable, "-c", "import sys; sys.exit(3)"]
        gpuq_optuna.optimize(study, self.gq, n_trials=1, n_parallel=1, command=command,
                             resources=RESOURCES, poll=0.2, timeout=60)
        trial = study.trials[0]
        self.assertEqual(TrialState.FAIL, trial.state)
        self.assertIn("EXIT_CODE", trial.user_attrs[gpuq_optuna.FAILURE_ATTR])
        self.assertEqual("FAILED", self.gq.get(trial.user_attrs[gpuq_optuna.JOB_ATTR])["state"])

    def test_a_killed_driver_started_again_resumes_and_runs_no_trial_twice(self):
        optuna.create_study(study_name="resume", storage=self.storage,
                            pruner=optuna.pruners.NopPruner())
        env = dict(os.environ, CLIENT_DIR=HERE, STORAGE=self.storage, PYTHONPATH=HERE)
        log = open(os.path.join(self.tmp, "driver.log"), "wb")
        first = subprocess.Popen([sys.executable, "-c", DRIVER], env=env, stdin=subprocess.DEVNULL,
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + 40
            while True:
                study = optuna.load_study(study_name="resume", storage=self.storage)
                running = [t for t in study.get_trials()
                           if t.state == TrialState.RUNNING
                           and gpuq_optuna.JOB_ATTR in t.user_attrs and t.intermediate_values]
                if len(running) >= 2:
                    break
                self.assertIsNone(first.poll(), "the driver ended before it was killed")
                self.assertLess(time.monotonic(), deadline, "two trials never ran at once")
                time.sleep(0.2)
        finally:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(10)
        followed = {t.user_attrs[gpuq_optuna.JOB_ATTR] for t in running}
        # As if the killed driver had just asked a trial, and never given it to gpuq.
        study = optuna.load_study(study_name="resume", storage=self.storage)
        orphan = study.ask()
        orphan.set_user_attr(gpuq_optuna.RUN_ATTR, study.user_attrs[gpuq_optuna.RUN_ATTR])
        orphan.suggest_float("lr", 1e-4, 1.0, log=True)

        second = subprocess.run([sys.executable, "-c", DRIVER], env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                timeout=90)
        log.close()
        with open(os.path.join(self.tmp, "driver.log"), encoding="utf-8") as f:
            output = f.read()
        self.assertEqual(0, second.returncode, output)

        study = optuna.load_study(study_name="resume", storage=self.storage)
        trials = study.get_trials()
        self.assertEqual(6, len(trials), [(t.number, t.state.name) for t in trials])
        self.assertTrue(all(t.state == TrialState.COMPLETE for t in trials),
                        [(t.number, t.state.name, t.user_attrs) for t in trials])
        jobs = [t.user_attrs[gpuq_optuna.JOB_ATTR] for t in trials]
        self.assertEqual(len(jobs), len(set(jobs)), "no two trials share a job")
        sweep_id = study.user_attrs[gpuq_optuna.SWEEP_ATTR]
        rows = self.gq.trials(sweep_id)
        self.assertEqual(sorted(jobs), sorted(row["jobId"] for row in rows),
                         "gpuq ran each trial once, and no other")
        self.assertEqual(sorted(t.number for t in trials),
                         sorted(row[gpuq_optuna.TRIAL_PARAM] for row in rows))
        self.assertTrue(followed <= set(jobs), "the running trials were followed, not rerun")
        orphan_trial = study.trials[orphan.number]
        self.assertEqual(orphan.params["lr"], orphan_trial.params["lr"],
                         "the orphan ran with what it had suggested")
        for trial in trials:
            series = self.gq.metrics(trial.user_attrs[gpuq_optuna.JOB_ATTR])
            self.assertEqual(series[-1]["values"]["val_loss"], trial.value)
        self.assertEqual("DONE", self.gq.wait_sweep(sweep_id, poll=0.2, timeout=30,
                                                   progress=False)["state"])


if __name__ == "__main__":
    unittest.main()

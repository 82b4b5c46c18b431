"""Tests of the client's sweeps and of the ask/tell example, against a LIVE gpuq.

    GPUQ_URL=http://localhost:8080 GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_sweeps.py

The trials run examples/quadratic_trainer.py (CPU only), whose val_loss is a known function of
its parameters. The Maven build runs this file against a gpuq it starts
(io.gpuq.ship.PythonSweepClientTest). StandInStudyTest needs no gpuq.
"""

import io
import math
import os
import sys
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "examples"))

from gpuq import Client, GpuqError  # noqa: E402
import optuna_style  # noqa: E402
from optuna_style import StandInStudy, run_study, suggest  # noqa: E402
from quadratic_trainer import loss_at  # noqa: E402

URL = os.environ.get("GPUQ_URL")
TOKEN = os.environ.get("GPUQ_TOKEN")
WAIT = 120  # seconds; every sweep here takes a few
STEPS = 5
TRAINER = [sys.executable, os.path.join(HERE, "examples", "quadratic_trainer.py"),
           "--lr={lr}", "--layers={layers}", "--steps=%d" % STEPS]
GRID = {"lr": [0.1, 0.003], "layers": [1, 3, 4]}  # six distinct losses


def final(params):
    return loss_at(STEPS - 1, params["lr"], params["layers"])


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
class SweepClientTest(unittest.TestCase):

    def setUp(self):
        self.gq = Client(URL, TOKEN)
        self.run_id = uuid.uuid4().hex[:12]

    def create(self, parameters=GRID, **fields):
        fields.setdefault("gpus", 0)
        fields.setdefault("name", "sweep-" + self.run_id)
        fields.setdefault("metric", "val_loss")
        return self.gq.create_sweep(TRAINER, parameters, **fields)

    def finished(self, sweep):
        return self.gq.wait_sweep(sweep["id"], poll=0.2, timeout=WAIT, progress=False)

    def settled(self, sweep):
        """Finished, and every trial's last step read: for tests not about when that happens."""
        done = self.finished(sweep)
        deadline = time.monotonic() + WAIT
        while any(row["step"] != STEPS - 1 for row in self.gq.trials(sweep["id"])):
            self.assertLess(time.monotonic(), deadline, "trials' last steps read")
            time.sleep(0.2)
        return done

    def test_create_sweep_answers_the_sweep_with_its_trials_already_created(self):
        sweep = self.create(max_concurrent=4)

        self.assertEqual(sweep["name"], "sweep-" + self.run_id)
        self.assertEqual(sweep["method"], "grid")
        self.assertEqual(sweep["metric"], {"name": "val_loss", "goal": "minimize"})
        self.assertEqual(sweep["trials"]["total"], 6)
        self.assertEqual(len(self.gq.trials(sweep["id"])), 6)

    def test_wait_sweep_returns_the_finished_sweep_and_shows_one_progress_line(self):
        sweep = self.create()
        out = io.StringIO()

        done = self.gq.wait_sweep(sweep["id"], poll=0.2, timeout=WAIT, file=out)

        self.assertEqual(done["state"], "DONE")
        self.assertEqual(done["trials"]["SUCCEEDED"], 6)
        text = out.getvalue()
        self.assertTrue(text.startswith("\r"), repr(text))
        self.assertEqual(text.count("\n"), 1, repr(text))
        last = text.rstrip("\n").split("\r")[-1]
        self.assertRegex(last, r"^%s \(sweep-%s\) DONE: 6 trials: 6 done, 0 running, 0 queued, "
                               r"0 pruned; best val_loss 0\.2005\d* \(trial 4\) +\d+:\d\d *$"
                         % (sweep["id"], self.run_id))

    def test_trials_are_flat_rows_best_first_with_one_column_per_parameter(self):
        sweep = self.settled(self.create())

        rows = self.gq.trials(sweep["id"], order="metric", page_size=4)

        self.assertEqual([sorted(row) for row in rows],
                         [sorted(["jobId", "trial", "state", "value", "bestValue", "step",
                                  "lr", "layers"])] * 6)
        expected = sorted(({"lr": lr, "layers": layers} for lr in GRID["lr"]
                           for layers in GRID["layers"]), key=final)
        self.assertEqual([{"lr": row["lr"], "layers": row["layers"]} for row in rows], expected)
        for row in rows:
            self.assertEqual(row["state"], "SUCCEEDED")
            self.assertEqual(row["step"], STEPS - 1)
            self.assertAlmostEqual(row["value"], final(row))
            self.assertAlmostEqual(row["bestValue"], final(row))
        worst_first = self.gq.trials(sweep["id"], order="-metric")
        self.assertEqual([row["jobId"] for row in worst_first],
                         [row["jobId"] for row in reversed(rows)])

    def test_trials_filters_by_state(self):
        sweep = self.finished(self.create())

        self.assertEqual(len(self.gq.trials(sweep["id"], state="SUCCEEDED")), 6)
        self.assertEqual(self.gq.trials(sweep["id"], state="PRUNED"), [])

    def test_best_is_the_trial_with_the_lowest_loss_as_soon_as_the_sweep_is_done(self):
        sweep = self.finished(self.create())

        best = self.gq.best(sweep["id"])

        self.assertEqual(best["parameters"], {"lr": 0.003, "layers": 3})
        self.assertEqual(best["trial"], 4)  # lr varies slowest, as in itertools.product
        self.assertAlmostEqual(best["value"], final(best["parameters"]))
        self.assertEqual(self.gq.get(best["jobId"])["parameters"], best["parameters"])
        # Every trial completed, and its loss only falls: the best at any step is the same trial.
        self.assertEqual(self.gq.best(sweep["id"], scope="all")["trial"], 4)

    def test_best_is_none_before_any_trial_reported(self):
        sweep = self.create(method="external", parameters={"lr": {"min": 0.001, "max": 0.1},
                                                           "layers": [3]})
        try:
            self.assertIsNone(self.gq.best(sweep["id"]))
        finally:
            self.gq.close_sweep(sweep["id"])

    def test_a_random_sweep_samples_its_ranges_as_its_seed_says(self):
        space = {"lr": {"min": 1e-4, "max": 1.0, "scale": "log"},
                 "layers": {"min": 1, "max": 6, "type": "int"}}
        first = self.create(space, method="random", trials=4, seed=7)
        again = self.create(space, method="random", trials=4, seed=7)

        params = [{k: row[k] for k in space} for row in self.gq.trials(first["id"])]
        self.assertEqual(params, [{k: row[k] for k in space}
                                  for row in self.gq.trials(again["id"])])
        self.assertEqual(len(params), 4)
        for p in params:
            self.assertTrue(1e-4 <= p["lr"] <= 1.0, p)
            self.assertIn(p["layers"], range(1, 7))

    def test_the_same_idempotency_key_returns_the_first_sweep(self):
        key = "sweep-" + self.run_id
        first = self.create(idempotency_key=key)
        second = self.create(idempotency_key=key)

        self.assertEqual(second["id"], first["id"])
        self.assertEqual(second["trials"]["total"], 6)

    def test_a_bad_sweep_raises_gpuq_error_naming_the_field(self):
        with self.assertRaises(GpuqError) as raised:
            self.gq.create_sweep(["python3", "train.py", "--lr={lr}", "--depth={depth}"],
                                 {"lr": [0.1]}, gpus=0)

        self.assertEqual(raised.exception.status, 400)
        self.assertIn("command[3]", {e["field"] for e in raised.exception.errors})

    def test_cancel_sweep_cancels_its_trials(self):
        sweep = self.gq.create_sweep(["sleep", "{seconds}"], {"seconds": [60, 61]}, gpus=0)

        cancelled = self.gq.cancel_sweep(sweep["id"])

        self.assertEqual(cancelled["state"], "CANCELLED")
        states = {row["state"] for row in self.gq.trials(sweep["id"])}
        self.assertEqual(states, {"CANCELLED"})

    def test_an_external_sweep_runs_the_trials_added_and_is_done_once_closed(self):
        sweep = self.create(method="external", parameters={"lr": {"min": 0.001, "max": 0.1},
                                                           "layers": [1, 3]})

        job = self.gq.add_trial(sweep["id"], {"lr": 0.01, "layers": 3})
        self.assertEqual(job["sweep"], sweep["id"])
        self.assertEqual(job["trial"], 0)
        self.assertEqual(job["parameters"], {"lr": 0.01, "layers": 3})
        with self.assertRaises(GpuqError) as raised:
            self.gq.add_trial(sweep["id"], {"lr": 0.5, "layers": 3})
        self.assertEqual(raised.exception.status, 400)
        self.gq.wait(job["id"], progress=False, poll=0.2, timeout=WAIT)
        self.assertEqual(self.gq.get_sweep(sweep["id"])["state"], "RUNNING")

        self.gq.close_sweep(sweep["id"])

        done = self.finished(sweep)
        self.assertEqual(done["state"], "DONE")
        self.assertEqual(done["trials"]["total"], 1)

    def test_metrics_returns_every_step_a_trial_reported(self):
        sweep = self.settled(self.create({"lr": [0.01], "layers": [2]}))
        job_id = self.gq.trials(sweep["id"])[0]["jobId"]

        series = self.gq.metrics(job_id)

        self.assertEqual([point["step"] for point in series], list(range(STEPS)))
        for point in series:
            self.assertAlmostEqual(point["values"]["val_loss"], loss_at(point["step"], 0.01, 2))

    def test_sweeps_lists_the_newest_first(self):
        first = self.create({"lr": [0.01], "layers": [2]})
        second = self.create({"lr": [0.01], "layers": [2]})

        listed = [sweep["id"] for sweep in self.gq.sweeps(page_size=1)][:2]

        self.assertEqual(listed, [second["id"], first["id"]])


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
class OptunaStyleExampleTest(unittest.TestCase):
    """examples/optuna_style.py drives an external sweep, as an Optuna study would."""

    def test_the_study_is_told_what_each_trial_reported_and_agrees_with_gpuq_on_the_best(self):
        gq = Client(URL, TOKEN)
        study = StandInStudy(seed=3, n_startup_trials=3)
        command = [sys.executable, os.path.join(HERE, "examples", "quadratic_trainer.py"),
                   "--lr={lr}", "--layers={layers}", "--steps=%d" % STEPS]

        sweep = run_study(gq, study, command, optuna_style.SPACE, n_trials=6, metric="val_loss",
                          parallel=2, poll=0.2, gpus=0, name="optuna-" + uuid.uuid4().hex[:8])

        self.assertEqual(sweep["method"], "external")
        self.assertEqual(sweep["trials"]["total"], 6)
        self.assertEqual(sweep["trials"]["SUCCEEDED"], 6)
        self.assertEqual(len(study.trials), 6)
        rows = {row["trial"]: row for row in gq.trials(sweep["id"])}
        for trial, value, state in study.trials:
            self.assertEqual(state, "COMPLETE")
            row = rows[trial.number]
            self.assertEqual({"lr": row["lr"], "layers": row["layers"]}, trial.params)
            self.assertAlmostEqual(value, final(trial.params))
            self.assertAlmostEqual(value, row["value"])
        best = gq.best(sweep["id"])
        self.assertEqual(best["trial"], study.best_trial.number)
        self.assertAlmostEqual(best["value"], study.best_value)
        deadline = time.monotonic() + WAIT
        while gq.get_sweep(sweep["id"])["state"] != "DONE" and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(gq.get_sweep(sweep["id"])["state"], "DONE")


class StandInStudyTest(unittest.TestCase):
    """The example's stand-in optimiser: Optuna's ask/tell shape, reproducible, within bounds."""

    def asked(self, study, told):
        trial = study.ask()
        params = suggest(trial, optuna_style.SPACE)
        study.tell(trial, told(params))
        return params

    def test_the_same_seed_asks_the_same_trials(self):
        def run():
            study = StandInStudy(seed=11)
            return [self.asked(study, lambda p: final(p)) for _ in range(10)]

        self.assertEqual(run(), run())

    def test_every_value_stays_within_its_declared_range_and_type(self):
        study = StandInStudy(seed=5, n_startup_trials=2)
        for _ in range(50):
            params = self.asked(study, final)
            self.assertTrue(1e-4 <= params["lr"] <= 1.0, params)
            self.assertIsInstance(params["layers"], int)
            self.assertIn(params["layers"], range(1, 7))

    def test_after_the_start_up_trials_it_asks_near_the_best_so_far(self):
        study = StandInStudy(seed=2, n_startup_trials=3, shrink=0.5)
        for _ in range(3):
            self.asked(study, final)
        best = study.best_params

        later = [self.asked(study, lambda p: 100.0) for _ in range(5)]

        for params in later:
            # Within half the log-range's width of the best (the first narrowed step), or nearer.
            self.assertLessEqual(abs(math.log10(params["lr"]) - math.log10(best["lr"])), 2.0)

    def test_best_trial_follows_the_direction_and_ignores_pruned_and_failed_trials(self):
        study = StandInStudy(direction="maximize", seed=1)
        low, high, pruned, failed = (study.ask() for _ in range(4))
        study.tell(low, 1.0)
        study.tell(high, 2.0)
        study.tell(pruned, state="PRUNED")
        study.tell(failed, float("nan"))

        self.assertIs(study.best_trial, high)
        self.assertEqual(study.best_value, 2.0)
        self.assertEqual([state for _, _, state in study.trials],
                         ["COMPLETE", "COMPLETE", "PRUNED", "FAIL"])


if __name__ == "__main__":
    unittest.main()

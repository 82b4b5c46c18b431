"""Tests of the Python client against a LIVE gpuq.

    GPUQ_URL=http://localhost:8080 GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_gpuq.py

GPUQ_OTHER_TOKEN (optional): a second submitter's token, for the "not your job" test.
The jobs are CPU-only (gpus: 0) shell one-liners, so any gpuq can run them, GPUs or not.
The Maven build runs this file against a gpuq it starts (io.gpuq.ship.PythonClientTest).
"""

import io
import os
import sys
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gpuq import Client, GpuqError, TERMINAL_STATES  # noqa: E402

URL = os.environ.get("GPUQ_URL")
TOKEN = os.environ.get("GPUQ_TOKEN")
OTHER_TOKEN = os.environ.get("GPUQ_OTHER_TOKEN")
WAIT = 60  # seconds; every job here takes well under one


def sh(script):
    return ["sh", "-c", script]


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
class ClientTest(unittest.TestCase):

    def setUp(self):
        self.gq = Client(URL, TOKEN)
        # Labels every job of this test, so that list() sees only them.
        self.run_id = uuid.uuid4().hex[:12]
        self.labels = {"test": self.run_id}

    def submit(self, command, **fields):
        fields.setdefault("gpus", 0)
        fields.setdefault("labels", self.labels)
        return self.gq.submit(command, **fields)

    def finished(self, job):
        return self.gq.wait(job["id"], progress=False, poll=0.1, timeout=WAIT)

    def test_submit_returns_the_queued_job_as_the_api_describes_it(self):
        job = self.submit(sh("true"), name="submit-" + self.run_id, env={"A": "1"},
                          timeout=600, retry={"maxAttempts": 2})

        self.assertEqual(len(job["id"]), 26)
        self.assertEqual(job["name"], "submit-" + self.run_id)
        self.assertEqual(job["command"], ["sh", "-c", "true"])
        self.assertEqual(job["resources"], {"gpus": 0})
        self.assertEqual(job["timeout"], "PT10M")
        self.assertEqual(job["labels"], self.labels)
        self.assertIn(job["state"], {"QUEUED", "RUNNING", "SUCCEEDED"})

    def test_a_string_command_is_split_like_a_shell_would_but_not_run_by_one(self):
        job = self.finished(self.submit("echo 'two words' $HOME"))

        self.assertEqual(job["command"], ["echo", "two words", "$HOME"])
        self.assertEqual(self.gq.logs(job["id"]), "two words $HOME\n")

    def test_the_same_idempotency_key_returns_the_first_job(self):
        key = "idem-" + self.run_id
        first = self.submit(sh("true"), idempotency_key=key)
        second = self.submit(sh("true"), idempotency_key=key)

        self.assertEqual(second["id"], first["id"])
        self.assertEqual(len(list(self.gq.list(labels=self.labels))), 1)

    def test_get_returns_the_job(self):
        job = self.submit(sh("true"))

        self.assertEqual(self.gq.get(job["id"])["id"], job["id"])

    def test_wait_returns_the_finished_job_and_shows_one_progress_line(self):
        job = self.submit(sh("sleep 1; exit 0"), name="progress-" + self.run_id)
        out = io.StringIO()

        done = self.gq.wait(job["id"], poll=0.2, file=out)

        self.assertEqual(done["state"], "SUCCEEDED")
        self.assertEqual(done["exitCode"], 0)
        text = out.getvalue()
        self.assertTrue(text.startswith("\r"), repr(text))
        self.assertTrue(text.endswith("\n"), repr(text))
        self.assertEqual(text.count("\n"), 1, repr(text))
        last = text.rstrip("\n").split("\r")[-1]
        self.assertRegex(last, r"^%s \(progress-%s\) SUCCEEDED exit 0 +\d+:\d\d *$"
                         % (job["id"], self.run_id))

    def test_wait_reports_a_failed_run_with_its_reason(self):
        job = self.finished(self.submit(sh("exit 3")))

        self.assertEqual(job["state"], "FAILED")
        self.assertEqual(job["failureReason"], "EXIT_CODE")
        self.assertEqual(job["exitCode"], 3)

    def test_wait_gives_up_after_its_timeout(self):
        job = self.submit(sh("sleep 30"))
        try:
            with self.assertRaises(TimeoutError):
                self.gq.wait(job["id"], progress=False, poll=0.1, timeout=0.5)
        finally:
            self.gq.cancel(job["id"])

    def test_logs_returns_the_output_or_its_last_lines(self):
        job = self.finished(self.submit(sh("echo one; echo two >&2; echo three")))

        self.assertEqual(self.gq.logs(job["id"]), "one\ntwo\nthree\n")
        self.assertEqual(self.gq.logs(job["id"], tail=2), "two\nthree\n")

    def test_follow_yields_the_lines_as_they_come_until_the_job_ends(self):
        job = self.submit(sh("for i in 1 2 3; do echo line $i; sleep 0.3; done"))

        started = time.monotonic()
        lines = list(self.gq.logs(job["id"], follow=True))

        self.assertEqual(lines, ["line 1", "line 2", "line 3"])
        self.assertLess(time.monotonic() - started, WAIT)
        self.assertIn(self.gq.get(job["id"])["state"], TERMINAL_STATES)

    def test_cancel_stops_a_running_job_and_a_second_cancel_is_a_conflict(self):
        job = self.submit(sh("sleep 60"))
        deadline = time.monotonic() + WAIT
        while self.gq.get(job["id"])["state"] == "QUEUED" and time.monotonic() < deadline:
            time.sleep(0.1)

        cancelled = self.gq.cancel(job["id"])

        self.assertEqual(cancelled["state"], "CANCELLED")
        with self.assertRaises(GpuqError) as raised:
            self.gq.cancel(job["id"])
        self.assertEqual(raised.exception.status, 409)

    def test_list_iterates_over_every_page_newest_first(self):
        ids = [self.submit(sh("true"), name="list-%d" % i)["id"] for i in range(5)]

        listed = [job["id"] for job in self.gq.list(labels=self.labels, page_size=2)]

        self.assertEqual(listed, list(reversed(ids)))

    def test_list_filters_by_state(self):
        job = self.finished(self.submit(sh("exit 1")))
        self.finished(self.submit(sh("true")))

        failed = [j["id"] for j in self.gq.list(state="FAILED", labels=self.labels)]

        self.assertEqual(failed, [job["id"]])

    def test_sweep_runs_the_cartesian_product_of_the_grid_and_returns_each_outcome(self):
        err = io.StringIO()

        outcomes = self.gq.sweep(sh("echo lr={lr} seed={seed}; test {seed} != 2"),
                                 {"lr": ["0.1", "0.01"], "seed": [1, 2]},
                                 name="lr{lr}-s{seed}", sweep_id="sw-" + self.run_id,
                                 labels=self.labels, gpus=0, poll=0.2, file=err)

        self.assertEqual([params for params, _ in outcomes],
                         [{"lr": "0.1", "seed": 1}, {"lr": "0.1", "seed": 2},
                          {"lr": "0.01", "seed": 1}, {"lr": "0.01", "seed": 2}])
        for params, job in outcomes:
            self.assertEqual(job["name"], "lr%s-s%s" % (params["lr"], params["seed"]))
            self.assertEqual(job["labels"]["sweep"], "sw-" + self.run_id)
            self.assertEqual(job["state"], "SUCCEEDED" if params["seed"] != 2 else "FAILED")
            self.assertEqual(self.gq.logs(job["id"]),
                             "lr=%s seed=%s\n" % (params["lr"], params["seed"]))
        self.assertRegex(err.getvalue().rstrip("\n").split("\r")[-1],
                         r"^sw-%s: 4 runs: 2 succeeded, 2 failed +\d+:\d\d *$" % self.run_id)

    def test_running_the_same_sweep_again_submits_nothing_new(self):
        grid = {"x": [1, 2]}
        first = self.gq.sweep(sh("echo {x}"), grid, sweep_id="again-" + self.run_id,
                              labels=self.labels, gpus=0, wait=False)
        again = self.gq.sweep(sh("echo {x}"), grid, sweep_id="again-" + self.run_id,
                              labels=self.labels, gpus=0, wait=False)

        self.assertEqual([job["id"] for _, job in again], [job["id"] for _, job in first])
        self.assertEqual(len(list(self.gq.list(labels=self.labels))), 2)

    def test_bad_input_raises_gpuq_error_with_detail_and_field_errors(self):
        with self.assertRaises(GpuqError) as raised:
            self.gq.submit([], gpus=0, labels={"bad key!": "x"})

        error = raised.exception
        self.assertEqual(error.status, 400)
        self.assertTrue(error.detail)
        fields = {e["field"] for e in error.errors}
        self.assertIn("command", fields)
        self.assertIn("labels.bad key!", fields)
        self.assertIn("command", str(error))

    def test_an_unknown_job_is_a_404(self):
        with self.assertRaises(GpuqError) as raised:
            self.gq.get("0" * 26)
        self.assertEqual(raised.exception.status, 404)

    def test_following_the_logs_of_an_unknown_job_fails_at_once(self):
        with self.assertRaises(GpuqError) as raised:
            self.gq.logs("0" * 26, follow=True)
        self.assertEqual(raised.exception.status, 404)

    def test_a_wrong_token_is_a_401(self):
        with self.assertRaises(GpuqError) as raised:
            Client(URL, "not-a-token-of-this-gpuq").get("0" * 26)
        self.assertEqual(raised.exception.status, 401)

    @unittest.skipUnless(OTHER_TOKEN, "set GPUQ_OTHER_TOKEN to a second submitter's token")
    def test_another_submitters_job_is_forbidden(self):
        job = self.submit(sh("true"))

        with self.assertRaises(GpuqError) as raised:
            Client(URL, OTHER_TOKEN).get(job["id"])
        self.assertEqual(raised.exception.status, 403)

    def test_an_unreachable_server_raises_gpuq_error_without_status(self):
        with self.assertRaises(GpuqError) as raised:
            Client("http://127.0.0.1:9", TOKEN, timeout=2).get("x")
        self.assertIsNone(raised.exception.status)

    def test_the_token_comes_from_the_environment_or_a_file(self):
        saved = os.environ.pop("GPUQ_TOKEN", None)
        try:
            os.environ["GPUQ_TOKEN"] = TOKEN
            self.assertEqual(Client(URL).token, TOKEN)
            del os.environ["GPUQ_TOKEN"]
            path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gpuq-token-" + self.run_id)
            with open(path, "w") as f:
                f.write(TOKEN + "\n")
            try:
                self.assertEqual(Client(URL, token_file=path).token, TOKEN)
                job = self.submit(sh("true"))
                self.assertEqual(Client(URL, token_file=path).get(job["id"])["id"], job["id"])
            finally:
                os.remove(path)
        finally:
            if saved is not None:
                os.environ["GPUQ_TOKEN"] = saved


if __name__ == "__main__":
    unittest.main()

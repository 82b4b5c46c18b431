"""Tests of the Python client against a LIVE gpuq.

    GPUQ_URL=http://localhost:8080 GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_gpuq.py

GPUQ_OTHER_TOKEN (optional): a second submitter's token, for the "not your job" test.
The jobs are CPU-only (gpus: 0) shell one-liners, so any gpuq can run them, GPUs or not.
The Maven build runs this file against a gpuq it starts (io.gpuq.ship.PythonClientTest).
ReportTest and the local half of TokenDiscoveryTest need no gpuq at all.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpuq  # noqa: E402
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
        self.assertEqual(job["resources"], {"gpus": 0, "cpus": 1})
        self.assertEqual(job["timeout"], "PT10M")
        self.assertEqual(job["labels"], self.labels)
        self.assertIn(job["state"], {"QUEUED", "RUNNING", "SUCCEEDED"})

    def test_cpus_and_memory_are_the_jobs_cores_and_host_memory(self):
        job = self.submit(sh("true"), cpus=2, memory="64MiB")

        self.assertEqual(job["resources"], {"gpus": 0, "cpus": 2, "memory": 64 * 1024 ** 2})
        trial = self.gq.create_sweep(sh("echo {x}"), {"x": [1]}, gpus=0, cpus=3, memory=2 ** 27,
                                     labels=self.labels)
        jobs = list(self.gq.list(labels={"sweep": trial["id"]}))
        self.assertEqual([j["resources"]["cpus"] for j in jobs], [3])
        self.assertEqual([j["resources"]["memory"] for j in jobs], [2 ** 27])

    def test_owners_shows_a_submitter_their_own_row_and_the_totals(self):
        answer = self.gq.owners()

        self.assertEqual([o["owner"] for o in answer["owners"]], ["alice"])
        self.assertIn("standing", answer["owners"][0])
        self.assertIn("capacity", answer["totals"])

    def test_nodes_give_each_nodes_cores_and_host_memory_but_not_their_use(self):
        nodes = self.gq.nodes()

        self.assertTrue(nodes)
        for node in nodes:
            self.assertGreaterEqual(node["cpus"]["allocatable"], 1, node)
            self.assertIsNone(node["cpus"]["used"], node)
            self.assertIsNone(node["memory"]["used"], node)

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

    def test_metrics_follows_the_pages_of_a_long_series_to_its_end(self):
        # 600 points of 64 long names: about 2.4 MB, more than one answer's 2 MiB.
        script = ("import json, os\n"
                  "names = ['%s_%d' % ('n' * 50, i) for i in range(64)]\n"
                  "with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
                  "    for step in range(600):\n"
                  "        f.write(json.dumps(dict({'step': step}, **{n: step for n in names}))"
                  " + '\\n')\n")
        job = self.submit(["python3", "-c", script])
        self.assertEqual(self.finished(job)["state"], "SUCCEEDED")

        deadline = time.monotonic() + WAIT
        series = self.gq.metrics(job["id"])
        while len(series) < 600 and time.monotonic() < deadline:
            time.sleep(0.2)
            series = self.gq.metrics(job["id"])

        self.assertEqual([point["step"] for point in series], list(range(600)))
        first = self.gq._json("GET", "/api/v1/jobs/%s/metrics" % job["id"])
        self.assertLess(len(first["series"]), 600)
        self.assertTrue(first["nextCursor"])

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


@contextlib.contextmanager
def environment(cwd=None, **variables):
    """Runs the block in cwd with the given variables set (None: unset), then restores both."""
    saved = {name: os.environ.get(name) for name in variables}
    saved_cwd = os.getcwd()
    try:
        for name, value in variables.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if cwd:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class ReportTest(unittest.TestCase):
    """gpuq.report() appends JSON lines to $GPUQ_METRICS_FILE, and does nothing outside gpuq."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.file = os.path.join(self.dir, "metrics.jsonl")

    def lines(self):
        with open(self.file, encoding="utf-8") as f:
            return f.read().splitlines()

    def test_each_report_is_one_json_line_with_its_step_and_metrics(self):
        with environment(GPUQ_METRICS_FILE=self.file):
            gpuq.report(step=100, val_loss=0.31, val_acc=0.88)
            gpuq.report(val_loss=0.29)

        self.assertEqual([json.loads(line) for line in self.lines()],
                         [{"step": 100, "val_loss": 0.31, "val_acc": 0.88}, {"val_loss": 0.29}])

    def test_outside_gpuq_it_writes_nothing(self):
        with environment(cwd=self.dir, GPUQ_METRICS_FILE=None):
            self.assertIsNone(gpuq.report(step=1, loss=0.5))

        self.assertEqual(os.listdir(self.dir), [])

    def test_scalars_of_array_libraries_become_plain_numbers(self):
        class Scalar:  # what numpy.float32 and a 0-d torch tensor offer
            def item(self):
                return 0.25

        with environment(GPUQ_METRICS_FILE=self.file):
            gpuq.report(step=2.0, loss=Scalar(), diverged=float("nan"))

        self.assertEqual(self.lines(), ['{"step":2,"loss":0.25,"diverged":NaN}'])

    def test_what_gpuq_would_skip_is_refused_at_once_even_outside_gpuq(self):
        with environment(GPUQ_METRICS_FILE=None):
            with self.assertRaises(TypeError):
                gpuq.report(loss="0.3")
            with self.assertRaises(TypeError):
                gpuq.report(ok=True)
            with self.assertRaises(ValueError):
                gpuq.report(step=-1, loss=1)
            with self.assertRaises(ValueError):
                gpuq.report(step=1.5, loss=1)
            with self.assertRaises(ValueError):
                gpuq.report(step=3)

    def test_lines_of_concurrent_processes_never_interleave(self):
        script = ("import sys; sys.path.insert(0, %r); import gpuq\n"
                  "for i in range(200): gpuq.report(step=i, worker=%%d, padding=1e300)\n"
                  % os.path.dirname(os.path.dirname(os.path.abspath(gpuq.__file__))))
        with environment(GPUQ_METRICS_FILE=self.file):
            workers = [subprocess.Popen([sys.executable, "-c", script % n]) for n in range(4)]
            for worker in workers:
                self.assertEqual(worker.wait(timeout=WAIT), 0)

        lines = [json.loads(line) for line in self.lines()]
        self.assertEqual(len(lines), 800)
        for n in range(4):
            self.assertEqual([line["step"] for line in lines if line["worker"] == n],
                             list(range(200)))


class TokenDiscoveryTest(unittest.TestCase):
    """Client(url) finds a local gpuq's token, and a 401 says where it looked."""

    def setUp(self):
        self.home = tempfile.mkdtemp()
        self.work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.home)
        self.addCleanup(shutil.rmtree, self.work)
        self.clean = dict(cwd=self.work, HOME=self.home, GPUQ_TOKEN=None, GPUQ_TOKEN_FILE=None,
                          GPUQ_DATA_DIR=None)

    def write(self, path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")
        return path

    def test_the_token_a_local_gpuq_generated_in_its_data_directory_is_found(self):
        self.write(os.path.join(self.work, "data", "admin.token"), "from-data")

        with environment(**self.clean):
            client = Client("http://localhost:8080")

        self.assertEqual(client.token, "from-data")
        self.assertEqual(client.token_source, "./data/admin.token")

    def test_the_order_is_the_variable_the_config_file_gpuq_data_dir_then_data(self):
        self.write(os.path.join(self.work, "data", "admin.token"), "from-data")
        data_dir = os.path.join(self.work, "elsewhere")
        self.write(os.path.join(data_dir, "admin.token"), "from-data-dir")
        config = self.write(os.path.join(self.home, ".config", "gpuq", "token"), "from-config")
        local = "http://127.0.0.1:8080"

        with environment(**self.clean):
            with environment(GPUQ_DATA_DIR=data_dir):
                with environment(GPUQ_TOKEN="from-variable"):
                    self.assertEqual(Client(local).token, "from-variable")
                self.assertEqual(Client(local).token, "from-config")
                os.remove(config)
                self.assertEqual(Client(local).token, "from-data-dir")
                self.assertEqual(Client(local).token_source,
                                 "$GPUQ_DATA_DIR/admin.token = %s/admin.token" % data_dir)
            self.assertEqual(Client(local).token, "from-data")

    def test_a_remote_gpuq_is_never_sent_this_machines_local_token(self):
        self.write(os.path.join(self.work, "data", "admin.token"), "local-admin")

        with environment(**self.clean):
            client = Client("http://gpu-box:8080")

        self.assertIsNone(client.token)
        self.assertIn("no data directory (http://gpu-box:8080 is not this machine)",
                      client._looked)

    @unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
    def test_a_live_local_gpuq_is_reached_with_the_token_of_its_data_directory(self):
        self.write(os.path.join(self.work, "data", "admin.token"), TOKEN)

        with environment(**self.clean):
            client = Client(URL)
        with self.assertRaises(GpuqError) as raised:
            client.get("0" * 26)

        self.assertEqual(raised.exception.status, 404)

    @unittest.skipUnless(URL, "set GPUQ_URL to a live gpuq")
    def test_a_401_without_a_token_says_where_the_client_looked(self):
        with environment(**self.clean):
            client = Client(URL)
        with self.assertRaises(GpuqError) as raised:
            client.get("0" * 26)

        error = raised.exception
        self.assertEqual(error.status, 401)
        for place in ("$GPUQ_TOKEN (unset)", "~/.config/gpuq/token (no such file)",
                      "$GPUQ_DATA_DIR (unset)", "./data/admin.token (no such file)"):
            self.assertIn(place, str(error))
        self.assertIn("GPUQ_TOKEN", error.detail)

    @unittest.skipUnless(URL, "set GPUQ_URL to a live gpuq")
    def test_a_401_with_a_found_token_names_where_it_came_from(self):
        self.write(os.path.join(self.work, "data", "admin.token"), "stale-token")

        with environment(**self.clean):
            client = Client(URL)
        with self.assertRaises(GpuqError) as raised:
            client.get("0" * 26)

        self.assertEqual(raised.exception.status, 401)
        self.assertIn("gpuq refused the token from ./data/admin.token", str(raised.exception))


if __name__ == "__main__":
    unittest.main()

"""Tests of the `gpuq` command against a LIVE gpuq: every command, run as a user runs it.

    GPUQ_URL=http://localhost:8080 GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_cli.py

Each test runs `python3 -m gpuq ...` as a separate process and looks at its output, its exit code
and, through the client, at what gpuq stored. The jobs are CPU-only shell one-liners (the OOM one
asks for one GPU of any gpuq, emulated ones included). The Maven build runs this file against a
gpuq it starts (io.gpuq.ship.PythonCliTest); test_cli_format.py checks the tables' text.
"""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpuq import Client, TERMINAL_STATES  # noqa: E402

URL = os.environ.get("GPUQ_URL")
TOKEN = os.environ.get("GPUQ_TOKEN")
# An admin's token, for what an admin sees that a submitter does not (`gpuq owners`); optional.
ADMIN_TOKEN = os.environ.get("GPUQ_ADMIN_TOKEN")
MIB = 1024 ** 2
WAIT = 60  # seconds; every job here takes well under one
TRAINER = os.path.join(HERE, "examples", "quadratic_trainer.py")
OOM_LINE = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def eventually(condition, what, timeout=WAIT):
    """Polls condition() until it returns something true, which it returns."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("not within %d s: %s" % (timeout, what))
        time.sleep(0.1)


class Result:
    def __init__(self, completed):
        self.code = completed.returncode
        self.out = completed.stdout
        self.err = completed.stderr

    def __repr__(self):
        return "exit %s\n--- stdout\n%s--- stderr\n%s" % (self.code, self.out, self.err)


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq")
class CommandTest(unittest.TestCase):

    def setUp(self):
        self.gq = Client(URL, TOKEN)
        self.run_id = uuid.uuid4().hex[:12]
        self.label = "test=" + self.run_id
        self.home = tempfile.mkdtemp(prefix="gpuq-cli-home-")
        self.addCleanup(shutil.rmtree, self.home, True)

    # ---- helpers -------------------------------------------------------------------------

    def env(self, **changes):
        env = dict(os.environ, HOME=self.home, GPUQ_URL=URL, GPUQ_TOKEN=TOKEN, COLUMNS="80")
        env.pop("GPUQ_TOKEN_FILE", None)
        for key, value in changes.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def gpuq(self, *args, stdin=None, env=None):
        """Runs `python3 -m gpuq ARGS` and returns its exit code, stdout and stderr."""
        completed = subprocess.run([sys.executable, "-m", "gpuq"] + list(args), cwd=HERE,
                                   input=stdin, capture_output=True, text=True, timeout=WAIT * 2,
                                   env=env or self.env())
        result = Result(completed)
        self.assertNotIn("Traceback", result.err, result)
        return result

    def ok(self, *args, **kwargs):
        result = self.gpuq(*args, **kwargs)
        self.assertEqual(result.code, 0, result)
        return result

    def submit(self, *command, options=()):
        """Submits a CPU-only job labelled for this test and returns its id."""
        result = self.ok("submit", "--gpus", "0", "--label", self.label, *options, "--",
                         *command)
        return result.out.strip()

    def finished(self, job_id):
        return eventually(lambda: (lambda j: j if j["state"] in TERMINAL_STATES else None)(
            self.gq.get(job_id)), "job %s finished" % job_id)

    def finished_sweep(self, sweep_id):
        return eventually(lambda: (lambda s: s if s["state"] in ("DONE", "CANCELLED") else None)(
            self.gq.get_sweep(sweep_id)), "sweep %s finished" % sweep_id)

    # ---- install, help, version ----------------------------------------------------------

    def test_version_and_help(self):
        self.assertRegex(self.ok("--version").out, r"^gpuq \d+\.\d+\.\d+\n$")
        help_text = self.ok("--help").out
        for command in ("submit", "run", "queue", "show", "logs", "cancel", "wait", "gpus",
                        "nodes", "owners", "sweep", "login", "completion"):
            self.assertIn(command, help_text)
        self.assertIn("--array", self.ok("submit", "--help").out)

    def test_completion_bash_is_a_valid_bash_script(self):
        script = self.ok("completion", "bash").out
        checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        probe = script + '\nCOMP_WORDS=(gpuq sweep t); COMP_CWORD=2; _gpuq; echo "${COMPREPLY[@]}"\n'
        self.assertEqual(subprocess.run(["bash", "-c", probe], capture_output=True,
                                        text=True).stdout.strip(), "trials")

    # ---- submit ----------------------------------------------------------------------------

    def test_submit_prints_the_id_alone_and_sends_every_option(self):
        workdir = tempfile.mkdtemp(prefix="gpuq-cli-wd-")
        self.addCleanup(shutil.rmtree, workdir, True)
        result = self.ok("submit", "--gpus", "0", "--name", "opts-" + self.run_id,
                         "--label", self.label, "--label", "team=rl", "--env", "A=1",
                         "--env", "B=two words", "--workdir", workdir, "--timeout", "1h30m",
                         "--retry", "2", "--oom-growth", "2", "--priority", "5",
                         "--framework", "pytorch", "--", "sh", "-c", "echo $A $B")
        job_id = result.out.strip()
        self.assertEqual(result.out, job_id + "\n")

        job = self.finished(job_id)
        self.assertEqual(job["name"], "opts-" + self.run_id)
        self.assertEqual(job["labels"], {"test": self.run_id, "team": "rl"})
        self.assertEqual(job["workingDir"], workdir)
        self.assertEqual(job["timeout"], "PT1H30M")
        self.assertEqual(job["retry"], {"maxAttempts": 3, "oomGrowth": 2.0})
        self.assertEqual(job["priority"], 5)
        self.assertEqual(job["framework"], "pytorch")
        self.assertEqual(job["resources"]["gpus"], 0)
        self.assertEqual(self.gq.logs(job_id), "1 two words\n")

    def test_submit_runs_in_the_current_directory_by_default(self):
        job = self.finished(self.submit("pwd"))
        self.assertEqual(job["workingDir"], HERE)

    def test_the_same_idempotency_key_prints_the_same_id(self):
        key = "cli-" + self.run_id
        first = self.submit("true", options=("--idempotency-key", key))
        second = self.submit("true", options=("--idempotency-key", key))
        self.assertEqual(first, second)

    def test_an_array_is_one_grid_sweep_over_i_with_its_limit(self):
        sweep_id = self.ok("submit", "--gpus", "0", "--array", "0-3%2", "--name",
                           "arr-" + self.run_id, "--", "sh", "-c",
                           "echo i={i} trial=$GPUQ_TRIAL; echo '{x}'").out.strip()

        sweep = self.finished_sweep(sweep_id)
        self.assertEqual(sweep["name"], "arr-" + self.run_id)
        self.assertEqual(sweep["method"], "grid")
        self.assertEqual(sweep["maxConcurrent"], 2)
        self.assertEqual(sweep["trials"]["total"], 4)
        self.assertEqual(sweep["trials"]["SUCCEEDED"], 4)
        for trial in self.gq.trials(sweep_id):
            # {x} is the user's own brace, left alone; {i} is the index.
            self.assertEqual(self.gq.logs(trial["jobId"]),
                             "i=%d trial=%d\n{x}\n" % (trial["i"], trial["trial"]))

    # ---- run, wait and their exit codes ---------------------------------------------------

    def test_run_streams_the_log_and_exits_with_the_jobs_code(self):
        result = self.gpuq("run", "--gpus", "0", "--label", self.label, "--",
                           "sh", "-c", "echo one; echo two >&2; exit 3")
        self.assertEqual(result.code, 3, result)
        self.assertEqual(result.out, "one\ntwo\n")
        self.assertIn("exit code 3", result.err)

        self.assertEqual(self.gpuq("run", "--gpus", "0", "--", "true").code, 0)

    def test_run_of_a_job_out_of_gpu_memory_exits_1_with_the_failure_message(self):
        result = self.gpuq("run", "--gpus", "1", "--gpu-memory", "256MiB", "--label", self.label,
                           "--", "sh", "-c", "echo '%s' >&2; exit 7" % OOM_LINE)
        self.assertEqual(result.code, 1, result)
        self.assertIn("OUT_OF_MEMORY", result.err)
        self.assertIn(OOM_LINE, result.err)

    def test_ctrl_c_cancels_the_job_and_waits_for_its_end(self):
        cli = subprocess.Popen([sys.executable, "-m", "gpuq", "run", "--gpus", "0", "--label",
                                self.label, "--", "sh", "-c", "echo started; sleep 600"],
                               cwd=HERE, env=self.env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               # As a terminal's Ctrl-C finds it, even where this test inherited
                               # SIGINT ignored (a background job of a script).
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            self.assertEqual(cli.stdout.readline(), "started\n")
            cli.send_signal(signal.SIGINT)
            out, err = cli.communicate(timeout=WAIT)
        finally:
            if cli.poll() is None:
                cli.kill()
        self.assertEqual(cli.returncode, 130, err)
        self.assertNotIn("Traceback", err)
        job_id = re.search(r"job (\w+) submitted", err).group(1)
        # It waited for the end: the job is CANCELLED when the command returns.
        self.assertEqual(self.gq.get(job_id)["state"], "CANCELLED")
        self.assertIn("job %s CANCELLED" % job_id, err)

    def test_run_detach_prints_the_id_and_returns_at_once(self):
        result = self.ok("run", "--detach", "--gpus", "0", "--label", self.label, "--",
                         "sleep", "30")
        job_id = result.out.strip()
        self.assertNotIn(self.gq.get(job_id)["state"], TERMINAL_STATES)
        self.ok("cancel", job_id)

    def test_wait_exits_with_the_first_failures_code(self):
        good = self.submit("true")
        bad = self.submit("sh", "-c", "exit 3")
        result = self.gpuq("wait", good, bad)
        self.assertEqual(result.code, 3, result)
        self.assertEqual(result.out, "%s SUCCEEDED exit 0\n%s FAILED exit 3\n" % (good, bad))
        self.assertEqual(self.ok("wait", good).out, "%s SUCCEEDED exit 0\n" % good)

    # ---- queue -----------------------------------------------------------------------------

    def test_queue_shows_queued_and_running_jobs_in_squeue_columns(self):
        running = self.submit("sleep", "60", options=("--name", "q-" + self.run_id))
        done = self.submit("true")
        self.finished(done)
        eventually(lambda: self.gq.get(running)["state"] == "RUNNING", "running")
        try:
            table = self.ok("queue", "--label", self.label).out.splitlines()
            self.assertEqual(table[0].split(), ["ID", "NAME", "OWNER", "STATE", "GPUS",
                                                "GPU-MEM", "TIME", "REASON"])
            self.assertEqual(len(table), 2, table)
            cells = table[1].split()
            self.assertEqual(cells[0], running)
            self.assertTrue(("q-" + self.run_id).startswith(cells[1].rstrip("\u2026")), cells)
            self.assertEqual(cells[2:6], ["alice", "RUNNING", "0", "-"])
            self.assertRegex(cells[6], r"^(\d+s|\d+m\d\ds)$")
            for line in table:
                self.assertLessEqual(len(line), 80)

            everything = self.ok("ls", "-a", "--label", self.label).out
            self.assertIn(done, everything)
            self.assertIn("SUCCEEDED", everything)
            only = self.ok("queue", "-t", "succeeded", "--label", self.label).out
            self.assertIn(done, only)
            self.assertNotIn(running, only)
            self.assertEqual(len(self.ok("queue", "-a", "-n", "1", "--label",
                                         self.label).out.splitlines()), 2)
            picked = self.ok("queue", "-o", "id,state,exit", "-a", "--label",
                             self.label).out.splitlines()
            self.assertEqual(picked[0].split(), ["ID", "STATE", "EXIT"])
            self.assertIn("%s SUCCEEDED 0" % done, [" ".join(l.split()) for l in picked])
        finally:
            self.gq.cancel(running)

    def test_a_sweeps_queued_trials_collapse_into_one_line_and_r_expands_them(self):
        sweep_id = self.ok("submit", "--gpus", "0", "--array", "0-9%1", "--label", self.label,
                           "--", "sleep", "60").out.strip()
        try:
            eventually(lambda: self.gq.get_sweep(sweep_id)["trials"].get("RUNNING") == 1,
                       "one trial running")
            lines = self.ok("queue", "--sweep", sweep_id).out.splitlines()
            self.assertEqual(len(lines), 3, lines)
            running = [l for l in lines if "RUNNING" in l]
            self.assertEqual(len(running), 1, lines)
            collapsed = [l for l in lines if l.startswith(sweep_id + "[")]
            self.assertEqual(len(collapsed), 1, lines)
            self.assertRegex(collapsed[0], r"^%s\[\d+-9%%1\] +alice +QUEUED +0 +- +\S+ +"
                                           r"SweepLimit$" % sweep_id)
            queued_trials = int(re.search(r"\[(\d+)-9", collapsed[0]).group(1))
            expanded = self.ok("queue", "-r", "--sweep", sweep_id).out.splitlines()
            self.assertEqual(len([l for l in expanded if "QUEUED" in l]), 10 - queued_trials)
        finally:
            self.ok("cancel", "--sweep", sweep_id)

    # ---- show, logs, cancel ----------------------------------------------------------------

    def test_after_options_make_jobs_wait_and_show_lists_them(self):
        first = self.submit("sh", "-c", "sleep 1; exit 3")
        ok = self.submit("true", options=("--after", first))
        notok = self.submit("true", options=("--after-notok", first))
        self.assertEqual(self.finished(ok)["state"], "CANCELLED")
        self.assertEqual(self.finished(notok)["state"], "SUCCEEDED")
        self.assertIn("Depends on  afterok: gpuq show %s\n" % first, self.ok("show", ok).out)

    def test_notify_sends_the_url_and_events_for_gpuq_to_check(self):
        # Issue 37: no operator allows this host (.invalid is never a real one), so gpuq refuses
        # the submission, naming the field the CLI filled in.
        result = self.gpuq("submit", "--gpus", "0", "--label", self.label,
                           "--notify", "http://gpuq-test.invalid/hook", "--notify-on",
                           "started,ended", "--", "true")
        self.assertEqual(result.code, 3, result)
        self.assertIn("notify[0].url", result.err)

    def test_usage_prints_a_table_json_and_csv(self):
        self.finished(self.submit("true"))
        self.assertIn("GROUP", self.ok("usage").out)
        self.assertIn("TOTAL", self.ok("usage", "--by", "day").out)
        report = json.loads(self.ok("usage", "--json", "--by", "label:test").out)
        self.assertIn(self.run_id, [g.get("key") for g in report["groups"]])
        self.assertTrue(self.ok("usage", "--csv").out.startswith("GROUP,SUCCEEDED,"))

    def test_show_gives_the_job_in_words(self):
        job_id = self.submit("sh", "-c", "exit 3", options=("--name", "show-" + self.run_id))
        self.finished(job_id)
        text = self.ok("show", job_id).out
        self.assertIn("Job         %s\n" % job_id, text)
        self.assertIn("Name        show-%s\n" % self.run_id, text)
        self.assertIn("State       FAILED (EXIT_CODE), exit 3, attempt 1 of 1\n", text)
        self.assertIn("Resources   no GPU (CPU only); 1 core\n", text)
        self.assertIn("Attempts:\n", text)

    def test_logs_all_the_last_lines_and_following(self):
        job_id = self.submit("sh", "-c", "echo one; echo two; echo three")
        self.finished(job_id)
        self.assertEqual(self.ok("logs", job_id).out, "one\ntwo\nthree\n")
        self.assertEqual(self.ok("logs", "-n", "1", job_id).out, "three\n")

        slow = self.submit("sh", "-c", "echo first; sleep 1; echo last")
        self.assertEqual(self.ok("logs", "-f", slow).out, "first\nlast\n")
        self.assertEqual(self.gq.get(slow)["state"], "SUCCEEDED")

    def test_cancel_stops_each_job_and_says_when_one_had_ended(self):
        first = self.submit("sleep", "60")
        second = self.submit("sleep", "60")
        result = self.ok("cancel", first, second)
        self.assertEqual(result.out, "%s CANCELLED\n%s CANCELLED\n" % (first, second))

        again = self.gpuq("cancel", first)
        self.assertEqual(again.code, 3, again)
        self.assertIn("gpuq: %s: 409 " % first, again.err)

    # ---- gpus ------------------------------------------------------------------------------

    def test_gpus_show_memory_bars_and_the_processes_of_a_job(self):
        job_id = self.ok("submit", "--gpus", "1", "--gpu-memory", "512MiB", "--name",
                         "gpu-" + self.run_id, "--label", self.label, "--",
                         "sleep", "60").out.strip()
        try:
            eventually(lambda: any(p.get("jobId") == job_id for g in self.gq._json(
                "GET", "/api/v1/gpus") for p in g["processes"]), "its process on a GPU")
            text = self.ok("gpus").out
            self.assertRegex(text, r"(?m)^\S+ \(\d+ GPUs?\)$")
            self.assertRegex(text, r"(?m)^GPU +NAME +MEMORY #used -reserved +USED +RESERVED +"
                                   r"TOTAL +UTIL$")
            self.assertRegex(text, r"(?m)^\d+ +.+ \[[#.-]{16}\] ")
            self.assertRegex(text, r"(?m)^\d+ +\d+ +%s +alice +gpu-%s" % (job_id, self.run_id))
        finally:
            self.gq.cancel(job_id)

    # ---- cores and host memory, nodes, owners ----------------------------------------------

    def test_cpus_and_memory_go_to_resources_and_show_gives_the_cap(self):
        job_id = self.submit("sh", "-c", "echo ok", options=("--cpus", "2", "--memory", "256MiB"))
        job = self.finished(job_id)
        self.assertEqual(job["state"], "SUCCEEDED", job)
        self.assertEqual(job["resources"]["cpus"], 2)
        self.assertEqual(job["effectiveResources"]["memory"], 256 * MIB)
        text = self.ok("show", job_id).out
        self.assertIn("Resources   no GPU (CPU only); 2 cores, 256MiB of host memory\n", text)
        self.assertIn("Memory cap  256MiB of host memory\n", text)
        cores = job["attempts"][-1].get("cores")
        if cores:  # null where the worker was bound to no cores
            self.assertIn("Cores       %s (bound by %s)\n" % (cores["cpus"], cores["boundBy"]),
                          text)

    def test_a_fraction_of_a_core_reaches_gpuq_as_a_number_and_show_says_it(self):
        job_id = self.submit("true", options=("--cpus", "0.25"))
        job = self.finished(job_id)
        self.assertEqual(job["state"], "SUCCEEDED", job)
        self.assertEqual(job["resources"]["cpus"], 0.25)
        self.assertIn("Resources   no GPU (CPU only); 0.25 core\n", self.ok("show", job_id).out)
        job = self.gq.submit(["true"], gpus=0, cpus=0.5, labels={"test": self.run_id})
        self.assertEqual(job["resources"]["cpus"], 0.5)
        self.assertEqual(self.finished(job["id"])["state"], "SUCCEEDED")

    def test_cpus_and_memory_reach_every_trial_of_an_array_and_a_param_sweep(self):
        array = self.ok("submit", "--array", "0-1", "--gpus", "0", "--cpus", "2", "--memory",
                        "64MiB", "--label", self.label, "--", "true").out.strip()
        grid = self.ok("sweep", "create", "--param", "x=1,2", "--gpus", "0", "--cpus", "3",
                       "--memory", "128MiB", "--label", self.label, "--", "true").out.strip()
        for sweep_id, cpus, memory in ((array, 2, 64 * MIB), (grid, 3, 128 * MIB)):
            self.finished_sweep(sweep_id)
            trials = list(self.gq.list(labels={"sweep": sweep_id}))
            self.assertEqual(len(trials), 2, trials)
            for trial in trials:
                self.assertEqual((trial["resources"]["cpus"], trial["resources"]["memory"]),
                                 (cpus, memory))

    def test_bad_cpus_or_memory_is_wrong_usage_and_a_job_too_big_for_any_node_an_api_error(self):
        for option, value in (("--cpus", "0"), ("--cpus", "two"), ("--memory", "lots")):
            result = self.gpuq("submit", "--gpus", "0", option, value, "--", "true")
            self.assertEqual(result.code, 2, result)
            self.assertIn("%s: not a" % option, result.err)
        too_big = self.gpuq("submit", "--gpus", "0", "--cpus", "4096", "--", "true")
        self.assertEqual(too_big.code, 3, too_big)
        self.assertRegex(too_big.err, r"^gpuq: 422 ")
        self.assertIn("4096 cores", too_big.err)

    def test_nodes_show_each_nodes_cores_and_host_memory(self):
        nodes = self.gq.nodes()
        text = self.ok("nodes").out
        self.assertRegex(text, r"^NODE +CORES +CPU-USED +HOST-MEM +MEM-USED +LABELS\n")
        for node in nodes:
            self.assertRegex(text, r"(?m)^%s +\d+/%d +- +\S+/\S+ +- *" % (
                re.escape(node["name"]), node["cpus"]["allocatable"]))
        # The API's JSON unchanged, but for what moves between two reads: the heartbeat, and
        # (another test's jobs) what is allocated.
        def steady(listed):
            return [{"name": n["name"], "labels": n["labels"],
                     "allocatable": (n["cpus"]["allocatable"], n["memory"]["allocatable"])}
                    for n in listed]
        self.assertEqual(steady(json.loads(self.ok("nodes", "--json").out)), steady(nodes))

    def test_owners_show_a_submitter_their_own_row_and_the_totals(self):
        job_id = self.submit("sleep", "30")
        try:
            eventually(lambda: self.gq.get(job_id)["state"] == "RUNNING", "the job running")
            # Wide enough that no column is cut, whatever other tests' jobs hold meanwhile (the
            # shrinking itself is test_cli_format's).
            lines = self.ok("owners", env=self.env(COLUMNS="200")).out.splitlines()
            self.assertRegex(lines[0], r"^OWNER +SHARE +RUN +QUEUED +GPUS +GPU-MEM +CORES +"
                                       r"HOST-MEM +RECENT +DOMINANT +POSITION$")
            mine = self.gq.owners()["owners"]
            self.assertEqual([row["owner"] for row in mine], ["alice"])
            self.assertEqual([line.split()[0] for line in lines[1:3]], ["alice", "(all)"])
            self.assertGreaterEqual(int(lines[1].split()[2]), 1, lines)  # RUN: this job at least
            self.assertRegex(lines[-1], r"^Capacity: \d+ GPUs?, .* of GPU memory, \d+ CPU slots?$")
            answer = json.loads(self.ok("owners", "--json").out)
            self.assertEqual([row["owner"] for row in answer["owners"]], ["alice"])
            self.assertIn("totals", answer)
        finally:
            self.gq.cancel(job_id)

    @unittest.skipUnless(ADMIN_TOKEN, "set GPUQ_ADMIN_TOKEN to see every owner")
    def test_owners_show_an_admin_every_owner(self):
        admin = self.env(GPUQ_TOKEN=ADMIN_TOKEN, COLUMNS="200")
        owners = [line.split()[0] for line in self.ok("owners", env=admin).out.splitlines()[1:]
                  if line and not line.startswith("Capacity")]
        self.assertIn("alice", owners)
        self.assertIn("bob", owners)
        self.assertEqual(owners[-1], "(all)")

    # ---- --json ----------------------------------------------------------------------------

    def test_json_prints_the_apis_answers(self):
        job_id = self.submit("true")
        job = self.finished(job_id)
        self.assertEqual(json.loads(self.ok("show", "--json", job_id).out), self.gq.get(job_id))
        self.assertEqual(json.loads(self.ok("show", "--json", job_id).out), job)
        listed = json.loads(self.ok("queue", "-a", "--json", "--label", self.label).out)
        self.assertEqual(listed["items"], list(self.gq.list(labels={"test": self.run_id})))
        gpus = json.loads(self.ok("gpus", "--json").out)
        self.assertEqual([(g["node"], g["uuid"]) for g in gpus],
                         [(g["node"], g["uuid"]) for g in self.gq._json("GET", "/api/v1/gpus")])

    # ---- sweeps ----------------------------------------------------------------------------

    def test_sweep_create_with_params_then_ls_show_trials_and_best(self):
        sweep_id = self.ok("sweep", "create", "--param", "lr=0.1,0.003", "--param",
                           "layers=1,3", "--metric", "val_loss", "--goal", "min",
                           "--max-concurrent", "2", "--gpus", "0", "--name",
                           "cli-" + self.run_id, "--", sys.executable, TRAINER, "--lr={lr}",
                           "--layers={layers}", "--steps=3").out.strip()
        sweep = self.finished_sweep(sweep_id)
        self.assertEqual(sweep["trials"]["SUCCEEDED"], 4)
        self.assertEqual(sweep["maxConcurrent"], 2)
        self.assertEqual(sweep["metric"], {"name": "val_loss", "goal": "minimize"})
        best = eventually(lambda: self.gq.best(sweep_id), "a best trial")

        self.assertIn(sweep_id, self.ok("sweep", "ls").out)
        shown = self.ok("sweep", "show", sweep_id).out
        self.assertIn("State       DONE\n", shown)
        self.assertIn("Trials      0 queued, 0 running, 4 succeeded", shown)
        self.assertIn("Best        trial %d" % best["trial"], shown)
        trials = self.ok("sweep", "trials", sweep_id, "--order", "metric").out.splitlines()
        self.assertEqual(trials[0].split(), ["TRIAL", "JOB", "STATE", "lr", "layers", "VALUE",
                                             "BEST", "STEP"])
        self.assertEqual(trials[1].split()[1], best["jobId"])
        self.assertEqual(len(trials), 5)
        self.assertTrue(self.ok("sweep", "best", sweep_id).out.startswith(
            "trial %d (job %s): val_loss=" % (best["trial"], best["jobId"])))
        self.assertEqual(json.loads(self.ok("sweep", "show", "--json", sweep_id).out),
                         self.gq.get_sweep(sweep_id))
        self.assertEqual(json.loads(self.ok("sweep", "best", "--json", sweep_id).out),
                         self.gq.best(sweep_id))
        api_trials = self.gq._json("GET", "/api/v1/sweeps/%s/trials" % sweep_id)["items"]
        self.assertEqual(json.loads(self.ok("sweep", "trials", "--json", sweep_id).out)["items"],
                         api_trials)

    def test_sweep_create_from_a_file_or_stdin_then_close_and_cancel(self):
        spec = {"name": "ext-" + self.run_id, "command": ["sleep", "{t}"],
                "resources": {"gpus": 0}, "method": "external",
                "parameters": {"t": {"min": 0, "max": 1000, "type": "int"}}}
        path = os.path.join(self.home, "sweep.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        external = self.ok("sweep", "create", path).out.strip()
        self.assertEqual(self.ok("sweep", "close", external).out, "%s DONE\n" % external)

        spec["method"] = "grid"
        spec["parameters"] = {"t": {"values": [60]}}
        grid = self.ok("sweep", "create", "-", stdin=json.dumps(spec)).out.strip()
        self.assertEqual(self.gq.get_sweep(grid)["name"], "ext-" + self.run_id)
        refused = self.gpuq("sweep", "close", grid)
        self.assertEqual(refused.code, 3, refused)
        self.assertRegex(refused.err, r"^gpuq: 409 ")
        self.assertEqual(self.ok("sweep", "cancel", grid).out, "%s CANCELLED\n" % grid)

    # ---- errors, connecting, login ---------------------------------------------------------

    def test_api_errors_are_one_line_with_status_title_and_field_and_exit_3(self):
        missing = self.gpuq("show", "01NOSUCHJOB00000000000000X")
        self.assertEqual(missing.code, 3, missing)
        self.assertRegex(missing.err, r"^gpuq: 404 [^\n]+: [^\n]+\n$")

        bad = self.gpuq("submit", "--gpus", "-1", "--", "true")
        self.assertEqual(bad.code, 3, bad)
        self.assertRegex(bad.err, r"^gpuq: 400 [^\n]+: [^\n]*resources\.gpus")

        refused = self.gpuq("queue", env=self.env(GPUQ_TOKEN="wrong-token"))
        self.assertEqual(refused.code, 3, refused)
        self.assertRegex(refused.err, r"^gpuq: 401 ")

    def test_no_gpuq_at_the_url_exits_4(self):
        result = self.gpuq("--url", "http://127.0.0.1:9", "queue")
        self.assertEqual(result.code, 4, result)
        self.assertRegex(result.err, r"^gpuq: cannot reach gpuq at http://127.0.0.1:9")

    def test_wrong_usage_exits_2(self):
        self.assertEqual(self.gpuq("submit", "--gpus", "many", "--", "true").code, 2)
        self.assertEqual(self.gpuq("submit", "--gpus", "0").code, 2)
        self.assertEqual(self.gpuq("cancel").code, 2)
        self.assertEqual(self.gpuq("queue", "-o", "id,colour").code, 2)
        self.assertEqual(self.gpuq("frobnicate").code, 2)

    def test_login_stores_url_and_token_readable_by_the_user_only(self):
        env = self.env(GPUQ_URL=None, GPUQ_TOKEN=None, GPUQ_DATA_DIR=self.home)
        refused = self.gpuq("login", URL, stdin="wrong-token\n", env=env)
        self.assertEqual(refused.code, 3, refused)
        config = os.path.join(self.home, ".config", "gpuq", "config")
        self.assertFalse(os.path.exists(config))

        self.ok("login", URL, stdin=TOKEN + "\n", env=env)
        self.assertEqual(stat.S_IMODE(os.stat(config).st_mode), 0o600)
        with open(config, encoding="utf-8") as f:
            self.assertEqual(f.read(), "[gpuq]\nurl = %s\ntoken = %s\n\n" % (URL.rstrip("/"),
                                                                              TOKEN))
        job_id = self.submit("true")
        # No GPUQ_URL and no GPUQ_TOKEN: both come from the file.
        self.assertIn(job_id, self.ok("queue", "-a", "--label", self.label, env=env).out)
        # --url wins over the file; the file's token is only sent to the file's URL.
        other = self.gpuq("--url", "http://127.0.0.1:9", "queue", env=env)
        self.assertEqual(other.code, 4, other)


if __name__ == "__main__":
    unittest.main()

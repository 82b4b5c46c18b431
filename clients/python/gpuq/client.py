"""A small client for gpuq, the GPU job scheduler. Python 3.8+, standard library only.

    from gpuq import Client
    gq = Client("http://gpu-box:8080")          # token from $GPUQ_TOKEN or a token file
    job = gq.submit(["python3", "train.py", "--seed", "1"], gpus=1, gpu_memory="6GiB",
                    framework="jax", labels={"sweep": "lr"})
    job = gq.wait(job["id"])                    # one-line progress, returns the finished job
    print(gq.logs(job["id"], tail=20))

A sweep is one request for many trials; gpuq ranks them by a reported metric:

    sweep = gq.create_sweep(["python3", "train.py", "--lr={lr}", "--seed={seed}"],
                            {"lr": [1e-3, 3e-4], "seed": [1, 2, 3]}, metric="val_loss", gpus=1)
    gq.wait_sweep(sweep["id"])                  # done, running, queued, pruned, best so far
    pandas.DataFrame(gq.trials(sweep["id"], order="metric"))
    gq.best(sweep["id"])                        # best completed trial by its final value

In a training script run by gpuq, report metrics (no network, no token; a no-op elsewhere):

    import gpuq
    gpuq.report(step=100, val_loss=0.31, val_acc=0.88)

Jobs are plain dicts, exactly as the API returns them (see API.md). Errors raise GpuqError (its
subclass AnswerError for an answer gpuq never gives); redirects are followed within gpuq's origin
only, so the token never goes elsewhere. printable(text) escapes what would drive a terminal.
Copy this file next to your notebook or put clients/python on PYTHONPATH.
`pip install ./clients/python` installs it with the `gpuq` command (gpuq_cli.py, docs/cli.md).
"""

import datetime
import hashlib
import itertools
import http.client
import json
import math
import numbers
import os
import re
import shlex
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["AnswerError", "Client", "GpuqError", "SWEEP_TERMINAL_STATES", "TERMINAL_STATES",
           "printable", "report"]
__version__ = "0.1.0"

TERMINAL_STATES = frozenset({"SUCCEEDED", "FAILED", "CANCELLED", "PRUNED"})
SWEEP_TERMINAL_STATES = frozenset({"DONE", "CANCELLED"})

DEFAULT_URL = "http://localhost:8080"
TOKEN_FILE = os.path.join("~", ".config", "gpuq", "token")
# Where a gpuq started on this machine keeps the token it generated (gpuq.data-dir, ./data by
# default, or $GPUQ_DATA_DIR): read only for a gpuq on this machine, never sent elsewhere.
DATA_DIR_TOKEN = "admin.token"
DEFAULT_DATA_DIR = "data"
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "ip6-localhost"})

MAX_METRIC_NAME_LENGTH = 128

# An answer is read only within these bounds (docs/cli.md, "Answers gpuq never gives"): gpuq's
# own answers are a few levels deep and its numbers fit a Java long or double, so anything past
# them is not gpuq's, and past them Python's parser and printer would fail with a traceback.
MAX_ANSWER_DEPTH = 100
MAX_NUMBER_DIGITS = 100
# Pages followed in one listing: 10,000 pages of 1,000 jobs is far beyond any queue; a server
# whose cursors never end is stopped here.
MAX_PAGES = 10000

# What must never reach a terminal as it is: C0 controls (ESC starts every escape sequence) and
# DEL, C1 controls (U+009B is an 8-bit CSI), the line and paragraph separators, the bidirectional
# marks, embeddings, overrides and isolates (they reorder what a reader sees, as "Trojan Source"
# showed), and lone surrogates (not text at all).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     r"\u2066-\u2069\ud800-\udfff]")

_DEFAULT = object()

# Python-style names accepted by submit(), and the API field each one stands for.
_FIELD_NAMES = {"working_dir": "workingDir"}


def printable(text, keep=""):
    """The text with every control character escaped visibly: ESC reads \\x1b, U+202E \\u202e.

    The one escaping function of the client and the command: what a server (or a job) wrote is
    shown, never obeyed by the terminal. keep: characters left as they are, such as "\\n" where
    the text is lines. A backslash is left alone, so a literal `\\x1b` reads the same; the API's
    JSON tells them apart.
    """
    text = str(text)
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def _escape(char):
    code = ord(char)
    return "\\x%02x" % code if code <= 0xff else "\\u%04x" % code


def printable_json(text):
    """JSON text with the same characters escaped as JSON escapes (\\u001b, \\u202e): still the
    same JSON to any parser, and harmless on a terminal. json.dumps escapes C0 controls itself, but
    with ensure_ascii=False (names stay readable) it leaves DEL, C1 and the bidirectional marks.
    A newline is left alone: json.dumps writes one only between values, for its indent."""
    return _UNSAFE.sub(lambda m: m.group() if m.group() == "\n" else "\\u%04x" % ord(m.group()),
                       text)


class GpuqError(Exception):
    """An error answer of gpuq (an RFC 9457 problem), or no answer at all.

    status: the HTTP status (None when gpuq could not be reached); title and detail: the
    problem's; errors: the list of {"field": ..., "message": ...} that bad input names.
    """

    def __init__(self, status, title, detail, errors=None, body=None):
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = list(errors or [])
        self.body = body
        message = detail or title or "HTTP %s" % status
        if status is not None:
            message = "%s (HTTP %s)" % (message, status)
        for error in self.errors:
            if isinstance(error, dict):
                message += "\n  %s: %s" % (error.get("field"), error.get("message"))
        # str(error) is what a traceback prints: safe for a terminal, whatever the server said.
        super().__init__(printable(message, keep="\n"))


class AnswerError(GpuqError):
    """An answer gpuq would never give, so not used: not JSON, cut short, nested too deep, a number
    out of range, a field of the wrong type, a paging cursor that does not advance, or a redirect
    to another origin (never followed: the token is not sent there). status: the answer's."""

    def __init__(self, status, detail):
        super().__init__(status, "Unusable answer", detail)


class Client:
    """One gpuq server, as one user.

    url: default $GPUQ_URL, else http://localhost:8080.
    token: default $GPUQ_TOKEN, else the contents of token_file ($GPUQ_TOKEN_FILE, else
    ~/.config/gpuq/token), else, for a gpuq on this machine (localhost), the token it generated
    into its data directory ($GPUQ_DATA_DIR/admin.token, then ./data/admin.token), else no token.
    token_source says where the token came from; a 401 says where the client looked.
    """

    def __init__(self, url=None, token=None, token_file=None, timeout=30.0, max_pages=MAX_PAGES):
        self.url = (url or os.environ.get("GPUQ_URL") or DEFAULT_URL).rstrip("/")
        self.max_pages = max_pages
        # The last request sent, for an error about its answer: "GET /api/v1/jobs?limit=500".
        self.last_request = None
        self._opener = urllib.request.build_opener(_SameOriginRedirects())
        if token is not None:
            self.token, self.token_source, self._looked = token, "the token argument", []
        else:
            self.token, self.token_source, self._looked = _find_token(token_file, self.url)
        self.timeout = timeout

    def __repr__(self):
        return "Client(%r)" % self.url

    # ---- jobs --------------------------------------------------------------------------------

    def submit(self, command, idempotency_key=None, gpus=None, gpu_memory=None,
               gpu_fraction=None, cpus=None, memory=None, **fields):
        """Submits one job and returns it (state QUEUED).

        command: the argv list; a string is split like a shell would (shlex), but no shell runs it.
        idempotency_key: a repeated submit with the same key returns the first job, creates none.
        gpus, gpu_memory ("6GiB" or bytes), gpu_fraction, cpus (cores: 2, or a fraction such as
        0.25), memory (host memory set aside and its cap, "16GiB" or bytes): shortcuts for
        resources={...}.
        fields: any other field of the request (name, env, framework, priority, timeout,
        retry, labels, resources, working_dir/workingDir); timeout may be a timedelta or seconds.
        """
        body = self._job_body(command, gpus, gpu_memory, gpu_fraction, fields, cpus, memory)
        return self._job(self._json("POST", "/api/v1/jobs", body=body,
                                    headers=_idempotency(idempotency_key)))

    def get(self, job_id):
        """The job with this id."""
        return self._job(self._json("GET", "/api/v1/jobs/" + _quote(job_id)))

    def list(self, state=None, labels=None, page_size=None):
        """Iterates over the jobs the token may see, newest first, fetching page after page.

        state: QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED or PRUNED;
        labels: {key: value} (or a list of (key, value) pairs), all must match.
        """
        query = []
        if state:
            query.append(("state", state))
        for key, value in (labels.items() if isinstance(labels, dict) else labels or ()):
            query.append(("label", "%s:%s" % (key, value)))
        if page_size:
            query.append(("limit", str(page_size)))
        return (self._job(job) for job in self._pages("/api/v1/jobs", query))

    def submit_request(self, body, idempotency_key=None):
        """Submits a job given as the API's request body (a dict) and returns it."""
        return self._job(self._json("POST", "/api/v1/jobs", body=body,
                                    headers=_idempotency(idempotency_key)))

    def check(self):
        """Raises GpuqError unless gpuq answers this client's URL and accepts its token."""
        self._json("GET", "/api/v1/jobs?limit=1")

    def gpus(self):
        """Every GPU of every node as GET /api/v1/gpus answers: memory used, reserved, total, and
        the processes on it."""
        return self._json("GET", "/api/v1/gpus")

    def cancel(self, job_id):
        """Cancels a queued or running job (its whole process tree) and returns it."""
        return self._job(self._json("POST", "/api/v1/jobs/%s/cancel" % _quote(job_id)))

    def requeue(self, job_id):
        """Preempts a running job now (issue 35): its preemption signal, SIGKILL after its grace;
        it goes back to the queue without using up its retries. Returns the job."""
        return self._job(self._json("POST", "/api/v1/jobs/%s/requeue" % _quote(job_id)))

    def wait(self, job_id, progress=True, poll=1.0, timeout=None, file=None):
        """Waits until the job has finished and returns it.

        progress: rewrites one line on file (default stderr) with the job's state and elapsed time.
        timeout: seconds, after which TimeoutError is raised (the job goes on).
        """
        line = _ProgressLine(file, progress)
        while True:
            job = self.get(job_id)
            line.show("%s %s" % (_label(job), _describe(job)))
            if job["state"] in TERMINAL_STATES:
                line.end()
                return job
            if timeout is not None and line.elapsed() >= timeout:
                line.end()
                raise TimeoutError("job %s is still %s after %.0f s"
                                   % (job_id, job["state"], line.elapsed()))
            time.sleep(poll)

    def logs(self, job_id, tail=None, follow=False):
        """The job's stdout and stderr.

        Without follow: all of it (or its last `tail` lines) as one string.
        With follow: a generator of lines (without their newline) that ends when the job has ended.
        """
        query = {}
        if tail is not None:
            query["tail"] = str(tail)
        if follow:
            query["follow"] = "true"
        path = "/api/v1/jobs/%s/logs" % _quote(job_id)
        if query:
            path += "?" + urllib.parse.urlencode(query)
        if follow:
            # Opened here, so that a wrong id or token raises now rather than on the first line.
            return _lines(self._open("GET", path, timeout=None))
        with self._open("GET", path) as response:
            return response.read().decode("utf-8", errors="replace")

    def sweep(self, command_template, grid, name=None, labels=None, sweep_id=None,
              wait=True, progress=True, poll=1.0, file=None, **fields):
        """Submits one run per combination of the grid's values and returns [(params, job)].

        command_template: argv (or a string, split with shlex) whose items are formatted with each
        combination, e.g. ["python3", "train.py", "--lr={lr}", "--seed={seed}"].
        grid: {"lr": [1e-3, 3e-4], "seed": [1, 2, 3]} -> 6 runs (the cartesian product).
        name: the runs' name, also formatted ("lr{lr}-s{seed}"); default: sweep id and index.
        sweep_id: labels the runs (label "sweep") and keys their submissions, so running the same
        sweep again returns the existing runs instead of submitting new ones; default: a new id.
        wait: waits for all runs (one progress line) and returns them finished.
        fields: as for submit (gpus, gpu_memory, cpus, memory, framework, env, ...), the same for
        every run.
        """
        template = _argv(command_template)
        keys = list(grid)
        combinations = [dict(zip(keys, values))
                        for values in itertools.product(*(list(grid[k]) for k in keys))]
        if sweep_id is None:
            sweep_id = "sweep-" + datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y%m%d-%H%M%S-%f")
        runs = []
        for index, params in enumerate(combinations):
            run_labels = dict(labels or {})
            run_labels.setdefault("sweep", sweep_id)
            run_name = name.format(**params) if name else "%s-%d" % (sweep_id, index)
            key = hashlib.sha256(json.dumps([sweep_id, params], sort_keys=True, default=str)
                                 .encode("utf-8")).hexdigest()
            job = self.submit([arg.format(**params) for arg in template],
                              idempotency_key="sweep-" + key, name=run_name, labels=run_labels,
                              **fields)
            runs.append((params, job))
        if not wait:
            return runs
        return self._wait_all(runs, progress, poll, file, sweep_id)

    # ---- sweeps (one request for many trials; gpuq ranks them and stops the bad ones) ---------

    def create_sweep(self, command, parameters, method="grid", metric=None, goal="minimize",
                     max_concurrent=None, early_stopping=None, trials=None, seed=None,
                     idempotency_key=None, gpus=None, gpu_memory=None, gpu_fraction=None,
                     cpus=None, memory=None, **job_fields):
        """Creates a sweep in one request and returns it (its trials already exist as jobs).

        command: argv (or a string, split with shlex) with {name} placeholders, which gpuq
        replaces by each trial's parameter values, e.g. ["python3", "train.py", "--lr={lr}"].
        parameters: per name a list of values ({"values": [...]}) or a range dict
        {"min", "max", "scale": "linear"|"log", "type": "float"|"int"}.
        method: "grid" (every combination), "random" (`trials` samples from `seed`) or
        "external" (trials added one by one with add_trial, then close_sweep).
        metric: the reported value that ranks trials, a name (ranked by `goal`, "minimize" or
        "maximize") or a dict {"name", "goal"}.
        max_concurrent: most trials running at once. early_stopping: a dict such as
        {"type": "median", "startupTrials": 5, "warmupSteps": 10}, or just "median" / "asha".
        idempotency_key: a repeated call with the same key returns the first sweep.
        gpus, gpu_memory, gpu_fraction, cpus, memory: each trial's resources, as for submit.
        job_fields: the trials' template, as for submit (name, env, framework, labels, ...).
        """
        body = self._job_body(command, gpus, gpu_memory, gpu_fraction, job_fields, cpus, memory)
        body["parameters"] = {name: _parameter(spec) for name, spec in parameters.items()}
        body["method"] = method
        if metric is not None:
            body["metric"] = dict(metric) if isinstance(metric, dict) else {"name": metric,
                                                                             "goal": goal}
        if max_concurrent is not None:
            body["maxConcurrent"] = max_concurrent
        if early_stopping is not None:
            body["earlyStopping"] = ({"type": early_stopping}
                                     if isinstance(early_stopping, str) else early_stopping)
        if trials is not None:
            body["trials"] = trials
        if seed is not None:
            body["seed"] = seed
        return self._json("POST", "/api/v1/sweeps", body=body,
                          headers=_idempotency(idempotency_key))

    def get_sweep(self, sweep_id, scope=None):
        """The sweep with this id: state, trial counts per state, metric, best trial so far.

        scope: which trial is "best": "last" (the default: the completed trial with the best
        final value, Optuna's best_trial) or "all" (the best value of any trial at any step).
        """
        path = "/api/v1/sweeps/" + _quote(sweep_id)
        if scope:
            path += "?" + urllib.parse.urlencode([("scope", scope)])
        return self._job(self._json("GET", path))

    def sweeps(self, page_size=None):
        """Iterates over the sweeps the token may see, newest first, fetching page after page."""
        query = [("limit", str(page_size))] if page_size else []
        return self._pages("/api/v1/sweeps", query)

    def wait_sweep(self, sweep_id, poll=2.0, timeout=None, progress=True, file=None):
        """Waits until the sweep is DONE or CANCELLED and returns it.

        progress: rewrites one line on file (default stderr): trials done (succeeded), running,
        queued, pruned (and failed or cancelled, if any), and the best value so far.
        timeout: seconds, after which TimeoutError is raised (the sweep goes on).
        """
        line = _ProgressLine(file, progress)
        while True:
            sweep = self.get_sweep(sweep_id)
            line.show(_sweep_progress(sweep))
            if sweep["state"] in SWEEP_TERMINAL_STATES:
                line.end()
                return sweep
            if timeout is not None and line.elapsed() >= timeout:
                line.end()
                raise TimeoutError("sweep %s is still %s after %.0f s"
                                   % (sweep_id, sweep["state"], line.elapsed()))
            time.sleep(poll)

    def create_sweep_request(self, body, idempotency_key=None):
        """Creates a sweep given as the API's request body (a dict) and returns it."""
        return self._job(self._json("POST", "/api/v1/sweeps", body=body,
                                    headers=_idempotency(idempotency_key)))

    def trial_rows(self, sweep_id, order=None, state=None, page_size=None):
        """Iterates over the sweep's trials as the API gives them (parameters nested), page after
        page; trials() flattens them."""
        query = []
        if order:
            query.append(("order", order))
        if state:
            query.append(("state", state))
        if page_size:
            query.append(("limit", str(page_size)))
        return self._pages("/api/v1/sweeps/%s/trials" % _quote(sweep_id), query)

    def trials(self, sweep_id, order=None, state=None, page_size=None, scope=None,
               dataframe=False):
        """The sweep's trials as a list of flat dicts, ready for pandas.DataFrame(...).

        dataframe=True: a pandas.DataFrame of them instead (pandas is needed for that alone).

        Each has jobId, trial, state, value (the metric's last), bestValue, step, and one key
        per parameter (a parameter named like one of those keys becomes "params_<name>").
        order: "metric" (best first, whatever the goal), "-metric" or "created".
        state: only trials in this state (QUEUED, RUNNING, SUCCEEDED, PRUNED, ...).
        scope: what "metric" orders by: "last" (the default: value) or "all" (bestValue).
        """
        query = []
        if order:
            query.append(("order", order))
        if scope:
            query.append(("scope", scope))
        if state:
            query.append(("state", state))
        if page_size:
            query.append(("limit", str(page_size)))
        path = "/api/v1/sweeps/%s/trials" % _quote(sweep_id)
        rows = [_flat_trial(row) for row in self._pages(path, query)]
        if not dataframe:
            return rows
        try:
            import pandas
        except ImportError:
            raise ImportError("trials(..., dataframe=True) needs pandas (pip install pandas)") \
                from None
        return pandas.DataFrame(rows, columns=list(_TRIAL_COLUMNS) if not rows else None)

    def best(self, sweep_id, scope=None):
        """The sweep's best trial so far, {jobId, trial, parameters, value, step}, or None.

        As Optuna's study.best_trial: the completed (SUCCEEDED) trial with the best final value,
        the last it reported; a pruned trial never. scope="all": the best value of any trial at
        any step (Ray Tune's scope="all").
        """
        return self.get_sweep(sweep_id, scope).get("best")

    def add_trial(self, sweep_id, parameters):
        """Adds one trial with these parameters to an external sweep and returns its job."""
        return self._json("POST", "/api/v1/sweeps/%s/trials" % _quote(sweep_id),
                          body={"parameters": parameters})

    def prune_trial(self, sweep_id, job_id, reason=None):
        """Prunes a running trial of an external sweep (its optimiser's pruner said so).

        gpuq stops its job as a cancel does and leaves it PRUNED; a trial that has already ended
        is returned as it is. reason: a few words kept on the trial's attempt.
        """
        body = {"reason": str(reason)} if reason else {}
        return self._job(self._json("POST", "/api/v1/sweeps/%s/trials/%s/prune"
                                    % (_quote(sweep_id), _quote(job_id)), body=body))

    def close_sweep(self, sweep_id):
        """Says no trial will be added to an external sweep; it is DONE when the last ends."""
        return self._json("POST", "/api/v1/sweeps/%s/close" % _quote(sweep_id))

    def cancel_sweep(self, sweep_id):
        """Cancels the sweep's queued and running trials and returns the sweep."""
        return self._json("POST", "/api/v1/sweeps/%s/cancel" % _quote(sweep_id))

    # ---- the cluster ---------------------------------------------------------------------------

    def owners(self):
        """Fair share: {"at", "owners": [...], "totals": {...}} as GET /api/v1/owners answers.

        Each owner's share, running and queued jobs, the GPUs, GPU memory, cores and host memory
        their running jobs hold, recent usage and standing (position, dominantShare,
        dominantResource). An admin token sees every owner; a submitter's sees its own row alone,
        and the totals.
        """
        return self._json("GET", "/api/v1/owners")

    def usage(self, since=None, until=None, by=None):
        """Who used what (issue 37), as GET /api/v1/usage answers: {"groups": [...], "total": ...}.

        since/until: dates or instants (UTC); by: "owner" (default), "day" or "label:KEY". A
        submitter's token sees its own groups and the totals.
        """
        query = [(name, value) for name, value in (("from", since), ("to", until), ("by", by))
                 if value]
        path = "/api/v1/usage"
        if query:
            path += "?" + "&".join("%s=%s" % (name, urllib.parse.quote(str(value), safe=":"))
                                   for name, value in query)
        return self._json("GET", path)

    def nodes(self):
        """Every live node's cores and host memory as GET /api/v1/nodes answers: a list of
        {"name", "labels", "heartbeatAt", "cpus": {...}, "memory": {...}}, each with allocatable,
        allocated and used (used is null for a submitter's token)."""
        return self._json("GET", "/api/v1/nodes")

    def metrics(self, job_id):
        """What a job (or trial) reported, in the order read: [{"step", "values", "at"}, ...].

        Follows the answer's pages (each at most 10,000 points and about 2 MiB) to the last.
        """
        path = "/api/v1/jobs/%s/metrics" % _quote(job_id)
        return list(self._pages(path, [], "series"))

    # ---- plumbing ----------------------------------------------------------------------------

    def _wait_all(self, runs, progress, poll, out, sweep_id):
        line = _ProgressLine(out, progress)
        jobs = {job["id"]: job for _, job in runs}
        while True:
            for job_id, job in list(jobs.items()):
                if job["state"] not in TERMINAL_STATES:
                    jobs[job_id] = self.get(job_id)
            counts = {}
            for job in jobs.values():
                counts[job["state"]] = counts.get(job["state"], 0) + 1
            done = all(job["state"] in TERMINAL_STATES for job in jobs.values())
            summary = ", ".join("%d %s" % (counts[s], s.lower()) for s in
                                ("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED",
                                 "PRUNED")
                                if counts.get(s))
            line.show("%s: %d runs: %s" % (sweep_id, len(jobs), summary))
            if done:
                line.end()
                return [(params, jobs[job["id"]]) for params, job in runs]
            time.sleep(poll)

    def _job_body(self, command, gpus, gpu_memory, gpu_fraction, fields, cpus=None, memory=None):
        body = {"command": _argv(command)}
        for key, value in fields.items():
            if value is not None:
                body[_FIELD_NAMES.get(key, key)] = value
        resources = dict(body.get("resources") or {})
        for key, value in (("gpus", gpus), ("gpuMemory", gpu_memory), ("gpuFraction", gpu_fraction),
                           ("cpus", cpus), ("memory", memory)):
            if value is not None:
                resources[key] = value
        if resources:
            body["resources"] = resources
        if "timeout" in body:
            body["timeout"] = _iso_duration(body["timeout"])
        return body

    def _pages(self, path, query, key="items"):
        """Yields the items of every page of a list answer, following nextCursor.

        A cursor given twice (the same again, or a cycle) or more than max_pages pages end the
        listing with an AnswerError: a server that never ends its pages is not followed forever.
        """
        cursor = None
        seen = set()
        for pages in itertools.count(1):
            page_query = query + ([("cursor", cursor)] if cursor else [])
            page = self._json("GET", path + ("?" + urllib.parse.urlencode(page_query)
                                             if page_query else ""))
            items = page.get(key, []) if isinstance(page, dict) else None
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise AnswerError(200, "the answer to %s is not a page of %s (a JSON object with "
                                       "a list of objects)" % (self.last_request, key))
            for item in items:
                yield item
            cursor = page.get("nextCursor")
            if not cursor:
                return
            if not isinstance(cursor, str):
                raise AnswerError(200, "the answer to %s has a nextCursor that is not a string"
                                  % self.last_request)
            if cursor in seen:
                raise AnswerError(200, "gpuq gave the cursor %s again after %d pages of %s: the "
                                       "listing does not advance, stopped"
                                  % (_preview(cursor), pages, path))
            if pages >= self.max_pages:
                raise AnswerError(200, "%s goes on past %d pages: stopped (a listing that never "
                                       "ends)" % (path, self.max_pages))
            seen.add(cursor)

    def _job(self, answer):
        """A job or sweep as answered: an object with a string id and state, or an AnswerError."""
        if not (isinstance(answer, dict) and isinstance(answer.get("id"), str)
                and isinstance(answer.get("state"), str)):
            raise AnswerError(200, "the answer to %s is not a job or sweep (an object with a "
                                   "string id and state)" % self.last_request)
        return answer

    def _json(self, method, path, body=None, headers=None):
        with self._open(method, path, body=body, headers=headers) as response:
            try:
                raw = response.read()
            except http.client.IncompleteRead as e:
                raise AnswerError(response.status, "the answer to %s was cut short: %d bytes, "
                                  "then the connection closed" % (self.last_request,
                                                                  len(e.partial))) from None
            return _parse_answer(raw, response.status, self.last_request)

    def _open(self, method, path, body=None, headers=None, timeout=_DEFAULT):
        data = None
        all_headers = {"Accept": "application/json, application/problem+json, text/plain"}
        if self.token:
            all_headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers=all_headers)
        self.last_request = "%s %s" % (method, path)
        try:
            return self._opener.open(
                request, timeout=self.timeout if timeout is _DEFAULT else timeout)
        except urllib.error.HTTPError as e:
            error = _problem(e)
            if e.code == 401:
                error = _explained_401(error, self)
            raise error from None
        except urllib.error.URLError as e:
            raise GpuqError(None, "Unreachable", "cannot reach gpuq at %s: %s"
                            % (self.url, e.reason)) from e


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect within gpuq's origin (scheme, host and port) only.

    urllib would follow any redirect with every header of the request, the token included: a 302
    to another host got the bearer token. A redirect to another origin, https to http among them,
    is an AnswerError naming where it pointed, and nothing is sent there.
    """

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            fp.close()
            raise AnswerError(code, "gpuq at %s answered %s %s with a redirect to another origin, "
                                    "%s: not followed, so that the token is not sent there (if "
                                    "gpuq is there, use that URL)"
                              % (_origin_text(req.full_url), req.get_method(),
                                 urllib.parse.urlsplit(req.full_url).path,
                                 _origin_text(newurl)))
        return super().redirect_request(req, fp, code, msg, headers, newurl)

    def http_error_302(self, req, fp, code, msg, headers):
        try:
            return super().http_error_302(req, fp, code, msg, headers)
        except ValueError:
            # A Location that is no URL (urllib's urljoin and urlsplit refuse it).
            fp.close()
            raise AnswerError(code, "gpuq at %s answered %s %s with a redirect to no URL: %s"
                              % (_origin_text(req.full_url), req.get_method(),
                                 urllib.parse.urlsplit(req.full_url).path,
                                 _preview(headers.get("Location") or headers.get("URI") or "")
                                 )) from None

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302


def _origin(url):
    """(scheme, host, port) as browsers compare origins; None when the URL has no valid port."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def _origin_text(url):
    parts = urllib.parse.urlsplit(url)
    return "%s://%s" % (parts.scheme, parts.netloc.rpartition("@")[2])


def _parse_answer(raw, status, request):
    """The answer's JSON, or an AnswerError saying in one line why it is not gpuq's."""
    def bad(why):
        return AnswerError(status, "the answer to %s is %s" % (request, why))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("not UTF-8 text") from None
    try:
        value = json.loads(text, parse_int=_answer_int, parse_float=_answer_float,
                           parse_constant=_answer_constant)
    except _OutOfRange as e:
        raise bad("not gpuq's JSON: %s" % e) from None
    except RecursionError:
        raise bad("not gpuq's JSON: nested too deep") from None
    except ValueError as e:
        raise bad("not gpuq's JSON (%s)%s" % (
            e, ", it starts %s" % _preview(text.strip()) if text.strip() else
            ": an empty body")) from None
    if _deeper_than(value, MAX_ANSWER_DEPTH):
        raise bad("not gpuq's JSON: nested more than %d levels deep" % MAX_ANSWER_DEPTH)
    return value


class _OutOfRange(ValueError):
    pass


def _answer_int(text):
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _OutOfRange("a number of %d digits" % len(text.lstrip("-")))
    return int(text)


def _answer_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise _OutOfRange("a number out of range, %s" % _preview(text))
    return value


def _answer_constant(name):
    raise _OutOfRange("%s is not a number JSON has" % name)


def _deeper_than(value, limit):
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _preview(text, length=40):
    """The start of a text for an error message, as a repr so that its ends show."""
    return repr(text if len(text) <= length else text[:length] + "...")


def _problem(e):
    raw = e.read().decode("utf-8", errors="replace")
    try:
        problem = _parse_answer(raw.encode("utf-8"), e.code, None)
    except AnswerError:
        problem = None
    if not isinstance(problem, dict):
        # Not a problem: a proxy's page, say. Its start is enough to tell whose it is.
        text = raw.strip()
        if len(text) > 1000:
            text = text[:1000] + "..."
        return GpuqError(e.code, e.reason, text or e.reason, body=raw)
    # A problem of another shape still reads as one line each: text, and a list of fields.
    errors = problem.get("errors")
    errors = [error for error in errors if isinstance(error, dict)] if isinstance(
        errors, list) else []
    return GpuqError(e.code, _text(problem.get("title")) or e.reason,
                     _text(problem.get("detail")), errors, body=problem)


def _text(value):
    return value if value is None or isinstance(value, str) else json.dumps(value)


def _find_token(token_file, url):
    """(token or None, where it came from, [each place looked at and what was there])."""
    looked = []
    token = os.environ.get("GPUQ_TOKEN", "").strip()
    if token:
        return token, "$GPUQ_TOKEN", looked
    looked.append("$GPUQ_TOKEN (unset)")
    if token_file:
        # Named by the caller: a missing file is an error, not a reason to look elsewhere.
        with open(os.path.expanduser(token_file), encoding="utf-8") as f:
            return f.read().strip() or None, token_file, looked
    for where, path in _token_files(url):
        if path is None:
            looked.append(where)
            continue
        token, found = _read_token(os.path.expanduser(path))
        if token:
            return token, where, looked
        looked.append("%s (%s)" % (where, found))
    return None, None, looked


def _token_files(url):
    """(where, path) in the order searched; path is None for a place skipped, where says why."""
    configured = os.environ.get("GPUQ_TOKEN_FILE")
    if configured:
        yield "$GPUQ_TOKEN_FILE = " + configured, configured
    else:
        yield TOKEN_FILE, TOKEN_FILE
    if not _is_local(url):
        yield "no data directory (%s is not this machine)" % url, None
        return
    data_dir = os.environ.get("GPUQ_DATA_DIR")
    if data_dir:
        path = os.path.join(data_dir, DATA_DIR_TOKEN)
        yield "$GPUQ_DATA_DIR/%s = %s" % (DATA_DIR_TOKEN, path), path
    else:
        yield "$GPUQ_DATA_DIR (unset)", None
    path = os.path.join(".", DEFAULT_DATA_DIR, DATA_DIR_TOKEN)
    yield path, path


def _read_token(path):
    """(token or None, what was found when it is None)."""
    try:
        with open(path, encoding="utf-8") as f:
            token = f.read().strip()
            return (token, None) if token else (None, "empty")
    except FileNotFoundError:
        return None, "no such file"
    except PermissionError:
        return None, "not readable by this user"
    except (OSError, UnicodeDecodeError) as e:
        return None, "unreadable: %s" % e


def _is_local(url):
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.startswith("127.")


def _explained_401(error, client):
    if client.token:
        hint = "gpuq refused the token from %s." % client.token_source
    else:
        hint = ("no token was sent; looked in: %s. Pass Client(url, token=...) or set GPUQ_TOKEN."
                % ", ".join(client._looked))
    return GpuqError(error.status, error.title, "%s: %s" % (error.detail or error.title, hint),
                     error.errors, body=error.body)


def report(step=None, **metrics):
    """Reports metrics of the running trial or job: report(step=100, val_loss=0.31).

    Appends one JSON line to $GPUQ_METRICS_FILE, which gpuq reads as it polls (no network, no
    token). Outside gpuq (the variable is unset) it writes nothing, so a script runs unchanged on a
    laptop. Values are numbers (int, float, or anything with .item(), such as a NumPy or PyTorch
    scalar); step is a whole number >= 0, or None for the step after the previous report's.
    """
    line = {}
    if step is not None:
        step = _plain_number(step, "step")
        if isinstance(step, float) and step.is_integer():
            step = int(step)
        if not isinstance(step, int) or step < 0:
            raise ValueError("step must be a whole number >= 0, not %r" % (step,))
        line["step"] = step
    if not metrics:
        raise ValueError("report() needs at least one metric, e.g. report(val_loss=0.31)")
    for name, value in metrics.items():
        if not name or len(name) > MAX_METRIC_NAME_LENGTH:
            raise ValueError("a metric name has 1 to %d characters" % MAX_METRIC_NAME_LENGTH)
        line[name] = _plain_number(value, name)
    path = os.environ.get("GPUQ_METRICS_FILE")
    if not path:
        return
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode("utf-8")
    # One write(2) with O_APPEND: lines from several processes of one run never interleave.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _plain_number(value, name):
    if hasattr(value, "item") and not isinstance(value, numbers.Number):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def _idempotency(key):
    return {"Idempotency-Key": str(key)} if key is not None else {}


def _parameter(spec):
    """A parameter as the API takes it: a list or tuple of values becomes {"values": [...]}."""
    if isinstance(spec, (list, tuple)):
        return {"values": list(spec)}
    return spec


_TRIAL_COLUMNS = ("jobId", "trial", "state", "value", "bestValue", "step")


def _flat_trial(row):
    flat = {column: row.get(column) for column in _TRIAL_COLUMNS}
    for name, value in (row.get("parameters") or {}).items():
        flat["params_" + name if name in _TRIAL_COLUMNS else name] = value
    return flat


def _sweep_progress(sweep):
    counts = sweep.get("trials") or {}
    name = sweep.get("name")
    text = "%s (%s)" % (sweep["id"], name) if name else sweep["id"]
    text += " %s: %d trials: %d done, %d running, %d queued, %d pruned" % (
        sweep["state"], counts.get("total", 0), counts.get("SUCCEEDED", 0),
        counts.get("RUNNING", 0), counts.get("QUEUED", 0), counts.get("PRUNED", 0))
    for state in ("FAILED", "CANCELLED"):
        if counts.get(state):
            text += ", %d %s" % (counts[state], state.lower())
    best = sweep.get("best")
    if best and best.get("value") is not None:
        metric = (sweep.get("metric") or {}).get("name", "value")
        text += "; best %s %.6g (trial %s)" % (metric, best["value"], best.get("trial"))
    return text


def _argv(command):
    if isinstance(command, str):
        return shlex.split(command)
    return [str(arg) for arg in command]


def _iso_duration(timeout):
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, (int, float)):
        return "PT%gS" % timeout
    return timeout


def _quote(job_id):
    return urllib.parse.quote(str(job_id), safe="")


def _label(job):
    name = job.get("name")
    return "%s (%s)" % (job["id"], name) if name else job["id"]


def _describe(job):
    text = job["state"]
    if job.get("attempt", 1) > 1:
        text += " attempt %d" % job["attempt"]
    if job["state"] == "FAILED" and job.get("failureReason"):
        text += " " + job["failureReason"]
    if job.get("exitCode") is not None:
        text += " exit %s" % job["exitCode"]
    return text


def _lines(response):
    """The lines of a streamed response as they arrive; closes it when done or abandoned."""
    with response:
        pending = b""
        while True:
            chunk = response.read1(65536)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.decode("utf-8", errors="replace")
        if pending:
            yield pending.decode("utf-8", errors="replace")


class _ProgressLine:
    """One terminal line rewritten in place (carriage return) with a text and the elapsed time.

    In a Jupyter kernel, unless a file is given, one output of the cell updated in place instead
    (a carriage return there would leave every line in the saved notebook).
    """

    def __init__(self, out, enabled):
        self.display = _notebook_display() if out is None and enabled else None
        self.handle = None
        self.out = out or sys.stderr
        self.enabled = enabled
        self.started = time.monotonic()
        self.width = 0

    def elapsed(self):
        return time.monotonic() - self.started

    def show(self, text):
        if not self.enabled:
            return
        minutes, seconds = divmod(int(self.elapsed()), 60)
        hours, minutes = divmod(minutes, 60)
        clock = ("%d:%02d:%02d" % (hours, minutes, seconds) if hours
                 else "%d:%02d" % (minutes, seconds))
        line = "%s  %s" % (printable(text), clock)
        if self.display is not None:
            if self.handle is None:
                self.handle = self.display({"text/plain": line}, raw=True, display_id=True)
            else:
                self.handle.update({"text/plain": line}, raw=True)
            return
        # Pads over what a longer previous line left behind.
        self.out.write("\r" + line.ljust(self.width))
        self.width = len(line)
        self.out.flush()

    def end(self):
        if self.enabled and self.width and self.display is None:
            self.out.write("\n")
            self.out.flush()



def _notebook_display():
    """IPython's display(), when this runs in a Jupyter kernel (not a terminal's IPython)."""
    ipython = sys.modules.get("IPython")
    if ipython is None or "ipykernel" not in sys.modules:
        return None
    try:
        shell = ipython.get_ipython()
        if shell is None or not hasattr(shell, "kernel"):
            return None
        from IPython.display import display
    except Exception:  # an IPython too old or too odd: the plain line instead
        return None
    return display

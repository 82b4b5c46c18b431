"""The gpuq command against a hostile server (issue 34): what it prints cannot drive the terminal,
its token never leaves gpuq's origin, and a garbled answer is one line and exit 5, never a
traceback or an endless loop.

    python3 -m unittest -v clients/python/test_cli_hostile.py

No gpuq needed: each test starts HTTP servers of its own on 127.0.0.1 (the standard library's
http.server), answers as a hostile server would, and runs `python3 -m gpuq` against them. The Maven
build runs this file (io.gpuq.ship.PythonCliHostileTest).
"""

import http.server
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import unittest
import unittest.mock
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gpuq  # noqa: E402
from gpuq import cli as gpuq_cli  # noqa: E402

TOKEN = "hostile-test-token-0123456789"

# Sequences a hostile server puts in every text: set the window title (OSC), clear the screen,
# colour (CSI, and its 8-bit C1 form), ring the bell, return to the line's start, back up, and
# reverse the text that follows (bidirectional override and isolate).
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil\u2066\x08\r\x7f"
# What may never reach the terminal, written out here rather than taken from gpuq.py: C0 controls
# but newline, DEL, C1, the bidirectional marks, overrides and isolates, the line separators.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                    "\u2066-\u2069]")
SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eevil\\u2066\\x08\\x0d\\x7f"

NOW = "2026-12-01T12:00:00Z"
GIB = 1024 ** 3


def hostile(text):
    return text + HOSTILE


def a_job(job_id="J1", state="RUNNING", **fields):
    """A job as GET /api/v1/jobs/{id} answers, a hostile text in every string field."""
    job = {"id": job_id, "name": hostile("name"), "owner": hostile("owner"), "state": state,
           "queuedReason": hostile("waiting for"), "failureReason": hostile("OUT_OF_MEMORY"),
           "failureMessage": hostile("ran out of GPU memory: the log says: CUDA out of memory"),
           "exitCode": 1, "attempt": 1, "command": ["python3", hostile("train.py"), "--x"],
           "workingDir": hostile("/data"), "framework": hostile("jax"),
           "resources": {"gpus": 1, "gpuMemory": 6 * GIB, "gpuFraction": None},
           "effectiveResources": {"gpus": 1, "gpuMemory": 6 * GIB, "gpuFraction": None},
           "priority": 0, "timeout": hostile("PT1H"), "retry": {"maxAttempts": 2, "oomGrowth": 1.5},
           "labels": {hostile("k"): hostile("v")}, "nodeSelector": {},
           "placement": {"node": hostile("node"), "gpus": [{"index": 0, "uuid": hostile("GPU"),
                                                            "memoryBytes": GIB,
                                                            "totalBytes": 16 * GIB}],
                         "memoryFraction": 0.5},
           "peakGpuMemoryBytes": GIB, "createdAt": "2026-12-01T11:00:00Z",
           "startedAt": "2026-12-01T11:01:00Z", "finishedAt": None,
           "attempts": [{"attempt": 1, "outcome": hostile("OUT"), "failureReason": hostile("R"),
                         "exitCode": 1, "node": hostile("node"), "budgetBytes": GIB,
                         "peakGpuMemoryBytes": GIB, "startedAt": "2026-12-01T11:01:00Z",
                         "finishedAt": "2026-12-01T11:02:00Z",
                         "failureMessage": hostile("attempt failed")},
                        {"attempt": 2, "outcome": None, "startedAt": "2026-12-01T11:03:00Z",
                         "cores": {"cpus": hostile("2-5"), "boundBy": hostile("cgroup")}}],
           "sweep": hostile("SWEEP"), "trial": 3, "parameters": {hostile("lr"): hostile("0.1")},
           "metrics": {"step": 7, "latest": {hostile("loss"): 0.5}, "best": {hostile("b"): 0.25}}}
    job.update(fields)
    return job


A_SWEEP = {"id": hostile("SWEEP"), "name": hostile("sweep"), "owner": hostile("owner"),
           "state": "RUNNING", "closed": False, "method": hostile("grid"), "seed": None,
           "progress": 0.5, "trials": {"total": 2, "SUCCEEDED": 1, "RUNNING": 1},
           "maxConcurrent": 2, "metric": {"name": hostile("loss"), "goal": hostile("minimize")},
           "earlyStopping": {"type": hostile("median")},
           "best": {"jobId": hostile("J1"), "trial": 0, "parameters": {"lr": hostile("0.1")},
                    "value": 0.5, "step": 7},
           "createdAt": "2026-12-01T11:00:00Z", "finishedAt": None}
A_TRIAL = {"jobId": hostile("J1"), "trial": 0, "state": hostile("SUCCEEDED"),
           "parameters": {hostile("lr"): hostile("0.1"), "opt": hostile("adam")},
           "value": 0.5, "bestValue": 0.25, "step": 7}
GPUS = [{"node": hostile("node"), "index": 0, "uuid": "GPU-a", "name": hostile("NVIDIA"),
         "backend": "nvml", "memoryTotalBytes": 16 * GIB, "memoryUsedBytes": GIB,
         "memoryReservedBytes": 2 * GIB, "utilization": 0.5,
         "processes": [{"pid": 42, "jobId": "J1", "memoryUsedBytes": GIB}]}]
NODES = [{"name": hostile("node"), "labels": {hostile("gpu"): hostile("h200")},
          "heartbeatAt": NOW, "cpus": {"allocatable": 8, "allocated": 2, "used": 1.5},
          "memory": {"allocatable": 64 * GIB, "allocated": GIB, "used": GIB}}]
OWNERS = {"at": NOW, "owners": [{"owner": hostile("alice"), "share": 1, "runningJobs": 1,
                                 "queuedJobs": 0, "gpus": 1, "gpuMemoryBytes": GIB, "cpus": 1,
                                 "memoryBytes": GIB, "recentUsage": 0.1,
                                 "standing": {"position": 0.2, "dominantShare": 0.1,
                                              "dominantResource": hostile("GPU_MEMORY")}}],
          "totals": {"runningJobs": 1, "queuedJobs": 0, "gpus": 1, "gpuMemoryBytes": GIB,
                     "cpus": 1, "memoryBytes": GIB}}
A_LOG = "epoch 1 \x1b[32mok\x1b[0m\r 50%|#####\ttab\n" + HOSTILE + "\n"
# The same with --safe: escaped, but for its newlines and tabs.
SAFE_LOG = "epoch 1 \\x1b[32mok\\x1b[0m\\x0d 50%|#####\ttab\n" + SHOWN + "\n"


class Server:
    """An HTTP server on 127.0.0.1 that answers each path from its routes and records every
    request it gets: method, path with query, and headers."""

    def __init__(self, test):
        self.routes = {}
        self.requests = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                owner._handle(self)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        test.addCleanup(self.close)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def route(self, method, path, answer):
        """answer: a JSON value, or a function (handler, query) that writes the answer itself."""
        self.routes[(method, path)] = answer

    def _handle(self, handler):
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            handler.rfile.read(length)
        self.requests.append((handler.command, handler.path, dict(handler.headers)))
        parts = urllib.parse.urlsplit(handler.path)
        answer = self.routes.get((handler.command, parts.path))
        if answer is None:
            send(handler, 404, {"title": hostile("Not Found"), "status": 404,
                                "detail": hostile("no such thing")},
                 "application/problem+json")
        elif callable(answer):
            answer(handler, urllib.parse.parse_qs(parts.query))
        else:
            send(handler, 200, answer)


def send(handler, status, body, content_type="application/json", headers=(), reason=None):
    data = body if isinstance(body, bytes) else (
        body.encode("utf-8") if isinstance(body, str)
        else json.dumps(body, ensure_ascii=False).encode("utf-8"))
    handler.send_response_only(status, reason)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    for name, value in headers:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()


def redirect(location, status=302):
    return lambda handler, query: send(handler, status, b"", "text/plain",
                                       headers=[("Location", location)])


class Result:
    def __init__(self, code, stdout, stderr):
        self.code = code
        self.raw = stdout
        self.out = stdout.decode("utf-8")
        self.err = stderr.decode("utf-8")

    def __str__(self):
        return "exit %s\n--- stdout\n%r\n--- stderr\n%r" % (self.code, self.out, self.err)


class HostileServerTest(unittest.TestCase):

    def setUp(self):
        self.server = Server(self)
        self.home = tempfile.mkdtemp(prefix="gpuq-home-")

    def env(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUQ_")}
        env.update(GPUQ_URL=self.server.url, GPUQ_TOKEN=TOKEN, HOME=self.home, COLUMNS="2000",
                   PYTHONIOENCODING="utf-8")
        return env

    def gpuq(self, *args, stdin=b""):
        """Runs the command (gpuq_cli.main, in this process: a process each is slow on a busy
        machine) against the server with a token; returns what it wrote to stdout and stderr,
        which is what a terminal would get. An exception out of main would be a traceback."""
        streams = [io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
                   for _ in range(2)]
        stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        with unittest.mock.patch.dict(os.environ, self.env(), clear=True), \
                unittest.mock.patch.multiple(sys, stdout=streams[0], stderr=streams[1],
                                             stdin=stdin):
            code = gpuq_cli.main(list(args))
        return Result(code, streams[0].buffer.getvalue(), streams[1].buffer.getvalue())

    def process(self, *args):
        """Runs `python3 -m gpuq ARGS` as a process of its own."""
        completed = subprocess.run([sys.executable, "-m", "gpuq"] + list(args), cwd=HERE,
                                   capture_output=True, timeout=120, env=self.env())
        result = Result(completed.returncode, completed.stdout, completed.stderr)
        self.assertNotIn("Traceback", result.err, result)
        return result

    def assertSafe(self, result):
        """Nothing in the output drives a terminal, and the hostile text shows escaped."""
        for name, text in (("stdout", result.out), ("stderr", result.err)):
            found = UNSAFE.search(text)
            self.assertIsNone(found, "%s holds %r: %s" % (name, found and found.group(), result))
        self.assertIn(SHOWN, result.out + result.err, result)

    # ---- escape sequences ----------------------------------------------------------------------

    def serve_everything(self):
        job = a_job()
        self.server.route("GET", "/api/v1/jobs", {"items": [job], "nextCursor": None})
        self.server.route("GET", "/api/v1/jobs/J1", job)
        self.server.route("POST", "/api/v1/jobs", a_job(hostile("J2"), "QUEUED"))
        self.server.route("POST", "/api/v1/jobs/J1/cancel", a_job(state=hostile("CANCELLED")))
        sweep_path = "/api/v1/sweeps/" + urllib.parse.quote(A_SWEEP["id"], safe="")
        self.server.route("GET", sweep_path, A_SWEEP)
        self.server.route("GET", "/api/v1/sweeps/S", A_SWEEP)
        self.server.route("GET", "/api/v1/sweeps", {"items": [A_SWEEP], "nextCursor": None})
        self.server.route("GET", "/api/v1/sweeps/S/trials", {"items": [A_TRIAL],
                                                              "nextCursor": None})
        self.server.route("GET", "/api/v1/gpus", GPUS)
        self.server.route("GET", "/api/v1/nodes", NODES)
        self.server.route("GET", "/api/v1/owners", OWNERS)
        return job

    def test_every_field_a_server_sends_is_shown_escaped_by_every_command(self):
        self.serve_everything()
        columns = ",".join(c.lower() for c in gpuq_cli.JOB_COLUMNS)
        for args in (["queue"], ["queue", "-a", "-o", columns], ["queue", "-o", "command"],
                     ["show", "J1"], ["cancel", "J1"], ["gpus"], ["nodes"], ["owners"],
                     ["submit", "--", "true"], ["sweep", "ls"], ["sweep", "show", "S"],
                     ["sweep", "trials", "S"], ["sweep", "best", "S"]):
            with self.subTest(args=args):
                result = self.gpuq(*args)
                self.assertEqual(result.code, 0, result)
                self.assertSafe(result)

    def test_a_process_of_its_own_writes_the_same_escaped_bytes(self):
        self.serve_everything()
        for args in (["show", "J1"], ["queue", "-o", "command"]):
            with self.subTest(args=args):
                alone = self.process(*args)
                self.assertEqual(alone.code, 0, alone)
                self.assertSafe(alone)
                self.assertEqual(alone.raw, self.gpuq(*args).raw)

    def test_show_escapes_the_command_line_and_an_oom_message_quoting_the_log(self):
        self.serve_everything()
        result = self.gpuq("show", "J1")
        self.assertEqual(result.code, 0, result)
        self.assertIn("Command     python3 'train.py" + SHOWN + "' --x\n", result.out)
        self.assertIn("Failure     ran out of GPU memory: the log says: CUDA out of memory" + SHOWN,
                      result.out)

    def test_wait_and_its_failure_message_are_escaped(self):
        job = a_job(state="FAILED", exitCode=None, finishedAt="2026-12-01T11:02:00Z")
        self.server.route("GET", "/api/v1/jobs/J1", job)
        result = self.gpuq("wait", "J1")
        self.assertEqual(result.code, 1, result)
        self.assertEqual(result.out, "J1 FAILED\n")
        self.assertSafe(result)
        self.assertIn("job J1 FAILED (OUT_OF_MEMORY" + SHOWN + "): ran out of GPU memory",
                      result.err)

    def test_a_table_cell_keeps_its_row_one_line(self):
        job = a_job(name="two\nlines\tand a tab")
        self.server.route("GET", "/api/v1/jobs", {"items": [job], "nextCursor": None})
        result = self.gpuq("queue", "-o", "id,name")
        self.assertEqual(result.code, 0, result)
        self.assertEqual(result.out.splitlines()[1], "J1 two\\x0alines\\x09and a tab")

    def test_json_is_the_apis_json_with_what_drives_a_terminal_as_json_escapes(self):
        job = self.serve_everything()
        for args, expected in ((["show", "J1", "--json"], job),
                               (["queue", "-t", "RUNNING", "--json"],
                                {"items": [job], "nextCursor": None}),
                               (["sweep", "show", "S", "--json"], A_SWEEP)):
            with self.subTest(args=args):
                result = self.gpuq(*args)
                self.assertEqual(result.code, 0, result)
                self.assertIsNone(UNSAFE.search(result.out), result)
                self.assertIn("\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u202eevil", result.out)
                self.assertEqual(json.loads(result.out), expected)

    def test_an_error_answer_is_shown_escaped_its_title_detail_and_fields(self):
        problem = {"title": hostile("Bad"), "status": 400, "detail": hostile("no"),
                   "errors": [{"field": hostile("name"), "message": hostile("wrong")}]}
        self.server.route("POST", "/api/v1/jobs",
                          lambda h, q: send(h, 400, problem, "application/problem+json"))
        result = self.gpuq("submit", "--", "true")
        self.assertEqual(result.code, 3, result)
        self.assertSafe(result)
        self.assertEqual(len(result.err.splitlines()), 2, result)

        self.server.route("GET", "/api/v1/jobs/J1",
                          lambda h, q: send(h, 502, hostile("proxy page"), "text/html",
                                            reason="Bad\x1b[2J\x9b Gateway"))
        result = self.gpuq("show", "J1")
        self.assertEqual(result.code, 3, result)
        self.assertSafe(result)
        self.assertEqual(result.err.count("\n"), 1, result)

    def test_logs_are_printed_as_they_are_like_cat_and_escaped_with_safe(self):
        self.server.route("GET", "/api/v1/jobs/J1/logs",
                          lambda h, q: send(h, 200, A_LOG, "text/plain; charset=utf-8"))
        raw = self.gpuq("logs", "J1")
        self.assertEqual(raw.code, 0, raw)
        self.assertEqual(raw.raw, A_LOG.encode("utf-8"))

        for args in (["logs", "--safe", "J1"], ["logs", "--safe", "-f", "J1"]):
            with self.subTest(args=args):
                safe = self.gpuq(*args)
                self.assertEqual(safe.code, 0, safe)
                self.assertEqual(safe.out, SAFE_LOG)

    def test_run_streams_the_log_as_it_is_or_escaped_with_safe_and_its_own_words_escaped(self):
        self.server.route("POST", "/api/v1/jobs", a_job(state="QUEUED"))
        self.server.route("GET", "/api/v1/jobs/J1/logs",
                          lambda h, q: send(h, 200, A_LOG, "text/plain; charset=utf-8"))
        self.server.route("GET", "/api/v1/jobs/J1", a_job(state="SUCCEEDED"))
        raw = self.gpuq("run", "--", "true")
        self.assertEqual(raw.code, 0, raw)
        self.assertEqual(raw.raw, A_LOG.encode("utf-8"))
        safe = self.gpuq("run", "--safe", "--", "true")
        self.assertEqual(safe.code, 0, safe)
        self.assertEqual(safe.out, SAFE_LOG)

    def test_the_python_clients_progress_line_is_escaped(self):
        self.server.route("GET", "/api/v1/jobs/J1", a_job(state="FAILED"))
        line = io.StringIO()
        gpuq.Client(self.server.url, token=TOKEN).wait("J1", file=line)
        self.assertIsNone(UNSAFE.search(line.getvalue().lstrip("\r")), line.getvalue())
        self.assertIn(SHOWN, line.getvalue())

    # ---- redirects and the token ---------------------------------------------------------------

    def another_origin(self):
        """A second server, on another port: another origin, which must never get the token."""
        other = Server(self)
        other.route("GET", "/api/v1/jobs", {"items": [a_job()], "nextCursor": None})
        other.route("POST", "/api/v1/jobs", a_job())
        return other

    def test_a_redirect_to_another_origin_is_not_followed_and_says_why(self):
        other = self.another_origin()
        self.server.route("GET", "/api/v1/jobs", redirect(other.url + "/api/v1/jobs"))
        self.server.route("POST", "/api/v1/jobs", redirect(other.url + "/api/v1/jobs"))
        for args in (["queue"], ["submit", "--", "true"]):
            with self.subTest(args=args):
                result = self.gpuq(*args)
                self.assertEqual(result.code, 5, result)
                self.assertEqual(result.out, "")
                self.assertIn("a redirect to another origin, %s: not followed, so that the "
                              "token is not sent there" % other.url, result.err)
                self.assertEqual(result.err.count("\n"), 1, result)
        self.assertEqual(other.requests, [])
        self.assertTrue(all(r[2].get("Authorization") == "Bearer " + TOKEN
                            for r in self.server.requests))

    def test_login_stores_no_token_after_a_redirect_to_another_origin(self):
        other = self.another_origin()
        self.server.route("GET", "/api/v1/jobs", redirect(other.url + "/api/v1/jobs?limit=1"))
        result = self.gpuq("login", self.server.url, "--token-stdin", stdin=b"secret-token\n")
        self.assertEqual(result.code, 5, result)
        self.assertIn("redirect to another origin, %s" % other.url, result.err)
        self.assertEqual(other.requests, [])
        self.assertFalse(os.path.exists(os.path.join(self.home, ".config", "gpuq", "config")))

    def test_the_redirects_origin_is_named_harmlessly(self):
        self.server.route("GET", "/api/v1/jobs", redirect("http://ev\x1bc\x9b2Jil.invalid/x"))
        result = self.gpuq("queue")
        self.assertEqual(result.code, 5, result)
        # urllib quotes what a URL may not hold before it is seen: shown, and harmless.
        self.assertIn("another origin, http://ev%1Bc%9B2Jil.invalid: not followed", result.err)
        self.assertIsNone(UNSAFE.search(result.err), result)

        self.server.route("GET", "/api/v1/jobs", redirect("http://[no-ipv6\x1b/x"))
        result = self.gpuq("queue")
        self.assertEqual(result.code, 5, result)
        self.assertRegex(result.err, r"^gpuq: gpuq at %s answered GET /api/v1/jobs with a "
                                     r"redirect to no URL: 'http://\[no-ipv6\\x1b/x'\n$"
                         % re.escape(self.server.url))

    def test_a_redirect_within_gpuqs_origin_is_followed_with_the_token(self):
        self.server.route("GET", "/api/v1/jobs/OLD", redirect("/api/v1/jobs/J1", 301))
        self.server.route("GET", "/api/v1/jobs/J1", a_job(name="moved"))
        result = self.gpuq("show", "J1", "--json")
        self.assertEqual(result.code, 0, result)
        result = self.gpuq("show", "OLD")
        self.assertEqual(result.code, 0, result)
        self.assertIn("Name        moved\n", result.out)
        self.assertEqual(self.server.requests[-1][1], "/api/v1/jobs/J1")
        self.assertEqual(self.server.requests[-1][2].get("Authorization"), "Bearer " + TOKEN)

    def test_https_to_http_on_the_same_host_is_another_origin(self):
        handler = gpuq.client._SameOriginRedirects()
        request = urllib.request.Request("https://gpu-box/api/v1/jobs",
                                         headers={"Authorization": "Bearer x"})
        for target in ("http://gpu-box/api/v1/jobs", "https://gpu-box:8443/api/v1/jobs",
                       "https://other/api/v1/jobs", "https://gpu-box@other/api/v1/jobs"):
            with self.subTest(target=target), self.assertRaises(gpuq.AnswerError):
                handler.redirect_request(request, io.BytesIO(), 302, "Found", {}, target)
        same = handler.redirect_request(request, io.BytesIO(), 302, "Found", {},
                                        "https://GPU-BOX:443/api/v1/jobs?x=1")
        self.assertEqual(same.get_header("Authorization"), "Bearer x")

    # ---- garbled answers -----------------------------------------------------------------------

    def test_a_garbled_answer_is_one_line_and_exit_5(self):
        def cut_short(handler, query):
            handler.send_response_only(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", "1000")
            handler.end_headers()
            handler.wfile.write(b'{"items": [')
            handler.wfile.flush()
            handler.close_connection = True

        deep = "[" * 100000
        nested = {"items": [], "x": json.loads("[" * 150 + "]" * 150), "nextCursor": None}
        cases = {
            "nested past Python's recursion": deep,
            "nested past 100 levels": json.dumps(nested),
            "not JSON": "<html><body>" + HOSTILE + "</body></html>",
            "empty": "",
            "not UTF-8": b'{"items": "\xff\xfe"}',
            "items not a list": {"items": "jobs", "nextCursor": None},
            "items not objects": {"items": [1, 2], "nextCursor": None},
            "a page that is a list": [a_job()],
            "a cursor that is a number": {"items": [], "nextCursor": 7},
            "a state that is a number": {"items": [a_job(state=5)], "nextCursor": None},
            "a time that is a number": {"items": [a_job(createdAt=5, startedAt=5)],
                                        "nextCursor": None},
            "a time that is no time": {"items": [a_job(startedAt="yesterday")],
                                       "nextCursor": None},
            "resources that are a string": {"items": [a_job(effectiveResources="x",
                                                            resources="x")],
                                            "nextCursor": None},
            "a float out of range": '{"items": [], "nextCursor": null, "x": 1e999}',
            "a number of 5000 digits": '{"items": [], "nextCursor": null, "x": %s}' % ("9" * 5000),
            "NaN": '{"items": [], "nextCursor": null, "x": NaN}',
            "cut short": cut_short,
        }
        for what, body in cases.items():
            with self.subTest(what=what):
                self.server.route("GET", "/api/v1/jobs", body if callable(body) else (
                    lambda h, q, body=body: send(h, 200, body)))
                result = self.gpuq("queue")
                self.assertEqual(result.code, 5, result)
                self.assertEqual(result.out, "", result)
                self.assertRegex(result.err, r"^gpuq: [^\n]+\n$", result)
                self.assertIsNone(UNSAFE.search(result.err), result)

    def test_a_show_or_wait_of_something_that_is_not_a_job_is_one_line_and_exit_5(self):
        for body in ([], {"id": 1, "state": "RUNNING"}, {"id": "J1"}, "null"):
            self.server.route("GET", "/api/v1/jobs/J1", lambda h, q, body=body: send(h, 200, body))
            for args in (["show", "J1"], ["wait", "J1"], ["show", "J1", "--json"]):
                with self.subTest(body=body, args=args):
                    result = self.gpuq(*args)
                    self.assertEqual(result.code, 5, result)
                    self.assertIn("is not a job or sweep", result.err)

    def test_huge_figures_that_are_numbers_still_print(self):
        job = a_job(name="big", resources={"gpus": 1, "gpuMemory": 1e308},
                    effectiveResources={"gpus": 10 ** 99, "gpuMemory": 1e308},
                    peakGpuMemoryBytes=-1e308, startedAt="0001-01-01T00:00:00Z")
        self.server.route("GET", "/api/v1/jobs", {"items": [job], "nextCursor": None})
        self.server.route("GET", "/api/v1/jobs/J1", job)
        self.server.route("GET", "/api/v1/gpus", [dict(GPUS[0], memoryUsedBytes=-1e300,
                                                       memoryReservedBytes=1e300,
                                                       memoryTotalBytes=1)])
        for args in (["queue"], ["show", "J1"], ["gpus"]):
            with self.subTest(args=args):
                self.assertEqual(self.gpuq(*args).code, 0)

    # ---- paging --------------------------------------------------------------------------------

    def test_a_cursor_that_does_not_advance_stops_with_an_error(self):
        def same(handler, query):
            send(handler, 200, {"items": [a_job()], "nextCursor": "c1"})

        def cycle(handler, query):
            following = {None: "a", "a": "b", "b": "a"}[(query.get("cursor") or [None])[0]]
            send(handler, 200, {"items": [a_job()], "nextCursor": following})

        for what, answer, pages in (("the same cursor again", same, 2),
                                    ("a cycle", cycle, 3)):
            with self.subTest(what=what):
                self.server.requests.clear()
                self.server.route("GET", "/api/v1/jobs", answer)
                result = self.gpuq("queue")
                self.assertEqual(result.code, 5, result)
                self.assertRegex(result.err, r"^gpuq: gpuq gave the cursor '\w+' again after %d "
                                             r"pages of /api/v1/jobs: the listing does not "
                                             r"advance, stopped\n$" % pages)
                self.assertEqual(len(self.server.requests), pages)

    def test_a_listing_stops_after_max_pages(self):
        counter = iter(range(10 ** 6))
        self.server.route("GET", "/api/v1/jobs", lambda h, q: send(
            h, 200, {"items": [], "nextCursor": "c%d" % next(counter)}))
        client = gpuq.Client(self.server.url, token=TOKEN, max_pages=5)
        with self.assertRaisesRegex(gpuq.AnswerError, "past 5 pages"):
            list(client.list())
        self.assertEqual(len(self.server.requests), 5)
        self.server.route("GET", "/api/v1/jobs/J1/metrics",
                          {"series": [{"step": 1, "values": {"x": 1}}], "nextCursor": "again"})
        with self.assertRaisesRegex(gpuq.AnswerError, "does not advance"):
            client.metrics("J1")


class PrintableTest(unittest.TestCase):

    def test_controls_c1_and_bidirectional_marks_are_escaped_and_text_is_kept(self):
        text = "caf\u00e9 \u65e5\u672c a\\b"
        self.assertEqual(gpuq.printable(text), text)
        self.assertEqual(gpuq.printable("\x00\x1b\x7f\x85\x9b\x9f"),
                         "\\x00\\x1b\\x7f\\x85\\x9b\\x9f")
        self.assertEqual(gpuq.printable("\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069"),
                         "\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069")
        self.assertEqual(gpuq.printable("a\nb\tc\rd"), "a\\x0ab\\x09c\\x0dd")
        self.assertEqual(gpuq.printable("a\nb\tc\rd", keep="\n\t"), "a\nb\tc\\x0dd")

    def test_json_escapes_leave_the_same_json(self):
        value = {"k\u202e": ["\x1b[2J", "\x9b", "\x7f", "\u2066", "caf\u00e9"]}
        text = gpuq.printable_json(json.dumps(value, ensure_ascii=False))
        self.assertIsNone(UNSAFE.search(text))
        self.assertIn("caf\u00e9", text)
        self.assertEqual(json.loads(text), value)

    def test_an_error_says_what_the_server_said_escaped(self):
        error = gpuq.GpuqError(400, "Bad", hostile("detail"))
        self.assertEqual(str(error), "detail%s (HTTP 400)" % SHOWN)
        self.assertEqual(error.detail, hostile("detail"))


if __name__ == "__main__":
    unittest.main()

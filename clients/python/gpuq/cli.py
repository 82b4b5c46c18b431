"""The `gpuq` command: submit, queue, logs, cancel, GPUs and sweeps from a terminal.

    gpuq submit --gpus 1 --gpu-memory 6GiB -- python3 train.py --seed 1
    gpuq queue
    gpuq logs -f ID

Installed beside gpuq.py (`pip install ./clients/python`) as the console script `gpuq`, and run by
`python -m gpuq`. Standard library only. Every command is described in docs/cli.md.

Exit codes: 0 done, 2 wrong usage, 3 an error answer of gpuq, 4 gpuq cannot be reached, 5 an answer
gpuq would never give (garbled, cut short, a cursor that does not advance, a redirect to another
origin); `run` and `wait` exit with the job's own code (1 when it failed otherwise, 130 after
Ctrl-C).

Everything the command prints goes through write(), which shows control characters escaped
(gpuq.printable): a hostile server, or a job's name, cannot drive the terminal. Only the log of
`logs` and `run` is printed as it is, as cat would, unless --safe.
"""

import argparse
import configparser
import datetime
import decimal
import getpass
import http.client
import json
import os
import re
import shlex
import sys
import textwrap
import time

from . import client as gpuq
from .client import AnswerError, Client, GpuqError, TERMINAL_STATES
# What the command prints lives in gpuq/format.py; its names are this module's too.
from .format import *  # noqa: F401,F403

EXIT_USAGE = 2
EXIT_API = 3
EXIT_UNREACHABLE = 4
EXIT_ANSWER = 5
EXIT_FAILED_WITHOUT_CODE = 1
EXIT_INTERRUPTED = 130

CONFIG_FILE = os.path.join("~", ".config", "gpuq", "config")
PAGE = 500

class UsageError(Exception):
    """Wrong usage found after argparse: exit 2 with the message."""


_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


def parse_duration(text):
    """`2h`, `1h30m`, `90s`, `3d` or an ISO-8601 duration (`PT2H`) as ISO-8601."""
    if text.upper().startswith("P"):
        return text.upper()
    match = _DURATION.match(text.strip().lower())
    if not match or not any(match.groups()):
        raise argparse.ArgumentTypeError("not a duration: %r (such as 2h, 1h30m, 90s, PT2H)"
                                         % text)
    days, hours, minutes, seconds = (int(g or 0) for g in match.groups())
    iso = "P%dD" % days if days else "P"
    clock = "".join("%d%s" % (v, u) for v, u in ((hours, "H"), (minutes, "M"), (seconds, "S"))
                    if v)
    return iso + ("T" + clock if clock else "")


# A size as gpuq reads one (docs/api.md, resources.gpuMemory): bytes, or a number and a unit.
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(|b|ki?b?|mi?b?|gi?b?|ti?b?)\s*$", re.I)


def parse_size(text):
    """`16GiB`, `512MiB`, `6G`, `1.5GiB` or bytes, checked here and sent as typed."""
    match = _SIZE.match(text)
    if not match or float(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError(
            "not a size: %r (such as 16GiB, 512MiB, 6G or a number of bytes)" % text)
    return text.strip()


def parse_cpus(text):
    """Cores: a whole number, or a fraction such as 0.25 (gpuq judges the range and the decimals).

    Sent as a JSON number: a whole number as an int (2, as before), a fraction as a float.
    """
    try:
        cpus = decimal.Decimal(text.strip())
    except (decimal.InvalidOperation, ValueError):
        cpus = None
    if cpus is None or not cpus.is_finite() or cpus <= 0:
        raise argparse.ArgumentTypeError(
            "not a number of cores: %r (such as 1, 4 or 0.25)" % text)
    return int(cpus) if cpus == cpus.to_integral_value() else float(cpus)


def parse_pair(text, what):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError("%s must be KEY=VALUE, not %r" % (what, text))
    return key, value


def parse_array(text):
    """`0-99%8`, `1,3,5`, `0-20:5` -> ([indices], maxConcurrent or None)."""
    spec, _, limit = text.partition("%")
    indices = []
    try:
        for part in spec.split(","):
            bounds, _, step = part.partition(":")
            first, dash, last = bounds.partition("-")
            first = int(first)
            last = int(last) if dash else first
            step = int(step) if step else 1
            if last < first or step < 1:
                raise ValueError
            indices.extend(range(first, last + 1, step))
        limit = int(limit) if limit else None
        if limit is not None and limit < 1:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            "--array takes ranges such as 0-99%%8, 1,3,5 or 0-20:5, not %r" % text) from None
    return sorted(set(indices)), limit


def parse_param(text):
    """`lr=0.1,0.01` -> ("lr", [0.1, 0.01]); values are JSON where they parse, else strings."""
    name, values = parse_pair(text, "--param")
    parsed = []
    for value in values.split(","):
        try:
            parsed.append(json.loads(value))
        except ValueError:
            parsed.append(value)
    return name, parsed


def escape_template(text, keep=()):
    """Braces doubled, so that a sweep's template leaves them alone, except the placeholders kept."""
    text = text.replace("{", "{{").replace("}", "}}")
    for name in keep:
        text = text.replace("{{%s}}" % name, "{%s}" % name)
    return text


# ---- connecting -------------------------------------------------------------------------------

def read_config(path=None):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.expanduser(path or CONFIG_FILE), encoding="utf-8")
    return dict(parser["gpuq"]) if parser.has_section("gpuq") else {}


def write_config(url, token, path=None):
    path = os.path.expanduser(path or CONFIG_FILE)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    parser = configparser.ConfigParser(interpolation=None)
    parser["gpuq"] = {"url": url, "token": token}
    # Created 0600 before anything is written: the token is never readable by others.
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        parser.write(f)
    os.replace(path + ".tmp", path)
    return path


def connect(args):
    """The client: URL from --url, $GPUQ_URL, the config file; the token as Client finds it,
    with the config file's token (for its URL) after $GPUQ_TOKEN."""
    config = read_config()
    url = args.url or os.environ.get("GPUQ_URL") or config.get("url") or gpuq.DEFAULT_URL
    if not os.environ.get("GPUQ_TOKEN", "").strip() and config.get("token") and (
            config.get("url", "").rstrip("/") == url.rstrip("/")):
        client = Client(url, token=config["token"])
        client.token_source = CONFIG_FILE
        return client
    return Client(url)


# ---- commands ---------------------------------------------------------------------------------

def write(stream, text, raw=False):
    """The one place where text reaches the terminal: control characters (ESC, C1, bidirectional
    overrides, ...) are shown escaped (\\x1b, \\u202e); newlines are kept, since the text is lines
    (a table cell or a field of `show` escapes its own). raw: as it is, for a job's log."""
    stream.write(text if raw else gpuq.printable(text, keep="\n"))


def out(text=""):
    write(sys.stdout, text + "\n")


def print_json(data):
    # The API's JSON unchanged to a parser, with what would drive a terminal as JSON escapes.
    out(gpuq.printable_json(json.dumps(data, indent=2, ensure_ascii=False)))


def print_log(text, safe):
    """A job's log as it is, like cat (colours, progress bars); --safe: escaped, newlines and tabs
    kept."""
    write(sys.stdout, gpuq.printable(text, keep="\n\t") if safe else text, raw=True)


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


DEPENDENCY_WORDS = {"afterok": "succeeded", "afternotok": "failed", "afterany": "ended"}


def dependency(text, condition):
    """One --after* option's dependency (issue 37): a job id, or sweep:ID."""
    if text.startswith("sweep:"):
        return {"sweep": text[len("sweep:"):], "condition": condition}
    return {"job": text, "condition": condition}


def job_body_options(args):
    """The job fields of submit, run and sweep create's options."""
    fields = {}
    depends_on = []
    for name in ("depends_after", "depends_after_ok", "depends_after_notok", "depends_after_any"):
        depends_on.extend(getattr(args, name, None) or [])
    if depends_on:
        fields["dependsOn"] = depends_on
    if getattr(args, "notify", None):
        # Issue 37: each URL gets the events of --notify-on, or gpuq's default (ENDED for a job,
        # DONE for a sweep).
        on = [e.strip().upper() for e in (args.notify_on or "").split(",") if e.strip()]
        fields["notify"] = [dict({"url": url}, **({"on": on} if on else {}))
                            for url in args.notify]
    if args.name:
        fields["name"] = args.name
    if args.framework:
        fields["framework"] = args.framework
    if args.label:
        fields["labels"] = dict(args.label)
    if args.env:
        fields["env"] = dict(args.env)
    fields["workingDir"] = os.path.abspath(args.workdir) if args.workdir else os.getcwd()
    if args.timeout:
        fields["timeout"] = args.timeout
    if args.priority is not None:
        fields["priority"] = args.priority
    if args.preload:
        fields["preload"] = [m for spec in args.preload for m in spec.split(",") if m]
    retry = {}
    if args.retry is not None:
        retry["maxAttempts"] = args.retry + 1
    if args.oom_growth is not None:
        retry["oomGrowth"] = args.oom_growth
    if retry:
        fields["retry"] = retry
    resources = {}
    if args.gpus is not None:
        resources["gpus"] = args.gpus
    if args.gpu_memory is not None:
        resources["gpuMemory"] = int(args.gpu_memory) if args.gpu_memory.isdigit() else (
            args.gpu_memory)
    if args.gpu_fraction is not None:
        resources["gpuFraction"] = args.gpu_fraction
    if args.cpus is not None:
        resources["cpus"] = args.cpus
    if args.memory is not None:
        resources["memory"] = int(args.memory) if args.memory.isdigit() else args.memory
    if resources:
        fields["resources"] = resources
    return fields


def command_of(args):
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("no command: gpuq %s [options] -- CMD ARGS..." % args.cmd)
    return command


def submit_job(client, args):
    body = job_body_options(args)
    body["command"] = command_of(args)
    return client.submit_request(body, args.idempotency_key)


def cmd_submit(client, args):
    if args.array:
        indices, limit = args.array
        body = job_body_options(args)
        body["command"] = [escape_template(a, ["i"]) for a in command_of(args)]
        body["workingDir"] = escape_template(body["workingDir"], ["i"])
        if "env" in body:
            body["env"] = {k: escape_template(v, ["i"]) for k, v in body["env"].items()}
        body["parameters"] = {"i": {"values": indices}}
        body["method"] = "grid"
        if limit:
            body["maxConcurrent"] = limit
        sweep = client.create_sweep_request(body, args.idempotency_key)
        out(sweep["id"])
        return 0
    out(submit_job(client, args)["id"])
    return 0


def job_exit(job, quiet=False):
    """The exit status `run` and `wait` end with for a finished job.

    The job's own exit code when it failed by exiting non-zero (EXIT_CODE); 1 when it failed
    otherwise (OUT_OF_MEMORY, OVER_BUDGET, TIMEOUT, LOST, ..., or was cancelled or pruned), after
    saying why on stderr with gpuq's failure message.
    """
    if job["state"] == "SUCCEEDED":
        return 0
    reason = job.get("failureReason")
    if reason == "EXIT_CODE" and job.get("exitCode"):
        if not quiet:
            err("job %s FAILED with exit code %s" % (job["id"], job["exitCode"]))
        return job["exitCode"]
    message = job.get("failureMessage") or ""
    err("job %s %s%s%s%s" % (job["id"], job["state"], " (%s)" % reason if reason else "",
                             "" if job.get("exitCode") is None else ", exit code %s"
                             % job["exitCode"], ": " + message if message else ""))
    return EXIT_FAILED_WITHOUT_CODE


def wait_finished(client, job_id, poll=0.5):
    while True:
        job = client.get(job_id)
        if job["state"] in TERMINAL_STATES:
            return job
        time.sleep(poll)


def cmd_run(client, args):
    job = submit_job(client, args)
    if args.detach:
        out(job["id"])
        return 0
    err("job %s submitted; Ctrl-C cancels it" % job["id"])
    try:
        for line in client.logs(job["id"], follow=True):
            print_log(line + "\n", args.safe)
            sys.stdout.flush()
        return job_exit(wait_finished(client, job["id"]))
    except KeyboardInterrupt:
        return cancel_and_wait(client, job["id"])


def cancel_and_wait(client, job_id):
    err("cancelling job %s and waiting for it to end (Ctrl-C again to leave it)" % job_id)
    try:
        try:
            client.cancel(job_id)
        except GpuqError as e:
            if e.status != 409:  # 409: it had already ended
                raise
        job = wait_finished(client, job_id, poll=0.2)
        err("job %s %s" % (job_id, job["state"]))
    except KeyboardInterrupt:
        err("left job %s to end on its own" % job_id)
    return EXIT_INTERRUPTED


def list_jobs(client, states, labels, limit):
    """Jobs in any of the states (all when empty) with all the labels, newest first."""
    found = []
    for state in states or [None]:
        count = 0
        for job in client.list(state, labels, min(PAGE, limit or PAGE)):
            found.append(job)
            count += 1
            if limit and count >= limit:
                break
    found.sort(key=lambda j: (j.get("createdAt") or "", j["id"]), reverse=True)
    return found[:limit] if limit else found


def cmd_queue(client, args):
    states = [s.strip().upper() for s in ",".join(args.state or []).split(",") if s.strip()]
    for s in states:
        if s not in STATES:
            raise UsageError("unknown state %s (one of %s)" % (s, ", ".join(STATES)))
    if not states and not args.all:
        states = ["RUNNING", "QUEUED"]
    labels = list(args.label or [])
    if args.sweep:
        labels.append(("sweep", args.sweep))
    columns = QUEUE_COLUMNS
    if args.format:
        columns = tuple(c.strip().upper() for c in args.format.split(",") if c.strip())
        unknown = [c for c in columns if c not in JOB_COLUMNS]
        if unknown:
            raise UsageError("unknown column %s (columns: %s)"
                             % (", ".join(unknown), ", ".join(JOB_COLUMNS)))
    jobs = list_jobs(client, states, labels, args.limit)
    if args.json:
        print_json({"items": jobs, "nextCursor": None})
        return 0
    sweeps = {}
    if not args.expand:
        for job in jobs:
            sweep_id = job.get("sweep")
            if sweep_id and job.get("state") == "QUEUED" and sweep_id not in sweeps:
                try:
                    sweeps[sweep_id] = client.get_sweep(sweep_id)
                except GpuqError as e:
                    if not answered(e):
                        raise
                    sweeps[sweep_id] = None
    out(format_queue(jobs, now_utc(), sweeps, args.expand, columns, terminal_width()))
    return 0


def cmd_show(client, args):
    try:
        job = client.get(args.id)
    except GpuqError as e:
        if e.status != 404:
            raise
        # `submit --array` prints its sweep's id: shown as `gpuq sweep show` shows it.
        try:
            sweep = client.get_sweep(args.id)
        except GpuqError:
            raise e from None
        err("%s is a sweep (gpuq submit --array makes one): gpuq sweep show %s, "
            "gpuq sweep trials %s" % (args.id, args.id, args.id))
        if args.json:
            print_json(sweep)
        else:
            out(format_sweep(sweep, now_utc(), terminal_width()))
        return 0
    if args.json:
        print_json(job)
    else:
        out(format_job(job, now_utc(), terminal_width()))
    return 0


def cmd_logs(client, args):
    if args.follow:
        try:
            for line in client.logs(args.id, tail=args.tail, follow=True):
                print_log(line + "\n", args.safe)
                sys.stdout.flush()
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED
        return 0
    print_log(client.logs(args.id, tail=args.tail), args.safe)
    return 0


def cmd_cancel(client, args):
    if bool(args.ids) == bool(args.sweep):
        raise UsageError("gpuq cancel ID... or gpuq cancel --sweep SWEEP")
    if args.sweep:
        sweep = client.cancel_sweep(args.sweep)
        out("%s %s" % (sweep["id"], sweep["state"]))
        return 0
    status = 0
    for job_id in args.ids:
        try:
            job = client.cancel(job_id)
            out("%s %s" % (job["id"], job["state"]))
        except GpuqError as e:
            if not answered(e):
                raise
            report_error(e, prefix=job_id)
            status = EXIT_API
    return status


def cmd_requeue(client, args):
    # Issue 35: preempts the running job now (its signal, then SIGKILL after its grace); it goes
    # back to the queue without using up its retries.
    job = client.requeue(args.id)
    out("%s %s (requeued; it stops within its preemptGrace)" % (job["id"], job["state"]))
    return 0


def cmd_wait(client, args):
    finished = {}
    pending = list(dict.fromkeys(args.ids))
    try:
        while pending:
            for job_id in list(pending):
                job = client.get(job_id)
                if job["state"] in TERMINAL_STATES:
                    finished[job_id] = job
                    pending.remove(job_id)
            if pending:
                time.sleep(0.5)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    status = 0
    for job_id in dict.fromkeys(args.ids):
        job = finished[job_id]
        out("%s %s%s" % (job["id"], job["state"], "" if job.get("exitCode") is None
                          else " exit %s" % job["exitCode"]))
        code = job_exit(job, quiet=True)
        if code and not status:
            status = code
    return status


def cmd_gpus(client, args):
    gpus = client.gpus()
    if args.json:
        print_json(gpus)
        return 0
    jobs = {}
    for g in gpus:
        for p in g.get("processes") or []:
            job_id = p.get("jobId")
            if job_id and job_id not in jobs:
                try:
                    jobs[job_id] = client.get(job_id)
                except GpuqError as e:
                    if not answered(e):
                        raise
                    jobs[job_id] = None  # another user's job, or gone
    out(format_gpus(gpus, jobs, terminal_width()))
    return 0


def cmd_owners(client, args):
    answer = client.owners()
    if args.json:
        print_json(answer)
    else:
        out(format_owners(answer, terminal_width()))
    return 0


def cmd_nodes(client, args):
    nodes = client.nodes()
    if args.json:
        print_json(nodes)
    else:
        out(format_nodes(nodes, terminal_width()))
    return 0


USAGE_COLUMNS = ("GROUP", "SUCCEEDED", "FAILED", "CANCELLED", "PRUNED", "GPU_H", "GPU_MEM_GIB_H",
                 "MEASURED_GIB_H", "CORE_H", "MEM_GIB_H", "WAIT_P50", "WAIT_P95", "WAIT_MAX")


def usage_rows(report):
    """The usage report (issue 37) as rows of USAGE_COLUMNS: each group, then the total."""
    rows = []
    for group in list(report.get("groups") or []) + [dict(report.get("total") or {}, key="TOTAL")]:
        jobs = group.get("jobs") or {}
        wait = group.get("waitSeconds") or {}
        rows.append([str(group.get("key") if group.get("key") is not None else "-")]
                    + [str(jobs.get(s, 0)) for s in ("SUCCEEDED", "FAILED", "CANCELLED", "PRUNED")]
                    + ["%.2f" % (group.get(k) or 0) for k in (
                        "gpuHours", "gpuMemoryGiBHours", "measuredGpuMemoryGiBHours", "coreHours",
                        "memoryGiBHours")]
                    + ["-" if wait.get(k) is None else "%.0fs" % wait[k]
                       for k in ("p50", "p95", "max")])
    return rows


def cmd_usage(client, args):
    report = client.usage(since=args.since, until=args.until, by=args.by)
    if args.json:
        print_json(report)
    elif args.csv:
        lines = [",".join(USAGE_COLUMNS)]
        lines += [",".join('"%s"' % c.replace('"', '""') if "," in c or '"' in c else c
                           for c in row) for row in usage_rows(report)]
        out("\n".join(lines))
    else:
        out(render_table(list(USAGE_COLUMNS), usage_rows(report), terminal_width()))
    return 0


def cmd_login(client, args):
    if args.token_stdin or not sys.stdin.isatty():
        token = sys.stdin.readline().strip()
    else:
        token = getpass.getpass("Token for %s: " % args.login_url).strip()
    if not token:
        raise UsageError("no token given")
    checked = Client(args.login_url, token=token)
    checked.token_source = "the token given to login"
    checked.check()
    path = write_config(checked.url, token)
    err("logged in to %s; the URL and token are in %s" % (checked.url, path))
    return 0


def cmd_sweep_create(client, args):
    if args.param and args.file:
        # argparse hands the command's first word to FILE when --param is used.
        args.command = [args.file] + list(args.command)
        args.file = None
    if args.file:
        if args.param or args.command:
            raise UsageError("gpuq sweep create FILE, or --param ... -- CMD, not both")
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        try:
            body = json.loads(text)
        except ValueError as e:
            raise UsageError("%s is not JSON: %s" % (args.file, e)) from None
    else:
        if not args.param:
            raise UsageError("gpuq sweep create FILE.json|- or --param NAME=V1,V2 ... -- CMD")
        body = job_body_options(args)
        body["command"] = command_of(args)
        body["parameters"] = {name: {"values": values} for name, values in args.param}
        body["method"] = "grid"
        if args.metric:
            body["metric"] = {"name": args.metric,
                              "goal": "maximize" if args.goal.startswith("max") else "minimize"}
        if args.max_concurrent:
            body["maxConcurrent"] = args.max_concurrent
        if args.early_stopping:
            body["earlyStopping"] = {"type": args.early_stopping}
    sweep = client.create_sweep_request(body, args.idempotency_key)
    out(sweep["id"])
    return 0


def cmd_sweep_ls(client, args):
    sweeps = []
    for s in client.sweeps(page_size=min(PAGE, args.limit or PAGE)):
        sweeps.append(s)
        if args.limit and len(sweeps) >= args.limit:
            break
    if args.json:
        print_json({"items": sweeps, "nextCursor": None})
    else:
        out(format_sweeps(sweeps, now_utc(), terminal_width()))
    return 0


def cmd_sweep_show(client, args):
    sweep = client.get_sweep(args.sweep)
    if args.json:
        print_json(sweep)
    else:
        out(format_sweep(sweep, now_utc(), terminal_width()))
    return 0


def cmd_sweep_trials(client, args):
    trials = []
    for t in client.trial_rows(args.sweep, args.order, args.state.upper() if args.state else None,
                               min(PAGE, args.limit or PAGE)):
        trials.append(t)
        if args.limit and len(trials) >= args.limit:
            break
    if args.json:
        print_json({"items": trials, "nextCursor": None})
    else:
        out(format_trials(trials, terminal_width()))
    return 0


def cmd_sweep_best(client, args):
    sweep = client.get_sweep(args.sweep)
    if args.json:
        print_json(sweep.get("best"))
    elif sweep.get("best"):
        out(format_best(sweep["best"], sweep))
    else:
        err("sweep %s has no best trial yet: none reported %s"
            % (args.sweep, (sweep.get("metric") or {}).get("name", "a metric")))
    return 0


def cmd_sweep_cancel(client, args):
    sweep = client.cancel_sweep(args.sweep)
    out("%s %s" % (sweep["id"], sweep["state"]))
    return 0


def cmd_sweep_close(client, args):
    sweep = client.close_sweep(args.sweep)
    out("%s %s" % (sweep["id"], sweep["state"]))
    return 0


def cmd_completion(parser, args):
    out(bash_completion(parser))
    return 0


# ---- the parser -------------------------------------------------------------------------------

def _job_options(p):
    g = p.add_argument_group("the job")
    g.add_argument("--gpus", type=int, metavar="N", help="GPUs (default 1; 0: CPU only)")
    memory = g.add_mutually_exclusive_group()
    memory.add_argument("--gpu-memory", metavar="SIZE", help="budget per GPU, such as 6GiB")
    memory.add_argument("--gpu-fraction", type=float, metavar="F",
                        help="budget per GPU as a fraction of it, such as 0.25")
    g.add_argument("--cpus", type=parse_cpus, metavar="N",
                   help="cores, whole or a fraction such as 0.25 (default: gpuq's, 1 unless"
                        " configured)")
    g.add_argument("--memory", type=parse_size, metavar="SIZE",
                   help="host memory set aside and its cap, such as 16GiB (default: none)")
    g.add_argument("--framework", choices=("jax", "pytorch", "tensorflow", "generic"))
    g.add_argument("--name")
    g.add_argument("--label", action="append", metavar="K=V",
                   type=lambda t: parse_pair(t, "--label"), help="repeatable")
    g.add_argument("--env", action="append", metavar="K=V",
                   type=lambda t: parse_pair(t, "--env"), help="repeatable")
    g.add_argument("--workdir", metavar="DIR", help="default: the current directory")
    g.add_argument("--timeout", type=parse_duration, metavar="DURATION",
                   help="such as 2h, 1h30m, 90s or PT2H")
    g.add_argument("--retry", type=int, metavar="N",
                   help="attempts after the first that fails (retry.maxAttempts = N + 1)")
    g.add_argument("--oom-growth", type=float, metavar="X",
                   help="budget factor after running out of GPU memory (default 1.5)")
    g.add_argument("--priority", type=int)
    g.add_argument("--preload", action="append", metavar="MOD[,MOD]",
                   help="warm start: modules imported once, trials fork from there (repeatable)")
    g.add_argument("--idempotency-key", metavar="KEY",
                   help="a repeated submit with the same key creates nothing new")
    for flag, condition in (("--after", "afterok"), ("--after-ok", "afterok"),
                            ("--after-notok", "afternotok"), ("--after-any", "afterany")):
        g.add_argument(flag, action="append", metavar="ID",
                       dest="depends_" + flag[2:].replace("-", "_"),
                       type=lambda t, c=condition: dependency(t, c),
                       help="wait until job ID (or sweep:ID) %s; repeatable"
                            % DEPENDENCY_WORDS[condition])
    g.add_argument("--notify", action="append", metavar="URL",
                   help="POST the job's end (a sweep's: DONE) to URL, signed; repeatable; the"
                        " operator must allow its host")
    g.add_argument("--notify-on", metavar="EVENTS",
                   help="the events --notify sends: STARTED,ENDED,FAILED (a sweep: DONE)")


def _json_option(p):
    p.add_argument("--json", action="store_true", help="print the API's JSON, for jq")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="gpuq", description="Submit and watch jobs and sweeps of a gpuq GPU scheduler.",
        epilog="Exit codes: 0 done, 2 wrong usage, 3 API error, 4 cannot connect, 5 an answer "
               "gpuq never gives; run and wait: the job's own code. See docs/cli.md.")
    parser.add_argument("--version", action="version", version="gpuq " + gpuq.__version__)
    parser.add_argument("--url", help="gpuq's URL (default: $GPUQ_URL, then the config file, "
                                      "then %s)" % gpuq.DEFAULT_URL)
    commands = parser.add_subparsers(dest="cmd", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser("submit", help="submit a job (or an --array sweep), print its id")
    _job_options(p)
    p.add_argument("--array", type=parse_array, metavar="SPEC",
                   help="one grid sweep over i, such as 0-99%%8 (at most 8 at once); {i} in the "
                        "command becomes the index")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...")
    p.set_defaults(func=cmd_submit)

    p = commands.add_parser("run", help="submit, stream the log, exit with the job's code")
    _job_options(p)
    p.add_argument("--detach", action="store_true", help="print the id and return at once")
    p.add_argument("--safe", action="store_true",
                   help="show control characters in the log escaped (\\x1b), not as they are")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...")
    p.set_defaults(func=cmd_run)

    for name in ("queue", "ls"):
        p = commands.add_parser(name, help="queued and running jobs, like squeue"
                                if name == "queue" else "the same as queue")
        p.add_argument("-a", "--all", action="store_true", help="finished jobs too")
        p.add_argument("-t", "--state", action="append", metavar="STATE",
                       help="only these states (comma-separated, repeatable)")
        p.add_argument("--sweep", metavar="SWEEP", help="only this sweep's trials")
        p.add_argument("--label", action="append", metavar="K=V",
                       type=lambda t: parse_pair(t, "--label"), help="repeatable")
        p.add_argument("-n", "--limit", type=int, metavar="N", help="at most N jobs")
        p.add_argument("-o", "--format", metavar="COLS",
                       help="columns, comma-separated, of: " + ",".join(JOB_COLUMNS).lower())
        p.add_argument("-r", "--expand", action="store_true",
                       help="one line per queued sweep trial")
        _json_option(p)
        p.set_defaults(func=cmd_queue)

    p = commands.add_parser("show", help="one job in words (or a sweep, given its id)")
    p.add_argument("id", metavar="ID")
    _json_option(p)
    p.set_defaults(func=cmd_show)

    p = commands.add_parser("logs", help="a job's output")
    p.add_argument("-f", "--follow", action="store_true", help="until the job ends")
    p.add_argument("-n", "--tail", type=int, metavar="N", help="the last N lines")
    p.add_argument("--safe", action="store_true",
                   help="show control characters escaped (\\x1b), not as they are (like cat -v)")
    p.add_argument("id", metavar="ID")
    p.set_defaults(func=cmd_logs)

    p = commands.add_parser("cancel", help="cancel jobs, or a sweep")
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--sweep", metavar="SWEEP")
    p.set_defaults(func=cmd_cancel)

    p = commands.add_parser("requeue", help="preempt a running job now and queue it again")
    p.add_argument("id", metavar="ID")
    p.set_defaults(func=cmd_requeue)

    p = commands.add_parser("wait", help="wait for jobs; exit with the first failure's code")
    p.add_argument("ids", nargs="+", metavar="ID")
    p.set_defaults(func=cmd_wait)

    p = commands.add_parser("gpus", help="each node's GPUs and their processes, like nvidia-smi")
    _json_option(p)
    p.set_defaults(func=cmd_gpus)

    p = commands.add_parser("nodes", help="each node's cores and host memory")
    _json_option(p)
    p.set_defaults(func=cmd_nodes)

    p = commands.add_parser("owners", help="fair share: each owner's share, jobs and holdings")
    _json_option(p)
    p.set_defaults(func=cmd_owners)

    p = commands.add_parser("login", help="store the URL and a token in " + CONFIG_FILE)
    p.add_argument("login_url", metavar="URL")
    p.add_argument("--token-stdin", action="store_true", help="read the token from stdin")
    p.set_defaults(func=cmd_login)

    p = commands.add_parser("sweep", help="sweeps: create, ls, show, trials, best, cancel, close")
    sweep = p.add_subparsers(dest="sweep_cmd", metavar="SUBCOMMAND")
    sweep.required = True
    s = sweep.add_parser("create", help="from the API's JSON (FILE or -), or --param ... -- CMD")
    s.add_argument("file", nargs="?", metavar="FILE.json|-")
    s.add_argument("--param", action="append", type=parse_param, metavar="NAME=V1,V2",
                   help="a grid parameter (repeatable); {NAME} in the command becomes its value")
    s.add_argument("--metric", metavar="NAME", help="the reported value that ranks trials")
    s.add_argument("--goal", choices=("min", "max", "minimize", "maximize"), default="min")
    s.add_argument("--max-concurrent", type=int, metavar="N")
    s.add_argument("--early-stopping", choices=("median", "asha"))
    _job_options(s)
    s.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...")
    s.set_defaults(func=cmd_sweep_create, cmd="sweep create")
    s = sweep.add_parser("ls", help="sweeps, newest first")
    s.add_argument("-n", "--limit", type=int, metavar="N")
    _json_option(s)
    s.set_defaults(func=cmd_sweep_ls)
    for name, func, text in (("show", cmd_sweep_show, "counts per state, progress, best trial"),
                             ("trials", cmd_sweep_trials, "its trials, a column per parameter"),
                             ("best", cmd_sweep_best, "its best trial so far"),
                             ("cancel", cmd_sweep_cancel, "cancel its queued and running trials"),
                             ("close", cmd_sweep_close, "no more trials (external sweeps)")):
        s = sweep.add_parser(name, help=text)
        s.add_argument("sweep", metavar="SWEEP")
        if name in ("show", "trials", "best"):
            _json_option(s)
        if name == "trials":
            s.add_argument("--order", choices=("metric", "-metric", "created"))
            s.add_argument("-t", "--state", metavar="STATE")
            s.add_argument("-n", "--limit", type=int, metavar="N")
        s.set_defaults(func=func)

    p = commands.add_parser("usage", help="who used what: GPU-, core- and memory-hours, waits")
    p.add_argument("--from", dest="since", metavar="DATE", help="such as 2026-12-01 (UTC)")
    p.add_argument("--to", dest="until", metavar="DATE", help="excluded; default: now")
    p.add_argument("--by", metavar="owner|day|label:KEY", help="default: owner")
    p.add_argument("--csv", action="store_true", help="comma-separated, a header line first")
    _json_option(p)
    p.set_defaults(func=cmd_usage)

    p = commands.add_parser("completion", help="print a shell completion script")
    p.add_argument("shell", choices=("bash",))
    p.set_defaults(func=None)
    return parser


def bash_completion(parser):
    """A bash completion script generated from the parser: commands, subcommands, options."""
    def words(p):
        names, options = [], []
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                names.extend(action.choices)
            else:
                options.extend(action.option_strings)
        return names, options

    def subparsers(p):
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}

    top_names, top_options = words(parser)
    cases = []
    for name, sub in subparsers(parser).items():
        sub_names, sub_options = words(sub)
        if sub_names:
            inner = []
            for sub_name, subsub in subparsers(sub).items():
                inner.append('            %s) opts="%s" ;;' % (sub_name, " ".join(words(subsub)[1])))
            cases.append('        %s)\n'
                         '          if [ "$sub" = "" ]; then opts="%s"; else\n'
                         '          case "$sub" in\n%s\n          esac; fi ;;'
                         % (name, " ".join(sub_names + sub_options), "\n".join(inner)))
        else:
            cases.append('        %s) opts="%s" ;;' % (name, " ".join(sub_options)))
    return """# bash completion for gpuq: source <(gpuq completion bash)
_gpuq() {
    local cur="${COMP_WORDS[COMP_CWORD]}" cmd="" sub="" opts="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        [ "$w" = "--" ] && return 0
        case "$w" in
            --url) i=$((i + 1)); continue ;;
            -*) continue ;;
        esac
        if [ -z "$cmd" ]; then cmd="$w"; elif [ -z "$sub" ]; then sub="$w"; fi
    done
    if [ -z "$cmd" ]; then
        opts="%s"
    else
      case "$cmd" in
%s
      esac
    fi
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    case "$cur" in -*) ;; *) [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur")) ;; esac
}
complete -F _gpuq gpuq""" % (" ".join(top_names + top_options), "\n".join(cases))


# ---- errors and main --------------------------------------------------------------------------

def err(text):
    write(sys.stderr, "gpuq: %s\n" % text)
    sys.stderr.flush()


def answered(e):
    """Whether gpuq gave this error answer itself (a 404 for one id of several, ...), rather than
    being unreachable or giving an answer it never gives: those end the command."""
    return e.status is not None and not isinstance(e, AnswerError)


def report_error(e, prefix=None):
    head = "%s: " % prefix if prefix else ""
    if isinstance(e, AnswerError):
        err(head + e.detail)
        return EXIT_ANSWER
    if e.status is None:
        err(head + (e.detail or "cannot connect"))
        return EXIT_UNREACHABLE
    detail = e.detail or ""
    err("%s%s %s%s" % (head, e.status, e.title or "", ": " + detail if detail else ""))
    for error in e.errors:
        if isinstance(error, dict) and "%s: %s" % (error.get("field"),
                                                   error.get("message")) not in detail:
            err("  %s: %s" % (error.get("field") or "", error.get("message")))
    return EXIT_API


def terminal_width():
    """$COLUMNS, else the terminal's width, else 80 (a pipe or a file)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if sys.stdout.isatty():
            return os.get_terminal_size(sys.stdout.fileno()).columns
    except OSError:
        pass
    return DEFAULT_WIDTH


def _url_first(argv):
    """--url is gpuq's own option, but people type it after the command too (`gpuq queue --url
    U`): move it to the front, never from the job's own argv after `--`."""
    front, rest, i = [], [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a == "--url" and i + 1 < len(argv):
            front += argv[i:i + 2]
            i += 2
            continue
        if a.startswith("--url="):
            front.append(a)
        else:
            rest.append(a)
        i += 1
    return front + rest


def main(argv=None):
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    parser = build_parser()
    args = parser.parse_args(_url_first(sys.argv[1:] if argv is None else list(argv)))
    if args.cmd == "completion":
        return cmd_completion(parser, args)
    client = None
    try:
        client = connect(args)
        return args.func(client, args)
    except UsageError as e:
        parser.print_usage(sys.stderr)
        err(str(e))
        return EXIT_USAGE
    except GpuqError as e:
        return report_error(e)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except http.client.HTTPException as e:
        # The connection broke mid-answer, as when gpuq stops while a log is followed.
        err("lost the connection to gpuq: %s" % (e.__class__.__name__,))
        return EXIT_UNREACHABLE
    except BrokenPipeError:
        # `gpuq queue | head`: the reader left. Nothing more to say, nor to flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ConnectionError, TimeoutError) as e:
        err("lost the connection to gpuq: %s" % e)
        return EXIT_UNREACHABLE
    except OSError as e:
        # A file named on the command line (sweep create FILE) that cannot be read.
        err(str(e))
        return EXIT_USAGE
    except (TypeError, KeyError, AttributeError, ValueError, IndexError, OverflowError,
            RecursionError, MemoryError) as e:
        # gpuq's client checks the shape of each answer it uses (AnswerError above); a field
        # deeper in it of the wrong type (a state that is a number, a time that is no time) ends
        # here, in one line, rather than in a traceback. GPUQ_DEBUG=1 shows the traceback.
        if os.environ.get("GPUQ_DEBUG"):
            raise
        last = client.last_request if client else None
        err("cannot use gpuq's answer%s: a field is not what gpuq gives (%s: %s)"
            % (" to " + last if last else "", e.__class__.__name__, e))
        return EXIT_ANSWER


def console():
    """The console script's entry point."""
    sys.exit(main())


if __name__ == "__main__":
    console()

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

import gpuq
from gpuq import AnswerError, Client, GpuqError, TERMINAL_STATES

EXIT_USAGE = 2
EXIT_API = 3
EXIT_UNREACHABLE = 4
EXIT_ANSWER = 5
EXIT_FAILED_WITHOUT_CODE = 1
EXIT_INTERRUPTED = 130

CONFIG_FILE = os.path.join("~", ".config", "gpuq", "config")
DEFAULT_WIDTH = 80
ELLIPSIS = "\u2026"
PAGE = 500

STATES = ("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "PRUNED")
QUEUE_COLUMNS = ("ID", "NAME", "OWNER", "STATE", "GPUS", "GPU-MEM", "TIME", "REASON")
# Shrunk first, in this order, when a table is wider than the terminal.
FLEXIBLE = ("REASON", "NAME", "OWNER", "COMMAND", "NODE", "LABELS")


class UsageError(Exception):
    """Wrong usage found after argparse: exit 2 with the message."""


# ---- formatting (pure functions: the golden tests call them on fixed API answers) -----------

def fmt_size(value):
    """Bytes as `6.0GiB`, `512MiB`; None as `-`."""
    if value is None:
        return "-"
    value = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            break
        value /= 1024
    if unit == "B":
        return "%dB" % value
    return ("%.1f%s" if abs(value) < 100 else "%.0f%s") % (value, unit)


def fmt_duration(seconds):
    """Seconds as `42s`, `3m12s`, `2h03m`, `3d04h`; None as `-`."""
    if seconds is None:
        return "-"
    seconds = max(0, int(seconds))
    if seconds < 60:
        return "%ds" % seconds
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return "%dm%02ds" % (minutes, seconds)
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return "%dh%02dm" % (hours, minutes)
    days, hours = divmod(hours, 24)
    return "%dd%02dh" % (days, hours)


def fmt_number(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return "%.6g" % value
    return str(value)


def fmt_value(value):
    """A parameter's value as the API's JSON text shows it, strings without quotes."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return "%.6g" % value
    return json.dumps(value)


def truncate(text, width):
    text = str(text)
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    return text[:width - 1] + ELLIPSIS


def parse_time(text):
    """An API instant (`2026-11-29T12:00:00.123456789Z`) as an aware datetime; None stays None."""
    if not text:
        return None
    text = text.replace("Z", "+00:00")
    # Python before 3.11 takes a fraction of exactly three or six digits; Java writes 0 to 9.
    text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text)
    return datetime.datetime.fromisoformat(text)


def seconds_between(start, end):
    start = parse_time(start) if isinstance(start, str) else start
    end = parse_time(end) if isinstance(end, str) else end
    if start is None or end is None:
        return None
    return (end - start).total_seconds()


def render_table(headers, rows, width=DEFAULT_WIDTH, sep=" ", spill=False, flexible=()):
    """Rows of strings as aligned columns no wider than width; a cell too long ends in `…`.

    The flexible columns (REASON, NAME, ...) shrink first, down to 4 characters; then every column
    but the first, down to its header's width. Never wraps. spill: a first cell longer than its
    column (a queue's collapsed sweep line) takes the second column's room before it is cut.
    """
    # A cell is one line: its newlines and tabs are escaped too, and so are counted as wide as
    # they show.
    cells = [[gpuq.printable(c) for c in row] for row in rows]
    first = [len(h) for h in headers[:1]] + [len(row[0]) for row in cells
                                             if not spill or len(row[0]) <= 26]
    widths = [max(first) if headers else 0] + [
        max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers) if i]
    total = lambda: sum(widths) + len(sep) * (len(widths) - 1)  # noqa: E731
    # A spilling first cell needs this much of the second column to be shown whole.
    overflow = max([len(row[0]) - widths[0] - len(sep) for row in cells if spill] + [0])
    if spill and len(widths) > 1:
        widths[1] = max(widths[1], overflow)

    def shrink(candidates, floor):
        while total() > width:
            options = [i for i in candidates if widths[i] > floor(i)]
            if not options:
                return
            widest = max(options, key=lambda i: widths[i])
            widths[widest] -= 1

    flexible = [i for i, h in enumerate(headers) if h.upper() in FLEXIBLE or h in flexible]
    soft = {"REASON": 10, "OWNER": 5}
    shrink(flexible, lambda i: overflow if spill and i == 1 else soft.get(headers[i].upper(), 5))
    shrink(flexible, lambda i: 4)
    shrink([i for i in range(1, len(headers))], lambda i: max(3, len(headers[i])))
    shrink(list(range(len(headers))), lambda i: 3)
    lines = []
    for row in [list(headers)] + cells:
        parts = [truncate(cell, widths[i]).ljust(widths[i]) for i, cell in enumerate(row)]
        if spill and len(row) > 1 and len(row[0]) > widths[0]:
            room = widths[0] + len(sep) + widths[1]
            head = row[0] if len(row[0]) <= room else spill_cut(row[0], room)
            rest = room - len(head) - len(sep)
            parts[0:2] = [(head + (sep + truncate(row[1], rest) if rest >= 2 else "")).ljust(room)]
        lines.append(sep.join(parts).rstrip())
    return "\n".join(lines)


def spill_cut(text, room):
    """`SWEEP[0,2,4,6%8]` cut to room inside its brackets: `SWEEP[0,2…%8]`."""
    head, bracket, inner = text.partition("[")
    if not bracket:
        return truncate(text, room)
    numbers, percent, limit = inner.rstrip("]").partition("%")
    tail = (percent + limit) + "]"
    keep = room - len(head) - 1 - len(tail)
    if keep < 2:
        return truncate(text, room)
    return head + "[" + truncate(numbers, keep) + tail


def bar(used, reserved, total, width=20):
    """`[####--......]`: # used, - reserved beyond what is used, . free."""
    if not total:
        return "[" + " " * width + "]"
    # Held to 0..width whatever the figures: a negative or huge one is not a bar of a billion.
    used_cells = max(0, min(width, int(round(width * used / total))))
    reserved_cells = max(0, min(width, int(round(width * max(used, reserved) / total)))
                         - used_cells)
    return "[" + "#" * used_cells + "-" * reserved_cells + "." * (
        width - used_cells - reserved_cells) + "]"


def ranges(numbers):
    """[12, 13, 14, 20] -> `12-14,20`."""
    numbers = sorted(set(numbers))
    parts = []
    start = prev = None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return ",".join(parts)


def gpu_memory_of(job):
    resources = job.get("effectiveResources") or job.get("resources") or {}
    if resources.get("gpus") == 0:
        return "-"
    if resources.get("gpuMemory") is not None:
        return fmt_size(resources["gpuMemory"])
    if resources.get("gpuFraction") is not None:
        return "%g%%" % (resources["gpuFraction"] * 100)
    return "whole"


def gpus_of(job):
    resources = job.get("effectiveResources") or job.get("resources") or {}
    return str(resources.get("gpus", 1))


def short_reason(job):
    """The REASON column: why it waits (up to the `;`), where it runs, or how it ended."""
    state = job.get("state")
    if state == "QUEUED":
        return short_queued_reason(job.get("queuedReason") or "")
    if state == "RUNNING":
        placement = job.get("placement") or {}
        indices = ",".join(str(g.get("index")) for g in placement.get("gpus") or [])
        return "%s:%s" % (placement.get("node"), indices) if indices else (
            placement.get("node") or "")
    if state == "FAILED":
        words = job.get("failureReason") or ""
        if job.get("exitCode") is not None:
            words = ("exit %s" % job["exitCode"]) if words == "EXIT_CODE" else (
                "%s exit %s" % (words, job["exitCode"]))
        return words
    if state == "SUCCEEDED" and job.get("exitCode") is not None:
        return "exit %s" % job["exitCode"]
    return ""


# queuedReason's forms (docs/api.md) as one word each, as squeue shows (Resources) or (Priority);
# `gpuq show` gives the words and numbers.
_REASON_WORDS = (
    (re.compile(r"waiting for a free CPU slot"), "CpuSlot"),
    (re.compile(r"waiting for \d+ cores?;"), "Cores"),
    (re.compile(r"waiting for [^;]* of host memory;"), "HostMemory"),
    (re.compile(r"waiting for"), "Resources"),
    (re.compile(r"sweep at maxConcurrent"), "SweepLimit"),
    (re.compile(r"behind"), "Priority"),
    (re.compile(r"a GPU is reserved"), "Reserved"),
    (re.compile(r"cores and host memory are reserved"), "Reserved"),
    (re.compile(r"start spacing"), "Spacing"),
    (re.compile(r"not yet considered"), "NotYet"),
    (re.compile(r"at your limit of"), "Limit"),
    (re.compile(r"cannot run on node"), "NodeTooSmall"),
    # `bob's turn first: alice holds ...`, `another owner's turn first: ...`
    (re.compile(r"[^:;]*'s turn first: "), "FairShare"),
)


def short_queued_reason(reason):
    for pattern, word in _REASON_WORDS:
        if pattern.match(reason):
            return word
    if "does not match nodeSelector" in reason:
        return "Selector"
    return reason.split(";")[0]


def job_time(job, now):
    """Queued: its age; running: since it started; finished: how long it ran."""
    if job.get("state") == "QUEUED" or not job.get("startedAt"):
        if job.get("finishedAt"):
            return "-"
        return fmt_duration(seconds_between(job.get("createdAt"), now))
    return fmt_duration(seconds_between(job.get("startedAt"), job.get("finishedAt") or now))


def _job_cell(job, column, now):
    column = column.upper()
    if column == "ID":
        return job["id"]
    if column == "NAME":
        return job.get("name") or ""
    if column == "OWNER":
        return job.get("owner") or ""
    if column == "STATE":
        return job.get("state") or ""
    if column == "GPUS":
        return gpus_of(job)
    if column == "GPU-MEM":
        return gpu_memory_of(job)
    if column == "TIME":
        return job_time(job, now)
    if column == "REASON":
        return short_reason(job)
    if column == "NODE":
        return (job.get("placement") or {}).get("node") or ""
    if column == "PRIORITY":
        return str(job.get("priority", 0))
    if column == "SWEEP":
        return job.get("sweep") or ""
    if column == "TRIAL":
        return "" if job.get("trial") is None else str(job["trial"])
    if column == "EXIT":
        return "" if job.get("exitCode") is None else str(job["exitCode"])
    if column == "ATTEMPT":
        return str(job.get("attempt", 1))
    if column == "CREATED":
        return job.get("createdAt") or ""
    if column == "COMMAND":
        return " ".join(shlex.quote(a) for a in job.get("command") or [])
    if column == "LABELS":
        return ",".join("%s=%s" % kv for kv in sorted((job.get("labels") or {}).items()))
    raise UsageError("unknown column %s" % column)


JOB_COLUMNS = QUEUE_COLUMNS + ("NODE", "PRIORITY", "SWEEP", "TRIAL", "EXIT", "ATTEMPT",
                               "CREATED", "COMMAND", "LABELS")


def queue_lines(jobs, sweeps=None, expand=False):
    """The queue's lines: jobs, and per sweep one line for its queued trials unless expand.

    Returns [(job, id_text)], in the order of jobs; a sweep's collapsed line stands where its first
    queued trial was, `SWEEPID[12-99%8]` (the trial numbers, and `%maxConcurrent` when set).
    """
    sweeps = sweeps or {}
    queued_trials = {}
    for job in jobs:
        if not expand and job.get("state") == "QUEUED" and job.get("sweep") is not None:
            queued_trials.setdefault(job["sweep"], []).append(job)
    collapse = {s for s, trials in queued_trials.items() if len(trials) > 1}
    lines = []
    shown = set()
    for job in jobs:
        sweep_id = job.get("sweep")
        if sweep_id in collapse and job.get("state") == "QUEUED":
            if sweep_id in shown:
                continue
            shown.add(sweep_id)
            trials = queued_trials[sweep_id]
            text = ranges(t.get("trial", 0) for t in trials)
            limit = (sweeps.get(sweep_id) or {}).get("maxConcurrent")
            if limit:
                text += "%%%d" % limit
            oldest = min(trials, key=lambda t: t.get("createdAt") or "")
            name = (sweeps.get(sweep_id) or {}).get("name") or job.get("name")
            line = dict(job, name=name, createdAt=oldest.get("createdAt"))
            lines.append((line, "%s[%s]" % (sweep_id, text)))
        else:
            lines.append((job, job["id"]))
    return lines


def format_queue(jobs, now, sweeps=None, expand=False, columns=QUEUE_COLUMNS,
                 width=DEFAULT_WIDTH):
    rows = []
    for job, id_text in queue_lines(jobs, sweeps, expand):
        rows.append([id_text if c.upper() == "ID" else _job_cell(job, c, now) for c in columns])
    return render_table([c.upper() for c in columns], rows, width,
                        spill=len(columns) > 1 and columns[0].upper() == "ID")


def format_job(job, now, width=DEFAULT_WIDTH):
    """`gpuq show`: the job in words."""
    out = []

    def add(label, value):
        out.extend(field_lines(label, value, width))

    add("Job", job["id"])
    add("Name", job.get("name"))
    add("Owner", job.get("owner"))
    state = job["state"]
    if job.get("failureReason"):
        state += " (%s)" % job["failureReason"]
    if job.get("exitCode") is not None:
        state += ", exit %s" % job["exitCode"]
    retry = job.get("retry") or {}
    state += ", attempt %s of %s" % (job.get("attempt", 1), retry.get("maxAttempts", 1))
    add("State", state)
    add("Queued", job.get("queuedReason"))
    add("Command", " ".join(shlex.quote(a) for a in job.get("command") or []))
    add("Directory", job.get("workingDir"))
    add("Framework", job.get("framework"))
    add("Resources", _resources_words(job.get("resources") or {}))
    if job.get("effectiveResources") and job.get("effectiveResources") != job.get("resources"):
        add("Now gets", _resources_words(job["effectiveResources"]))
    attempts = job.get("attempts") or []
    # The current attempt's cores and host memory cap, once its worker has started.
    current = attempts[-1] if attempts else None
    cores = (current or {}).get("cores")
    if cores:
        add("Cores", "%s (bound by %s)" % (cores.get("cpus"), cores.get("boundBy")))
    cap = (job.get("effectiveResources") or job.get("resources") or {}).get("memory")
    if cap is not None:
        add("Memory cap", "%s of host memory" % fmt_size(cap))
    placement = job.get("placement")
    if placement:
        gpus = ", ".join("GPU %s (%s of %s)" % (g.get("index"), fmt_size(g.get("memoryBytes")),
                                                fmt_size(g.get("totalBytes")))
                         for g in placement.get("gpus") or [])
        words = placement.get("node", "")
        if gpus:
            words += ": " + gpus
        if placement.get("memoryFraction") is not None:
            words += ", memory fraction %g" % placement["memoryFraction"]
        add("Placement", words)
    if job.get("peakGpuMemoryBytes") is not None:
        add("Peak", fmt_size(job["peakGpuMemoryBytes"]) + " of GPU memory")
    add("Priority", job.get("priority"))
    add("Timeout", job.get("timeout"))
    if retry:
        add("Retry", "%s attempts, budget x%g after running out of memory"
            % (retry.get("maxAttempts"), retry.get("oomGrowth", 1.5)))
    add("Labels", ", ".join("%s=%s" % kv for kv in sorted((job.get("labels") or {}).items())))
    if job.get("sweep"):
        params = " ".join("%s=%s" % (k, fmt_value(v))
                          for k, v in (job.get("parameters") or {}).items())
        add("Sweep", "%s trial %s %s" % (job["sweep"], job.get("trial"), params))
    add("Created", _when(job.get("createdAt"), now))
    add("Started", _when(job.get("startedAt"), now))
    add("Finished", _when(job.get("finishedAt"), now))
    if job.get("startedAt"):
        add("Ran", fmt_duration(seconds_between(job["startedAt"], job.get("finishedAt") or now)))
    metrics = job.get("metrics")
    if metrics:
        words = " ".join("%s=%s" % (k, fmt_number(v))
                         for k, v in (metrics.get("latest") or {}).items())
        if metrics.get("step") is not None:
            words = "step %s: %s" % (metrics["step"], words)
        if metrics.get("best"):
            words += "; sweep's best " + " ".join(
                "%s=%s" % (k, fmt_number(v)) for k, v in metrics["best"].items())
        add("Metrics", words)
    add("Failure", job.get("failureMessage"))
    if attempts:
        out.append("Attempts:")
        rows = []
        for a in attempts:
            outcome = a.get("outcome") or "RUNNING"
            if a.get("failureReason"):
                outcome += " " + a["failureReason"]
            rows.append([str(a.get("attempt")), outcome,
                         "" if a.get("exitCode") is None else str(a["exitCode"]),
                         a.get("node") or "", fmt_size(a.get("budgetBytes")),
                         fmt_size(a.get("peakGpuMemoryBytes")),
                         fmt_duration(seconds_between(a.get("startedAt"),
                                                      a.get("finishedAt") or now))
                         if a.get("startedAt") else "-"])
        table = render_table(["#", "OUTCOME", "EXIT", "NODE", "BUDGET", "PEAK", "RAN"], rows)
        out.extend("  " + line for line in table.splitlines())
        for a in attempts:
            if a.get("failureMessage") and len(attempts) > 1:
                out.append("  %s: %s" % (a.get("attempt"), a["failureMessage"]))
    return "\n".join(out)


def field_lines(label, value, width):
    """`Label       value`, wrapped under the value's first column; nothing for no value."""
    if value in (None, "", [], {}):
        return []
    return textwrap.wrap("%-11s %s" % (label, gpuq.printable(value)), width,
                         subsequent_indent=" " * 12,
                         break_on_hyphens=False, break_long_words=False)


def _resources_words(resources):
    gpus = resources.get("gpus", 1)
    if gpus == 0:
        words = "no GPU (CPU only)"
    else:
        words = "%d GPU%s" % (gpus, "" if gpus == 1 else "s")
        if resources.get("gpuMemory") is not None:
            words += ", %s each" % fmt_size(resources["gpuMemory"])
        elif resources.get("gpuFraction") is not None:
            words += ", %g of each" % resources["gpuFraction"]
        else:
            words += ", whole"
    if resources.get("cpus") is not None:
        words += "; " + fmt_cores(resources["cpus"])
    if resources.get("memory") is not None:
        words += ", %s of host memory" % fmt_size(resources["memory"])
    return words


def _when(instant, now):
    if not instant:
        return None
    return "%s (%s ago)" % (instant, fmt_duration(seconds_between(instant, now)))


def format_gpus(gpus, jobs, width=DEFAULT_WIDTH):
    """`gpuq gpus`: per node its GPUs with a memory bar, then the processes on them.

    jobs: {jobId: job or None}, for each process's owner and name.
    """
    out = []
    nodes = []
    for g in gpus:
        if g.get("node") not in nodes:
            nodes.append(g.get("node"))
    for node in nodes:
        on_node = [g for g in gpus if g.get("node") == node]
        out.append("%s (%d GPU%s)" % (node, len(on_node), "" if len(on_node) == 1 else "s"))
        rows = []
        for g in on_node:
            used, reserved, total = (g.get("memoryUsedBytes") or 0, g.get("memoryReservedBytes") or 0,
                                     g.get("memoryTotalBytes") or 0)
            rows.append([str(g.get("index")), g.get("name") or "",
                         bar(used, reserved, total, 16),
                         fmt_size(used), fmt_size(reserved), fmt_size(total),
                         "%d%%" % round(100 * (g.get("utilization") or 0))])
        out.append(render_table(["GPU", "NAME", "MEMORY #used -reserved", "USED", "RESERVED",
                                 "TOTAL", "UTIL"], rows, width))
        processes = []
        for g in on_node:
            for p in g.get("processes") or []:
                job = jobs.get(p.get("jobId")) or {}
                processes.append([str(g.get("index")), str(p.get("pid")), p.get("jobId") or "-",
                                  job.get("owner") or "-", job.get("name") or "-",
                                  fmt_size(p.get("memoryUsedBytes"))])
        out.append("")
        if processes:
            out.append(render_table(["GPU", "PID", "JOB", "OWNER", "NAME", "MEMORY"], processes,
                                    width))
        else:
            out.append("No processes.")
        out.append("")
    return "\n".join(out).rstrip("\n") if out else "No GPUs."


# standing.dominantResource (docs/api.md, Owners) in a few letters.
_RESOURCE_WORDS = {"GPU_MEMORY": "gpu-mem", "WHOLE_GPUS": "gpus", "CPU_SLOTS": "cpu-slots",
                   "CORES": "cores", "HOST_MEMORY": "host-mem"}


def fmt_percent(fraction):
    return "-" if fraction is None else "%d%%" % round(100 * fraction)


def fmt_gpus(gpus):
    """GPUs held, whole plus parts of shared ones: `2`, `0.625`."""
    return "-" if gpus is None else "%.4g" % gpus


def format_owners(answer, width=DEFAULT_WIDTH):
    """`gpuq owners`: each owner's share, jobs, holdings and standing, then the totals.

    A submitter's answer holds their own row alone; the totals are everyone's.
    """
    headers = ["OWNER", "SHARE", "RUN", "QUEUED", "GPUS", "GPU-MEM", "CORES", "HOST-MEM",
               "RECENT", "DOMINANT", "POSITION"]
    rows = []
    for o in answer.get("owners") or []:
        standing = o.get("standing") or {}
        resource = standing.get("dominantResource")
        rows.append([o.get("owner") or "", "%g" % o.get("share", 1), str(o.get("runningJobs", 0)),
                     str(o.get("queuedJobs", 0)), fmt_gpus(o.get("gpus")),
                     fmt_size(o.get("gpuMemoryBytes")), str(o.get("cpus", 0)),
                     fmt_size(o.get("memoryBytes")), fmt_percent(o.get("recentUsage")),
                     "%s %s" % (fmt_percent(standing.get("dominantShare")),
                                _RESOURCE_WORDS.get(resource, resource)) if resource else "-",
                     "%.3g" % standing.get("position", 0)])
    totals = answer.get("totals") or {}
    if totals:
        rows.append(["(all)", "", str(totals.get("runningJobs", 0)),
                     str(totals.get("queuedJobs", 0)), fmt_gpus(totals.get("gpus")),
                     fmt_size(totals.get("gpuMemoryBytes")), str(totals.get("cpus", 0)),
                     fmt_size(totals.get("memoryBytes")), "", "", ""])
    out = [render_table(headers, rows, width)]
    capacity = totals.get("capacity")
    if capacity:
        out.append("")
        out.append("Capacity: %s GPU%s, %s of GPU memory, %s CPU slot%s" % (
            capacity.get("gpus"), "" if capacity.get("gpus") == 1 else "s",
            fmt_size(capacity.get("gpuMemoryBytes")), capacity.get("cpuSlots"),
            "" if capacity.get("cpuSlots") == 1 else "s"))
    return "\n".join(out)


def format_nodes(nodes, width=DEFAULT_WIDTH):
    """`gpuq nodes`: each node's cores and host memory: what it gives its jobs (allocatable),
    what its running jobs asked (allocated), what its workers use (an admin's figure)."""
    rows = []
    for n in nodes:
        cpus, memory = n.get("cpus") or {}, n.get("memory") or {}
        used_cpus = cpus.get("used")
        rows.append([n.get("name") or "",
                     "%s/%s" % (cpus.get("allocated", 0), fmt_number(cpus.get("allocatable"))),
                     "-" if used_cpus is None else "%.1f" % used_cpus,
                     "%s/%s" % (fmt_size(memory.get("allocated") or 0),
                                fmt_size(memory.get("allocatable"))),
                     fmt_size(memory.get("used")),
                     ",".join("%s=%s" % kv for kv in sorted((n.get("labels") or {}).items()))])
    if not rows:
        return "No nodes."
    # CORES and HOST-MEM read allocated/allocatable, as `gpuq gpus` reads used of total.
    return render_table(["NODE", "CORES", "CPU-USED", "HOST-MEM", "MEM-USED", "LABELS"], rows,
                        width)


def format_sweeps(sweeps, now, width=DEFAULT_WIDTH):
    rows = []
    for s in sweeps:
        counts = s.get("trials") or {}
        ended = sum(counts.get(k, 0) for k in ("SUCCEEDED", "FAILED", "CANCELLED", "PRUNED"))
        best = s.get("best") or {}
        metric = (s.get("metric") or {}).get("name")
        rows.append([s["id"], s.get("name") or "", s.get("state") or "",
                     "%d/%d" % (ended, counts.get("total", 0)),
                     "%d" % counts.get("RUNNING", 0),
                     ("%s=%s" % (metric, fmt_number(best.get("value"))))
                     if best.get("value") is not None else "-",
                     fmt_duration(seconds_between(s.get("createdAt"), now))])
    return render_table(["ID", "NAME", "STATE", "ENDED", "RUN", "BEST", "AGE"], rows, width)


def format_sweep(sweep, now, width=DEFAULT_WIDTH):
    counts = sweep.get("trials") or {}
    out = ["%-11s %s" % ("Sweep", sweep["id"])]

    def add(label, value):
        out.extend(field_lines(label, value, width))

    add("Name", sweep.get("name"))
    add("Owner", sweep.get("owner"))
    state = sweep.get("state")
    if sweep.get("closed") is False:
        state += " (open for trials)"
    add("State", state)
    add("Method", sweep.get("method") + (" (seed %s)" % sweep["seed"]
                                         if sweep.get("seed") is not None else ""))
    progress = sweep.get("progress") or 0
    add("Progress", "%s %d%% of %d trials ended" % (bar(progress, 0, 1, 20), round(100 * progress),
                                                    counts.get("total", 0)))
    add("Trials", ", ".join("%d %s" % (counts.get(k, 0), k.lower()) for k in STATES))
    add("Max running", sweep.get("maxConcurrent"))
    metric = sweep.get("metric")
    if metric:
        add("Metric", "%s (%s)" % (metric.get("name"), metric.get("goal")))
    stopping = sweep.get("earlyStopping")
    if stopping:
        add("Stopping", " ".join("%s=%s" % kv for kv in stopping.items()))
    best = sweep.get("best")
    if best:
        add("Best", format_best(best, sweep))
    add("Created", _when(sweep.get("createdAt"), now))
    add("Finished", _when(sweep.get("finishedAt"), now))
    return "\n".join(out)


def format_best(best, sweep=None):
    metric = ((sweep or {}).get("metric") or {}).get("name", "value")
    params = " ".join("%s=%s" % (k, fmt_value(v)) for k, v in (best.get("parameters") or {}).items())
    return "trial %s (job %s): %s=%s at step %s; %s" % (
        best.get("trial"), best.get("jobId"), metric, fmt_number(best.get("value")),
        fmt_number(best.get("step")), params)


def format_trials(trials, width=DEFAULT_WIDTH):
    """Trial rows as the API gives them: a column per parameter."""
    names = []
    for t in trials:
        for name in t.get("parameters") or {}:
            if name not in names:
                names.append(name)
    headers = ["TRIAL", "JOB", "STATE"] + names + ["VALUE", "BEST", "STEP"]
    rows = []
    for t in trials:
        params = t.get("parameters") or {}
        rows.append([str(t.get("trial")), t.get("jobId") or "", t.get("state") or ""]
                    + [fmt_value(params[n]) if n in params else "" for n in names]
                    + [fmt_number(t.get("value")), fmt_number(t.get("bestValue")),
                       fmt_number(t.get("step"))])
    return render_table(headers, rows, width, flexible=names)


# ---- parsing what users type ------------------------------------------------------------------

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


def fmt_cores(cpus):
    """1 core, 4 cores, 0.25 core, 1.5 cores: as many as the job asked for, never rounded."""
    number = ("%d" % cpus) if cpus == int(cpus) else ("%s" % cpus)
    return number + (" core" if cpus <= 1 else " cores")


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


def job_body_options(args):
    """The job fields of submit, run and sweep create's options."""
    fields = {}
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
    return client._json("POST", "/api/v1/jobs", body=body,
                        headers=gpuq._idempotency(args.idempotency_key))


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
        sweep = client._json("POST", "/api/v1/sweeps", body=body,
                             headers=gpuq._idempotency(args.idempotency_key))
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
    label_query = [("label", "%s:%s" % kv) for kv in labels]
    found = []
    for state in states or [None]:
        query = ([("state", state)] if state else []) + label_query
        query.append(("limit", str(min(PAGE, limit or PAGE))))
        count = 0
        for job in client._pages("/api/v1/jobs", query):
            found.append(client._job(job))
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
    job = client.get(args.id)
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
    job = client._job(client._json("POST", "/api/v1/jobs/%s/requeue" % gpuq._quote(args.id)))
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
    gpus = client._json("GET", "/api/v1/gpus")
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


def cmd_login(client, args):
    if args.token_stdin or not sys.stdin.isatty():
        token = sys.stdin.readline().strip()
    else:
        token = getpass.getpass("Token for %s: " % args.login_url).strip()
    if not token:
        raise UsageError("no token given")
    checked = Client(args.login_url, token=token)
    checked.token_source = "the token given to login"
    checked._json("GET", "/api/v1/jobs?limit=1")
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
    sweep = client._json("POST", "/api/v1/sweeps", body=body,
                         headers=gpuq._idempotency(args.idempotency_key))
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
    query = [("limit", str(min(PAGE, args.limit or PAGE)))]
    if args.order:
        query.append(("order", args.order))
    if args.state:
        query.append(("state", args.state.upper()))
    trials = []
    for t in client._pages("/api/v1/sweeps/%s/trials" % gpuq._quote(args.sweep), query):
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
    g.add_argument("--idempotency-key", metavar="KEY",
                   help="a repeated submit with the same key creates nothing new")


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

    p = commands.add_parser("show", help="one job in words")
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

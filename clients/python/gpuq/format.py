"""What the `gpuq` command prints: pure functions of API answers (the golden tests call them).

Everything a server or a job may have written goes through gpuq.printable (control characters
escaped), so that it cannot drive the terminal. Standard library only.
"""

import datetime
import json
import re
import shlex
import textwrap

from . import client as gpuq

DEFAULT_WIDTH = 80
ELLIPSIS = "\u2026"
STATES = ("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "PRUNED")
QUEUE_COLUMNS = ("ID", "NAME", "OWNER", "STATE", "GPUS", "GPU-MEM", "TIME", "REASON")
# Shrunk first, in this order, when a table is wider than the terminal.
FLEXIBLE = ("REASON", "NAME", "OWNER", "COMMAND", "NODE", "LABELS")


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
    (re.compile(r"waiting for (job|sweep) \S+ to |its dependencies are met"), "Dependency"),
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
    raise ValueError("unknown column %s" % column)


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
    # Each dependency as the command that shows it (issue 37).
    add("Depends on", ", ".join(
        "%s: gpuq %s" % (d.get("condition"), "show " + d["job"] if d.get("job")
                         else "sweep show " + str(d.get("sweep")))
        for d in job.get("dependsOn") or []))
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


def fmt_cores(cpus):
    """1 core, 4 cores, 0.25 core, 1.5 cores: as many as the job asked for, never rounded."""
    number = ("%d" % cpus) if cpus == int(cpus) else ("%s" % cpus)
    return number + (" core" if cpus <= 1 else " cores")

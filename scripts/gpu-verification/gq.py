"""Small client for run.sh: talks to gpuq (standard library only) and compares its GPU figures
with nvidia-smi's. Every check prints PASS/FAIL lines itself and exits 1 when it fails.

Environment: GQ_URL (http://127.0.0.1:PORT), GQ_TOKEN (an admin token).

usage:
  gq.py health EXPECTED_BACKEND          print the gpu health details; backend must match
  gq.py get PATH                         GET an API path, print the JSON
  gq.py submit JSON                      submit a job, print its id
  gq.py wait SECONDS ID...               wait until all ended; print a summary of each
  gq.py expect ID STATE [REASON]         the job ended in STATE (and failureReason REASON)
  gq.py job ID                           print the job's main fields as JSON
  gq.py running ID...                    print how many of them are RUNNING
  gq.py budget ID                        print the job's budget per GPU in bytes
  gq.py compare-gpus SMI_CSV             /api/v1/gpus against nvidia-smi --query-gpu (MiB)
  gq.py compare-procs SMI_CSV [ID...]    gpuq's processes against nvidia-smi --query-compute-apps
  gq.py prom NAME...                     print /actuator/prometheus lines of these metrics
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request

MIB = 1024 * 1024
URL = os.environ.get("GQ_URL", "http://127.0.0.1:18080")
TOKEN = os.environ.get("GQ_TOKEN", "")
ENDED = ("SUCCEEDED", "FAILED", "CANCELLED")


def request(path, body=None, auth=True, accept="application/json"):
    headers = {"Accept": accept}
    if auth:
        headers["Authorization"] = "Bearer " + TOKEN
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(URL + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.read().decode()
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")
        raise SystemExit("FAIL HTTP %s %s: %s" % (error.code, path, detail))


def get_json(path, auth=True):
    return json.loads(request(path, auth=auth))


def summary(job):
    keys = ("id", "name", "state", "failureReason", "failureMessage", "exitCode", "attempt",
            "peakGpuMemoryBytes", "placement")
    return {key: job.get(key) for key in keys}


def health(expected):
    body = get_json("/actuator/health", auth=False)
    gpu = body.get("components", {}).get("gpu", {})
    print("gpu health: " + json.dumps(gpu))
    backend = gpu.get("details", {}).get("backend")
    ok = body.get("status") == "UP" and str(backend).lower() == expected
    print("%s health UP with backend %s (expected %s)" % ("PASS" if ok else "FAIL", backend, expected))
    return 0 if ok else 1


def wait(seconds, ids):
    deadline = time.time() + seconds
    most_running = 0
    while True:
        jobs = [get_json("/api/v1/jobs/" + i) for i in ids]
        running = sum(1 for j in jobs if j["state"] == "RUNNING")
        most_running = max(most_running, running)
        if all(j["state"] in ENDED for j in jobs) or time.time() > deadline:
            break
        time.sleep(0.5)
    for job in jobs:
        print(json.dumps(summary(job)))
    print("most jobs RUNNING at once: %d of %d" % (most_running, len(ids)))
    ended = all(j["state"] in ENDED for j in jobs)
    if not ended:
        print("FAIL jobs still not ended after %ss" % seconds)
    return 0 if ended else 1


def expect(job_id, state, reason=None):
    job = get_json("/api/v1/jobs/" + job_id)
    ok = job["state"] == state and (reason is None or job.get("failureReason") == reason)
    want = state + ("/" + reason if reason else "")
    print("%s job %s (%s) is %s/%s, expected %s" % ("PASS" if ok else "FAIL", job_id, job.get("name"),
                                                     job["state"], job.get("failureReason"), want))
    return 0 if ok else 1


def read_csv(path):
    rows = []
    with open(path) as lines:
        for line in lines:
            if line.strip():
                rows.append([cell.strip() for cell in line.split(",")])
    return rows


def compare_gpus(smi_csv):
    """nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used --format=csv,noheader,nounits"""
    api = {g["uuid"]: g for g in get_json("/api/v1/gpus")}
    smi = {row[1]: row for row in read_csv(smi_csv)}
    print("%-6s %-42s %-22s %14s %14s %12s %12s" % (
        "index", "uuid", "name", "total MiB smi", "total MiB gpuq", "used MiB smi", "used MiB gpuq"))
    ok = set(api) == set(smi) and len(api) > 0
    if not ok:
        print("FAIL UUIDs differ: gpuq %s, nvidia-smi %s" % (sorted(api), sorted(smi)))
    for uuid in sorted(set(api) & set(smi)):
        g, row = api[uuid], smi[uuid]
        total_smi, used_smi = int(row[3]), int(float(row[4]))
        total_api, used_api = g["memoryTotalBytes"] / MIB, g["memoryUsedBytes"] / MIB
        print("%-6s %-42s %-22s %14d %14.1f %12d %12.1f" % (
            row[0], uuid, row[2], total_smi, total_api, used_smi, used_api))
        tolerance = max(1024, 0.02 * total_smi)  # NVML v1/v2 count driver-reserved memory differently
        checks = [
            (g["name"] == row[2], "name %r vs %r" % (g["name"], row[2])),
            (str(g["index"]) == row[0], "index %s vs %s" % (g["index"], row[0])),
            (abs(total_api - total_smi) < 1, "total %.1f MiB vs %d MiB" % (total_api, total_smi)),
            (abs(used_api - used_smi) <= tolerance,
             "used %.1f MiB vs %d MiB (tolerance %.0f MiB)" % (used_api, used_smi, tolerance)),
        ]
        for good, what in checks:
            print("%s %s %s" % ("PASS" if good else "FAIL", uuid, what))
            ok = ok and good
    return 0 if ok else 1


def compare_procs(smi_csv, job_ids):
    """nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits"""
    smi = {int(row[0]): float(row[1]) for row in read_csv(smi_csv) if row[0].isdigit()}
    api = {}
    for gpu in get_json("/api/v1/gpus"):
        for proc in gpu.get("processes", []):
            api[int(proc["pid"])] = (proc["memoryUsedBytes"] / MIB, proc.get("jobId"), gpu["index"])
    print("%-8s %-28s %6s %14s %14s" % ("pid", "job", "gpu", "MiB smi", "MiB gpuq"))
    for pid in sorted(set(smi) | set(api)):
        mib_api, job, index = api.get(pid, (None, None, None))
        print("%-8s %-28s %6s %14s %14s" % (pid, job, index, smi.get(pid), mib_api))
    ok = len(smi) > 0 and set(smi) == set(api)
    if not ok:
        print("FAIL pids differ: only nvidia-smi %s, only gpuq %s"
              % (sorted(set(smi) - set(api)), sorted(set(api) - set(smi))))
    for pid in sorted(set(smi) & set(api)):
        tolerance = max(256, 0.05 * smi[pid])
        good = abs(api[pid][0] - smi[pid]) <= tolerance
        print("%s pid %d: %.1f MiB gpuq vs %.1f MiB nvidia-smi (tolerance %.0f MiB)"
              % ("PASS" if good else "FAIL", pid, api[pid][0], smi[pid], tolerance))
        ok = ok and good
    known = {job for _, job, _ in api.values()}
    for job_id in job_ids:
        good = job_id in known
        print("%s job %s has a process on a GPU" % ("PASS" if good else "FAIL", job_id))
        ok = ok and good
    return 0 if ok else 1


def prom(names):
    text = request("/actuator/prometheus", auth=False, accept="text/plain")
    found = 0
    for line in text.splitlines():
        if any(line.startswith(name + "{") or line.startswith(name + " ") for name in names):
            print(line)
            found += 1
    print("%s %d lines of %s" % ("PASS" if found else "FAIL", found, ", ".join(names)))
    return 0 if found else 1


def main(argv):
    command, args = argv[1], argv[2:]
    if command == "health":
        return health(args[0])
    if command == "get":
        print(json.dumps(get_json(args[0]), indent=1))
        return 0
    if command == "submit":
        print(json.loads(request("/api/v1/jobs", body=json.loads(args[0])))["id"])
        return 0
    if command == "wait":
        return wait(float(args[0]), args[1:])
    if command == "expect":
        return expect(*args)
    if command == "job":
        print(json.dumps(summary(get_json("/api/v1/jobs/" + args[0])), indent=1))
        return 0
    if command == "running":
        print(sum(1 for i in args if get_json("/api/v1/jobs/" + i)["state"] == "RUNNING"))
        return 0
    if command == "budget":
        print(get_json("/api/v1/jobs/" + args[0])["placement"]["gpus"][0]["memoryBytes"])
        return 0
    if command == "compare-gpus":
        return compare_gpus(args[0])
    if command == "compare-procs":
        return compare_procs(args[0], args[1:])
    if command == "prom":
        return prom(args)
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))

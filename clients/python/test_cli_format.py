"""Golden-output tests of the gpuq command's tables and texts, on fixed API answers.

    python3 -m unittest -v clients/python/test_cli_format.py

No gpuq needed: each test formats answers written here as GET /api/v1/... gives them, at a fixed
"now", for an 80-column terminal, and compares with the text a user sees. The Maven build runs this
file (io.gpuq.ship.PythonCliFormatTest); test_cli.py runs the command against a live gpuq.
"""

import datetime
import io
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpuq  # noqa: E402
from gpuq import cli as gpuq_cli  # noqa: E402

NOW = datetime.datetime(2026, 12, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)
GIB = 1024 ** 3
SWEEP = "01JEZ5SWEEP0000000000000AB"


def a_job(job_id, name="train", state="QUEUED", created="2026-12-01T11:50:00Z", **fields):
    """A job as GET /api/v1/jobs/{id} answers, with fields overridden."""
    job = {"id": job_id, "name": name, "owner": "alice", "state": state, "queuedReason": None,
           "failureReason": None, "failureMessage": None, "exitCode": None, "attempt": 1,
           "command": ["python3", "train.py"], "workingDir": "/data/exp", "framework": "jax",
           "resources": {"gpus": 1, "gpuMemory": 6 * GIB, "gpuFraction": None},
           "effectiveResources": {"gpus": 1, "gpuMemory": 6 * GIB, "gpuFraction": None},
           "priority": 0, "timeout": None, "retry": {"maxAttempts": 1, "oomGrowth": 1.5},
           "labels": {}, "nodeSelector": {}, "placement": None, "peakGpuMemoryBytes": None,
           "createdAt": created, "startedAt": None, "finishedAt": None, "attempts": [],
           "metrics": None}
    job.update(fields)
    return job


CPU_ONLY = {"gpus": 0, "gpuMemory": None, "gpuFraction": None}


def a_trial(n, state="QUEUED"):
    return a_job("01JEZ7AAAAAAAAAAAAAAAAAB%02d" % n, "arr", state, "2026-12-01T11:30:%02dZ" % n,
                 sweep=SWEEP, trial=n, parameters={"i": n}, resources=CPU_ONLY,
                 effectiveResources=CPU_ONLY,
                 queuedReason="sweep at maxConcurrent 8" if state == "QUEUED" else None)


QUEUE = [
    a_job("01JEZ6AAAAAAAAAAAAAAAAAAA1", "sac-humanoid-seed1-with-a-very-long-name", "RUNNING",
          startedAt="2026-12-01T11:56:48.123456789Z",
          placement={"node": "gpu-node-1", "gpus": [{"index": 0, "uuid": "GPU-1",
                                                     "memoryBytes": 6 * GIB,
                                                     "totalBytes": 16 * GIB}],
                     "memoryFraction": 0.375}),
    a_job("01JEZ6AAAAAAAAAAAAAAAAAAA2", "big", created="2026-12-01T11:40:00Z",
          owner="bob-with-a-long-account-name",
          queuedReason="waiting for 6GiB on one GPU; most free is 4.09GiB on GPU 1 of node a"),
] + [a_trial(n) for n in range(12, 17)] + [
    a_job("01JEZ6AAAAAAAAAAAAAAAAAAA3", "oom", "FAILED", "2026-12-01T10:00:00Z",
          startedAt="2026-12-01T10:00:01Z", finishedAt="2026-12-01T10:03:13Z",
          failureReason="OUT_OF_MEMORY", exitCode=1,
          effectiveResources={"gpus": 2, "gpuMemory": None, "gpuFraction": 0.25}),
    a_job("01JEZ6AAAAAAAAAAAAAAAAAAA4", "three", "FAILED", "2026-12-01T09:00:00Z",
          startedAt="2026-12-01T09:00:01Z", finishedAt="2026-12-01T11:00:01Z",
          failureReason="EXIT_CODE", exitCode=3,
          effectiveResources={"gpus": 1, "gpuMemory": None, "gpuFraction": None}),
]

GPUS = [
    {"node": "gpu-node-1", "index": 0, "uuid": "GPU-a", "name": "NVIDIA H200", "backend": "nvml",
     "memoryTotalBytes": 141 * GIB, "memoryUsedBytes": 51 * GIB // 10,
     "memoryReservedBytes": 24 * GIB, "utilization": 0.63,
     "processes": [{"pid": 4242, "jobId": "01JEZ6AAAAAAAAAAAAAAAAAAA1",
                    "memoryUsedBytes": 51 * GIB // 10},
                   {"pid": 999, "jobId": None, "memoryUsedBytes": GIB // 2}]},
    {"node": "gpu-node-1", "index": 1, "uuid": "GPU-b", "name": "NVIDIA H200", "backend": "nvml",
     "memoryTotalBytes": 141 * GIB, "memoryUsedBytes": 0, "memoryReservedBytes": 0,
     "utilization": 0.0, "processes": []},
    {"node": "gpu-node-2", "index": 0, "uuid": "GPU-c", "name": "Emulated GPU",
     "backend": "emulated", "memoryTotalBytes": 16 * GIB, "memoryUsedBytes": 8 * GIB,
     "memoryReservedBytes": 8 * GIB, "utilization": 1.0,
     "processes": [{"pid": 77, "jobId": "01JEZ6AAAAAAAAAAAAAAAAAAZZ",
                    "memoryUsedBytes": 8 * GIB}]},
]

A_SWEEP = {
    "id": SWEEP, "name": "lr-search", "method": "grid", "state": "RUNNING",
    "trials": {"total": 6, "QUEUED": 2, "RUNNING": 1, "SUCCEEDED": 2, "FAILED": 0,
               "CANCELLED": 0, "PRUNED": 1},
    "metric": {"name": "val_loss", "goal": "minimize"},
    "best": {"jobId": "01JEZ7AAAAAAAAAAAAAAAAAB01", "trial": 1,
             "parameters": {"lr": 0.003, "layers": 3}, "value": 0.2871, "step": 4},
    "owner": "alice", "progress": 0.5, "maxConcurrent": 2, "seed": None,
    "earlyStopping": {"type": "median", "startupTrials": 5, "warmupSteps": 10},
    "closed": True, "cancelledAt": None, "createdAt": "2026-12-01T11:00:00Z", "finishedAt": None,
}

TRIALS = [
    {"jobId": "01JEZ7AAAAAAAAAAAAAAAAAB%02d" % n, "trial": n,
     "parameters": {"lr": lr, "layers": layers, "optimizer": "adam"}, "state": state,
     "value": value, "bestValue": value, "step": None if value is None else 4}
    for n, (lr, layers, state, value) in enumerate([
        (0.1, 1, "SUCCEEDED", 0.5), (0.003, 3, "SUCCEEDED", 0.2871), (0.1, 3, "PRUNED", 0.9),
        (0.003, 1, "RUNNING", None)])
]

OOM_JOB = a_job(
    "01JEZ6AAAAAAAAAAAAAAAAAAA3", "oom", "FAILED", "2026-12-01T10:00:00Z", attempt=2,
    startedAt="2026-12-01T10:00:01Z", finishedAt="2026-12-01T10:03:13Z",
    failureReason="OUT_OF_MEMORY", exitCode=1, retry={"maxAttempts": 2, "oomGrowth": 1.5},
    effectiveResources={"gpus": 1, "gpuMemory": 9 * GIB, "gpuFraction": None},
    failureMessage="exited with code 1; its budget was 9GiB on GPU 0; GPU out of memory"
                   " (PyTorch: OutOfMemoryError): torch.OutOfMemoryError: CUDA out of memory",
    peakGpuMemoryBytes=9000000000, labels={"team": "rl"},
    metrics={"latest": {"val_loss": 0.31}, "step": 100},
    attempts=[
        {"attempt": 1, "node": "gpu-node-1", "placement": None, "budgetBytes": 6 * GIB,
         "pid": 1, "startedAt": "2026-12-01T09:58:00Z", "finishedAt": "2026-12-01T09:59:00Z",
         "outcome": "FAILED", "failureReason": "OUT_OF_MEMORY",
         "failureMessage": "exited with code 1; its budget was 6GiB on GPU 0", "exitCode": 1,
         "peakGpuMemoryBytes": 6000000000},
        {"attempt": 2, "node": "gpu-node-1", "placement": None, "budgetBytes": 9 * GIB,
         "pid": 2, "startedAt": "2026-12-01T10:00:01Z", "finishedAt": "2026-12-01T10:03:13Z",
         "outcome": "FAILED", "failureReason": "OUT_OF_MEMORY",
         "failureMessage": "exited with code 1; its budget was 9GiB on GPU 0", "exitCode": 1,
         "peakGpuMemoryBytes": 9000000000}])

# A running job that asked for cores and host memory (issue 27), bound to its cores by a cgroup.
HOST_JOB = a_job(
    "01JEZ6AAAAAAAAAAAAAAAAAAA4", "prep", "RUNNING", "2026-12-01T11:00:00Z",
    startedAt="2026-12-01T11:00:02Z",
    resources={"gpus": 0, "gpuMemory": None, "gpuFraction": None, "cpus": 4,
               "memory": 16 * GIB},
    effectiveResources={"gpus": 0, "gpuMemory": None, "gpuFraction": None, "cpus": 4,
                        "memory": 16 * GIB},
    placement={"node": "gpu-node-1", "gpus": []},
    attempts=[{"attempt": 1, "node": "gpu-node-1", "placement": None, "budgetBytes": None,
               "pid": 7, "startedAt": "2026-12-01T11:00:02Z", "finishedAt": None,
               "outcome": None, "failureReason": None, "failureMessage": None,
               "exitCode": None, "peakGpuMemoryBytes": None,
               "cores": {"cpus": "2-5", "boundBy": "cgroup"}}])

# GET /api/v1/owners as an admin reads it (docs/api.md, Owners).
OWNERS = {
    "at": "2026-12-01T12:00:00Z",
    "owners": [
        {"owner": "root", "share": 1.0, "runningJobs": 0, "queuedJobs": 0, "gpus": 0.0,
         "wholeGpus": 0, "gpuMemoryBytes": 0, "cpus": 0, "memoryBytes": 0, "recentUsage": 0.0,
         "standing": {"position": 0.0, "dominantShare": 0.0, "dominantResource": None}},
        {"owner": "bob", "share": 1.0, "runningJobs": 1, "queuedJobs": 0, "gpus": 0.125,
         "wholeGpus": 0, "gpuMemoryBytes": 2 * GIB, "cpus": 1, "memoryBytes": 0,
         "recentUsage": 0.01,
         "standing": {"position": 0.0725, "dominantShare": 0.0625,
                      "dominantResource": "GPU_MEMORY"}},
        {"owner": "alice", "share": 2.0, "runningJobs": 2, "queuedJobs": 28, "gpus": 0.5,
         "wholeGpus": 0, "gpuMemoryBytes": 8160437862, "cpus": 8, "memoryBytes": 16 * GIB,
         "recentUsage": 0.21,
         "standing": {"position": 0.4475, "dominantShare": 0.25,
                      "dominantResource": "CORES"}}],
    "totals": {"runningJobs": 3, "queuedJobs": 28, "gpus": 0.625, "wholeGpus": 0,
               "gpuMemoryBytes": 10307921510, "cpus": 9, "memoryBytes": 16 * GIB,
               "capacity": {"gpus": 2, "gpuMemoryBytes": 32 * GIB, "cpuSlots": 8}}}

# GET /api/v1/nodes as a submitter reads it: `used` is an admin's figure.
NODES = [
    {"name": "gpu-node-1", "labels": {"gpu-type": "h200"},
     "heartbeatAt": "2026-12-01T11:59:58Z",
     "cpus": {"allocatable": 31, "allocated": 24, "used": 21.7},
     "memory": {"allocatable": 486 * GIB, "allocated": 192 * GIB, "used": 160 * GIB}},
    {"name": "gpu-node-2", "labels": {"gpu-type": "a100"},
     "heartbeatAt": "2026-12-01T11:59:57Z",
     "cpus": {"allocatable": 15, "allocated": 0, "used": None},
     "memory": {"allocatable": 238 * GIB, "allocated": 0, "used": None}}]


# ---- the texts a user sees ----------------------------------------------------------------

QUEUE_80 = """\
ID                         NAME     OWNER STATE   GPUS GPU-MEM TIME   REASON
01JEZ6AAAAAAAAAAAAAAAAAAA1 sac-hum… alice RUNNING 1    6.0GiB  3m11s  gpu-node-…
01JEZ6AAAAAAAAAAAAAAAAAAA2 big      bob-… QUEUED  1    6.0GiB  20m00s Resources
01JEZ5SWEEP0000000000000AB[12-16%8] alice QUEUED  0    -       29m48s SweepLimit
01JEZ6AAAAAAAAAAAAAAAAAAA3 oom      alice FAILED  2    25%     3m12s  OUT_OF_ME…
01JEZ6AAAAAAAAAAAAAAAAAAA4 three    alice FAILED  1    whole   2h00m  exit 3
"""

QUEUE_EXPANDED = """\
ID                         STATE   TIME   REASON
01JEZ6AAAAAAAAAAAAAAAAAAA1 RUNNING 3m11s  gpu-node-1:0
01JEZ6AAAAAAAAAAAAAAAAAAA2 QUEUED  20m00s Resources
01JEZ7AAAAAAAAAAAAAAAAAB12 QUEUED  29m48s SweepLimit
01JEZ7AAAAAAAAAAAAAAAAAB13 QUEUED  29m47s SweepLimit
01JEZ7AAAAAAAAAAAAAAAAAB14 QUEUED  29m46s SweepLimit
01JEZ7AAAAAAAAAAAAAAAAAB15 QUEUED  29m45s SweepLimit
01JEZ7AAAAAAAAAAAAAAAAAB16 QUEUED  29m44s SweepLimit
01JEZ6AAAAAAAAAAAAAAAAAAA3 FAILED  3m12s  OUT_OF_MEMORY exit 1
01JEZ6AAAAAAAAAAAAAAAAAAA4 FAILED  2h00m  exit 3
"""

QUEUE_GAPPY = """\
ID                         NAME      OWNER STATE   GPUS GPU-MEM TIME   REASON
01JEZ5SWEEP0000000000000AB[0,2,…%16] alice QUEUED  0    -       30m00s SweepLim…
01JEZ6AAAAAAAAAAAAAAAAAAA1 sac-huma… alice RUNNING 1    6.0GiB  3m11s  gpu-node…
"""

GPUS_TEXT = """\
gpu-node-1 (2 GPUs)
GPU NAME        MEMORY #used -reserved USED   RESERVED TOTAL  UTIL
0   NVIDIA H200 [#--.............]     5.1GiB 24.0GiB  141GiB 63%
1   NVIDIA H200 [................]     0B     0B       141GiB 0%

GPU PID  JOB                        OWNER NAME                            MEMORY
0   4242 01JEZ6AAAAAAAAAAAAAAAAAAA1 alice sac-humanoid-seed1-with-a-very… 5.1GiB
0   999  -                          -     -                               512MiB

gpu-node-2 (1 GPU)
GPU NAME         MEMORY #used -reserved USED   RESERVED TOTAL   UTIL
0   Emulated GPU [########........]     8.0GiB 8.0GiB   16.0GiB 100%

GPU PID JOB                        OWNER NAME MEMORY
0   77  01JEZ6AAAAAAAAAAAAAAAAAAZZ -     -    8.0GiB
"""

SWEEPS_TEXT = """\
ID                         NAME      STATE   ENDED RUN BEST            AGE
01JEZ5SWEEP0000000000000AB lr-search RUNNING 3/6   1   val_loss=0.2871 1h00m
"""

SWEEP_TEXT = """\
Sweep       01JEZ5SWEEP0000000000000AB
Name        lr-search
Owner       alice
State       RUNNING
Method      grid
Progress    [##########..........] 50% of 6 trials ended
Trials      2 queued, 1 running, 2 succeeded, 0 failed, 0 cancelled, 1 pruned
Max running 2
Metric      val_loss (minimize)
Stopping    type=median startupTrials=5 warmupSteps=10
Best        trial 1 (job 01JEZ7AAAAAAAAAAAAAAAAAB01): val_loss=0.2871 at step 4;
            lr=0.003 layers=3
Created     2026-12-01T11:00:00Z (1h00m ago)
"""

TRIALS_TEXT = """\
TRIAL JOB                        STATE     lr    laye… optim… VALUE  BEST   STEP
0     01JEZ7AAAAAAAAAAAAAAAAAB00 SUCCEEDED 0.1   1     adam   0.5    0.5    4
1     01JEZ7AAAAAAAAAAAAAAAAAB01 SUCCEEDED 0.003 3     adam   0.2871 0.2871 4
2     01JEZ7AAAAAAAAAAAAAAAAAB02 PRUNED    0.1   3     adam   0.9    0.9    4
3     01JEZ7AAAAAAAAAAAAAAAAAB03 RUNNING   0.003 1     adam   -      -      -
"""

JOB_TEXT = """\
Job         01JEZ6AAAAAAAAAAAAAAAAAAA3
Name        oom
Owner       alice
State       FAILED (OUT_OF_MEMORY), exit 1, attempt 2 of 2
Command     python3 train.py
Directory   /data/exp
Framework   jax
Resources   1 GPU, 6.0GiB each
Now gets    1 GPU, 9.0GiB each
Peak        8.4GiB of GPU memory
Priority    0
Retry       2 attempts, budget x1.5 after running out of memory
Labels      team=rl
Created     2026-12-01T10:00:00Z (2h00m ago)
Started     2026-12-01T10:00:01Z (1h59m ago)
Finished    2026-12-01T10:03:13Z (1h56m ago)
Ran         3m12s
Metrics     step 100: val_loss=0.31
Failure     exited with code 1; its budget was 9GiB on GPU 0; GPU out of memory
            (PyTorch: OutOfMemoryError): torch.OutOfMemoryError: CUDA out of
            memory
Attempts:
  # OUTCOME              EXIT NODE       BUDGET PEAK   RAN
  1 FAILED OUT_OF_MEMORY 1    gpu-node-1 6.0GiB 5.6GiB 1m00s
  2 FAILED OUT_OF_MEMORY 1    gpu-node-1 9.0GiB 8.4GiB 3m12s
  1: exited with code 1; its budget was 6GiB on GPU 0
  2: exited with code 1; its budget was 9GiB on GPU 0
"""

HOST_JOB_TEXT = """\
Job         01JEZ6AAAAAAAAAAAAAAAAAAA4
Name        prep
Owner       alice
State       RUNNING, attempt 1 of 1
Command     python3 train.py
Directory   /data/exp
Framework   jax
Resources   no GPU (CPU only); 4 cores, 16.0GiB of host memory
Cores       2-5 (bound by cgroup)
Memory cap  16.0GiB of host memory
Placement   gpu-node-1
Priority    0
Retry       1 attempts, budget x1.5 after running out of memory
Created     2026-12-01T11:00:00Z (1h00m ago)
Started     2026-12-01T11:00:02Z (59m58s ago)
Ran         59m58s
Attempts:
  # OUTCOME EXIT NODE       BUDGET PEAK RAN
  1 RUNNING      gpu-node-1 -      -    59m58s
"""

OWNERS_TEXT = """\
OWNER SHARE RUN QUEUED GPUS  GPU-MEM CORES HOST-MEM RECENT DOMINANT   POSITION
root  1     0   0      0     0B      0     0B       0%     -          0
bob   1     1   0      0.125 2.0GiB  1     0B       1%     6% gpu-mem 0.0725
alice 2     2   28     0.5   7.6GiB  8     16.0GiB  21%    25% cores  0.448
(all)       3   28     0.625 9.6GiB  9     16.0GiB

Capacity: 2 GPUs, 32.0GiB of GPU memory, 8 CPU slots
"""

NODES_TEXT = """\
NODE       CORES CPU-USED HOST-MEM      MEM-USED LABELS
gpu-node-1 24/31 21.7     192GiB/486GiB 160GiB   gpu-type=h200
gpu-node-2 0/15  -        0B/238GiB     -        gpu-type=a100
"""


class GoldenOutputTest(unittest.TestCase):
    maxDiff = None

    def assertGolden(self, text, expected):
        self.assertEqual(text + "\n", expected)
        for line in text.splitlines():
            self.assertLessEqual(len(line), 80, line)

    def test_the_queue_fits_80_columns_and_collapses_a_sweeps_queued_trials_into_one_line(self):
        self.assertGolden(gpuq_cli.format_queue(QUEUE, NOW, {SWEEP: {"maxConcurrent": 8, "name": "arr"}}), QUEUE_80)

    def test_r_expands_the_trials_and_o_picks_the_columns(self):
        self.assertGolden(gpuq_cli.format_queue(QUEUE, NOW, {}, expand=True, columns=("ID", "STATE", "TIME", "REASON")), QUEUE_EXPANDED)

    def test_a_collapsed_line_too_long_for_its_room_is_cut_inside_its_brackets(self):
        self.assertGolden(gpuq_cli.format_queue([a_trial(n) for n in range(0, 21, 2)] + QUEUE[:1], NOW, {SWEEP: {"maxConcurrent": 16}}), QUEUE_GAPPY)

    def test_gpus_show_each_nodes_gpus_with_a_bar_and_their_processes(self):
        self.assertGolden(gpuq_cli.format_gpus(GPUS, {QUEUE[0]["id"]: QUEUE[0], "01JEZ6AAAAAAAAAAAAAAAAAAZZ": None}), GPUS_TEXT)

    def test_sweep_ls_shows_ended_trials_and_the_best_value(self):
        self.assertGolden(gpuq_cli.format_sweeps([A_SWEEP], NOW), SWEEPS_TEXT)

    def test_sweep_show_gives_counts_per_state_progress_and_the_best_trial(self):
        self.assertGolden(gpuq_cli.format_sweep(A_SWEEP, NOW), SWEEP_TEXT)

    def test_sweep_trials_has_a_column_per_parameter(self):
        self.assertGolden(gpuq_cli.format_trials(TRIALS), TRIALS_TEXT)

    def test_show_puts_the_job_in_words_with_its_attempts_and_failure(self):
        self.assertGolden(gpuq_cli.format_job(OOM_JOB, NOW), JOB_TEXT)

    def test_show_gives_the_cores_of_the_current_attempt_and_the_host_memory_cap(self):
        self.assertGolden(gpuq_cli.format_job(HOST_JOB, NOW), HOST_JOB_TEXT)

    def test_owners_show_share_jobs_holdings_and_standing_then_the_totals(self):
        self.assertGolden(gpuq_cli.format_owners(OWNERS), OWNERS_TEXT)

    def test_a_submitter_sees_their_own_row_and_everyones_totals(self):
        mine = dict(OWNERS, owners=[OWNERS["owners"][1]])
        lines = gpuq_cli.format_owners(mine).splitlines()
        self.assertEqual([line.split()[0] for line in lines[1:3]], ["bob", "(all)"])

    def test_nodes_show_cores_and_host_memory_allocated_of_allocatable_and_used(self):
        self.assertGolden(gpuq_cli.format_nodes(NODES), NODES_TEXT)


class UnitsTest(unittest.TestCase):

    def test_sizes_are_binary_with_one_decimal_below_100(self):
        for value, text in ((6 * GIB, "6.0GiB"), (512 * 1024 ** 2, "512MiB"), (0, "0B"),
                            (1536, "1.5KiB"), (141 * GIB, "141GiB"), (None, "-")):
            self.assertEqual(gpuq_cli.fmt_size(value), text)

    def test_durations_are_written_like_3m12s(self):
        for seconds, text in ((42, "42s"), (192, "3m12s"), (7380, "2h03m"), (273600, "3d04h"),
                              (None, "-"), (-5, "0s")):
            self.assertEqual(gpuq_cli.fmt_duration(seconds), text)

    def test_a_duration_typed_by_a_user_becomes_iso_8601(self):
        for typed, iso in (("2h", "PT2H"), ("1h30m", "PT1H30M"), ("90s", "PT90S"),
                           ("1d", "P1D"), ("PT5M", "PT5M")):
            self.assertEqual(gpuq_cli.parse_duration(typed), iso)
        with self.assertRaises(Exception):
            gpuq_cli.parse_duration("soon")

    def test_an_array_is_ranges_lists_and_steps_with_an_optional_limit(self):
        self.assertEqual(gpuq_cli.parse_array("0-99%8"), (list(range(100)), 8))
        self.assertEqual(gpuq_cli.parse_array("1,3,5"), ([1, 3, 5], None))
        self.assertEqual(gpuq_cli.parse_array("0-20:5"), ([0, 5, 10, 15, 20], None))
        for bad in ("9-1", "a-b", "0-9%0", ""):
            with self.assertRaises(Exception, msg=bad):
                gpuq_cli.parse_array(bad)

    def test_a_command_keeps_its_braces_in_an_array_except_the_index(self):
        self.assertEqual(gpuq_cli.escape_template("python -c 'print({1: {i}})'", ["i"]),
                         "python -c 'print({{1: {i}}})'")

    def test_param_values_are_json_where_they_parse(self):
        self.assertEqual(gpuq_cli.parse_param("lr=0.1,1e-3,adam,true"),
                         ("lr", [0.1, 0.001, "adam", True]))

    def test_queued_reasons_are_shortened_to_one_word(self):
        for reason, word in (
                ("waiting for 6GiB on one GPU; most free is 4.09GiB on GPU 1 of node a",
                 "Resources"),
                ("waiting for 2 whole free GPUs; none", "Resources"),
                ("sweep at maxConcurrent 16", "SweepLimit"),
                ("behind 230 queued jobs of higher priority or earlier submission", "Priority"),
                ("a GPU is reserved for job X, which has waited longest", "Reserved"),
                ("start spacing on GPU 0 of node a", "Spacing"),
                ("waiting for a free CPU slot on node a", "CpuSlot"),
                ("waiting for job 01J0000000000000000000000A to succeed", "Dependency"),
                ("waiting for sweep 01J0000000000000000000000A to end", "Dependency"),
                ("node a does not match nodeSelector {pool=a100}", "Selector"),
                ("not yet considered by a scheduling pass", "NotYet"),
                ("waiting for 4 cores; 2 free on node a", "Cores"),
                ("waiting for 1 core; 0 free on node a", "Cores"),
                ("waiting for 16GiB of host memory; 9.5GiB free on node a", "HostMemory"),
                ("cores and host memory are reserved for job X, which has waited longest",
                 "Reserved"),
                ("cores and host memory are reserved for another owner's job, which has waited"
                 " longest", "Reserved"),
                ("cannot run on node a: asks for 8 cores, this node gives its jobs 4",
                 "NodeTooSmall"),
                ("bob's turn first: alice holds 75% of the GPU memory at share 1 of 2",
                 "FairShare"),
                ("another owner's turn first: alice holds 75% of the cores at share 1 of 2",
                 "FairShare"),
                ("at your limit of 4 GPUs (max-gpus)", "Limit"),
                ("at your limit of 8 running jobs (max-running-jobs)", "Limit"),
                ("at your limit of 40GiB of GPU memory (max-gpu-memory)", "Limit")):
            self.assertEqual(gpuq_cli.short_queued_reason(reason), word)

    def test_cores_are_a_number_and_host_memory_a_size_as_gpuq_reads_one(self):
        self.assertEqual(gpuq_cli.parse_cpus("4"), 4)
        self.assertIsInstance(gpuq_cli.parse_cpus("4"), int)
        self.assertIsInstance(gpuq_cli.parse_cpus("2.0"), int)
        self.assertEqual(gpuq_cli.parse_cpus("0.25"), 0.25)
        self.assertEqual(gpuq_cli.parse_cpus("1.5"), 1.5)
        for size in ("16GiB", "512MiB", "6G", "1.5GiB", "2048", "8gb", "4Ki"):
            self.assertEqual(gpuq_cli.parse_size(size), size)
        for bad in ("0", "-2", "-0.25", "two", "nan", "inf", "0x1", ""):
            with self.assertRaises(Exception, msg=bad):
                gpuq_cli.parse_cpus(bad)
        for bad in ("lots", "16 GiBs", "-1G", "0", "G"):
            with self.assertRaises(Exception, msg=bad):
                gpuq_cli.parse_size(bad)

    def test_a_table_never_wraps_and_cuts_with_an_ellipsis(self):
        table = gpuq_cli.render_table(["ID", "NAME"], [["x" * 50, "y" * 200]], width=80)
        self.assertEqual(table.splitlines()[1], "x" * 50 + " " + "y" * 28 + "\u2026")


class CommandLineTest(unittest.TestCase):

    def test_the_version_is_the_packages(self):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyproject.toml"),
                  encoding="utf-8") as f:
            declared = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
        self.assertEqual(gpuq.__version__, declared)

    def test_url_may_follow_the_command_but_never_comes_from_the_jobs_own_argv(self):
        self.assertEqual(gpuq_cli._url_first(["queue", "--url", "http://a:1", "-a"]),
                         ["--url", "http://a:1", "queue", "-a"])
        self.assertEqual(gpuq_cli._url_first(["gpus", "--url=http://a:1"]),
                         ["--url=http://a:1", "gpus"])
        job = ["submit", "--gpus", "0", "--", "curl", "--url", "http://x"]
        self.assertEqual(gpuq_cli._url_first(job), job)

    def test_after_options_become_dependencies_and_show_names_each_one(self):
        args = gpuq_cli.build_parser().parse_args(
            ["submit", "--after", "A", "--after-notok", "sweep:S", "--after-any", "B",
             "--", "true"])
        self.assertEqual(gpuq_cli.job_body_options(args)["dependsOn"], [
            {"job": "A", "condition": "afterok"},
            {"sweep": "S", "condition": "afternotok"},
            {"job": "B", "condition": "afterany"}])
        job = {"id": "J", "state": "QUEUED", "queuedReason": "waiting for job A to succeed",
               "dependsOn": [{"job": "A", "condition": "afterok"},
                             {"sweep": "S", "condition": "afternotok"}]}
        text = gpuq_cli.format_job(job, NOW)
        self.assertIn("Depends on  afterok: gpuq show A, afternotok: gpuq sweep show S", text)

    def test_usage_prints_each_group_then_the_total(self):
        report = {"groups": [{"key": "alice", "jobs": {"SUCCEEDED": 2, "FAILED": 1},
                              "gpuHours": 1.5, "coreHours": 3, "waitSeconds": {"p50": 2.4,
                                                                               "p95": 9, "max": 9}}],
                  "total": {"jobs": {"SUCCEEDED": 5}, "gpuHours": 4, "waitSeconds": {}}}
        rows = gpuq_cli.usage_rows(report)
        self.assertEqual(rows[0], ["alice", "2", "1", "0", "0", "1.50", "0.00", "0.00", "3.00",
                                   "0.00", "2s", "9s", "9s"])
        self.assertEqual(rows[1][0], "TOTAL")
        self.assertEqual(rows[1][5], "4.00")
        self.assertEqual(rows[1][-1], "-")

    def test_every_command_has_help(self):
        parser = gpuq_cli.build_parser()
        for argv in (["submit"], ["run"], ["queue"], ["ls"], ["show"], ["logs"], ["cancel"],
                     ["wait"], ["gpus"], ["nodes"], ["owners"], ["login"], ["completion"], ["sweep"],
                     ["sweep", "create"], ["sweep", "ls"], ["sweep", "show"],
                     ["sweep", "trials"], ["sweep", "best"], ["sweep", "cancel"],
                     ["sweep", "close"], ["usage"]):
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as exit_:
                with open(os.devnull, "w") as devnull:
                    stdout, sys.stdout = sys.stdout, devnull
                    try:
                        parser.parse_args(argv + ["--help"])
                    finally:
                        sys.stdout = stdout
            self.assertEqual(exit_.exception.code, 0)

    def test_bash_completion_offers_the_commands_and_their_options(self):
        script = gpuq_cli.bash_completion(gpuq_cli.build_parser())
        self.assertIn("complete -F _gpuq gpuq", script)
        self.assertIn('opts="submit run queue ls show logs cancel requeue wait gpus nodes owners login '
                      'sweep', script)
        self.assertIn("--gpu-memory", script)
        self.assertIn("--cpus --memory", script)
        self.assertIn("create ls show trials best cancel close", script)

    def test_a_fraction_of_a_core_goes_as_a_json_number_and_shows_as_asked(self):
        parser = gpuq_cli.build_parser()
        args = parser.parse_args(["submit", "--cpus", "0.25", "--", "true"])
        self.assertEqual(json.dumps(gpuq_cli.job_body_options(args)["resources"]),
                         '{"cpus": 0.25}')
        self.assertEqual(gpuq_cli.fmt_cores(0.25), "0.25 core")
        self.assertEqual(gpuq_cli.fmt_cores(1), "1 core")
        self.assertEqual(gpuq_cli.fmt_cores(1.5), "1.5 cores")
        self.assertEqual(gpuq_cli.fmt_cores(4), "4 cores")

    def test_job_options_put_cores_and_host_memory_in_resources(self):
        parser = gpuq_cli.build_parser()
        for argv in (["submit"], ["run"], ["sweep", "create", "--param", "lr=1,2"]):
            args = parser.parse_args(argv + ["--cpus", "4", "--memory", "16GiB", "--", "true"])
            self.assertEqual(gpuq_cli.job_body_options(args)["resources"],
                             {"cpus": 4, "memory": "16GiB"}, argv)
        args = parser.parse_args(["submit", "--memory", "1073741824", "--", "true"])
        self.assertEqual(gpuq_cli.job_body_options(args)["resources"], {"memory": 1073741824})

    def test_a_bad_cpus_or_memory_is_wrong_usage_exit_2_with_what_is_wrong(self):
        for option, value in (("--cpus", "0"), ("--cpus", "many"), ("--memory", "lots")):
            with self.subTest(option=option), self.assertRaises(SystemExit) as exit_:
                stderr, sys.stderr = sys.stderr, io.StringIO()
                try:
                    gpuq_cli.build_parser().parse_args(["submit", option, value, "--", "true"])
                finally:
                    said, sys.stderr = sys.stderr.getvalue(), stderr
            self.assertEqual(exit_.exception.code, 2)
            self.assertIn("%s: not a" % option, said)

    def test_too_many_queued_jobs_prints_the_detail_and_exits_3(self):
        problem = {"title": "Too many queued jobs", "status": 429,
                   "detail": "you have 2 queued jobs and this adds 1, past your limit of 2 queued"
                             " jobs (max-queued-jobs): wait for some to start, or cancel some",
                   "limit": "max-queued-jobs", "max": 2, "queued": 2, "requested": 1}
        error = gpuq.GpuqError(429, problem["title"], problem["detail"], body=problem)
        stderr, sys.stderr = sys.stderr, io.StringIO()
        try:
            code = gpuq_cli.report_error(error)
        finally:
            said, sys.stderr = sys.stderr.getvalue(), stderr
        self.assertEqual(code, 3)
        self.assertEqual(said, "gpuq: 429 Too many queued jobs: " + problem["detail"] + "\n")

    def test_a_job_that_failed_without_a_code_exits_1_and_one_with_a_code_with_it(self):
        self.assertEqual(gpuq_cli.job_exit({"id": "j", "state": "SUCCEEDED", "exitCode": 0}), 0)
        with open(os.devnull, "w") as devnull:
            stderr, sys.stderr = sys.stderr, devnull
            try:
                self.assertEqual(gpuq_cli.job_exit(
                    {"id": "j", "state": "FAILED", "failureReason": "EXIT_CODE", "exitCode": 3}),
                    3)
                self.assertEqual(gpuq_cli.job_exit(
                    {"id": "j", "state": "FAILED", "failureReason": "LOST", "exitCode": None}), 1)
                self.assertEqual(gpuq_cli.job_exit({"id": "j", "state": "CANCELLED"}), 1)
            finally:
                sys.stderr = stderr


if __name__ == "__main__":
    unittest.main()

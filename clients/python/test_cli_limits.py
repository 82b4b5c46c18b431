"""The `gpuq` command at an owner's limits (issue 26), against a LIVE gpuq where the token's owner
may run one job and queue one (max-running-jobs=1, max-queued-jobs=1):

    GPUQ_URL=... GPUQ_TOKEN=... python3 -m unittest -v clients/python/test_cli_limits.py

The Maven build starts such a gpuq and runs this file (io.gpuq.ship.PythonCliLimitsTest).
"""

import os
import subprocess
import sys
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpuq import Client  # noqa: E402
from test_cli import Result, eventually  # noqa: E402

URL = os.environ.get("GPUQ_URL")
TOKEN = os.environ.get("GPUQ_TOKEN")


@unittest.skipUnless(URL and TOKEN, "set GPUQ_URL and GPUQ_TOKEN to a live gpuq with limits")
class LimitsTest(unittest.TestCase):

    def setUp(self):
        self.gq = Client(URL, TOKEN)
        self.label = "test=" + uuid.uuid4().hex[:12]
        self.addCleanup(self.cancel_all)

    def cancel_all(self):
        for job in list(self.gq.list(labels={"test": self.label.split("=")[1]})):
            if job["state"] in ("QUEUED", "RUNNING"):
                self.gq.cancel(job["id"])

    def gpuq(self, *args):
        env = dict(os.environ, GPUQ_URL=URL, GPUQ_TOKEN=TOKEN, COLUMNS="120")
        result = Result(subprocess.run([sys.executable, "-m", "gpuq"] + list(args), cwd=HERE,
                                       capture_output=True, text=True, timeout=120, env=env))
        self.assertNotIn("Traceback", result.err, result)
        return result

    def submit(self, *command):
        return self.gpuq("submit", "--gpus", "0", "--label", self.label, "--", *command)

    def test_a_job_at_the_owners_limit_reads_limit_and_one_past_max_queued_jobs_is_refused(self):
        running = self.submit("sleep", "60")
        self.assertEqual(running.code, 0, running)
        running_id = running.out.strip()
        eventually(lambda: self.gq.get(running_id)["state"] == "RUNNING", "the first job running")

        held = self.submit("true")
        self.assertEqual(held.code, 0, held)
        held_id = held.out.strip()
        eventually(lambda: (self.gq.get(held_id)["queuedReason"] or "").startswith(
            "at your limit of 1 running job"), "the second job held at the running limit")
        queue = self.gpuq("queue", "-o", "id,state,reason")
        self.assertRegex(queue.out, r"(?m)^%s +QUEUED +Limit$" % held_id)

        refused = self.submit("true")
        self.assertEqual(refused.code, 3, refused)
        self.assertEqual(refused.out, "")
        self.assertRegex(refused.err, r"^gpuq: 429 Too many queued jobs: you have 1 queued jobs? "
                                      r"and this adds 1, past your limit of 1 queued jobs? "
                                      r"\(max-queued-jobs\)")

        array = self.gpuq("submit", "--gpus", "0", "--array", "0-1", "--label", self.label,
                          "--", "true")
        self.assertEqual(array.code, 3, array)
        self.assertRegex(array.err, r"^gpuq: 429 Too many queued jobs: ")


if __name__ == "__main__":
    unittest.main()

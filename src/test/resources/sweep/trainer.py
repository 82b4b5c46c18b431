"""A stand-in training run for gpuq's end-to-end sweep tests (io.gpuq.sweep.*EndToEndTest).

Reports val_loss at every step with the client's gpuq.report() (clients/python on PYTHONPATH).
Its loss is a known function of its parameters (io.gpuq.sweep.TrainerSweep.valLoss mirrors it):

    val_loss(step) = (log10(lr) + 2.5)^2 + 0.1 * (layers - 3)^2 + (1 if quality < 0.5) + 1/(step+1)

Options: --steps N; --bad-step-seconds S: a bad trial (quality < 0.5) takes S seconds per step, so
that it is still running when the good ones have completed; --hold-after K --gate PATH: after
step K, wait until PATH exists; --pid-dir DIR: write the process id to DIR/<trial>.pid at start;
--ran PATH: append $GPUQ_JOB_ID to PATH once every step is reported.
"""

import argparse
import math
import os
import time

import gpuq


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=10 ** -2.5)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--quality", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--bad-step-seconds", type=float, default=0.0)
    parser.add_argument("--hold-after", type=int, default=None)
    parser.add_argument("--gate", default=None)
    parser.add_argument("--pid-dir", default=None)
    parser.add_argument("--ran", default=None)
    args = parser.parse_args()

    for name in ("GPUQ_SWEEP_ID", "GPUQ_TRIAL", "GPUQ_PARAMS"):
        print("%s=%s" % (name, os.environ.get(name)), flush=True)
    if args.pid_dir:
        with open(os.path.join(args.pid_dir, "%s.pid" % os.environ["GPUQ_TRIAL"]), "w") as f:
            f.write(str(os.getpid()))

    bad = args.quality < 0.5
    base = (math.log10(args.lr) + 2.5) ** 2 + 0.1 * (args.layers - 3) ** 2 + (1 if bad else 0)
    for step in range(args.steps):
        if bad and args.bad_step_seconds:
            time.sleep(args.bad_step_seconds)
        gpuq.report(step=step, val_loss=base + 1.0 / (step + 1))
        if step == args.hold_after:
            while not os.path.exists(args.gate):
                time.sleep(0.05)
    if args.ran:
        with open(args.ran, "a") as f:
            f.write(os.environ["GPUQ_JOB_ID"] + "\n")


if __name__ == "__main__":
    main()

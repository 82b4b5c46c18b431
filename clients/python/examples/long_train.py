"""A longer training run that checkpoints, for the README's examples (CPU only).

    python3 clients/python/examples/long_train.py --steps 30 --checkpoint ckpt.json

Each step takes --sleep seconds; after each it writes its step and loss to the checkpoint file
(atomically), and when started again it goes on from there: a job retried by gpuq (--retry), or
stopped and submitted again, does not start over. Reports val_loss through gpuq.report().
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import gpuq  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--sleep", type=float, default=0.5, help="seconds per step")
    parser.add_argument("--checkpoint", default="checkpoint.json")
    args = parser.parse_args()
    step, loss = 0, 1.0
    if os.path.exists(args.checkpoint):
        with open(args.checkpoint, encoding="utf-8") as f:
            saved = json.load(f)
        step, loss = saved["step"], saved["loss"]
        print("resuming from %s at step %d" % (args.checkpoint, step), flush=True)
    while step < args.steps:
        time.sleep(args.sleep)
        loss *= 0.9
        step += 1
        gpuq.report(step=step, val_loss=loss)
        partial = args.checkpoint + ".partial"
        with open(partial, "w", encoding="utf-8") as f:
            json.dump({"step": step, "loss": loss}, f)
        os.replace(partial, args.checkpoint)
        print("step %d val_loss %.4f" % (step, loss), flush=True)
    print("done: %d steps" % step)


if __name__ == "__main__":
    main()

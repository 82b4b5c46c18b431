"""A small training run for the README's examples: reports val_loss at every step (CPU only).

    python3 clients/python/examples/train.py --seed 1 --lr 0.003 --steps 20

Its loss falls with the steps towards a value that depends on lr (best near 0.003) and a little on
the seed. It reports through gpuq.report() (a no-op outside gpuq) and prints the last value.
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import gpuq  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--sleep", type=float, default=0.1, help="seconds per step")
    args = parser.parse_args()
    noise = random.Random(args.seed)
    floor = (math.log10(args.lr) + 2.5) ** 2 + 0.05 * noise.random()
    for step in range(args.steps):
        loss = floor + 1.0 / (step + 1)
        gpuq.report(step=step, val_loss=loss)
        time.sleep(args.sleep)
    print("seed %d lr %g: val_loss=%.4f after %d steps" % (args.seed, args.lr, loss, args.steps))


if __name__ == "__main__":
    main()

"""A stand-in training run for the examples: its loss is a known function of its parameters.

    python3 quadratic_trainer.py --lr=0.003 --layers=3 --steps=20

Reports val_loss at every step through gpuq.report() (a no-op outside gpuq) and prints the last.
The loss falls with the steps towards (log10(lr) + 2.5)^2 + 0.1 * (layers - 3)^2, which is
smallest at lr = 10^-2.5 (about 0.0032) and 3 layers.
"""

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))

import gpuq  # noqa: E402


def final_loss(lr, layers):
    return (math.log10(lr) + 2.5) ** 2 + 0.1 * (layers - 3) ** 2


def loss_at(step, lr, layers):
    return final_loss(lr, layers) + 1.0 / (step + 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds per step")
    args = parser.parse_args()
    for step in range(args.steps):
        loss = loss_at(step, args.lr, args.layers)
        gpuq.report(step=step, val_loss=loss)
        if args.sleep:
            time.sleep(args.sleep)
    print("val_loss=%.6f" % loss)


if __name__ == "__main__":
    main()

"""PyTorch payload that outgrows its budget: allocates STEP_GIB tensors until MAX_GIB.
Under gpuq's fraction hook, torch must raise OutOfMemoryError at the budget.

usage: torch_grow.py STEP_GIB MAX_GIB
"""
import os
import sys

import torch

step, most = float(sys.argv[1]), float(sys.argv[2])
print("GPUQ_TORCH_MEMORY_FRACTION=%s" % os.environ.get("GPUQ_TORCH_MEMORY_FRACTION"), flush=True)
held = []
while len(held) * step < most:
    held.append(torch.ones(int(step * 2**30) // 4, dtype=torch.float32, device="cuda"))
    print("holding %.1f GiB (torch reserved %.2f GiB)"
          % (len(held) * step, torch.cuda.memory_reserved() / 2**30), flush=True)
print("reached %.1f GiB without an error: the budget was NOT enforced" % most, flush=True)

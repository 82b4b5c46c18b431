"""PyTorch payload that stays inside its budget: holds GIB and multiplies matrices for SECONDS.

usage: torch_steady.py GIB SECONDS
"""
import sys
import time

import torch

gib, seconds = float(sys.argv[1]), float(sys.argv[2])
held = torch.ones(int(gib * 2**30) // 4, dtype=torch.float32, device="cuda")
a = torch.randn(4096, 4096, device="cuda")
print("holding %.1f GiB; fraction cap applied by gpuq's hook" % gib, flush=True)
end, steps = time.time() + seconds, 0
while time.time() < end:
    a = torch.tanh(a @ a) * 0.5
    torch.cuda.synchronize()
    steps += 1
print("done: %d matmuls, checksum %.3f, peak allocated %.2f GiB"
      % (steps, float(a.sum()), torch.cuda.max_memory_allocated() / 2**30), flush=True)

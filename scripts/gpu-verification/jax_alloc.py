"""JAX payload: holds an array of FRACTION of its budget on the GPU and multiplies matrices for
SECONDS. The budget is GPUQ_GPU_MEMORY_BYTES (under gpuq) or --bytes (started without gpuq).

usage: jax_alloc.py FRACTION SECONDS [BYTES]
"""
import os
import sys
import time

fraction, seconds = float(sys.argv[1]), float(sys.argv[2])
budget = int(sys.argv[3]) if len(sys.argv) > 3 else int(os.environ["GPUQ_GPU_MEMORY_BYTES"])
print("env: " + " ".join("%s=%s" % (k, v) for k, v in sorted(os.environ.items())
                         if k.startswith(("XLA_", "CUDA_VISIBLE", "GPUQ_"))), flush=True)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

held = jnp.ones((int(budget * fraction) // 4,), dtype=jnp.float32)
held.block_until_ready()
print("holding %.2f GiB on %s" % (held.nbytes / 2**30, jax.devices()), flush=True)
a = jax.random.normal(jax.random.PRNGKey(0), (4096, 4096), dtype=jnp.float32)
step = jax.jit(lambda x: jnp.tanh(x @ x) * 0.5)
end, steps = time.time() + seconds, 0
while time.time() < end:
    a = step(a)
    a.block_until_ready()
    steps += 1
print("done: %d matmuls, checksum %.3f, held sum %.0f" % (steps, float(a.sum()), float(held[:1024].sum())),
      flush=True)

"""`python -m gpuq`: the command line (gpuq/cli.py)."""

from .cli import console

console()

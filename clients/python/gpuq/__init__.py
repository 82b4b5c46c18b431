"""gpuq's Python client (gpuq.client) and command line (gpuq.cli), standard library only.

    from gpuq import Client, report

The client is gpuq/client.py; it imports nothing of this package, so that one file can still be
copied alone next to a notebook (as gpuq.py). `python -m gpuq` runs the command line.
"""

from .client import (  # noqa: F401
    AnswerError, Client, GpuqError, SWEEP_TERMINAL_STATES, TERMINAL_STATES, __version__,
    printable, printable_json, report)

__all__ = ["AnswerError", "Client", "GpuqError", "SWEEP_TERMINAL_STATES", "TERMINAL_STATES",
           "printable", "printable_json", "report"]

"""Executes a notebook top to bottom with nbclient, as CI does (SweepNotebookTest).

    python3 execute.py NOTEBOOK OUTPUT CELL_TIMEOUT_SECONDS

Fails (exit 1, the failing cell's error printed) if any cell raises or runs past its timeout; the
executed notebook is written to OUTPUT either way. The kernel gets this process's environment
(GPUQ_URL, GPUQ_TOKEN, PYTHONPATH) and runs in the notebook's directory.
"""

import os
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError


def main():
    notebook, output, cell_timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3",
                            startup_timeout=60, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(
                                os.path.abspath(notebook))}})
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as e:
        print("the notebook failed:\n%s" % e, flush=True)
        return 1
    finally:
        nbformat.write(nb, output)
    print("executed %d cells" % sum(1 for c in nb.cells if c.cell_type == "code"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

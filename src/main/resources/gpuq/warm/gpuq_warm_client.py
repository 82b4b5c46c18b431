"""gpuq's warm-start client (issue 36): the program of a warm trial's worker.

    PYTHON gpuq_warm_client.py KEY_DIR WAIT_SECONDS -- COMMAND...
The worker wrapper runs this where it would run COMMAND (in the trial's cgroup, as its account,
with its environment, directory and log). It hands COMMAND, its environment, directory, umask,
cores, oom_score_adj and standard descriptors to the zygote in KEY_DIR, forwards the signals a stop
sends to the forked trial, and exits as the trial did, so that the wrapper records its exit code
exactly as for a cold start. Whatever keeps the zygote from running the trial (none ready in time,
an import that failed, a fork that could not be placed) makes it exec COMMAND itself: a cold
start, with the reason on standard error, which is the trial's log.
"""
import json
import os
import signal
import socket
import struct
import sys
import time

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2)


def cold(command, cwd, reason):
    sys.stderr.write("gpuq: warm start unavailable (%s); starting cold\n" % reason)
    sys.stderr.flush()
    os.chdir(cwd)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        sys.stderr.write("gpuq: cannot run %s: %s\n" % (command[0], e))
        os._exit(127)


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def alive(pid_text):
    try:
        os.kill(int(pid_text), 0)
        return True
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True


def connect(key_dir, wait, command, cwd):
    """A connection to the ready zygote, or a cold start."""
    deadline = time.monotonic() + wait
    os.chdir(key_dir)
    delay = 0.002
    while True:
        failed = read_text("failed")
        if failed:
            cold(command, cwd, "the zygote could not start: " + failed)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect("z.sock")
            return conn
        except OSError:
            conn.close()
        if not alive(read_text("pid")):
            failed = read_text("failed")
            cold(command, cwd, "the zygote could not start: " + failed if failed else
                 "no zygote is running")
        if time.monotonic() > deadline:
            cold(command, cwd, "the zygote was not ready within %.0f s" % wait)
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def main():
    key_dir, wait = sys.argv[1], float(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1:]
    cwd = os.getcwd()
    conn = connect(key_dir, wait, command, cwd)
    os.chdir(cwd)
    umask = os.umask(0)
    os.umask(umask)
    oom = read_text("/proc/self/oom_score_adj")
    header = json.dumps({
        "argv": command[1 + options(command):],
        "env": dict(os.environ),
        "cwd": cwd,
        "umask": umask,
        "affinity": sorted(os.sched_getaffinity(0)),
        "oom": int(oom) if oom not in (None, "") else None,
        "pid": os.getpid(),
    }).encode("utf-8")
    state = {"child": None}

    def forward(signum, _frame):
        if state["child"] is not None:
            try:
                os.killpg(state["child"], signum)
            except OSError:
                pass

    for sig in FORWARDED:
        signal.signal(sig, forward)
    try:
        socket.send_fds(conn, [struct.pack("!Q", len(header))], [0, 1, 2])
        conn.sendall(header)
    except OSError as e:
        cold(command, cwd, "the zygote did not answer: %s" % e)
    # "started PID", then "exit CODE" or "signal N" (the child may say its exit first, and the
    # zygote says it again); "refused WHY" instead when the fork could not be placed.
    pending = b""
    while True:
        while b"\n" not in pending:
            try:
                chunk = conn.recv(4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
        if b"\n" not in pending:
            break
        line, _, pending = pending.partition(b"\n")
        word, _, rest = line.decode("utf-8", "replace").partition(" ")
        if word == "started":
            state["child"] = int(rest)
        elif word == "refused" and state["child"] is None:
            restore_signals()
            cold(command, cwd, rest)
        elif word == "exit":
            os._exit(int(rest))
        elif word == "signal":
            die_by(int(rest))
    if state["child"] is None:
        restore_signals()
        cold(command, cwd, "the zygote went away")
    sys.stderr.write("gpuq: the warm start's zygote went away; the trial's end is unknown\n")
    os._exit(255)


def restore_signals():
    for sig in FORWARDED:
        signal.signal(sig, signal.SIG_DFL)


def die_by(sig):
    """Ends as the trial did: killed by the same signal, which the wrapper reads as 128 + sig."""
    restore_signals()
    if sig not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def options(command):
    """How many interpreter options precede the script, -m or -c (gpuq checked the form)."""
    i = 1
    while i < len(command):
        if command[i] in ("-u", "-O", "-OO", "-B", "-s", "-S", "-E", "-I"):
            i += 1
        elif command[i] in ("-X", "-W"):
            i += 2
        else:
            break
    return i - 1


if __name__ == "__main__":
    main()

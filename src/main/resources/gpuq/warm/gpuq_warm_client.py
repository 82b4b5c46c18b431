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
# Only built-in modules: this runs once per trial, and json, socket and signal (enum, re) cost more
# than the interpreter's own start (14 ms of CPU against 9 ms here); os costs 2 ms more.
import _signal
import _socket
import posix
import sys

FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGUSR1, _signal.SIGUSR2)
# The request's form: the zygote refuses any other.
VERSION = b"gpuq-warm-2"


def cold(command, cwd, reason):
    import os

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
        posix.kill(int(pid_text), 0)
        return True
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True


def connect(key_dir, wait, command, cwd):
    """A connection to the ready zygote, or a cold start."""
    from time import monotonic, sleep

    deadline = monotonic() + wait
    posix.chdir(key_dir)
    delay = 0.002
    while True:
        failed = read_text("failed")
        if failed:
            cold(command, cwd, "the zygote could not start: " + failed)
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            conn.connect("z.sock")
            return conn
        except OSError:
            conn.close()
        if not alive(read_text("pid")):
            failed = read_text("failed")
            cold(command, cwd, "the zygote could not start: " + failed if failed else
                 "no zygote is running")
        if monotonic() > deadline:
            cold(command, cwd, "the zygote was not ready within %.0f s" % wait)
        sleep(delay)
        delay = min(delay * 2, 0.05)


def fs(text):
    return text.encode("utf-8", "surrogateescape")


def request(command, cwd):
    """NUL-separated fields (no argument or variable holds a NUL): the form, the directory, umask,
    oom_score_adj, this pid, the cores, the count of arguments, the arguments, then NAME=VALUE."""
    umask = posix.umask(0)
    posix.umask(umask)
    oom = read_text("/proc/self/oom_score_adj") or ""
    argv = command[1 + options(command):]
    fields = [VERSION, fs(cwd), b"%d" % umask, fs(oom), b"%d" % posix.getpid(),
              b",".join(b"%d" % c for c in sorted(posix.sched_getaffinity(0))),
              b"%d" % len(argv)]
    fields.extend(fs(a) for a in argv)
    fields.extend(k + b"=" + v for k, v in posix.environ.items())
    return b"\0".join(fields)


def main():
    key_dir, wait = sys.argv[1], float(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1:]
    cwd = posix.getcwd()
    conn = connect(key_dir, wait, command, cwd)
    posix.chdir(cwd)
    header = request(command, cwd)
    state = {"child": None}

    def forward(signum, _frame):
        if state["child"] is not None:
            try:
                posix.killpg(state["child"], signum)
            except OSError:
                pass

    for sig in FORWARDED:
        _signal.signal(sig, forward)
    try:
        # The header's length, and the standard descriptors (C ints) as SCM_RIGHTS.
        fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
        conn.sendmsg([len(header).to_bytes(8, "big")],
                     [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
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
            posix._exit(int(rest))
        elif word == "signal":
            die_by(int(rest))
    if state["child"] is None:
        restore_signals()
        cold(command, cwd, "the zygote went away")
    sys.stderr.write("gpuq: the warm start's zygote went away; the trial's end is unknown\n")
    sys.stderr.flush()
    posix._exit(255)


def restore_signals():
    for sig in FORWARDED:
        _signal.signal(sig, _signal.SIG_DFL)


def die_by(sig):
    """Ends as the trial did: killed by the same signal, which the wrapper reads as 128 + sig."""
    restore_signals()
    if sig not in (_signal.SIGKILL, _signal.SIGSTOP):
        _signal.signal(sig, _signal.SIG_DFL)
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, [sig])
    posix.kill(posix.getpid(), sig)
    posix._exit(128 + sig)


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

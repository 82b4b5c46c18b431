"""gpuq's warm-start zygote (issue 36): imports a job's preload once, then forks one child per trial.

Started by gpuq as the owner's account, in its own session:
    PYTHON [OPTIONS] gpuq_warm_zygote.py KEY_DIR IDLE_SECONDS MAX_FORKS PATH0 MODULE...
It listens on KEY_DIR/z.sock (KEY_DIR is 0700, the account's own) once every module has imported,
or writes why it cannot serve to KEY_DIR/failed and exits. Each accepted connection (same uid only)
sends one request: a JSON header (argv, env, cwd, umask, affinity, oom_score_adj, the client's
pid) and, as SCM_RIGHTS, the client's standard input, output and error. The child takes the
client's cgroups, cores and oom_score_adj before any user code, then its environment, directory,
umask and descriptors, and runs the script, -m module or -c code as __main__. The client hears
"started PID", then "exit CODE" or "signal N".
"""
import marshal
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time

SOCKET = "z.sock"
MAX_HEADER = 4 * 1024 * 1024


KEY_DIR = []


def refuse(reason):
    """Writes why this zygote cannot serve, for the clients (and the trials' logs), and exits."""
    try:
        tmp = os.path.join(KEY_DIR[0], "failed.%d" % os.getpid())
        with open(tmp, "w") as f:
            f.write(reason.replace("\n", " ")[:2000] + "\n")
        os.rename(tmp, os.path.join(KEY_DIR[0], "failed"))
    finally:
        print("gpuq zygote: " + reason, file=sys.stderr, flush=True)
        os._exit(1)


def gpu_state():
    """Why a fork of this process would not be a fresh start, or None."""
    if threading.active_count() > 1:
        names = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
        return "a preloaded module started Python threads (%s)" % ", ".join(names)
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_initialized():
                return "a preloaded module initialised CUDA (torch.cuda)"
        except Exception:  # noqa: BLE001 - a torch without cuda
            pass
    if "jax" in sys.modules:
        bridge = sys.modules.get("jax._src.xla_bridge")
        if bridge is not None and getattr(bridge, "_backends", None):
            return "a preloaded module initialised JAX's backends"
    try:
        for fd in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink("/proc/self/fd/" + fd)
            except OSError:
                continue
            if target.startswith("/dev/nvidia") or target.startswith("/dev/dri"):
                return "a preloaded module opened a GPU device (%s)" % target
    except OSError:
        pass
    return None


VERSION = b"gpuq-warm-2"


def recv_request(conn):
    """The request and the three descriptors of one connection."""
    msg, fds, _flags, _addr = socket.recv_fds(conn, 8, 3)
    if len(msg) < 8 or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError("a request needs a header and three descriptors")
    (length,) = struct.unpack("!Q", msg[:8])
    if length > MAX_HEADER:
        raise ValueError("header too large")
    data = b""
    conn.settimeout(10)
    while len(data) < length:
        chunk = conn.recv(min(65536, length - len(data)))
        if not chunk:
            raise ValueError("the client went away")
        data += chunk
    conn.settimeout(None)
    try:
        return parse_request(data), fds
    except ValueError:
        for fd in fds:
            os.close(fd)
        raise


def parse_request(data):
    """The client's NUL-separated fields (gpuq_warm_client.request), as the child uses them."""
    fields = data.split(b"\0")
    if len(fields) < 7 or fields[0] != VERSION:
        raise ValueError("not a request of this zygote's version")
    count = int(fields[6])
    argv = [os.fsdecode(a) for a in fields[7:7 + count]]
    if len(argv) != count or not argv:
        raise ValueError("a request needs its arguments")
    env = {}
    for entry in fields[7 + count:]:
        name, sep, value = entry.partition(b"=")
        if sep:
            env[os.fsdecode(name)] = os.fsdecode(value)
    return {
        "cwd": os.fsdecode(fields[1]),
        "umask": int(fields[2]),
        "oom": int(fields[3]) if fields[3] else None,
        "pid": int(fields[4]),
        "affinity": [int(c) for c in fields[5].split(b",") if c],
        "argv": argv,
        "env": env,
    }


MOUNTS = []


def mounts():
    """The cgroup mounts: (fstype, super options, root, mount point), read once by the zygote."""
    if not MOUNTS:
        MOUNTS.extend(read_mounts())
    return MOUNTS


def read_mounts():
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields = left.split()
            fstype, _source, options = (right.split() + ["", "", ""])[:3]
            if fstype in ("cgroup", "cgroup2"):
                found.append((fstype, set(options.split(",")), fields[3], fields[4]))
    return found


def cgroup_lines(pid):
    lines = {}
    with open("/proc/%d/cgroup" % pid) as f:
        for line in f:
            hid, controllers, path = line.rstrip("\n").split(":", 2)
            lines[(hid, controllers)] = path
    return lines


def join_cgroups(client_pid):
    """Moves this process into each cgroup the client is in and it is not."""
    mine = cgroup_lines(os.getpid())
    theirs = cgroup_lines(client_pid)
    for (hid, controllers), path in theirs.items():
        if mine.get((hid, controllers)) == path:
            continue
        # The zygote's reading of the mounts, else (one mounted since) a fresh one.
        target = mount_of(controllers, path, mounts()) or mount_of(controllers, path, read_mounts())
        if target is None:
            raise OSError("no mount for the cgroup %s:%s" % (controllers or "v2", path))
        with open(os.path.join(target, "cgroup.procs"), "w") as f:
            f.write("%d\n" % os.getpid())


def mount_of(controllers, path, all_mounts):
    """Where the cgroup at path of the hierarchy with these controllers is mounted, or None."""
    wanted = set(c for c in controllers.split(",") if c)
    for fstype, options, root, point in all_mounts:
        if (controllers == "" and fstype == "cgroup2") or (
                fstype == "cgroup" and wanted and wanted <= options):
            if path == root or path.startswith(root.rstrip("/") + "/") or root == "/":
                rel = path[len(root):] if root != "/" else path
                return point.rstrip("/") + "/" + rel.lstrip("/")
    return None


def place(request):
    """Gives this child what the trial's worker has: cgroups, cores, oom_score_adj."""
    join_cgroups(int(request["pid"]))
    if request.get("affinity"):
        os.sched_setaffinity(0, request["affinity"])
    if request.get("oom") is not None:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(request["oom"]))


def reseed():
    """A fork copies the zygote's random state; a fresh interpreter seeds from the OS."""
    rnd = sys.modules.get("random")
    if rnd is not None:
        rnd.seed()
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed()
        except Exception:  # noqa: BLE001
            pass
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            torch.seed()
        except Exception:  # noqa: BLE001
            pass
    # The zygote's environment was the first trial's: a temporary directory found at import is
    # looked up again from this trial's TMPDIR.
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None


def threads_for(env, affinity):
    torch = sys.modules.get("torch")
    if torch is None:
        return
    try:
        n = int(env.get("OMP_NUM_THREADS") or len(affinity or os.sched_getaffinity(0)))
        if n > 0:
            torch.set_num_threads(n)
    except Exception:  # noqa: BLE001
        pass


def run_main(argv):
    """Runs argv (after the interpreter and its options) as the interpreter would, as __main__."""
    import runpy
    import types

    if argv[0] == "-m":
        sys.argv = [argv[1]] + argv[2:]
        sys.path[0] = os.getcwd()
        runpy._run_module_as_main(argv[1], alter_argv=True)
    elif argv[0] == "-c":
        sys.argv = ["-c"] + argv[2:]
        sys.path[0] = ""
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        exec(compile(argv[1], "<string>", "exec"), main.__dict__)
    else:
        script = argv[0]
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.realpath(script))
        runpy.run_path(script, run_name="__main__")


def child(request, fds, status_w, report_fd, closing):
    """In the forked child: never returns to the zygote's loop."""
    try:
        for fd in closing:
            try:
                os.close(fd)
            except OSError:
                pass
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
                    signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        os.setsid()
        place(request)
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        os.umask(int(request["umask"]))
        reseed()
        threads_for(request["env"], request.get("affinity"))
    except BaseException as e:  # noqa: BLE001 - any failure here means a cold start instead
        os.write(status_w, ("fail %s: %s" % (type(e).__name__, e)).encode("utf-8", "replace")[:1000])
        os._exit(3)
    os.write(status_w, b"ok")
    os.close(status_w)
    code = 0
    try:
        run_main(request["argv"])
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code & 0xFF
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        import traceback
        traceback.print_exc()
        report(report_fd, "signal %d" % signal.SIGINT)
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    except BaseException:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        code = 1
    code = end_as_python_does(code)
    hint_preload()
    flush_standard_streams()
    report(report_fd, "exit %d" % code)
    os._exit(code)


def end_as_python_does(code):
    """What a fresh interpreter's end does that a trial can see, in Python's order: its threads
    joined, its atexit handlers run, the files it left open flushed, its standard streams flushed
    (a failure there ends it with 120, as Python does). The code to exit with.

    Not the teardown of every module and object that follows in Python (which does not promise to
    call __del__ of what still exists at exit either): in a fork of a zygote that imported torch it
    wrote to every object the zygote made, copying each page that holds one, and took 0.2 s of CPU
    per trial, as long as a short trial's own work at times."""
    import atexit
    import gc
    import io
    import traceback

    threading_module = sys.modules.get("threading")
    if threading_module is not None:
        try:
            threading_module._shutdown()
        except BaseException:  # noqa: BLE001 - Python reports it and goes on to end
            traceback.print_exc()
    # What the zygote made is the zygote's to clean up (a temporary directory its imports made would
    # go with a trial's end, from under the next trial): its finalizers do not run at a fork's end.
    # Torch registers 174 at import, whose work took 30 ms of a warm trial's end.
    for finalizer in ZYGOTE_FINALIZERS:
        finalizer.atexit = False
    atexit._run_exitfuncs()
    # What the trial opened (the zygote's own objects are frozen, and not listed).
    for obj in gc.get_objects():
        if isinstance(obj, io.IOBase):
            try:
                if not obj.closed and obj.writable():
                    obj.flush()
            except Exception:  # noqa: BLE001 - as an unflushable file at Python's end
                pass
    if not flush_standard_streams():
        return 120 if code == 0 else code
    return code


# The zygote's weakref.finalize objects to run at exit when it began to serve.
ZYGOTE_FINALIZERS = []


def exit_finalizers():
    import weakref

    registry = getattr(weakref.finalize, "_registry", {})
    return [f for f in list(registry) if f.atexit]


def flush_standard_streams():
    flushed = True
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except Exception:  # noqa: BLE001
            flushed = False
    return flushed


# What the zygote had imported when it began to serve: what a trial imports beyond it, each trial
# imports again (torch imports torch._dynamo and sympy, 800 modules and 1.2 s of CPU here, at an
# optimiser's first step).
ZYGOTE_MODULES = set()
HINT_FROM = 20


def hint_preload():
    """Names, in the trial's log, the modules it imported that its zygote had not, if many."""
    try:
        new = [m for m in list(sys.modules) if m not in ZYGOTE_MODULES and m != "__main__"]
        if len(new) < HINT_FROM:
            return
        # The packages they came from (whose parent the zygote had), those that brought most first.
        roots = {m: 0 for m in new if "." not in m or m.rpartition(".")[0] in ZYGOTE_MODULES}
        for m in new:
            parts = m.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in roots:
                    roots[prefix] += 1
                    break
        named = sorted((r for r in roots if not r.startswith("_")), key=lambda r: (-roots[r], r))
        sys.stderr.write(
            "gpuq: this warm trial imported %d modules that its zygote had not, from %s: each"
            " trial imports them again; preloading them saves that\n"
            % (len(new), ", ".join(named[:8]) + (", ..." if len(named) > 8 else "")))
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - a hint never changes how the trial ends
        pass


def report(fd, line):
    try:
        os.write(fd, (line + "\n").encode())
    except OSError:
        pass


def main():
    key_dir, idle, max_forks, path0 = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    modules = sys.argv[5:]
    KEY_DIR.append(key_dir)
    # Imported from the trials' working directory (gpuq starts this there), with the trials' first
    # path entry, so that each module resolves as it would in a trial.
    sys.path[0] = path0
    for name in modules:
        try:
            __import__(name)
        except BaseException as e:  # noqa: BLE001
            refuse("importing %s failed: %s: %s" % (name, type(e).__name__, e))
    os.chdir(key_dir)
    # What each child runs before the trial's code, done once here so that its lazy imports (torch
    # imports torch.mps and the like on its first seed) and the mounts' reading are not paid per
    # trial: each fork finds them done.
    import runpy  # noqa: F401
    import traceback  # noqa: F401
    import types  # noqa: F401
    reseed()
    mounts()
    ZYGOTE_MODULES.update(sys.modules)
    ZYGOTE_FINALIZERS.extend(exit_finalizers())
    # What the imports made is never collected in a fork: a collection would write to every page
    # holding a tracked object and copy it (tens of MiB for torch), in every trial.
    import gc
    gc.collect()
    gc.freeze()
    why = gpu_state()
    if why:
        refuse(why + ": forks of it would not be fresh starts")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = "z.%d.sock" % os.getpid()
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    listener.bind(tmp)
    os.chmod(tmp, 0o600)
    listener.listen(64)
    os.rename(tmp, SOCKET)
    my_socket = os.stat(SOCKET).st_ino
    # Tells gpuq that a missing socket from now on means "retiring", not "still importing".
    with open("served", "w") as f:
        f.write("%d\n" % os.getpid())
    print("gpuq zygote %d: imported %s; serving" % (os.getpid(), ", ".join(modules)), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: retire_now())
    serve(listener, my_socket, idle, max_forks)


RETIRE = []


def retire_now():
    RETIRE.append(True)


def unlink_own(inode):
    try:
        if os.stat(SOCKET).st_ino == inode:
            os.unlink(SOCKET)
    except OSError:
        pass


def serve(listener, inode, idle, max_forks):
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children = {}  # pid -> connection
    forks = 0
    last = time.monotonic()
    accepting = True
    fork_spare(listener, sel, children)
    while True:
        if RETIRE and accepting:
            accepting = False
            sel.unregister(listener)
            listener.close()
            unlink_own(inode)
            drop_spares()
        if not accepting and not children:
            return
        for key, _ in sel.select(timeout=0.05):
            if key.fileobj is listener:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                        struct.calcsize("3i"))
                _pid, uid, _gid = struct.unpack("3i", creds)
                if uid != os.getuid():
                    conn.close()
                    continue
                try:
                    request, fds = recv_request(conn)
                except (OSError, ValueError) as e:
                    try:
                        conn.sendall(("refused %s\n" % e).encode())
                    except OSError:
                        pass
                    conn.close()
                    continue
                forks += 1
                last = time.monotonic()
                pid = fork_one(request, fds, conn, listener, sel, children)
                if pid is not None:
                    children[pid] = conn
                    sel.register(conn, selectors.EVENT_READ, pid)
                else:
                    conn.close()
                if forks >= max_forks:
                    RETIRE.append(True)
                elif not SPARES:
                    # The next trial's fork, made now that this one runs, off its start's path.
                    fork_spare(listener, sel, children)
            else:
                # The client said nothing more, so this is its end: its trial goes with it.
                pid = key.data
                try:
                    gone = not key.fileobj.recv(64)
                except OSError:
                    gone = True
                if gone:
                    sel.unregister(key.fileobj)
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                line = "signal %d\n" % os.WTERMSIG(status)
            else:
                line = "exit %d\n" % os.WEXITSTATUS(status)
            try:
                conn.sendall(line.encode())
            except OSError:
                pass
            try:
                sel.unregister(conn)
            except (KeyError, ValueError):
                pass
            conn.close()
            last = time.monotonic()
        if accepting and not children and time.monotonic() - last > idle:
            RETIRE.append(True)


# The spare: a child forked ahead of its trial, waiting for its request, so that a trial's start
# does not wait for a fork (copying the page tables of a process that imported torch takes a few
# milliseconds, and tens under load). At most one; (pid, the zygote's end of its socket pair, the
# read end of its status pipe).
SPARES = []


def fork_spare(listener, sel, children):
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    status_r, status_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        for fd in (status_r, status_w):
            os.close(fd)
        mine.close()
        theirs.close()
        return
    if pid == 0:
        try:
            closing = [mine.fileno(), status_r, listener.fileno()] + [
                c.fileno() for c in children.values()]
            try:
                sel.close()
            except Exception:  # noqa: BLE001
                pass
            for fd in closing:
                try:
                    os.close(fd)
                except OSError:
                    pass
            await_request(theirs, status_w)
        finally:
            os._exit(1)
    theirs.close()
    os.close(status_w)
    SPARES.append((pid, mine, status_r))


def await_request(sock, status_w):
    """In the spare: waits for its trial's request and becomes the trial; exits with the zygote."""
    try:
        msg, fds, _flags, _addr = socket.recv_fds(sock, 8, 4)
        if len(msg) < 8 or len(fds) != 4:
            os._exit(0)
        (length,) = struct.unpack("!Q", msg[:8])
        data = b""
        while len(data) < length:
            chunk = sock.recv(min(65536, length - len(data)))
            if not chunk:
                os._exit(0)
            data += chunk
        sock.close()
        request = marshal.loads(data)
    except (OSError, ValueError, EOFError):
        os._exit(0)
    child(request, fds[:3], status_w, fds[3], [])


def drop_spares():
    """Ends the spares: each sees its socket closed and exits."""
    while SPARES:
        _pid, sock, status_r = SPARES.pop()
        sock.close()
        os.close(status_r)


def hand_to_spare(request, fds, conn):
    """The spare's pid and status pipe once it has the request, or None (none, or it is gone)."""
    while SPARES:
        pid, sock, status_r = SPARES.pop()
        data = marshal.dumps(request)
        try:
            socket.send_fds(sock, [struct.pack("!Q", len(data))], list(fds) + [conn.fileno()])
            sock.sendall(data)
            return pid, status_r
        except OSError:
            os.close(status_r)
        finally:
            sock.close()
    return None


def fork_one(request, fds, conn, listener, sel, children):
    handed = hand_to_spare(request, fds, conn)
    if handed is not None:
        pid, status_r = handed
    else:
        status_r, status_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            report_fd = os.dup(conn.fileno())
            closing = [status_r, listener.fileno(), conn.fileno()] + [
                c.fileno() for c in children.values()]
            try:
                sel.close()
            except Exception:  # noqa: BLE001
                pass
            drop_spares()
            child(request, fds, status_w, report_fd, closing)
            os._exit(1)  # not reached
        os.close(status_w)
    for fd in fds:
        os.close(fd)
    ready, _, _ = __import__("select").select([status_r], [], [], 10)
    answer = os.read(status_r, 1000).decode("utf-8", "replace") if ready else "fail no answer"
    os.close(status_r)
    if answer != "ok":
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(pid, 0)
        try:
            conn.sendall(("refused the fork could not be placed: %s\n" % answer[5:]).encode())
        except OSError:
            pass
        return None
    try:
        conn.sendall(("started %d\n" % pid).encode())
    except OSError:
        pass
    return pid


if __name__ == "__main__":
    main()

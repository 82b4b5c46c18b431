# gpuq worker hook. gpuq puts this directory first on PYTHONPATH, so Python runs this file at the
# start of every Python process of a job.
#
# What it does:
# - GPUQ_TORCH_MEMORY_FRACTION set (pytorch jobs): once `torch` has been imported, registers
#   torch.cuda.set_per_process_memory_fraction(fraction, device) for every visible device, to run
#   when torch initialises CUDA. Importing torch never initialises CUDA here, so fork-based
#   DataLoader workers keep working.
# - GPUQ_TF_MEMORY_LIMIT_MB set (tensorflow jobs): once `tensorflow` has been imported, gives every
#   GPU a logical device with that memory limit, and lets the program's own
#   tf.config.experimental.set_memory_growth(gpu, True) calls pass (growth is on already).
# - Always: runs the sitecustomize that this file hides (the next one on sys.path), as Python
#   would have without gpuq.
#
# What it must never do: cost a program that imports neither framework more than a few
# microseconds, print anything when all is well, or break the user's program. Any failure of its
# own is reported as one line on stderr starting with "gpuq:" and the program goes on.

import os
import sys


def _say(message):
    try:
        sys.stderr.write("gpuq: %s\n" % message)
    except Exception:
        pass


def _describe(error):
    return "%s: %s" % (type(error).__name__, error)


# --- running a callback once a module has been imported -------------------------------------


class _AfterImport(object):
    """A sys.meta_path finder that finds nothing itself: it asks the other finders for the spec of
    a watched module and wraps its loader so that a callback runs right after the module has
    executed. Libraries probe with importlib.util.find_spec("torch") without importing, so only
    execution counts. It removes itself once every watched module has been executed."""

    def __init__(self, callbacks):
        self._callbacks = dict(callbacks)
        self._searching = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self._callbacks or fullname in self._searching:
            return None
        self._searching.add(fullname)
        try:
            spec = None
            for finder in list(sys.meta_path):
                find_spec = getattr(finder, "find_spec", None)
                if finder is self or find_spec is None:
                    continue
                spec = find_spec(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._searching.discard(fullname)
        if spec is None:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            self._forget(fullname)
            _say("cannot watch the import of %s; GPU memory budget not applied" % fullname)
            return spec
        spec.loader = _ThenCall(loader, lambda module: self._executed(fullname, module))
        return spec

    def _executed(self, fullname, module):
        callback = self._forget(fullname)
        if callback is not None:
            callback(module)

    def _forget(self, fullname):
        callback = self._callbacks.pop(fullname, None)
        if not self._callbacks and self in sys.meta_path:
            sys.meta_path.remove(self)
        return callback


class _ThenCall(object):
    """Delegates to the real loader; after the module executed, puts the real loader back and runs
    the callback."""

    def __init__(self, loader, callback):
        self._loader = loader
        self._callback = callback

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_loader", "_callback"):
            raise AttributeError(name)
        return getattr(self._loader, name)

    def create_module(self, spec):
        create_module = getattr(self._loader, "create_module", None)
        return create_module(spec) if create_module is not None else None

    def exec_module(self, module):
        try:
            self._loader.exec_module(module)
        finally:
            try:
                module.__loader__ = self._loader
                if getattr(module, "__spec__", None) is not None:
                    module.__spec__.loader = self._loader
            except Exception:
                pass
        try:
            self._callback(module)
        except Exception as error:
            _say("GPU memory budget not applied to %s: %s" % (module.__name__, _describe(error)))


def _when_imported(callbacks):
    pending = {}
    for name, callback in callbacks.items():
        module = sys.modules.get(name)
        if module is not None:
            try:
                callback(module)
            except Exception as error:
                _say("GPU memory budget not applied to %s: %s" % (name, _describe(error)))
        else:
            pending[name] = callback
    if pending:
        sys.meta_path.insert(0, _AfterImport(pending))


# --- torch ------------------------------------------------------------------------------------


def _torch_fractions():
    # Read when CUDA starts, not when this hook is installed: a warm start's zygote installs the
    # hook once, with its first trial's environment, and each forked trial then gets its own
    # environment (and its own budget) before its code runs.
    text = os.environ.get("GPUQ_TORCH_MEMORY_FRACTION")
    return [float(f) for f in text.split(",")] if text else None


def _torch_budget():
    def apply_when_cuda_starts(torch):
        cuda = torch.cuda

        def apply():
            # Runs inside torch's CUDA initialisation: an exception here would surface in the
            # user's first CUDA call, so none may escape.
            try:
                fractions = _torch_fractions()
                if fractions is None:
                    return
                count = cuda.device_count()
                # If the program narrowed CUDA_VISIBLE_DEVICES itself, devices no longer line up
                # with gpuq's list; the smallest fraction then respects the budget everywhere.
                per_device = fractions if count == len(fractions) else [min(fractions)] * count
                for device, fraction in enumerate(per_device):
                    cuda.set_per_process_memory_fraction(float(fraction), device)
            except Exception as error:
                _say("GPU memory budget not applied to torch: %s" % _describe(error))

        lazy_call = getattr(cuda, "_lazy_call", None)
        if callable(lazy_call):
            lazy_call(apply)
        else:
            _after_cuda_init(cuda, apply)

    return apply_when_cuda_starts


def _after_cuda_init(cuda, action):
    # For a torch without _lazy_call: run the action after the first successful initialisation.
    is_initialized = getattr(cuda, "is_initialized", None)
    if callable(is_initialized) and is_initialized():
        action()
        return
    original = getattr(cuda, "_lazy_init", None)
    if not callable(original):
        _say("torch.cuda has neither _lazy_call nor _lazy_init; GPU memory budget not applied")
        return
    done = []

    def lazy_init(*args, **kwargs):
        result = original(*args, **kwargs)
        if not done:
            done.append(True)
            action()
        return result

    cuda._lazy_init = lazy_init


# --- tensorflow -------------------------------------------------------------------------------


def _tensorflow_budget(limit_mb):
    def apply(tf):
        config = tf.config
        experimental = getattr(config, "experimental", None)
        list_devices = getattr(config, "list_physical_devices", None) or getattr(
            experimental, "list_physical_devices"
        )
        configure = getattr(config, "set_logical_device_configuration", None) or getattr(
            experimental, "set_virtual_device_configuration"
        )
        device_config = getattr(config, "LogicalDeviceConfiguration", None) or getattr(
            experimental, "VirtualDeviceConfiguration"
        )
        limited = []
        for gpu in list_devices("GPU"):
            configure(gpu, [device_config(memory_limit=limit_mb)])
            limited.append(gpu)
        if limited and experimental is not None:
            _tolerate_memory_growth(experimental, limited)

    return apply


def _tolerate_memory_growth(experimental, limited):
    # The usual start of a TensorFlow program turns on memory growth for every GPU, which TF
    # refuses ("Cannot set memory growth on device when virtual devices configured") once the
    # budget's logical device exists. Growth is already on for every GPU (gpuq sets
    # TF_FORCE_GPU_ALLOW_GROWTH), so for those devices the call is let through as a no-op.
    original = getattr(experimental, "set_memory_growth", None)
    if original is None:
        return

    def set_memory_growth(device, enable):
        try:
            already_limited = any(device == gpu for gpu in limited)
        except Exception:
            already_limited = False
        if already_limited:
            return None
        return original(device, enable)

    set_memory_growth.__doc__ = getattr(original, "__doc__", None)
    experimental.set_memory_growth = set_memory_growth


# --- the sitecustomize this one hides ---------------------------------------------------------


def _same_dir(entry, here):
    try:
        return os.path.realpath(entry or os.curdir) == here
    except Exception:
        return False


def _import_machinery():
    # importlib.machinery and importlib.util re-export these from the import system's own modules,
    # which are always loaded; importing those packages would cost every Python process ~3 ms.
    bootstrap = sys.modules.get("_frozen_importlib")
    external = sys.modules.get("_frozen_importlib_external")
    if hasattr(bootstrap, "module_from_spec") and hasattr(external, "PathFinder"):
        return external.PathFinder, bootstrap.module_from_spec
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    return PathFinder, module_from_spec


def _run_hidden_sitecustomize():
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    start = 0
    for i, entry in enumerate(sys.path):
        if _same_dir(entry, here):
            start = i + 1
            break
    # Our own directory may appear twice; finding this file again would recurse.
    later = [entry for entry in sys.path[start:] if not _same_dir(entry, here)]
    path_finder, module_from_spec = _import_machinery()
    spec = path_finder.find_spec("sitecustomize", later)
    if spec is None or spec.loader is None:
        return
    module = module_from_spec(spec)
    ours = sys.modules.get("sitecustomize")
    # It runs under its own name, as it would have without gpuq, and stays in sys.modules.
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        if ours is not None:
            sys.modules["sitecustomize"] = ours
        _say("error in %s: %s" % (spec.origin, _describe(error)))


# --- start-up ---------------------------------------------------------------------------------


def _install():
    # torch's budget is always watched for (it does nothing without GPUQ_TORCH_MEMORY_FRACTION
    # when CUDA starts): a zygote started for a CPU-only trial may fork a GPU trial later.
    callbacks = {"torch": _torch_budget()}
    fractions = os.environ.get("GPUQ_TORCH_MEMORY_FRACTION")
    if fractions:
        try:
            _torch_fractions()
        except ValueError as error:
            _say("GPUQ_TORCH_MEMORY_FRACTION is unreadable: %s" % _describe(error))
    limit_mb = os.environ.get("GPUQ_TF_MEMORY_LIMIT_MB")
    if limit_mb:
        try:
            callbacks["tensorflow"] = _tensorflow_budget(int(limit_mb))
        except ValueError as error:
            _say("GPUQ_TF_MEMORY_LIMIT_MB is unreadable: %s" % _describe(error))
    if callbacks:
        _when_imported(callbacks)


try:
    _install()
except Exception as _error:
    _say("hook not installed: %s" % _describe(_error))

try:
    _run_hidden_sitecustomize()
except Exception as _error:
    _say("could not look for another sitecustomize: %s" % _describe(_error))

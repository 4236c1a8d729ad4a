"""The one switch between numba-compiled and plain-Python kernels, and how the compiled ones arrive.

Every kernel module (:mod:`cae._graph`, :mod:`cae.algorithms._cae_kernel`, the baselines' ``_*_kernel``
modules) decorates its functions with :func:`jit`. The same source runs in two ways with
bit-identical results: as plain Python, or compiled by numba. There is never a second
implementation.

Compiling every kernel takes minutes, once per machine (docs/performance.md, *A fresh machine*,
says how long); a classroom laptop should not wait for it. So, by default (``CAE_JIT=auto``):

1. the decorated functions stay plain Python, and the first call into a kernel starts a
   *background process* (``python -m cae._warmup``) that compiles every kernel with numba and
   writes them to the on-disk cache; meanwhile everything runs un-jitted (correct, about 100×
   slower per sample, fast enough to step through a stream by hand);
2. at the next entry into a kernel after that process has finished, this process rebinds every
   kernel function to its numba dispatcher, which loads the compiled code from the cache in a
   fraction of a second, and carries on compiled. A run that started un-jitted and finishes
   compiled ends in the same state as one that never switched (tested);
3. once the cache exists (a marker file names the exact sources it was built from), later
   processes switch at their first call.

``CAE_JIT=sync`` compiles in the calling process on first use (what the background process
itself does); ``CAE_JIT=off`` (or ``CAE_DISABLE_NUMBA=1``, or no numba installed) never compiles.

The cache lives in ``$CAE_EXPLORER_CACHE`` if set, else ``$NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/cae-explorer/numba`` (``~/.cache/cae-explorer/numba``), else a folder in the
system's temporary directory: a per-user, writable place that works for an editable install, a
wheel in a read-only site-packages and a container alike. numba keys its files by the source
file's path, so several installs can share it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import threading
import time

from . import _paths

__all__ = [
    "jit",
    "prange",
    "threads",
    "run_parallel",
    "HAVE_NUMBA",
    "MODE",
    "ensure",
    "prepare",
    "status",
    "progress",
    "describe_progress",
    "wait",
    "compiled",
    "cache_dir",
]

MODE = os.environ.get("CAE_JIT", "auto").strip().lower() or "auto"
if MODE not in ("auto", "sync", "off"):
    MODE = "auto"
if os.environ.get("CAE_DISABLE_NUMBA") == "1":
    MODE = "off"
HAVE_NUMBA = MODE != "off" and importlib.util.find_spec("numba") is not None
if not HAVE_NUMBA:
    MODE = "off"


def _kernel_modules():
    """This module, the shared graph and ART primitives, and every algorithm's kernel: by convention the files
    ``cae/algorithms/_<name>_kernel.py`` (found without importing anything; the registry, which names each
    algorithm's kernels, sits above this layer, and tests/unit/test_registry.py checks that the two agree)."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "algorithms")
    found = sorted(f[:-3] for f in os.listdir(here) if f.startswith("_") and f.endswith("_kernel.py"))
    return ("cae._jit", "cae._graph", "cae._art", *(f"cae.algorithms.{f}" for f in found))


#: the kernel modules (their sources name the cache the background process builds)
KERNEL_MODULES = _kernel_modules()
STALE_LOCK_SECONDS = 20 * 60

_FUNCS = []  # every function decorated with jit, in definition order
_OPTIONS = {}  # numba options beyond the defaults, per decorated function
_COMPILED = False
_LOCK = threading.Lock()
_worker = None
_failed = None  # why the background compilation failed, if it did
_next_check = 0.0


def _cache_candidates():
    return _paths.cache_candidates("numba", env=("CAE_EXPLORER_CACHE", "NUMBA_CACHE_DIR"))


def cache_dir():
    """The first writable cache folder of the list in the module docstring (created if needed)."""
    return _paths.first_writable(_cache_candidates(), "cae-explorer-numba-")


_CACHE = None


def _cache():
    global _CACHE
    if _CACHE is None:
        _CACHE = cache_dir()
        os.environ["NUMBA_CACHE_DIR"] = _CACHE  # before numba is imported here, and for the worker
    return _CACHE


def _njit(func):
    import numba

    numba.config.CACHE_DIR = _cache()
    options = _OPTIONS.get(func, {})
    try:
        return numba.njit(cache=True, nogil=True, **options)(func)
    except KeyError:  # a numba without the (private) switch for reference counting: counted, the same results
        options = {k: v for k, v in options.items() if k != "_nrt"}
        return numba.njit(cache=True, nogil=True, **options)(func)


def jit(func=None, *, allocates=True, inline=False, parallel=False, fastmath=()):
    """Register a kernel function; compiled at once in ``sync`` mode (or after the switch).

    ``@jit``, or with options (plain Python ignores them):

    ``@jit(allocates=False)``
        the function creates no array, and calls none that returns a new one: numba compiles
        it without its reference counting. Calling such a function then costs nothing (LLVM
        inlines it), where a counted call costs an atomic increment and decrement for every
        array it is given -- a step made of small named functions passing its arrays along
        would pay that at every call.
    ``@jit(inline=True)``
        numba inlines the function into its callers before compiling them.
    ``@jit(parallel=True)``
        numba runs the function's :func:`prange` loops on several threads (call it through
        :func:`run_parallel`).
    ``@jit(fastmath={"reassoc", "contract"})``
        LLVM may reorder and fuse this function's floating-point operations: only for a bound whose
        proof allows for any order (CAE's winner search), never for a result.
    """
    if func is None:
        return lambda f: jit(f, allocates=allocates, inline=inline, parallel=parallel, fastmath=fastmath)
    _FUNCS.append(func)
    options = {}
    if not allocates:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"
    if parallel:
        options["parallel"] = True
    if fastmath:
        options["fastmath"] = set(fastmath)
    if options:
        _OPTIONS[func] = options
    if MODE == "sync" or _COMPILED:
        return _njit(func)
    return func


_PARALLEL = threading.Lock()  # one parallel kernel at a time per process (some threading layers need it)


def threads():
    """How many threads a parallel kernel may use: numba's thread count (every core; joblib's workers
    set it to their share), at most ``CAE_THREADS`` when that is set (``CAE_THREADS=1``: one thread).
    1 while the kernels run un-jitted."""
    if not compiled():
        return 1
    import numba

    n = numba.config.NUMBA_NUM_THREADS
    env = os.environ.get("CAE_THREADS", "").strip()
    if env.isdigit() and int(env) >= 1:
        n = min(n, int(env))
    return n


def run_parallel(kernel, *args):
    """Call a ``@jit(parallel=True)`` kernel on :func:`threads` threads; False (nothing called) when that
    is one thread, or another thread of this process is running a parallel kernel (the caller then runs
    its one-thread version: the same answer)."""
    n = threads()
    if n < 2 or not _PARALLEL.acquire(blocking=False):
        return False
    try:
        import numba

        numba.set_num_threads(n)
        kernel(*args)
    finally:
        _PARALLEL.release()
    return True


def _python_prange(*args):
    """``range`` (plain Python); the compiled kernels get numba's parallel ``prange`` instead."""
    return range(*args)


#: ``range`` for the loops that numba may run on several threads (in ``@jit(parallel=True)`` functions)
prange = _python_prange
if MODE == "sync":
    import numba as _numba

    prange = _numba.prange


# ------------------------------------------------------------------ the cache and its marker
def _sources_digest():
    h = hashlib.sha256()
    try:  # the installed version, without importing numba (a second on a cold start)
        from importlib.metadata import version

        h.update(version("numba").encode())
    except Exception:  # noqa: BLE001  (no metadata: the sources still name the cache)
        pass
    h.update(sys.version.encode())
    here = os.path.dirname(os.path.abspath(__file__))
    # the kernels' sources, and the warm-up's, whose calls decide which specialisations are compiled (a new
    # part, such as the one-feature data, must reach a machine whose cache was built without it)
    for name in (*KERNEL_MODULES, "cae._warmup"):
        # the files, found without importing their packages (cae.algorithms would load scikit-learn)
        path = os.path.join(here, *name.split(".")[1:]) + ".py"
        if os.path.exists(path):
            # numba keys its cache by the source file's path and checks its modification time: another
            # install, or the same files written again, needs its own marker
            with open(path, "rb") as f:
                h.update(
                    name.encode()
                    + b"\0"
                    + path.encode()
                    + b"\0"
                    + repr(os.path.getmtime(path)).encode()
                    + b"\0"
                    + f.read()
                )
    return h.hexdigest()[:20]


_DIGEST = None


def _marker():
    global _DIGEST
    if _DIGEST is None:
        _DIGEST = _sources_digest()
    return os.path.join(_cache(), f"cae-explorer-{_DIGEST}.ready")


def _lock_path():
    return _marker()[: -len(".ready")] + ".compiling"


def _failed_path():
    return _marker()[: -len(".ready")] + ".failed"


def _progress_path():
    return _marker()[: -len(".ready")] + ".progress"


def _alive(path):
    """Whether the process whose pid is in ``path`` (a compiling lock) still runs."""
    try:
        if time.time() - os.path.getmtime(path) > STALE_LOCK_SECONDS:
            return False
        with open(path) as f:
            pid = int(f.read().strip() or 0)
        if pid <= 0:
            return False
        os.kill(pid, 0)
        return True
    except (OSError, ValueError):
        return False


def compiled():
    """True once this process runs the numba-compiled kernels."""
    return _COMPILED or MODE == "sync"


def status():
    """``"compiled"``, ``"preparing"`` (the background compilation runs), or ``"python"`` (numba is
    off, absent or failed: plain Python throughout)."""
    if compiled():
        return "compiled"
    if MODE == "off" or _failed:
        return "python"
    if os.path.exists(_marker()):  # ready: the next call into a kernel switches
        return "compiled"
    return "preparing"


def progress(now=None):
    """How far the background compilation is, while it runs (None otherwise, or before it has said).

    Returns a dict: ``done`` and ``total`` (parts of :func:`cae._warmup.warm`: each algorithm on 2-D, 3-D and
    1-D data, and CAE's parallel labelling), ``part`` (the last part done), ``elapsed`` (seconds since it
    began) and ``left`` (seconds the rest should take at the time per part measured so far; None before
    the first part is done).
    """
    if status() != "preparing":
        return None
    try:
        import json

        with open(_progress_path()) as f:
            p = json.load(f)
        done, total, started = int(p["done"]), int(p["total"]), float(p["started"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    elapsed = max(0.0, (time.time() if now is None else now) - started)
    left = elapsed / done * (total - done) if done > 0 else None
    return {"done": done, "total": total, "part": str(p.get("part", "")), "elapsed": elapsed, "left": left}


def _minutes(seconds):
    if seconds < 90:
        return f"{max(10, 10 * round(seconds / 10)):.0f} s"
    return f"{seconds / 60:.0f} min"


def describe_progress(p):
    """:func:`progress` in words for the app: parts compiled, and an estimate from the time per part so far.

    >>> describe_progress({"done": 3, "total": 11, "elapsed": 150.0, "left": 400.0, "part": "CAEA, 3-D data"})
    '3 of 11 parts compiled in 2 min; about 7 min left at 50 s a part'
    >>> describe_progress({"done": 0, "total": 11, "elapsed": 20.0, "left": None, "part": ""})
    '0 of 11 parts compiled, 20 s so far (the first part, CAE, takes the longest)'
    >>> describe_progress(None)
    'starting'
    """
    if not p:
        return "starting"
    done, total, elapsed = p["done"], p["total"], p["elapsed"]
    if not done or p["left"] is None:
        return f"{done} of {total} parts compiled, {_minutes(elapsed)} so far (the first part, CAE, takes the longest)"
    return (
        f"{done} of {total} parts compiled in {_minutes(elapsed)}; about {_minutes(p['left'])} left "
        f"at {_minutes(elapsed / done)} a part"
    )


# ------------------------------------------------------------------ switching
def _switch():
    global _COMPILED
    import numba

    dispatchers = {f: _njit(f) for f in _FUNCS}
    dispatchers[_python_prange] = numba.prange
    for name, mod in list(sys.modules.items()):
        if name != "cae" and not name.startswith("cae."):
            continue
        g = getattr(mod, "__dict__", None)
        if g is None:
            continue
        for key, value in list(g.items()):
            if callable(value) and value in dispatchers:
                g[key] = dispatchers[value]
    _COMPILED = True


def _start_worker():
    """Start the background compilation unless another process is running one (it writes its pid
    into the lock file) or one failed recently (then stay un-jitted, and say why)."""
    global _worker, _failed
    if os.path.exists(_lock_path()) and _alive(_lock_path()):
        return  # another process is compiling into the same cache: wait for its marker
    failed = _failed_path()
    if os.path.exists(failed) and time.time() - os.path.getmtime(failed) < STALE_LOCK_SECONDS:
        _failed = f"the background compilation failed; see {failed}"
        return
    env = dict(os.environ, CAE_JIT="sync", NUMBA_CACHE_DIR=_cache(), CAE_EXPLORER_CACHE=_cache())
    log = open(os.path.join(_cache(), "warmup.log"), "w")  # noqa: SIM115  (the worker writes it after we return)
    _worker = subprocess.Popen(
        [sys.executable, "-m", "cae._warmup", _marker()],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        close_fds=True,
    )
    log.close()
    try:  # at once, so that other processes starting now wait for this one instead of compiling too
        with open(_lock_path(), "w") as f:
            f.write(str(_worker.pid))
    except OSError:
        pass


def ensure():
    """Called at every entry into the kernels: switch to compiled code once it is ready.

    Starts the background compilation the first time (``auto`` mode). Cheap: at most one
    file-system check every 0.2 s while waiting.
    """
    global _failed, _next_check, _worker
    if _COMPILED or MODE != "auto" or _failed:
        return
    now = time.monotonic()
    if now < _next_check:
        return
    with _LOCK:
        if _COMPILED or _failed:
            return
        _next_check = now + 0.2
        if os.path.exists(_marker()):
            _switch()
            return
        if _worker is None:
            _start_worker()
            return
        code = _worker.poll()
        if code is None:
            return
        if code == 0 and os.path.exists(_marker()):
            _switch()
        else:
            _failed = f"the background compilation exited with code {code}; see {_cache()}/warmup.log"
            _worker = None


def prepare(wait_seconds=0.0):
    """Start preparing the compiled kernels (in the background); optionally wait for them.

    Returns :func:`status` after at most ``wait_seconds``.
    """
    ensure()
    return wait(wait_seconds) if wait_seconds else status()


def wait(timeout=600.0):
    """Block until the compiled kernels are in use (or numba turns out unusable, or the timeout)."""
    global _next_check
    deadline = time.monotonic() + timeout
    while True:
        _next_check = 0.0
        ensure()
        if compiled() or MODE != "auto" or _failed or time.monotonic() >= deadline:
            return status()
        time.sleep(0.1)

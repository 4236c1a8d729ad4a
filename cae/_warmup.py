"""``python -m cae._warmup [MARKER]``: compile every kernel into the on-disk cache, then write MARKER.

Started in the background by :mod:`cae._jit` with MARKER (and ``CAE_JIT=sync``: this process compiles as
it calls). Run by hand without MARKER (to compile before a class, say), it compiles too: it starts that
same background compilation unless the cache is ready, waits for it, printing how far it is, and says
where the kernels are; it does not run anything un-jitted meanwhile. It drives every registered algorithm through the calls the package makes — learn
(with and without a trace), learn one sample, predict, the clusters — on a few hundred samples,
so that numba compiles each kernel entry point for the argument types the package uses, and
writes them to the cache that the other processes then load. ``CAE_WARMUP_ALGORITHMS`` (comma
separated) limits it to some algorithms (a test uses that).

The work comes in *parts* (each algorithm on 2-D, 3-D and 1-D data, and CAE's parallel labelling). After
each part it writes ``MARKER``'s ``.progress`` file (JSON: ``done``, ``total``, ``started``, ``updated``,
``part``), from which :func:`cae._jit.progress` tells the app how far it is and how long the rest should
take at the time per part measured so far (how long the whole takes: docs/performance.md, *A fresh machine*).
"""

from __future__ import annotations

import json
import os
import sys
import time


def warm(algorithms=None, progress=None):
    """Compile every kernel of ``algorithms`` (default: all), calling ``progress(done, total, part)`` before
    the first part and after each one."""
    import numpy as np

    from .registry import ALGORITHMS

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.04, (120, 2)) for c in (0.2, 0.5, 0.8)])[rng.permutation(360)]
    X3 = rng.random((80, 3))
    # one feature: numba types a node array of one column, kept in Fortran order, as C-contiguous (it is both), so
    # every kernel that takes one needs its own compilation; done here, so that the first one-column CSV on a
    # machine waits for nothing (it took 286 s)
    X1 = np.concatenate([rng.normal(c, 0.02, 50) for c in (0.2, 0.8)])[rng.permutation(100)][:, None]
    names = algorithms or list(ALGORITHMS)
    total = 3 * len(names) + ("CAE" in names)
    done = 0

    def step(part):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total, part)

    if progress is not None:
        progress(0, total, "")
    for name in names:
        spec = ALGORITHMS[name]
        params = spec.small  # small parameters: every kind of deletion happens on these few hundred samples
        for data in (X, X3, X1):
            a, b, c = len(data) // 2, 3 * len(data) // 4, 7 * len(data) // 8
            m = spec.make(**params)
            m.fit(data[:a])
            m.partial_fit(data[a:b])
            m.learn_traced(data[b:c])
            m.learn_one(data[c])
            m.learn_many(data[:20])
            m.predict(data)
            _ = m.node_labels_, m.n_clusters_, m.edges_
            m.end_batch()
            m.to_networkx()
            if hasattr(m, "prediction_sigma"):
                m.prediction_sigma()
            step(f"{name}, {data.shape[1]}-D data")
    if "CAE" in names:  # the parallel labelling of a large X, whatever the thread count of this process
        ALGORITHMS["CAE"].make().fit(X).compile_parallel_labelling(X)
        step("CAE, parallel labelling")


def _write(path, text):
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def by_hand(timeout=3600.0, every=10.0):
    """``python -m cae._warmup`` without a marker: the kernels compiled into this machine's cache (by the
    background compilation every process uses), waited for; returns the exit code (0: compiled)."""
    from . import _jit

    t0 = time.perf_counter()
    if _jit.MODE == "off":
        print("numba is off here (CAE_JIT=off, CAE_DISABLE_NUMBA=1 or numba not installed): nothing to compile")
        return 1
    if _jit.status() == "compiled":
        print(f"the kernels are compiled already, in {_jit.cache_dir()}")
        return 0
    _jit.prepare()
    last = None
    while time.perf_counter() - t0 < timeout:
        state = _jit.wait(min(every, timeout))
        if state != "preparing":
            break
        line = _jit.describe_progress(_jit.progress())
        if line != last:
            print(f"compiling: {line}", flush=True)
            last = line
    state = _jit.status()
    if state == "compiled":
        print(f"kernels compiled in {time.perf_counter() - t0:.1f} s, into {_jit.cache_dir()}")
        return 0
    print(f"the kernels were not compiled ({state}): {_jit._failed or 'still compiling after the timeout'}")
    return 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    marker = argv[0] if argv else None
    if marker is None and os.environ.get("CAE_JIT", "auto").strip().lower() in ("", "auto"):
        return by_hand()
    base = marker[: -len(".ready")] if marker else None
    t0 = time.perf_counter()
    only = [a.strip() for a in os.environ.get("CAE_WARMUP_ALGORITHMS", "").split(",") if a.strip()]
    started = time.time()

    def progress(done, total, part):
        if base:
            _write(
                base + ".progress",
                json.dumps({"done": done, "total": total, "started": started, "updated": time.time(), "part": part}),
            )

    try:
        if base:
            _write(base + ".compiling", str(os.getpid()))
        warm(only or None, progress=progress)
        if marker:
            _write(marker, f"compiled in {time.perf_counter() - t0:.1f} s\n")
    except BaseException:
        if base:
            import traceback

            _write(base + ".failed", traceback.format_exc())
        raise
    finally:
        if base:
            try:
                os.remove(base + ".compiling")
            except OSError:
                pass
    print(f"kernels compiled in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

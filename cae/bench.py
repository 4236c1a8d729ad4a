"""Speed and memory benchmark: ``python -m cae.bench``.

Prints microseconds per sample for the streams the README quotes. "learn" is
the learning pass alone (:meth:`cae.CAE.learn_many`); "fit" adds the
labelling pass that ``fit`` does for ``labels_``. The peak memory of a fit is
measured with tracemalloc (NumPy allocations, including any copy of the input
and the labels_ array). Timings are the best
of ``--repeat`` runs after a warm-up (numba compiles once, then caches).
"""

import argparse
import time
import tracemalloc
from pathlib import Path

import numpy as np

from . import CAE
from .datasets import make_blobs3d, make_paper2d, stationary_stream


def _mixture(n, d, seed):
    rng = np.random.default_rng(seed)
    centres = rng.random((10, d))
    return centres[rng.integers(0, 10, n)] + rng.normal(0, 0.04, (n, d))


def _skin(path):
    import pandas as pd

    X = pd.read_csv(path).drop(columns="label").to_numpy(float)
    return X[np.random.default_rng(0).permutation(len(X))]


def workloads(skin=None):
    paper = stationary_stream(make_paper2d(seed=0), seed=0).X[:20000]
    yield "2-D paper stream, 20k", paper
    yield "16-D mixture, 20k", _mixture(20000, 16, 1)
    yield "64-D mixture, 5k", _mixture(5000, 64, 2)
    if skin is not None and Path(skin).exists():
        yield "Skin 245,057 x 3 (raw)", _skin(skin)
    else:
        X = make_blobs3d(245057, seed=3).X
        yield "3-D blobs 245,057 x 3", X[np.random.default_rng(0).permutation(len(X))]


def best_of(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    default_skin = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "skin.csv"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--skin", default=str(default_skin), help="the Skin dataset CSV (features, then label)")
    ap.add_argument("--frames", action="store_true", help="also time the playground's play frame")
    args = ap.parse_args(argv)
    CAE().fit(np.random.default_rng(0).random((300, 2)))  # compile / load the cached kernel
    print(f"{'workload':32s} {'learn us/sample':>16s} {'fit us/sample':>14s} {'fit total s':>12s} {'nodes':>6s} {'peak MB':>8s}")
    for name, X in workloads(args.skin):
        n = len(X)
        learn = best_of(lambda: CAE().learn_many(X), args.repeat)
        fit = best_of(lambda: CAE().fit(X), args.repeat)
        tracemalloc.start()
        model = CAE().fit(X)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{name:32s} {learn / n * 1e6:16.2f} {fit / n * 1e6:14.2f} {fit:12.3f} {len(model.nodes_):6d} {peak / 2**20:8.1f}")
    if args.frames:
        print()
        frames()



def frames(argv=None):
    """The playground's play frame: learn N samples, build the main figure, serialise it.

    Measured at a network of at least 500 nodes with 5,000 drawn points (the
    data-seen layer's cap), with the vigilance region and bandwidths on.
    """
    from .datasets import make_paper2d, stationary_stream
    from .playground import Playground
    from .viz import network_figure

    stream = stationary_stream(make_paper2d(n_per_class=15000, seed=0), seed=0)
    pg = Playground(stream, deletion_interval=1200, max_edge_age=60)
    while pg.t == 0 or len(pg.model.nodes_) < 500:
        pg.step(2000)
    X = stream.X
    bounds = ((0.0, 1.0), (0.0, 1.0))
    print(f"network: {len(pg.model.nodes_)} nodes, {len(pg.model.edges_)} edges at t = {pg.t:,}")
    print(f"{'samples/frame':>14s} {'learn ms':>9s} {'figure ms':>10s} {'json ms':>8s} {'total ms':>9s} {'KB':>6s}")
    for n in (1, 20, 100, 500):
        rows = []
        for _ in range(15):
            t0 = time.perf_counter()
            pg.step(n)
            t1 = time.perf_counter()
            idx = pg.seen(5000)
            fig = network_figure(pg.model, X[idx], X[max(0, pg.t - 300):pg.t], X[pg.t - 1], pg.record, bounds=bounds,
                                 show_vigilance=True, show_bandwidth=True, deleted=pg.deleted_in_frame)
            t2 = time.perf_counter()
            js = fig.to_json()
            t3 = time.perf_counter()
            rows.append((t1 - t0, t2 - t1, t3 - t2, len(js)))
        a = np.median(np.array(rows), axis=0)
        print(f"{n:14d} {a[0] * 1e3:9.1f} {a[1] * 1e3:10.1f} {a[2] * 1e3:8.1f} {(a[0] + a[1] + a[2]) * 1e3:9.1f} {a[3] / 1024:6.0f}")


if __name__ == "__main__":
    main()

"""Speed and memory benchmark: ``python -m cae.bench`` (no mode: this one).

Prints microseconds per sample for the streams the README quotes. "learn" is
the learning pass alone (:meth:`cae.CAE.learn_many`); "fit" adds the
labelling pass that ``fit`` does for ``labels_``. The peak memory of a fit is
measured with tracemalloc (NumPy allocations, including any copy of the input
and the labels_ array). Timings are the best
of ``--repeat`` runs after a warm-up (numba compiles once, then caches).

``--algorithms`` also times every registered algorithm (:data:`cae.registry.ALGORITHMS`)
with the paper's parameters (the defaults where the paper has none) on the 2-D paper stream
(20,000 samples) and, when the paper's datasets are fetched (``python -m cae.data fetch``), on
Letter (20,000 x 16) and Skin (245,057 x 3), min-max scaled as in the paper.

"predict" labels the same stream with the fitted model on every core (numba's threads, see
:func:`cae._jit.threads`), "1 thread" with ``CAE_THREADS=1``. ``--continual`` times one
class-incremental CAE run per dataset as the paper's real-world study runs it
(:func:`cae.experiments.protocol.realworld_job`, seed 0).

"x plain" prints a figure as a ratio to a plain numba full winner search timed in the same run
(:func:`plain_search`: for each sample the CIM to every node of the learned network with ``math.exp``, the
straightforward loop over nodes x features, no screening, one thread): machines differ several-fold, the
ratios much less. The CPU's limit (:func:`cpu_limit`) then prints, per workload, the floating-point
operations per sample of the plain search and of CAE's winner search, the achieved fraction of this CPU's
peak, and the share of nodes each of the winner search's bounds skips.

The other benchmarks, and the options of this one, are listed by :mod:`cae.bench` and ``python -m cae.bench
--help`` (:mod:`cae.bench.__main__`).
"""

import math
import os
import time
import tracemalloc
from pathlib import Path

import numpy as np

from .. import CAE
from ..data import make_blobs3d, make_paper2d, stationary_stream


def _mixture(n, d, seed):
    rng = np.random.default_rng(seed)
    centres = rng.random((10, d))
    return centres[rng.integers(0, 10, n)] + rng.normal(0, 0.04, (n, d))


def _skin(path):
    import pandas as pd

    X = pd.read_csv(path).drop(columns="label").to_numpy(float)
    return X[np.random.default_rng(0).permutation(len(X))]


def _letter(folder, file="letter.csv"):
    from ..experiments.protocol import load_dataset

    X = load_dataset(str(Path(folder) / file), "minmax").X
    return X[np.random.default_rng(0).permutation(len(X))]


def workloads(skin=None, datasets=None):
    paper = stationary_stream(make_paper2d(seed=0), seed=0).X[:20000]
    yield "2-D paper stream, 20k", paper
    if datasets is not None and (Path(datasets) / "letter.csv").exists():
        yield "Letter 20,000 x 16 (min-max)", _letter(datasets)
    if datasets is not None and (Path(datasets) / "penbased.csv").exists():
        yield "PenBased 10,992 x 16 (min-max)", _letter(datasets, "penbased.csv")
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


def run(args):
    """The speed benchmark itself, with the command line's options (``args``: ``skin``, ``datasets``, ``only``,
    ``repeat``, ``continual``, ``algorithms``, ``frames``): a table of every workload, the CPU's limit, then what
    the options add."""
    CAE().fit(np.random.default_rng(0).random((300, 2)))  # compile / load the cached kernel
    from .. import _jit

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; predict on {_jit.threads()} threads")
    print(
        f"{'workload':32s} {'learn us/sample':>16s} {'fit us/sample':>14s} {'fit total s':>12s} {'nodes':>6s} "
        f"{'peak MB':>8s} {'predict us/sample':>18s} {'1 thread':>9s} {'plain us':>9s} {'learn x plain':>14s} "
        f"{'1 thread x plain':>17s}"
    )
    limits = []
    only = [w.strip().lower() for w in args.only.split(",") if w.strip()]
    for name, X in workloads(args.skin, args.datasets):
        if only and not any(w in name.lower() for w in only):
            continue
        n = len(X)
        tracemalloc.start()
        model = CAE().fit(X)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        plain_fn, plain_rows = plain_search_run(model, X)
        learn, fit, predict, one, plain = interleaved_best(
            [
                lambda: CAE().learn_many(X),
                lambda: CAE().fit(X),
                lambda: model.predict(X),
                lambda: _one_thread(lambda: model.predict(X)),
                plain_fn,
            ],
            args.repeat,
        )
        plain /= plain_rows
        print(
            f"{name:32s} {learn / n * 1e6:16.2f} {fit / n * 1e6:14.2f} {fit:12.3f} {len(model.nodes_):6d} "
            f"{peak / 2**20:8.1f} {predict / n * 1e6:18.2f} {one / n * 1e6:9.2f} {plain * 1e6:9.2f} "
            f"{learn / n / plain:14.3f} {one / n / plain:17.3f}"
        )
        limits.append((name, model, X, learn / n, one / n, plain))
    print()
    cpu_limit(limits)
    if args.continual:
        print()
        continual(args.datasets)
    if args.algorithms:
        print()
        algorithms(args.datasets, repeat=max(1, min(args.repeat, 3)))
    if args.frames:
        print()
        frames()


def plain_search(X, Y, sigma, out):
    """The reference a CAE figure is compared with: for each row of X, the two nodes of Y (rows) of smallest
    CIM with bandwidth ``sigma``, by computing the CIM to every node with ``math.exp`` -- the plain loop over
    nodes x features, no bound, no screening -- into ``out[i] = (s1, s2)``. Compiled by numba on first use."""
    d, K = X.shape[1], Y.shape[0]
    two_s2 = 2.0 * (sigma * sigma)
    for i in range(X.shape[0]):
        s1, s2, v1, v2 = -1, -1, math.inf, math.inf
        for k in range(K):
            acc = 0.0
            for j in range(d):
                diff = X[i, j] - Y[k, j]
                acc += math.exp(-(diff * diff) / two_s2)
            c = math.sqrt(max(0.0, 1.0 - acc / d))
            if c < v1:
                s2, v2, s1, v1 = s1, v1, k, c
            elif c < v2:
                s2, v2 = k, c
        out[i, 0] = s1
        out[i, 1] = s2


_compiled = {}


def _numba(fn, **options):
    """``fn`` compiled by numba (once per process): the bench's own reference loops, not kernels."""
    if fn.__name__ not in _compiled:
        import numba

        _compiled[fn.__name__] = numba.njit(**options)(fn)
    return _compiled[fn.__name__]


def plain_search_run(model, X, rows=4000):
    """``(run, n)``: :func:`plain_search` over the first ``n <= rows`` samples on the model's nodes and
    prediction bandwidth, one thread, compiled and ready to time."""
    Y = np.ascontiguousarray(model.nodes_, dtype=np.float64)
    Xs = np.ascontiguousarray(X[:rows], dtype=np.float64)
    out = np.zeros((len(Xs), 2), dtype=np.int64)
    search = _numba(plain_search)
    sigma = float(model.prediction_sigma())
    search(Xs[:2], Y, sigma, out)  # compile
    return (lambda: search(Xs, Y, sigma, out)), len(Xs)


def interleaved_best(fns, repeat):
    """The best time of each function over ``repeat`` rounds, each round calling every function once in
    turn: figures compared as ratios then come from the same moments of a busy machine."""
    best = [np.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def fma_chains(a, reps):
    """16 dependent multiply-adds on every element of ``a`` (which stays in L1), ``reps`` times: with the
    multiply and the add fused, and the elements independent, the compiler's widest vectors keep every FMA
    unit busy."""
    for _ in range(reps):
        for i in range(a.shape[0]):
            x = a[i]
            for _ in range(16):
                x = x * 0.999 + 1e-3
            a[i] = x


def peak_flops(seconds=0.3):
    """This CPU's double-precision peak on one core, measured: the best rate of :func:`fma_chains` compiled
    by numba with fused multiply-adds (fastmath "contract" only, so nothing is folded away), 2 flops per
    FMA. (A one-thread OpenBLAS dgemm reached about 60 % of it here: its kernels use 256-bit vectors on
    this AVX-512 CPU.)"""
    run = _numba(fma_chains, fastmath={"contract"})
    a = np.random.default_rng(0).random(1024)
    run(a, 1)
    best = np.inf
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        run(a, 200)
        best = min(best, time.perf_counter() - t0)
    return 2.0 * 16 * 200 * len(a) / best


#: floating-point operations counted for one exp: the range reduction and a degree-11 Horner polynomial
EXP_FLOPS = 14
#: per node and feature: the plain search's difference, square, division, exp and sum
PLAIN_FLOPS = 4 + EXP_FLOPS
#: per node and feature: CAE's bound (difference, square, three pieces, three minima, the sum)
BOUND_FLOPS = 12


def cpu_limit(limits):
    """Per workload: the plain search's and CAE's floating-point operations per sample (additions,
    multiplications, divisions, comparisons and min/max one each, an exp EXP_FLOPS), the rate each achieves
    as a fraction of this CPU's one-core peak (:func:`peak_flops`), and the share of nodes the winner
    search's bounds skip on the learned network (:func:`_search_shares`): learning
    (s1 and s2) and labelling (s1 alone)."""
    peak = peak_flops()
    print(f"one-core peak (measured FMA loop): {peak / 1e9:.1f} GFLOP/s")
    print(
        f"{'workload':32s} {'plain FLOP':>11s} {'plain %peak':>12s} {'predict FLOP':>13s} {'%peak':>6s} "
        f"{'learn: skipped':>15s} {'(distance)':>11s} {'CIMs':>6s} {'label: skipped':>15s} {'(distance)':>11s} "
        f"{'CIMs':>6s}"
    )
    for name, model, X, _learn, one, plain in limits:
        K, d = model.nodes_.shape
        flop_plain = K * d * PLAIN_FLOPS
        shares = _search_shares(model, X[:4000])
        line = f"{name:32s} {flop_plain:11.0f} {flop_plain / plain / peak * 100:11.1f}%"
        if shares is None:
            print(line)
            continue
        flop_one = shares["predict_flops"]
        print(
            line + f" {flop_one:13.0f} {flop_one / one / peak * 100:5.1f}% {shares['learn_skipped']:15.1%} "
            f"{shares['learn_distance_skipped']:11.1%} {shares['learn_exact']:6.2f} {shares['predict_skipped']:15.1%} "
            f"{shares['predict_distance_skipped']:11.1%} {shares['predict_exact']:6.2f}"
        )


def _search_shares(model, X):
    """What the winner search's bounds skip on the model's final network, over the rows of X: learning
    (s1 and s2) and labelling (s1): the share of nodes whose CIM is computed, the share the distance bound
    alone would skip, and the labelling's FLOPs per sample (the bound's pass, then the exact CIMs)."""
    K, d = model.nodes_.shape
    out = {}
    for key, second in (("learn", True), ("predict", False)):
        counts = model.winner_search_counts(X, runner_up=second)
        exact = counts[0] / len(X)
        out[f"{key}_exact"] = exact
        out[f"{key}_skipped"] = 1.0 - exact / K
        out[f"{key}_distance_skipped"] = counts[1] / len(X) / K
        out[f"{key}_flops"] = K * d * BOUND_FLOPS + 2 * K + exact * d * PLAIN_FLOPS
    return out


def _one_thread(fn):
    """``fn()`` with ``CAE_THREADS=1`` (CAE's labelling on one thread)."""
    before = os.environ.get("CAE_THREADS")
    os.environ["CAE_THREADS"] = "1"
    try:
        return fn()
    finally:
        if before is None:
            del os.environ["CAE_THREADS"]
        else:
            os.environ["CAE_THREADS"] = before


def continual(folder, names=("letter", "penbased"), repeat=2):
    """One class-incremental CAE run per dataset, as the paper's real-world study runs it (seed 0):
    learning stage by stage, labelling every prefix after every stage, the scores; wall seconds."""
    from ..experiments.protocol import realworld_job

    print(f"{'class-incremental CAE run':32s} {'wall s':>8s} {'AI (NMI)':>9s}")
    for stem in names:
        path = Path(folder) / f"{stem}.csv"
        if not path.exists():
            print(f"({path} is absent: skipped)")
            continue
        best, row = np.inf, {}
        for _ in range(repeat):
            t0 = time.perf_counter()
            row = realworld_job(str(path), "nonstationary", 0, 0)[0]
            best = min(best, time.perf_counter() - t0)
        print(f"{row['dataset']:32s} {best:8.2f} {row['ai_nmi']:9.3f}")


def algorithm_workloads(folder):
    """(name, paper dataset key, X) of the streams every algorithm is timed on."""
    from ..experiments.protocol import load_dataset

    yield "2-D paper stream, 20k", "synthetic", stationary_stream(make_paper2d(seed=0), seed=0).X[:20000]
    for stem, label in (("letter", "Letter 20,000 x 16"), ("skin", "Skin 245,057 x 3")):
        path = Path(folder) / f"{stem}.csv"
        if path.exists():
            d = load_dataset(str(path), "minmax")
            yield label, d.name, d.X[np.random.default_rng(0).permutation(len(d.X))]
        else:
            print(f"({path} is absent: {label} skipped)")


def algorithms(folder, repeat=3):
    """Every registered algorithm, the paper's stationary parameters, learn time per sample."""
    from ..registry import ALGORITHMS

    width = name_width(ALGORITHMS)
    print(algorithm_line(width, "algorithm", "workload"))
    for name, key, X in algorithm_workloads(folder):
        cae_time = None
        for algo, spec in ALGORITHMS.items():
            params = spec.paper_setting(key, "stationary") if spec.params else {}
            spec.make(**params).learn_many(X[:300])  # compile / load the cached kernel
            best = best_of(lambda: spec.make(**params).learn_many(X), repeat)
            cae_time = best if cae_time is None else cae_time  # CAE comes first in the registry
            model = spec.make(**params).learn_many(X)
            predict = best_of(lambda: model.predict(X), repeat)
            nodes = len(model.nodes_) if spec.kind != "clouds" else f"{len(model.nodes_)}c"
            numbers = (best / len(X) * 1e6, best / cae_time, best, nodes, model.n_clusters_, predict / len(X) * 1e6)
            print(algorithm_line(width, algo, name, numbers))


def name_width(names):
    """The width of ``--algorithms``' name column: the longest of ``names`` and the header's."""
    return max(len("algorithm"), *map(len, names))


def algorithm_line(width, algorithm, workload, numbers=None):
    """One line of ``--algorithms``' table, its name column ``width`` wide (the header's without ``numbers``:
    learn µs/sample, x CAE, total s, nodes, clusters, predict µs/sample).

    >>> width = name_width(["CAE", "Hypersphere ART"])
    >>> head = algorithm_line(width, "algorithm", "workload")
    >>> row = algorithm_line(width, "Hypersphere ART", "paper2d", (1.5, 2.0, 3.0, 41, 6, 0.25))
    >>> row.index("paper2d") == head.index("workload") and len(row) == len(head)
    True
    """
    if numbers is None:
        names = ("learn us/sample", "x CAE", "total s", "nodes", "clusters", "predict us/sample")
        tail = " ".join(f"{n:>{w}s}" for n, w in zip(names, (16, 6, 9, 7, 9, 18)))
    else:
        learn, ratio, total, nodes, clusters, predict = numbers
        tail = f"{learn:16.2f} {ratio:6.1f} {total:9.3f} {nodes!s:>7s} {clusters:9d} {predict:18.2f}"
    return f"{algorithm:{width}s} {workload:24s} {tail}"


def frames(argv=None):
    """The playground's play frame: learn N samples, build the main figure, serialise it.

    Measured at a network of at least 500 nodes with 5,000 drawn points (the
    data-seen layer's cap), with the vigilance region and bandwidths on. Then
    the play path as the app runs it (:class:`cae.app.player.PlaySession`): the
    same frame plus the panel's numbers (NMI/ARI on up to 5,000 samples), in
    chunks of 12 frames encoded for the browser (the first frame whole, the
    others as patches on the frame before), with the view's defaults
    (vigilance region on, bandwidths off); its frames per second are what the
    server can compute — the browser draws them (the browser test measures
    the frames shown).
    """
    from ..app.figures import network_figure, network_spec
    from ..app.player import PlaySession, decode_chunk, panel
    from ..app.stepper import Stepper, drawn_sample
    from ..data import make_paper2d, stationary_stream

    stream = stationary_stream(make_paper2d(n_per_class=15000, seed=0), seed=0)
    pg = Stepper(stream, deletion_interval=1200, max_edge_age=60)
    while pg.t == 0 or len(pg.model.nodes_) < 500:
        pg.step(2000)
    X = stream.X
    bounds = ((0.0, 1.0), (0.0, 1.0))
    t_net = pg.t
    print(f"network: {len(pg.model.nodes_)} nodes, {len(pg.model.edges_)} edges at t = {pg.t:,}")
    print(f"{'samples/frame':>14s} {'learn ms':>9s} {'figure ms':>10s} {'json ms':>8s} {'total ms':>9s} {'KB':>6s}")
    for n in (1, 20, 100, 500):
        rows = []
        for _ in range(15):
            t0 = time.perf_counter()
            pg.step(n)
            t1 = time.perf_counter()
            idx = pg.seen(5000)
            fig = network_figure(
                pg.model,
                X[idx],
                X[max(0, pg.t - 300) : pg.t],
                X[pg.t - 1],
                pg.record,
                bounds=bounds,
                show_vigilance=True,
                show_bandwidth=True,
                deleted=pg.deleted_in_frame,
            )
            t2 = time.perf_counter()
            js = fig.to_json()
            t3 = time.perf_counter()
            rows.append((t1 - t0, t2 - t1, t3 - t2, len(js)))
        a = np.median(np.array(rows), axis=0)
        print(
            f"{n:14d} {a[0] * 1e3:9.1f} {a[1] * 1e3:10.1f} {a[2] * 1e3:8.1f} {(a[0] + a[1] + a[2]) * 1e3:9.1f} {a[3] / 1024:6.0f}"
        )

    def draw(p):
        idx = drawn_sample(p.t, max_points=5000)  # as the Playground draws it: the same samples plus the new
        return network_spec(  # as plain data, the picture's key beside it, as Play's frames are made
            p.model,
            X[idx],
            X[max(0, p.t - 300) : p.t],
            X[p.t - 1],
            p.record,
            bounds=bounds,
            show_vigilance=True,
            deleted=p.deleted_in_frame,
            legend=False,
            height=None,
        )

    print()
    print("play path (the server's half of Play: step, figure, panel numbers, encoding; chunks of 12 frames)")
    print(f"{'samples/frame':>14s} {'nodes':>6s} {'ms/frame':>9s} {'KB/frame':>9s} {'frames/s':>9s}")
    for n in (1, 20, 100, 500):
        per, sizes = [], []
        for k in range(5):
            pg.rewind(t_net)  # every measurement from the network above
            play = PlaySession(pg, epoch=k)
            t0 = time.perf_counter()
            chunk = play.chunk(0, 12, n, draw, panel)
            per.append((time.perf_counter() - t0) / len(decode_chunk(chunk)["frames"]))
            sizes.append(len(chunk) / 12)
        ms = float(np.median(per)) * 1e3
        print(f"{n:14d} {len(pg.model.nodes_):6d} {ms:9.1f} {np.median(sizes) / 1024:9.0f} {1000 / ms:9.1f}")


_FIRST_FIT = """
import json, time
t0 = time.perf_counter()
import numpy as np
from cae import CAE, _jit
from cae.data import make_paper2d, stationary_stream
X = stationary_stream(make_paper2d(seed=0), seed=0).X[:2000]
t1 = time.perf_counter()
CAE().fit(X)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "fit": t2 - t1, "status": _jit.status()}))
"""


def _fresh_process(env):
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FIRST_FIT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cold():
    """The first ``CAE().fit`` of 2,000 samples in fresh processes: an empty cache (the background
    compilation starts), plain Python, and the cache the background process then wrote."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, CAE_EXPLORER_CACHE=tmp, CAE_JIT="auto")
        env.pop("NUMBA_CACHE_DIR", None)
        t0 = time.perf_counter()
        empty = _fresh_process(env)
        plain = _fresh_process(dict(env, CAE_JIT="off"))
        marker = None
        while marker is None and time.perf_counter() - t0 < 1800:
            marker = next((p for p in Path(tmp).glob("*.ready")), None)
            time.sleep(0.5)
        compile_s = time.perf_counter() - t0
        warm = _fresh_process(env)
        print("first CAE().fit of 2,000 samples in a fresh process (seconds; import of cae and numpy apart)")
        print(
            f"{'empty cache (starts compiling)':34s} fit {empty['fit']:6.2f}   import {empty['import']:5.2f}   "
            f"[{empty['status']}]"
        )
        print(f"{'un-jitted (CAE_JIT=off)':34s} fit {plain['fit']:6.2f}   import {plain['import']:5.2f}")
        print(
            f"{'warm cache (after the compilation)':34s} fit {warm['fit']:6.2f}   import {warm['import']:5.2f}   "
            f"[{warm['status']}]"
        )
        print(f"background compilation of every kernel: {compile_s:.0f} s" + ("" if marker else " (did not finish)"))
        print(f"empty cache / un-jitted: {empty['fit'] / plain['fit']:.2f}x")

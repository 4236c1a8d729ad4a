"""CAE beside the streaming clusterers a Python user would pick instead: ``python -m cae.bench --peers``.

On the paper's 2-D stream (our generator of its six distributions plus 10 % uniform noise, 20,000 samples in
random order; the noise is learned but not scored, as in the paper) and on Letter (20,000 × 16, min–max
scaled, random order; from the fetched datasets, ``python -m cae.data fetch``), it times the learning pass
(µs per sample, the best of ``--repeat`` runs on a fresh model each) and the labelling of every sample after
it, and scores NMI (geometric mean, as the paper), ARI and the number of clusters found on the same samples:

* **CAE**, parameter-free, two ways: ``learn_many`` over the array, and one dict at a time through
  :mod:`cae.integrations.river` (River's API: the per-call cost is visible);
* River's **DBSTREAM**, **DenStream** and **CluStream** with River's defaults (CluStream's: 5 macro-clusters),
  one dict at a time (``learn_one``/``predict_one``);
* scikit-learn's **Birch** and **MiniBatchKMeans** (``partial_fit`` over chunks of 1,000 rows), told the true
  number of classes, with their defaults otherwise.

CAE and River's clusterers are not told the number of classes. The defaults of the distance thresholds
(DBSTREAM's ``clustering_threshold`` = 1, Birch's ``threshold`` = 0.5) exceed the spread of data scaled to
[0, 1], so those two find one cluster. A user would tune them, and the paper grid-searched its baselines; so
beside each peer's defaults row the bench tries its main parameter on a small grid on each workload
(:data:`GRIDS`, printed at the start: DBSTREAM's ``clustering_threshold`` ∈ {0.05, 0.1, 0.2, 0.4, 0.8},
DenStream's ``epsilon`` ∈ {0.05, 0.1, 0.2, 0.4}, CluStream's ``n_macro_clusters`` ∈ {4, 8, 16, 32, 64},
Birch's ``threshold`` ∈ {0.05, 0.1, 0.2, 0.3, 0.5} with ``n_clusters`` = the number of classes and with None,
MiniBatchKMeans' ``n_clusters`` ∈ {4, 8, 16, 32, 64}) and shows the value with the best **ARI** against the
true labels, its #clusters and times — and the best by NMI too where NMI picks another value, labelled so:
NMI alone rewards over-segmentation (Birch without a cluster count reaches NMI 0.60–0.63 on Letter with
1,659–9,564 clusters, each nearly a sample). That choice needs the labels, which a user of a stream does not
have: it is the best a peer can do, not what it does out of the box. CAE's one row has no grid. Each value
is learned once (one run, no repeat); CluStream's values share one learning pass (``n_macro_clusters`` only
sets the k-means over the final micro-clusters, so the labels are those a fresh model learns: tested), and
Birch's two families one tree per threshold (``partial_fit()`` without data then does the global step with
k). A grid point whose labelling would pass :data:`GRID_LABEL_BUDGET` seconds (DenStream) is scored on 500
seeded random samples (a defaults row on 1,000). Every time is also printed as a ratio to CAE's in the same run: machines
(and their load) differ 2–3× and more, the ratios much less. ``docs/peers.md`` says what the table shows.

What the table says (``docs/peers.md`` has the numbers): on the 2-D stream CAE, told nothing, leads every
peer by far even with the peer's parameter chosen by the labels (NMI 0.994 and ARI 0.996 against the best
tuned peer's 0.759 and 0.629: centroid and radius methods cut the rings and sines), and learns faster than
the River peers and Birch. On Letter it does not lead: its NMI (0.463) is beaten only by over-segmenting
peers, but its ARI (0.092, 120 clusters) is below the tuned MiniBatchKMeans (0.155), Birch told k (0.151) and
DenStream (0.144); every method's ARI is low there, and MiniBatchKMeans told k learns Letter faster than CAE.

River and scikit-learn's streaming estimators are optional extras (``pip install "cae-explorer[river]"``);
a missing one is skipped and said so. ``--out`` writes the rows as CSV (the machine and the grids beside it as
JSON, every grid point to ``NAME_grid.csv``); ``--markdown`` prints the table of ``docs/performance.md``
from that CSV; ``--no-grid``
runs the defaults rows only. Letter is read from ``--datasets``, else the fetched datasets' folder, else
``$CAE_TEST_SHARED/datasets`` (a development checkout's shared data). Timings depend on the machine and its load: the
JSON records the machine, the Python and the libraries' versions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

__all__ = ["main", "workloads", "peers", "run", "markdown", "GRIDS", "grid_search", "best", "grid_text"]

CHUNK = 1000


def _paper2d(n):
    from ..data import NOISE_LABEL, make_paper2d, stationary_stream

    s = stationary_stream(make_paper2d(seed=0), seed=0)
    return s.X[:n], s.y[:n], s.y[:n] != NOISE_LABEL


def _letter_path(folder):
    """Where Letter is read from: ``folder`` when given; else the fetched datasets' folder, then the development
    checkout's shared data (``$CAE_TEST_SHARED/datasets``) when that variable names a folder holding it."""
    from ..data.fetch import default_folder

    if folder:
        return Path(folder) / "letter.csv", [Path(folder)]
    where = [default_folder()]
    shared = os.environ.get("CAE_TEST_SHARED")
    if shared and shared.lower() != "none":
        where.append(Path(shared) / "datasets")
    for w in where:
        if (w / "letter.csv").exists():
            return w / "letter.csv", where
    return where[0] / "letter.csv", where


def workloads(folder=None, n=20000):
    """``(name, X, y, scored)``: the samples, their labels and which of them are scored."""
    X, y, scored = _paper2d(n)
    yield f"2-D paper stream, {len(X):,}", X, y, scored
    path, where = _letter_path(folder)
    if path.exists():
        from ..experiments.protocol import load_dataset

        d = load_dataset(str(path), "minmax")
        order = np.random.default_rng(0).permutation(len(d.X))[:n]
        yield f"Letter, {len(order):,} × 16", d.X[order], d.y[order], np.ones(len(order), bool)
    else:
        print(
            f"({path} is absent: Letter skipped; `python -m cae.data fetch --names letter` gets it, or --datasets "
            f"names a folder holding letter.csv; looked in {', '.join(map(str, where))})"
        )


# ------------------------------------------------------------------ the contenders
class _Contender:
    """name, library, API; ``make(k)`` a fresh model (k: the true number of classes); learn and label."""

    def __init__(self, name, library, api, make, params=""):
        self.name, self.library, self.api, self.make, self.params = name, library, api, make, params


def _river_loop(model, dicts):
    for d in dicts:
        model.learn_one(d)
    return model


def peers():
    """The contenders, those whose library is installed; and the names of the missing libraries."""
    out, missing = [], []
    from ..algorithms import CAE

    out.append(_Contender("CAE", "cae-explorer", "learn_many(X)", lambda k: CAE()))
    try:
        from river import cluster

        from ..integrations.river import CAE as RiverCAE

        out.append(_Contender("CAE", "cae-explorer", "River learn_one(dict)", lambda k: RiverCAE()))
        out.append(_Contender("DBSTREAM", "river", "learn_one(dict)", lambda k: cluster.DBSTREAM(), "River's defaults"))
        out.append(
            _Contender("DenStream", "river", "learn_one(dict)", lambda k: cluster.DenStream(), "River's defaults")
        )
        out.append(
            _Contender("CluStream", "river", "learn_one(dict)", lambda k: cluster.CluStream(), "River's defaults")
        )
    except ImportError:
        missing.append("river (pip install 'cae-explorer[river]')")
    from sklearn.cluster import Birch, MiniBatchKMeans

    out.append(
        _Contender(
            "Birch",
            "scikit-learn",
            f"partial_fit({CHUNK:,} rows)",
            lambda k: Birch(n_clusters=k),
            "n_clusters = classes",
        )
    )
    out.append(
        _Contender(
            "MiniBatchKMeans",
            "scikit-learn",
            f"partial_fit({CHUNK:,} rows)",
            lambda k: MiniBatchKMeans(n_clusters=k, random_state=0, n_init=1),
            "n_clusters = classes",
        )
    )
    return out, missing


def _learn(c, model, X, dicts):
    if c.api.startswith("learn_many"):
        return model.learn_many(X)
    if dicts is not None and "learn_one" in c.api:
        return _river_loop(model, dicts)
    for s in range(0, len(X), CHUNK):
        model.partial_fit(X[s : s + CHUNK])
    return model


def _label(c, model, X, dicts):
    if c.api.startswith("learn_many") or "partial_fit" in c.api:
        return np.asarray(model.predict(X))
    return np.array([model.predict_one(d) for d in dicts])


def _dicts(c, X):
    return [{f"x{i}": float(v) for i, v in enumerate(row)} for row in X] if "dict" in c.api else None


def _timed_learning(c, make, X, dicts, repeat):
    """The best of ``repeat`` learning runs on a fresh model each (fewer when they pass 10 s): seconds, model."""
    import warnings

    best, model, spent = np.inf, None, 0.0
    for _ in range(repeat):
        fresh = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Birch's "fewer subclusters than n_clusters", numba's first calls
            t0 = time.perf_counter()
            fresh = _learn(c, fresh, X, dicts)
            dt = time.perf_counter() - t0
        if dt < best:
            best, model = dt, fresh
        spent += dt
        if spent > 10:
            break
    return best, model


def _score(c, model, X, y, scored, dicts, label_budget=60.0, subsample=1000):
    """Label the samples once (timed) and score them: ``label_us, nmi, ari, nmi_on, n_clusters``.

    A clusterer whose labelling of all samples would take more than ``label_budget`` seconds (River's
    DenStream reruns its DBSCAN over the micro-clusters at every ``predict_one``) labels the first
    ``subsample`` of a seeded permutation of the scored samples instead (a fixed number, so the scores do not
    depend on the machine's speed once the budget is passed); ``nmi_on`` says how many were scored.
    """
    import warnings

    from ..evaluation import ari, nmi

    idx = np.arange(len(X))
    if dicts is not None:  # one call per sample: project the labelling time from the first 50 calls
        t0 = time.perf_counter()
        _label(c, model, X[:50], dicts[:50])
        if (time.perf_counter() - t0) / 50 * len(X) > label_budget:
            pool = np.random.default_rng(0).permutation(np.flatnonzero(scored))
            idx = np.sort(pool[:subsample])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        labels = _label(c, model, X[idx], None if dicts is None else [dicts[i] for i in idx])
        label_s = time.perf_counter() - t0
    keep = scored[idx]
    return {
        "label_us": label_s / len(idx) * 1e6,
        "nmi": nmi(y[idx][keep], labels[keep]),
        "ari": ari(y[idx][keep], labels[keep]),
        "nmi_on": int(keep.sum()),
        "n_clusters": len(np.unique(labels[keep])),
    }


def run(c, X, y, scored, repeat=3, label_budget=60.0, subsample=1000):
    """One contender on one workload: learn (best of ``repeat`` runs, fewer when one run takes over 10 s), then
    label the samples once (see :func:`_score` for the clusterers too slow to label them all)."""
    k = len(np.unique(y[scored]))
    dicts = _dicts(c, X)
    best, model = _timed_learning(c, lambda: c.make(k), X, dicts, repeat)
    return {"learn_us": best / len(X) * 1e6, **_score(c, model, X, y, scored, dicts, label_budget, subsample)}


# ------------------------------------------------------------------ the grids
#: each peer's main parameter and the values tried on every workload (the data are scaled to [0, 1]);
#: MiniBatchKMeans' and CluStream's cluster counts are a user's guesses that do not know the classes
GRIDS = {
    "DBSTREAM": ("clustering_threshold", (0.05, 0.1, 0.2, 0.4, 0.8)),
    "DenStream": ("epsilon", (0.05, 0.1, 0.2, 0.4)),
    "CluStream": ("n_macro_clusters", (4, 8, 16, 32, 64)),
    "Birch": ("threshold", (0.05, 0.1, 0.2, 0.3, 0.5)),
    "MiniBatchKMeans": ("n_clusters", (4, 8, 16, 32, 64)),
}

#: a grid point whose labelling would pass this many seconds (DenStream's) is scored on GRID_SUBSAMPLE samples
GRID_LABEL_BUDGET, GRID_SUBSAMPLE = 15.0, 500


def grid_text(grids=None):
    """The grids as the bench prints them and the docs say them."""
    out = []
    for name, (param, values) in (grids or GRIDS).items():
        vals = "{" + ", ".join(f"{v:g}" for v in values) + "}"
        out.append(f"{name} `{param}` ∈ {vals}" + (" (n_clusters = classes and None)" if name == "Birch" else ""))
    return "; ".join(out)


def _remacro(model, n_macro):
    """River's CluStream ``model`` with its last macro-clustering redone for ``n_macro`` clusters (in place).

    ``n_macro_clusters`` is read by nothing but the k-means that CluStream rebuilds from scratch over the
    micro-clusters' centres every ``time_gap`` samples; the labels come from the last one. So one learning
    pass serves every value of the grid: the model is the one learning with ``n_macro`` gives (a test checks).
    """
    from river import cluster

    model.n_macro_clusters = n_macro
    if getattr(model, "_mc_centers", None):
        model._kmeans_mc = cluster.KMeans(n_clusters=n_macro, seed=model.seed, **model.kwargs)
        for center in model._mc_centers.values():
            model._kmeans_mc.learn_one(center)
        model.centers = model._kmeans_mc.centers
    return model


def _points(name, k, values):
    """``(setting, contender, make)`` per grid point, or a shared pass: ``("shared", contender, make, derive)``."""
    if name == "DBSTREAM":
        from river import cluster

        c = _Contender(name, "river", "learn_one(dict)", None)
        return [
            (f"clustering_threshold = {v:g}", c, lambda v=v: cluster.DBSTREAM(clustering_threshold=v)) for v in values
        ]
    if name == "DenStream":
        from river import cluster

        c = _Contender(name, "river", "learn_one(dict)", None)
        return [(f"epsilon = {v:g}", c, lambda v=v: cluster.DenStream(epsilon=v)) for v in values]
    if name == "MiniBatchKMeans":
        from sklearn.cluster import MiniBatchKMeans

        c = _Contender(name, "scikit-learn", f"partial_fit({CHUNK:,} rows)", None)
        return [
            (f"n_clusters = {v}", c, lambda v=v: MiniBatchKMeans(n_clusters=v, random_state=0, n_init=1))
            for v in values
        ]
    raise ValueError(name)


def _grid_results(name, X, y, scored, values):
    """Every value's row (without workload): learn once per value, or once for all (CluStream, Birch)."""
    import warnings

    k = len(np.unique(y[scored]))
    rows = []

    def add(c, setting, seconds, model, dicts):
        s = _score(c, model, X, y, scored, dicts, GRID_LABEL_BUDGET, GRID_SUBSAMPLE)
        rows.append(
            {
                "algorithm": c.name,
                "library": c.library,
                "api": c.api,
                "params": setting,
                "learn_us": seconds / len(X) * 1e6,
                **s,
            }
        )

    if name == "CluStream":
        from river import cluster

        c = _Contender(name, "river", "learn_one(dict)", None)
        dicts = _dicts(c, X)
        seconds, model = _timed_learning(c, lambda: cluster.CluStream(n_macro_clusters=values[0], seed=0), X, dicts, 1)
        for v in values:
            add(c, f"n_macro_clusters = {v} (seed 0; one pass)", seconds, _remacro(model, v), dicts)
        return rows
    if name == "Birch":
        from sklearn.cluster import Birch

        c = _Contender(name, "scikit-learn", f"partial_fit({CHUNK:,} rows)", None)
        alone, told = [], []
        for v in values:
            seconds, model = _timed_learning(c, lambda v=v: Birch(threshold=v, n_clusters=None), X, None, 1)
            add(c, f"threshold = {v:g}, n_clusters = None", seconds, model, None)
            alone.append(rows.pop())
            model.set_params(n_clusters=k)  # scored above; now the same tree, its subclusters grouped into k
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                model.partial_fit()  # the global step alone
                extra = time.perf_counter() - t0
            add(c, f"threshold = {v:g}, n_clusters = classes", seconds + extra, model, None)
            told.append(rows.pop())
        return told + alone
    for setting, c, make in _points(name, k, values):
        dicts = _dicts(c, X)
        seconds, model = _timed_learning(c, make, X, dicts, 1)
        add(c, setting, seconds, model, dicts)
    return rows


def best(rows, by="ari"):
    """The grid's choice: the row with the highest ``by`` (ties: the fewer clusters, then the first tried)."""
    return max(enumerate(rows), key=lambda ir: (ir[1][by], -ir[1]["n_clusters"], -ir[0]))[1]


def grid_search(name, X, y, scored, values=None):
    """A peer's grid on one workload: ``(rows, choices)``; ``rows`` every value's scores (one learning run
    each), ``choices`` the rows the table shows — the best by ARI and, when it is another, the best by NMI —
    each with its ``choice`` (``"best ARI"``/``"best NMI"``) and ``grid`` (the values tried). Birch's grid is
    two: its thresholds with ``n_clusters`` = the number of classes and with None (its subclusters as clusters),
    both from one tree per threshold (``partial_fit()`` without data then groups the subclusters into k)."""
    param, default_values = GRIDS[name]
    values = tuple(values or default_values)
    rows = _grid_results(name, X, y, scored, values)
    tried = f"{param} ∈ {{{', '.join(f'{v:g}' for v in values)}}}"
    families = (
        [rows] if name != "Birch" else [[r for r in rows if r["params"].endswith(e)] for e in ("classes", "None")]
    )
    choices = []
    for family in families:
        by_ari, by_nmi = best(family, "ari"), best(family, "nmi")
        choices.append({**by_ari, "choice": "best ARI", "grid": tried})
        if by_nmi is not by_ari:
            choices.append({**by_nmi, "choice": "best NMI", "grid": tried})
    return rows, choices


def _warm():
    """Compile (or load) CAE's kernels before anything is timed: on a machine without the kernel cache the first
    fit runs plain Python while a background process compiles, so wait for it (and say so)."""
    from .. import _jit
    from ..algorithms import CAE

    X = np.random.default_rng(0).random((300, 2))
    CAE().fit(X)
    if not _jit.compiled() and _jit.status() == "preparing":
        print(
            "(compiling CAE's kernels before timing anything, once per machine: docs/performance.md, A fresh machine)",
            flush=True,
        )
        _jit.wait()
        CAE().fit(X)
    if not _jit.compiled():
        print(f"(CAE's kernels are not compiled ({_jit.status()}): its times are plain Python's)")
    try:
        from ..integrations.river import CAE as RiverCAE

        m = RiverCAE()
        for row in X[:50]:
            m.learn_one({"x0": row[0], "x1": row[1]})
        m.predict_one({"x0": 0.5, "x1": 0.5})
    except ImportError:
        pass


def _machine():
    from importlib.metadata import PackageNotFoundError, version

    def v(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": platform.machine(),
        "processor": _cpu_model(),
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "versions": {n: v(n) for n in ("cae-explorer", "numpy", "numba", "river", "scikit-learn")},
    }


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


COLUMNS = [
    "workload",
    "algorithm",
    "library",
    "api",
    "params",
    "choice",
    "grid",
    "learn_us",
    "label_us",
    "nmi",
    "ari",
    "nmi_on",
    "n_clusters",
]


def markdown(csv_path):
    """The table of ``docs/performance.md`` from the CSV ``--out`` wrote (and its JSON beside it)."""
    import pandas as pd

    df = pd.read_csv(csv_path)
    for col in ("params", "choice", "grid"):
        df[col] = ["" if pd.isna(v) else str(v) for v in df[col]] if col in df else ""
    if "ari" not in df:
        df["ari"] = np.nan
    meta_path = Path(csv_path).with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    lines, grids = [], {}
    for workload, part in df.groupby("workload", sort=False):
        ref = part[(part["algorithm"] == "CAE") & (part["api"] == "learn_many(X)")]
        ref_learn = float(ref["learn_us"].iloc[0]) if len(ref) else None
        ref_label = float(ref["label_us"].iloc[0]) if len(ref) else None
        lines += [
            f"**{workload}**",
            "",
            "| algorithm | library | API | setting | chosen | learn µs/sample | × CAE | label µs/sample | × CAE | NMI | "
            "ARI | clusters |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        whole, partial_rows = int(part["nmi_on"].max()), []
        for r in part.itertuples(index=False):
            partial = r.nmi_on < whole
            ari = "" if pd.isna(r.ari) else f"{r.ari:.3f}"
            lines.append(
                f"| {r.algorithm} | {r.library} | {r.api} | {r.params} | {r.choice} | {_num(r.learn_us)} | "
                f"{_ratio(r.learn_us, ref_learn)} | {_num(r.label_us)} | {_ratio(r.label_us, ref_label)} | "
                f"{r.nmi:.3f}{' †' if partial else ''} | {ari}{' †' if partial and ari else ''} | {r.n_clusters} |"
            )
            if partial:
                partial_rows.append(" ".join(filter(None, (r.algorithm, r.params or r.choice, f"on {r.nmi_on:,}"))))
            if r.grid:
                grids.setdefault(r.algorithm, r.grid)
        lines.append("")
        if partial_rows:
            lines += [
                f"† labelled and scored on a seeded random part of the {whole:,} scored samples ({'; '.join(partial_rows)};"
                " the first of one seeded permutation): its "
                "`predict_one` reruns DBSCAN over the micro-clusters at every call",
                "",
            ]
    if grids:
        lines.append(
            "Grids (the same on every workload; one learning run per value): "
            + "; ".join(f"{a} `{g.split(' ∈ ')[0]}` ∈ {g.split(' ∈ ')[1]}" for a, g in grids.items())
            + ". Birch's thresholds are tried with `n_clusters` = the number of classes and with None (every subcluster"
            " a cluster), from one tree per threshold; CluStream's values share one learning pass (`n_macro_clusters`"
            " only sets the k-means over the micro-clusters). The value shown is the best by ARI against the true "
            "labels (*best NMI* where NMI picks another: NMI alone rewards over-segmentation) — a tuning that needs "
            "the labels; CAE is given none and has no grid. × CAE: the time over CAE's `learn_many` (learning) or "
            "`predict` (labelling) in the same run."
        )
        lines.append("")
    if meta:
        ver = meta.get("versions", {})
        lines.append(
            f"Measured {meta.get('date', '')} on {meta.get('processor', '?')} ({meta.get('cpus', '?')} cores, load "
            f"average {', '.join(map(str, meta.get('load_average') or []))} at the start), Python "
            f"{meta.get('python', '?')}, River {ver.get('river')}, scikit-learn {ver.get('scikit-learn')}, numba "
            f"{ver.get('numba')}; learn: best of {meta.get('repeat', '?')} runs (CAE and the defaults rows)."
        )
    return "\n".join(lines).rstrip() + "\n"


def _ratio(v, ref):
    if not ref:
        return ""
    r = v / ref
    return f"{r:.1f}×" if r >= 0.95 else f"{r:.2f}×"


def _num(v):
    return f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.bench --peers", description=__doc__.splitlines()[0])
    ap.add_argument(
        "--datasets",
        default=None,
        help="a folder holding letter.csv; default: the fetched datasets' folder, then $CAE_TEST_SHARED/datasets",
    )
    ap.add_argument("--repeat", type=int, default=3, help="learning runs per contender (the best is kept)")
    ap.add_argument("--n", type=int, default=20000, help="samples per workload (default 20,000)")
    ap.add_argument("--no-grid", action="store_true", help="the defaults rows only (no parameter grid)")
    ap.add_argument(
        "--out",
        default=None,
        help="write the rows to this CSV (the machine to a JSON beside it, every grid point to NAME_grid.csv)",
    )
    ap.add_argument(
        "--markdown",
        action="store_true",
        help="print docs/performance.md's table from --out's CSV (default results/peers.csv)",
    )
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown(a.out or "results/peers.csv"), end="")
        return 0
    contenders, missing = peers()
    for m in missing:
        print(f"({m} is not installed: its clusterers are skipped)")
    names = {c.name for c in contenders}
    grids = {} if a.no_grid else {n: g for n, g in GRIDS.items() if n in names}
    if grids:
        print(f"grids (best by ARI; one learning run per value): {grid_text(grids)}")
    meta = {**_machine(), "repeat": a.repeat, "n": a.n, "grids": {n: [p, list(v)] for n, (p, v) in grids.items()}}
    _warm()
    rows, points = [], []
    print(
        f"{'workload':24s} {'algorithm':16s} {'API':24s} {'setting':40s} {'chosen':9s} {'learn us':>9s} {'x CAE':>7s} "
        f"{'label us':>9s} {'x CAE':>7s} {'NMI':>6s} {'ARI':>6s} {'clusters':>8s}"
    )
    t_start = time.perf_counter()
    for name, X, y, scored in workloads(a.datasets, a.n):
        ref = None

        def show(r, ref=None):
            lr = f"{r['learn_us'] / ref['learn_us']:6.2f}x" if ref else ""
            br = f"{r['label_us'] / ref['label_us']:6.2f}x" if ref else ""
            print(
                f"{name:24s} {r['algorithm']:16s} {r['api']:24s} {r['params'][:40]:40s} {r['choice']:9s} "
                f"{r['learn_us']:9.2f} {lr:>7s} {r['label_us']:9.2f} {br:>7s} {r['nmi']:6.3f} {r['ari']:6.3f} "
                f"{r['n_clusters']:8d}",
                flush=True,
            )

        for c in contenders:
            r = run(c, X, y, scored, a.repeat)
            row = {
                "workload": name,
                "algorithm": c.name,
                "library": c.library,
                "api": c.api,
                "params": c.params,
                "choice": "" if c.name == "CAE" else "defaults",
                "grid": "",
                **r,
            }
            if ref is None and c.name == "CAE":
                ref = row
            rows.append(row)
            show(row, ref)
            if c.name in grids and c.name not in {p["algorithm"] for p in points if p["workload"] == name}:
                every, choices = grid_search(c.name, X, y, scored)
                points += [{"workload": name, **p} for p in every]
                for ch in choices:
                    rows.append({"workload": name, **ch})
                    show(rows[-1], ref)
    print(f"({time.perf_counter() - t_start:.0f} s in all)")
    if a.out:
        import pandas as pd

        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(out, index=False, float_format="%.6g")
        out.with_suffix(".json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
        written = [out, out.with_suffix(".json")]
        if points:
            grid_csv = out.with_name(out.stem + "_grid.csv")
            cols = [c for c in COLUMNS if c not in ("choice", "grid")]
            pd.DataFrame(points, columns=cols).to_csv(grid_csv, index=False, float_format="%.6g")
            written.append(grid_csv)
        print(f"wrote {', '.join(map(str, written))}")
    return 0


if __name__ == "__main__":
    main()

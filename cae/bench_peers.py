"""CAE beside the streaming clusterers a Python user would pick instead: ``python -m cae.bench --peers``.

On the paper's 2-D stream (our generator of its six distributions plus 10 % uniform noise, 20,000 samples in
random order; the noise is learned but not scored, as in the paper) and on Letter (20,000 × 16, min–max
scaled, random order; from the fetched datasets, ``python -m cae.data fetch``), it times the learning pass
(µs per sample, the best of ``--repeat`` runs on a fresh model each) and the labelling of every sample after
it, and scores NMI (geometric mean, as the paper) on the same samples:

* **CAE**, parameter-free, two ways: ``learn_many`` over the array, and one dict at a time through
  :mod:`cae.integrations.river` (River's API: the per-call cost is visible);
* River's **DBSTREAM**, **DenStream** and **CluStream** with River's defaults (CluStream's: 5 macro-clusters),
  one dict at a time (``learn_one``/``predict_one``);
* scikit-learn's **Birch** and **MiniBatchKMeans** (``partial_fit`` over chunks of 1,000 rows), told the true
  number of classes, with their defaults otherwise.

CAE and River's clusterers are not told the number of classes. The defaults of the distance thresholds
(DBSTREAM's ``clustering_threshold`` = 1, Birch's ``threshold`` = 0.5) exceed the spread of data scaled to
[0, 1], so those two find one cluster: a threshold has to be chosen per dataset, which is what a
parameter-free CAE spares its user.

River and scikit-learn's streaming estimators are optional extras (``pip install "cae-explorer[river]"``);
a missing one is skipped and said so. ``--out`` writes the rows as CSV (and the machine beside it as JSON);
``--markdown`` prints the table of ``docs/performance.md`` from that CSV. Timings depend on the machine and its load: the
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

__all__ = ["main", "workloads", "peers", "run", "markdown"]

CHUNK = 1000


def _paper2d(n):
    from .data import NOISE_LABEL, make_paper2d, stationary_stream

    s = stationary_stream(make_paper2d(seed=0), seed=0)
    return s.X[:n], s.y[:n], s.y[:n] != NOISE_LABEL


def workloads(folder=None, n=20000):
    """``(name, X, y, scored)``: the samples, their labels and which of them are scored."""
    X, y, scored = _paper2d(n)
    yield f"2-D paper stream, {len(X):,}", X, y, scored
    from .data.fetch import default_folder

    path = Path(folder or default_folder()) / "letter.csv"
    if path.exists():
        from .experiments.protocol import load_dataset

        d = load_dataset(str(path), "minmax")
        order = np.random.default_rng(0).permutation(len(d.X))[:n]
        yield f"Letter, {len(order):,} × 16", d.X[order], d.y[order], np.ones(len(order), bool)
    else:
        print(f"({path} is absent: Letter skipped; `python -m cae.data fetch --names letter` gets it)")


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
    from .algorithms import CAE

    out.append(_Contender("CAE", "cae-explorer", "learn_many(X)", lambda k: CAE()))
    try:
        from river import cluster

        from .integrations.river import CAE as RiverCAE

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


def run(c, X, y, scored, repeat=3, label_budget=60.0, subsample=1000):
    """One contender on one workload: learn (best of ``repeat`` runs, fewer when one run takes over 10 s), then
    label the samples once.

    A clusterer whose labelling of all samples would take more than ``label_budget`` seconds (River's
    DenStream reruns its DBSCAN over the micro-clusters at every ``predict_one``) labels a seeded random
    ``subsample`` of the scored samples instead; ``nmi_on`` says how many were scored.
    """
    import warnings

    from .evaluation import nmi

    k = len(np.unique(y[scored]))
    dicts = [{f"x{i}": float(v) for i, v in enumerate(row)} for row in X] if "dict" in c.api else None
    best, model, spent = np.inf, None, 0.0
    for _ in range(repeat):
        fresh = c.make(k)
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
    idx = np.arange(len(X))
    if dicts is not None:  # one call per sample: project the labelling time from the first 50 calls
        t0 = time.perf_counter()
        _label(c, model, X[:50], dicts[:50])
        if (time.perf_counter() - t0) / 50 * len(X) > label_budget:
            pool = np.flatnonzero(scored)
            idx = np.sort(np.random.default_rng(0).choice(pool, min(subsample, len(pool)), replace=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        labels = _label(c, model, X[idx], None if dicts is None else [dicts[i] for i in idx])
        label_s = time.perf_counter() - t0
    keep = scored[idx]
    return {
        "learn_us": best / len(X) * 1e6,
        "label_us": label_s / len(idx) * 1e6,
        "nmi": nmi(y[idx][keep], labels[keep]),
        "nmi_on": int(keep.sum()),
        "n_clusters": len(np.unique(labels[keep])),
    }


def _warm():
    """Compile (or load) CAE's kernels before anything is timed."""
    from .algorithms import CAE

    X = np.random.default_rng(0).random((300, 2))
    CAE().fit(X)
    try:
        from .integrations.river import CAE as RiverCAE

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


def markdown(csv_path):
    """The table of ``docs/performance.md`` from the CSV ``--out`` wrote (and its JSON beside it)."""
    import pandas as pd

    df = pd.read_csv(csv_path)
    meta_path = Path(csv_path).with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    lines, notes = [], set()
    for workload, part in df.groupby("workload", sort=False):
        ref = part.loc[(part["algorithm"] == "CAE") & (part["api"] == "learn_many(X)"), "learn_us"]
        ref = float(ref.iloc[0]) if len(ref) else None
        lines += [
            f"**{workload}**",
            "",
            "| algorithm | library | API | learn µs/sample | × CAE | label µs/sample | NMI | clusters | setting |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in part.itertuples(index=False):
            ratio = f"{r.learn_us / ref:.1f}×" if ref else ""
            partial = r.nmi_on < part["nmi_on"].max()
            lines.append(
                f"| {r.algorithm} | {r.library} | {r.api} | {_num(r.learn_us)} | {ratio} | {_num(r.label_us)} | "
                f"{r.nmi:.3f}{' †' if partial else ''} | {r.n_clusters} | {r.params if isinstance(r.params, str) else ''} |"
            )
            if partial:
                notes.add(
                    f"† labelled and scored on {r.nmi_on:,} random samples of the {int(part['nmi_on'].max()):,}: its "
                    "`predict_one` reruns DBSCAN over the micro-clusters at every call"
                )
        lines.append("")
    lines += sorted(notes) + ([""] if notes else [])
    if meta:
        ver = meta.get("versions", {})
        lines.append(
            f"Measured {meta.get('date', '')} on {meta.get('processor', '?')} ({meta.get('cpus', '?')} cores, load "
            f"average {', '.join(map(str, meta.get('load_average') or []))} at the start), Python "
            f"{meta.get('python', '?')}, River {ver.get('river')}, scikit-learn {ver.get('scikit-learn')}, numba "
            f"{ver.get('numba')}; learn: best of {meta.get('repeat', '?')} runs."
        )
    return "\n".join(lines).rstrip() + "\n"


def _num(v):
    return f"{v:.1f}" if v >= 1 else f"{v:.2f}"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.bench --peers", description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=None, help="the fetched datasets (for Letter); default: the per-user folder")
    ap.add_argument("--repeat", type=int, default=3, help="learning runs per contender (the best is kept)")
    ap.add_argument("--n", type=int, default=20000, help="samples per workload (default 20,000)")
    ap.add_argument("--out", default=None, help="write the rows to this CSV (and the machine to a JSON beside it)")
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
    meta = {**_machine(), "repeat": a.repeat, "n": a.n}
    _warm()
    rows = []
    print(
        f"{'workload':24s} {'algorithm':16s} {'API':24s} {'learn us':>9s} {'label us':>9s} {'NMI':>6s} {'clusters':>8s}"
    )
    for name, X, y, scored in workloads(a.datasets, a.n):
        for c in contenders:
            r = run(c, X, y, scored, a.repeat)
            rows.append(
                {"workload": name, "algorithm": c.name, "library": c.library, "api": c.api, "params": c.params, **r}
            )
            print(
                f"{name:24s} {c.name:16s} {c.api:24s} {r['learn_us']:9.2f} {r['label_us']:9.2f} {r['nmi']:6.3f} "
                f"{r['n_clusters']:8d}",
                flush=True,
            )
    if a.out:
        import pandas as pd

        out = Path(a.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(out, index=False, float_format="%.6g")
        out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
        print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    main()

"""The paper's protocol, one run at a time: data, streams, models and scores.

What the published numbers imply (measured; see ``cae/experiments/paper_tables/README.md``) and
what these jobs do:

* **Real-world data** are min–max scaled per feature (the paper's "no pre-processing" means the
  datasets as distributed, in normalised form); every run presents the rows in a new random
  order (stationary) or the classes one after another in a new random class order, the rows of a
  class in random order (non-stationary, class-incremental). Training and scoring use the same
  rows; labels are never used in training.
* **Synthetic data**: six distributions plus 10 % uniform noise; the noise is learned but **not
  scored** (``score_noise`` keeps it as a seventh class).
* **Continual metrics** under both conventions (:func:`cae.evaluation.continual_metrics`): the
  paper's (a single-class stage scores 1; BWT = M_C − mean of the earlier M_i), which reproduces
  its tables, and the text's.
* Each stage (or the whole stream) is one batch: ``end_batch()`` after it, as when one call of a
  reference implementation returns. CAE counts its sweep over the stream (``sweep_count="stream"``, the
  specification), not within each batch as ``CAE_train.m`` does: the same when the stream is one batch,
  a few nodes apart in staged runs, the statistics unchanged (``docs/cae-algorithm.md``, step 8).

Run ``r`` of a study uses seed ``seed + r``. Jobs are module-level functions (picklable for
joblib and dask) that return a list of rows (dicts).

Examples
--------
>>> rows = synthetic_job("stationary", run=0, seed=0, n_per_class=300)
>>> rows[0]["algorithm"], rows[0]["stage"], rows[0]["noise_scored"]
('CAE', 'all', False)
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..algorithms import CAE
from ..data import (
    NOISE_LABEL,
    Dataset,
    class_incremental_stream,
    load_labelled_csv,
    make_paper2d,
    nonstationary_stream,
    stationary_stream,
)
from ..data.csvio import scale
from ..evaluation import ari, continual_run, nmi, partition_outcome
from ..presets import dataset_key
from ..registry import ALGORITHMS

__all__ = [
    "variant_label",
    "parse_algorithms",
    "make_model",
    "synthetic_job",
    "realworld_job",
    "lambda_job",
    "runtime_job",
    "load_dataset",
    "cluster_faults",
    "PAPER_SYNTHETIC_STATIONARY",
]

# The paper's CAE numbers (mean (std) over 15 runs), synthetic data, stationary environment (the app's small
# synthetic study draws them beside ours; the full comparison reads every table from paper-results).
PAPER_SYNTHETIC_STATIONARY = {
    "nmi": (0.907, 0.254),
    "ari": (0.868, 0.270),
    "n_nodes": (243.1, 34.4),
    "n_clusters": (7.0, 2.4),
}


# ------------------------------------------------------------------ algorithms
def variant_label(algorithm, variant="paper"):
    """The name the paper's tables use: ``ASOINN`` or ``ASOINN(mean)`` (parameter-free ones have no variant);
    a run with λ set, ``CAEA(λ=200)``."""
    if variant.startswith("λ="):
        return f"{algorithm}({variant})"
    return f"{algorithm}(mean)" if variant == "mean" and ALGORITHMS[algorithm].params else algorithm


_LAMBDA = re.compile(r"(.+?)\s*\((?:λ|lambda)\s*=\s*(\d+)\)")


def parse_algorithms(text, default_variant="paper"):
    """``"CAE,ASOINN,TCA(mean)"`` -> ``[("CAE", "paper"), ("ASOINN", "paper"), ("TCA", "mean")]``.

    A name without ``(mean)`` takes ``default_variant``; ``CAEA(λ=200)`` (or ``CAEA(lambda=200)``) is the
    paper's setting with λ = 200. Raises ValueError for an unknown name.

    >>> parse_algorithms("CAE,CAEA(lambda=200)")
    [('CAE', 'paper'), ('CAEA', 'λ=200')]
    """
    out = []
    for raw in str(text).split(","):
        name = raw.strip()
        if not name:
            continue
        variant = default_variant
        if name.endswith("(mean)"):
            name, variant = name[: -len("(mean)")].strip(), "mean"
        elif _LAMBDA.fullmatch(name):  # the paper's setting with λ set: CAEA(λ=200) or CAEA(lambda=200)
            m = _LAMBDA.fullmatch(name)
            name, variant = m[1], f"λ={int(m[2])}"
            if name in ALGORITHMS and "deletion_interval" not in [p.name for p in ALGORITHMS[name].params]:
                raise ValueError(f"{name} has no λ (deletion interval) to set")
        if name not in ALGORITHMS:
            raise ValueError(
                f"unknown algorithm {name!r}; choose among {', '.join(ALGORITHMS)} "
                "(append (mean) for the mean of the paper's grid values)"
            )
        if (name, variant) not in out:
            out.append((name, variant))
    if not out:
        raise ValueError("no algorithm given")
    return out


def make_model(algorithm, dataset, environment, variant="paper"):
    """A fresh model in the paper's setting for ``dataset`` (its defaults where the paper has none).

    Returns ``(model, params)``.
    """
    spec = ALGORITHMS[algorithm]
    lam = int(variant[2:]) if variant.startswith("λ=") else None
    base = "paper" if lam is not None else variant
    try:
        params = spec.paper_setting(dataset, environment, base)
    except KeyError:  # a dataset the paper did not use
        params = spec.defaults() if base == "paper" else spec.paper_setting(dataset, environment, "mean")
    if lam is not None:
        params = {**params, "deletion_interval": lam}
    return spec.make(**params), params


def _n_nodes(algorithm, model):
    return len(model.nodes_) if ALGORITHMS[algorithm].kind != "clouds" else np.nan  # clouds are no nodes


def cluster_faults(y, pred):
    """Whether a clustering ``pred`` merges or splits the classes ``y``: ``(merged, split)``.

    The rule of the Playground's *How often?* (:func:`cae.evaluation.partition_outcome`): the **home
    cluster** of a class is the cluster holding most of its points (the first on ties); the clustering
    **merges** when two or more classes share a home cluster, and **splits** when a class is the majority
    class of two or more *large* clusters, each holding at least 1 % of the points (smaller fragments do
    not count). Points without a cluster (-1) count as one cluster.

    Examples
    --------
    >>> cluster_faults(np.array([0, 0, 1, 1]), np.array([5, 5, 5, 5]))
    (True, False)
    >>> cluster_faults(np.array([0, 0, 0, 0, 1, 1]), np.array([1, 1, 2, 2, 3, 3]))
    (False, True)
    >>> cluster_faults(np.array([0] * 200 + [1] * 200), np.array([0] * 199 + [7] + [1] * 200))  # a fragment
    (False, False)
    """
    out = partition_outcome(y, pred)
    return bool(out["merged"]), bool(out["split"])


def _scores(algorithm, model, X, y, mask=None, faults=False):
    """NMI, ARI, #nodes, #clusters of a fitted model on (X, y) (and, with ``faults``, whether it merged or
    split the classes: :func:`cluster_faults`); only rows in ``mask`` are scored."""
    if mask is not None:
        X, y = X[mask], y[mask]
    pred = model.predict(X) if len(model.nodes_) else np.full(len(X), -1)
    out = {
        "nmi": nmi(y, pred),
        "ari": ari(y, pred),
        "n_nodes": _n_nodes(algorithm, model),
        "n_clusters": model.n_clusters_,
    }
    if faults:
        out["merged"], out["split"] = cluster_faults(y, pred)
    return out


# ------------------------------------------------------------------ data
def _paper_data(seed, n_per_class=15000, data_csv=None, noise=0.1):
    """The paper's 2-D data with uniform noise (10 % of the points, as the paper; ``noise`` another share):
    our generator, or the authors' file plus noise."""
    if data_csv is None:
        return make_paper2d(n_per_class=n_per_class, noise_fraction=noise, seed=seed)
    X, y = _authors_file(str(data_csv))
    rng = np.random.default_rng(seed)
    m = len(X) // 10 if noise == 0.1 else int(round(noise * len(X)))
    X = np.vstack([X, rng.uniform(0, 1, (m, 2))])
    y = np.concatenate([y, np.full(m, NOISE_LABEL)])
    d = make_paper2d(n_per_class=1, noise_fraction=0.0)
    return Dataset(
        name="paper2d-authors", X=X, y=y, class_names=d.class_names, feature_names=["x0", "x1"], noise_label=NOISE_LABEL
    )


@lru_cache(maxsize=2)
def _authors_file(path):
    df = pd.read_csv(path)
    return df[["x0", "x1"]].to_numpy(float), df["label"].to_numpy(np.int64)


@lru_cache(maxsize=4)
def _read_csv_dataset(path):
    return load_labelled_csv(path)


def load_dataset(source, scaling="minmax"):
    """A CSV path (features, then ``label``) or a :class:`~cae.data.Dataset`, scaled (a copy).

    The dataset is named by the paper's name where it is one of the paper's (``segment`` ->
    ``Image Segmentation``).
    """
    d = source if isinstance(source, Dataset) else _read_csv_dataset(str(source))
    name = dataset_key(d.name) or d.name
    return Dataset(
        name=name,
        X=scale(d.X, scaling),
        y=d.y,
        class_names=d.class_names,
        feature_names=d.feature_names,
        noise_label=d.noise_label,
    )


def _class_order(d, seed):
    classes = sorted(int(c) for c in np.unique(d.y) if c != d.noise_label)
    return [int(c) for c in np.random.default_rng(seed).permutation(classes)]


# ------------------------------------------------------------------ jobs
def synthetic_job(
    environment,
    run,
    seed,
    algorithm="CAE",
    variant="paper",
    n_per_class=15000,
    data_csv=None,
    score_noise=False,
    noise=0.1,
):
    """One run of the synthetic protocol for one algorithm; a row per stage.

    ``noise`` is the share of uniform noise points (the paper's 10 %; the noise study varies it).
    """
    s = seed + run
    data = _paper_data(s, n_per_class, data_csv, noise)
    model, params = make_model(algorithm, "synthetic", environment, variant)
    label = variant_label(algorithm, variant)
    rows = []
    t0 = time.perf_counter()
    common = {"algorithm": label, "run": run, "noise": float(noise), "noise_scored": bool(score_noise)}
    if environment == "stationary":
        stream = stationary_stream(data, seed=s)
        model.learn_many(stream.X).end_batch()
        mask = None if score_noise else stream.y != NOISE_LABEL
        rows.append(
            {
                **common,
                "stage": "all",
                **_scores(algorithm, model, stream.X, stream.y, mask, faults=True),
                "seconds": time.perf_counter() - t0,
            }
        )
    else:
        stream = nonstationary_stream(data, seed=s)
        for k, (a, b) in enumerate(zip(stream.stage_starts, stream.stage_ends)):
            model.learn_many(stream.X[a:b]).end_batch()
            mask = None if score_noise else stream.y[:b] != NOISE_LABEL
            rows.append(
                {
                    **common,
                    "stage": stream.stage_names[k],
                    **_scores(algorithm, model, stream.X[:b], stream.y[:b], mask, faults=True),
                    "seconds": time.perf_counter() - t0,
                }
            )
    for r in rows:
        r["params"] = json.dumps(params, sort_keys=True)
    return rows


def realworld_job(path, environment, run, seed, scaling="minmax", algorithm="CAE", variant="paper"):
    """One run on one dataset for one algorithm: a row (with AI and BWT under both conventions when
    non-stationary)."""
    d = load_dataset(path, scaling)
    s = seed + run
    model, params = make_model(algorithm, d.name, environment, variant)
    t0 = time.perf_counter()
    row = {
        "dataset": d.name,
        "algorithm": variant_label(algorithm, variant),
        "run": run,
        "scaling": scaling,
        "params": json.dumps(params, sort_keys=True),
    }
    if environment == "stationary":
        stream = stationary_stream(d, seed=s)
        model.learn_many(stream.X).end_batch()
        row.update(_scores(algorithm, model, stream.X, stream.y))
    else:
        order = _class_order(d, s)
        stream = class_incremental_stream(d, order=order, seed=s)
        res = continual_run(stream, model=model)
        row.update(_scores(algorithm, model, stream.X, stream.y))
        row.update(res.scores("paper"))
        row.update({f"{k}_text": v for k, v in res.scores("text").items()})
        row["class_order"] = " ".join(map(str, order))
    row["seconds"] = time.perf_counter() - t0
    return [row]


def lambda_job(path, lam, run, seed, scaling="minmax", environment="stationary"):
    """CAE with λ fixed at ``lam`` (a_max estimated), or estimated when ``lam`` is None."""
    d = load_dataset(path, scaling)
    s = seed + run
    t0 = time.perf_counter()
    model = CAE(deletion_interval=lam)
    if environment == "stationary":
        stream = stationary_stream(d, seed=s)
        model.learn_many(stream.X)
    else:
        stream = class_incremental_stream(d, order=_class_order(d, s), seed=s)
        for a, b in zip(stream.stage_starts, stream.stage_ends):
            model.learn_many(stream.X[a:b])
    row = {
        "dataset": d.name,
        "environment": environment,
        "run": run,
        "lambda": model.deletion_interval_,
        "estimated": lam is None,
        **_scores("CAE", model, stream.X, stream.y),
        "seconds": time.perf_counter() - t0,
    }
    return [row]


def runtime_job(path, run, seed, scaling="minmax", environment="stationary"):
    """Wall time of one pass of CAE, the share spent until λ is fixed (the DPP diversity phase), peak memory."""
    d = load_dataset(path, scaling)
    s = seed + run
    if environment == "stationary":
        X = stationary_stream(d, seed=s).X
    else:
        X = class_incremental_stream(d, order=_class_order(d, s), seed=s).X
    model = CAE()
    t0 = time.perf_counter()
    i = 0
    while i < len(X) and (i == 0 or model.deletion_interval_ is None):
        model.learn_many(X[i : i + 1])  # one sample at a time until the diversity criterion fixes lambda
        i += 1
    t1 = time.perf_counter()
    if i < len(X):
        model.learn_many(X[i:])
    t2 = time.perf_counter()
    tracemalloc.start()
    CAE().learn_many(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return [
        {
            "dataset": d.name,
            "environment": environment,
            "run": run,
            "n_samples": len(X),
            "seconds": t2 - t0,
            "diversity_seconds": t1 - t0,
            "diversity_share": (t1 - t0) / max(t2 - t0, 1e-12),
            "samples_until_lambda": i,
            "peak_mb": peak / 2**20,
            "n_nodes": len(model.nodes_),
        }
    ]


def dataset_files(folder, names=None):
    """The CSVs of a folder (all, or the comma-separated stems in ``names``); SystemExit if absent."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"no such folder: {folder}")
    files = sorted(folder.glob("*.csv"))
    if names:
        wanted = [n.strip() for n in str(names).split(",") if n.strip()]
        missing = [n for n in wanted if not (folder / f"{n}.csv").exists()]
        if missing:
            raise SystemExit(f"not found in {folder}: {', '.join(missing)}")
        files = [folder / f"{n}.csv" for n in wanted]
    if not files:
        raise SystemExit(f"no CSV files in {folder}")
    return files

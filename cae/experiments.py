"""The paper's experiments, reproducible from the command line: ``python -m cae.experiments``.

Subcommands
-----------
synthetic     the 2-D protocol (six distributions + 10 % noise), stationary or stream #1 ... #6
realworld     every CSV of a folder (features, then ``label``), stationary or class-incremental
lambda-sweep  lambda fixed at each value of a list (a_max estimated) against the estimated lambda
runtime       wall time, the share spent estimating lambda (the diversity phase) and peak memory

Every run is seeded (run ``r`` uses seed ``--seed + r``) and the CSVs are written in a fixed
order, so the same command gives the same CSV except for the ``seconds`` column. Runs go in
parallel with joblib (``--n-jobs``), or to a dask.distributed cluster (``--dask ADDRESS``)
through joblib's dask backend.

Examples
--------
>>> rows = synthetic_job("stationary", run=0, seed=0, n_per_class=300)
>>> sorted(rows[0])[:4], rows[0]["stage"]
(['ari', 'n_clusters', 'n_nodes', 'nmi'], 'all')
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

from .csvio import scale
from .datasets import (
    NOISE_LABEL, Dataset, class_incremental_stream, load_labelled_csv, make_paper2d, nonstationary_stream,
    stationary_stream,
)
from .evaluation import ari, nmi
from .model import CAE
from .workbench import continual_run

__all__ = ["synthetic_job", "realworld_job", "lambda_job", "runtime_job", "run_jobs", "summary_table",
           "PAPER_SYNTHETIC_STATIONARY", "main"]

# The paper's CAE numbers (mean (std) over 15 runs), synthetic data, stationary environment.
PAPER_SYNTHETIC_STATIONARY = {"nmi": (0.907, 0.254), "ari": (0.868, 0.270), "n_nodes": (243.1, 34.4),
                              "n_clusters": (7.0, 2.4)}


# ------------------------------------------------------------------ data
def _paper_data(seed, n_per_class=15000, data_csv=None):
    """The paper's 2-D data with 10 % uniform noise: our generator, or the authors' file plus noise."""
    if data_csv is None:
        return make_paper2d(n_per_class=n_per_class, noise_fraction=0.1, seed=seed)
    df = pd.read_csv(data_csv)
    X = df[["x0", "x1"]].to_numpy(float)
    y = df["label"].to_numpy(np.int64)
    rng = np.random.default_rng(seed)
    m = len(X) // 10
    X = np.vstack([X, rng.uniform(0, 1, (m, 2))])
    y = np.concatenate([y, np.full(m, NOISE_LABEL)])
    d = make_paper2d(n_per_class=1, noise_fraction=0.0)
    return Dataset(name="paper2d-authors", X=X, y=y, class_names=d.class_names, feature_names=["x0", "x1"],
                   noise_label=NOISE_LABEL)


def _scores(model, X, y):
    pred = model.predict(X) if len(model.nodes_) else np.full(len(X), -1)
    return {"nmi": nmi(y, pred), "ari": ari(y, pred), "n_nodes": len(model.nodes_), "n_clusters": model.n_clusters_}


# ------------------------------------------------------------------ jobs (module level: picklable)
def synthetic_job(environment, run, seed, n_per_class=15000, data_csv=None):
    """One run of the synthetic protocol; a row per stage."""
    s = seed + run
    data = _paper_data(s, n_per_class, data_csv)
    model = CAE()
    rows = []
    t0 = time.perf_counter()
    if environment == "stationary":
        stream = stationary_stream(data, seed=s)
        model.learn_many(stream.X)
        rows.append({"run": run, "stage": "all", **_scores(model, stream.X, stream.y),
                     "seconds": time.perf_counter() - t0})
    else:
        stream = nonstationary_stream(data, seed=s)
        for k, (a, b) in enumerate(zip(stream.stage_starts, stream.stage_ends)):
            model.learn_many(stream.X[a:b])
            rows.append({"run": run, "stage": stream.stage_names[k], **_scores(model, stream.X[:b], stream.y[:b]),
                         "seconds": time.perf_counter() - t0})
    return rows


def _load_dataset(source, scaling):
    """A CSV path (features, then ``label``) or a :class:`~cae.datasets.Dataset`, scaled."""
    if isinstance(source, Dataset):
        d = Dataset(name=source.name, X=source.X, y=source.y, class_names=source.class_names,
                    feature_names=source.feature_names, noise_label=source.noise_label)
    else:
        d = load_labelled_csv(source)
    d.X = scale(d.X, scaling)
    return d


def realworld_job(path, environment, run, seed, scaling="minmax"):
    """One run on one dataset: a row (with AI and BWT when non-stationary)."""
    d = _load_dataset(path, scaling)
    s = seed + run
    t0 = time.perf_counter()
    row = {"dataset": d.name, "run": run, "scaling": scaling}
    if environment == "stationary":
        stream = stationary_stream(d, seed=s)
        model = CAE().learn_many(stream.X)
        row.update(_scores(model, stream.X, stream.y))
    else:
        stream = class_incremental_stream(d, seed=s)
        res = continual_run(stream)
        model = res.snapshots[-1]
        row.update(_scores(model, stream.X, stream.y))
        row.update({"ai_nmi": res.ai_nmi, "bwt_nmi": res.bwt_nmi, "ai_ari": res.ai_ari, "bwt_ari": res.bwt_ari})
    row["seconds"] = time.perf_counter() - t0
    return [row]


def lambda_job(path, lam, run, seed, scaling="minmax"):
    """CAE with lambda fixed at ``lam`` (a_max estimated), or estimated when ``lam`` is None."""
    d = _load_dataset(path, scaling)
    stream = stationary_stream(d, seed=seed + run)
    t0 = time.perf_counter()
    model = CAE(deletion_interval=lam).learn_many(stream.X)
    row = {"dataset": d.name, "run": run, "lambda": model.deletion_interval_,
           "estimated": lam is None, **_scores(model, stream.X, stream.y), "seconds": time.perf_counter() - t0}
    return [row]


def runtime_job(path, run, seed, scaling="minmax"):
    """Wall time of one pass, the share spent until lambda is fixed (the DPP diversity phase), peak memory."""
    d = _load_dataset(path, scaling)
    X = stationary_stream(d, seed=seed + run).X
    model = CAE()
    t0 = time.perf_counter()
    i = 0
    while i < len(X) and (i == 0 or model.deletion_interval_ is None):
        model.learn_many(X[i:i + 1])  # one sample at a time until the diversity criterion fixes lambda
        i += 1
    t1 = time.perf_counter()
    if i < len(X):
        model.learn_many(X[i:])
    t2 = time.perf_counter()
    tracemalloc.start()
    CAE().fit(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return [{"dataset": d.name, "run": run, "n_samples": len(X), "seconds": t2 - t0,
             "diversity_seconds": t1 - t0, "diversity_share": (t1 - t0) / max(t2 - t0, 1e-12),
             "samples_until_lambda": i, "peak_mb": peak / 2**20, "n_nodes": len(model.nodes_)}]


# ------------------------------------------------------------------ running
def _progress(done, total, label, stream=sys.stderr):
    width = 30
    filled = int(width * done / max(total, 1))
    stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()


def run_jobs(fn, arglist, n_jobs=1, dask=None, label="runs", progress=True):
    """Run ``fn(*args)`` for every args in parallel (joblib, or dask through joblib); rows in input order."""
    from joblib import Parallel, delayed, parallel_config

    client = None
    backend = {}
    if dask:
        from dask.distributed import Client

        client = Client(dask) if isinstance(dask, str) else dask
        backend = {"backend": "dask"}
    try:
        with parallel_config(**backend):
            gen = Parallel(n_jobs=n_jobs if not dask else -1, return_as="generator")(delayed(fn)(*a) for a in arglist)
            out = []
            for k, rows in enumerate(gen, start=1):
                out.extend(rows)
                if progress:
                    _progress(k, len(arglist), label)
    finally:
        if client is not None and isinstance(dask, str):
            client.close()
    return pd.DataFrame(out)


def _fmt(mean, std):
    return f"{mean:.3f} ({std:.3f})" if abs(mean) < 10 else f"{mean:.1f} ({std:.1f})"


def summary_table(df, by, metrics):
    """Mean (std) per group, as a Markdown table."""
    g = df.groupby(by, sort=False)
    rows = []
    for key, part in g:
        row = {by: key}
        for m in metrics:
            row[m] = _fmt(part[m].mean(), part[m].std(ddof=1) if len(part) > 1 else 0.0)
        rows.append(row)
    t = pd.DataFrame(rows)
    head = "| " + " | ".join(t.columns) + " |\n| " + " | ".join("---" for _ in t.columns) + " |\n"
    return head + "".join("| " + " | ".join(str(v) for v in r) + " |\n" for r in t.itertuples(index=False))


def _datasets(folder, names):
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"no such folder: {folder}")
    files = sorted(folder.glob("*.csv"))
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        missing = [n for n in wanted if not (folder / f"{n}.csv").exists()]
        if missing:
            raise SystemExit(f"not found in {folder}: {', '.join(missing)}")
        files = [folder / f"{n}.csv" for n in wanted]
    if not files:
        raise SystemExit(f"no CSV files in {folder}")
    return files


def _write(df, out, name, table, header):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / f"{name}.csv", index=False, float_format="%.10g")
    (out / f"{name}.md").write_text(header + "\n\n" + table)
    print(f"wrote {out / (name + '.csv')} and {out / (name + '.md')}")
    print(table)


# ------------------------------------------------------------------ CLI
def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.experiments", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("--runs", type=int, default=10)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--out", default="results")
        p.add_argument("--n-jobs", type=int, default=1)
        p.add_argument("--dask", default=None, metavar="ADDRESS", help="a dask.distributed scheduler address")
        p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("synthetic", help="the paper's 2-D protocol")
    p.add_argument("--environment", choices=["stationary", "nonstationary"], default="stationary")
    p.add_argument("--data", default=None, help="the authors' CSV (x0, x1, label) instead of our generator")
    p.add_argument("--n-per-class", type=int, default=15000)
    common(p)
    for name in ("realworld", "lambda-sweep", "runtime"):
        p = sub.add_parser(name)
        p.add_argument("--datasets", required=True, help="a folder of CSVs (features, then label)")
        p.add_argument("--names", default=None, help="comma-separated dataset names (file stems)")
        p.add_argument("--scaling", choices=["minmax", "zscore", "none"], default="minmax")
        if name == "realworld":
            p.add_argument("--environment", choices=["stationary", "nonstationary"], default="stationary")
        if name == "lambda-sweep":
            p.add_argument("--lambdas", default="10,20,40,80,160,320")
        common(p)
    a = ap.parse_args(argv)
    if a.runs < 1:
        raise SystemExit("--runs must be at least 1")
    jobs = dict(n_jobs=a.n_jobs, dask=a.dask, progress=not a.quiet)

    if a.cmd == "synthetic":
        df = run_jobs(synthetic_job, [(a.environment, r, a.seed, a.n_per_class, a.data) for r in range(a.runs)],
                      label="synthetic", **jobs)
        df = df[["run", "stage", "nmi", "ari", "n_nodes", "n_clusters", "seconds"]]
        src = "the authors' file" if a.data else "our generator"
        header = (f"# CAE, synthetic 2-D data ({src}, {a.n_per_class} per distribution + 10 % noise), "
                  f"{a.environment}, {a.runs} runs, seed {a.seed}")
        if a.environment == "stationary":
            p = PAPER_SYNTHETIC_STATIONARY
            header += "\n\nThe paper (15 runs): " + ", ".join(f"{k} {v[0]} ({v[1]})" for k, v in p.items())
        _write(df, a.out, f"synthetic_{a.environment}", summary_table(df, "stage", ["nmi", "ari", "n_nodes", "n_clusters"]),
               header)
        return 0
    files = _datasets(a.datasets, a.names)
    if a.cmd == "realworld":
        df = run_jobs(realworld_job, [(str(f), a.environment, r, a.seed, a.scaling) for f in files for r in range(a.runs)],
                      label="realworld", **jobs)
        metrics = ["nmi", "ari", "n_nodes", "n_clusters"] + (
            ["ai_nmi", "bwt_nmi", "ai_ari", "bwt_ari"] if a.environment == "nonstationary" else [])
        cols = ["dataset", "run", "scaling"] + metrics + ["seconds"]
        df = df[cols]
        _write(df, a.out, f"realworld_{a.environment}", summary_table(df, "dataset", metrics),
               f"# CAE, real-world datasets, {a.environment}, {a.runs} runs, seed {a.seed}, scaling: {a.scaling}")
    elif a.cmd == "lambda-sweep":
        lams = [int(v) for v in a.lambdas.split(",")]
        args = [(str(f), lam, r, a.seed, a.scaling) for f in files for lam in [None] + lams for r in range(a.runs)]
        df = run_jobs(lambda_job, args, label="lambda-sweep", **jobs)
        df["setting"] = np.where(df["estimated"], "estimated", "fixed")
        table = ""
        for name, part in df.groupby("dataset", sort=False):
            est = part.loc[part["estimated"], "lambda"]
            label = f"estimated (λ = {est.mean():.0f} ± {est.std(ddof=1) if len(est) > 1 else 0:.0f})"
            part = part.assign(key=[label if e else f"λ = {l}" for e, l in zip(part["estimated"], part["lambda"])])
            table += f"\n## {name}\n\n" + summary_table(part, "key", ["nmi", "n_clusters"])
        _write(df, a.out, "lambda_sweep", table, f"# CAE, λ fixed vs estimated, {a.runs} runs, scaling: {a.scaling}")
    else:
        df = run_jobs(runtime_job, [(str(f), r, a.seed, a.scaling) for f in files for r in range(a.runs)],
                      label="runtime", **jobs)
        _write(df, a.out, "runtime", summary_table(df, "dataset", ["seconds", "diversity_share", "peak_mb", "n_nodes"]),
               f"# CAE runtime, {a.runs} runs, scaling: {a.scaling}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

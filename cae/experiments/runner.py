"""Running many jobs (joblib, or a dask.distributed cluster through joblib) and writing their tables."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["run_jobs", "summary_table", "fmt_mean_std", "write_study", "markdown_table"]


def _progress(done, total, label, stream=sys.stderr):
    width = 30
    filled = int(width * done / max(total, 1))
    stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done == total:
        stream.write("\n")
    stream.flush()


def run_jobs(fn, arglist, n_jobs=1, dask=None, label="runs", progress=True):
    """Run ``fn(*args)`` for every args in parallel; the rows in input order, as a DataFrame.

    ``dask`` is a scheduler address (or a ``dask.distributed.Client``): the jobs go to that
    cluster through joblib's dask backend.
    """
    from joblib import Parallel, delayed, parallel_config

    arglist = list(arglist)
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


def fmt_mean_std(mean, std):
    """``0.907 (0.254)`` for scores, ``243.1 (34.4)`` for counts; ``—`` for NaN."""
    if mean is None or (isinstance(mean, float) and np.isnan(mean)):
        return "—"
    std = 0.0 if std is None or (isinstance(std, float) and np.isnan(std)) else std
    return f"{mean:.3f} ({std:.3f})" if abs(mean) < 10 else f"{mean:.1f} ({std:.1f})"


def markdown_table(df):
    """A DataFrame as a Markdown table (values as they are)."""
    head = "| " + " | ".join(map(str, df.columns)) + " |\n| " + " | ".join("---" for _ in df.columns) + " |\n"
    return head + "".join("| " + " | ".join(str(v) for v in r) + " |\n" for r in df.itertuples(index=False))


def summary_table(df, by, metrics):
    """Mean (std) per group (``by`` a column or a list of columns), as a Markdown table."""
    keys = [by] if isinstance(by, str) else list(by)
    rows = []
    for key, part in df.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(keys, key))
        for m in metrics:
            vals = part[m].astype(float)
            row[m] = fmt_mean_std(vals.mean(), vals.std(ddof=1) if vals.count() > 1 else 0.0)
        rows.append(row)
    return markdown_table(pd.DataFrame(rows))


def write_study(df, out, name, table, header, quiet=False):
    """``out/name.csv`` (the rows) and ``out/name.md`` (the header and the summary table)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / f"{name}.csv", index=False, float_format="%.10g")
    (out / f"{name}.md").write_text(header + "\n\n" + table)
    if not quiet:
        print(f"wrote {out / (name + '.csv')} and {out / (name + '.md')}")
        print(table)

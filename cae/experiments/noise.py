"""The noise-robustness study: every algorithm on the paper's 2-D stream with 0 … 20 % uniform noise.

The paper claims robustness to noise from one noise level (10 %). This study measures it: the six
algorithms with the paper's synthetic settings, the paper's 2-D data (15,000 points per distribution)
plus a share ``noise`` of uniform noise points (0, 2, 5, 10, 20 % of the 90,000), stationary (one
random order) and non-stationary (stream #1 … #6), ten seeds or more; the noise is learned but not
scored, as in the paper. Per run and stream it records NMI, ARI, #nodes, #clusters and whether the
clustering **merged** or **split** the classes (:func:`cae.experiments.protocol.cluster_faults`, the rule
of the Playground's *How often?*; :data:`FAULT_DEFINITION` says it in words).

A run of the non-stationary environment *merges* (or splits) when it does so after at least one of
its six streams; :func:`fault_counts` gives both that and the share at the last stream.

Examples
--------
>>> rows = noise_job("stationary", 0.05, run=0, seed=0, algorithm="CAE", n_per_class=300)
>>> rows[0]["environment"], rows[0]["noise"], sorted(k for k in rows[0] if k in ("merged", "split"))
('stationary', 0.05, ['merged', 'split'])
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluation import MERGE_DEFINITION
from .protocol import synthetic_job
from .runner import fmt_mean_std, markdown_table

__all__ = [
    "FAULT_DEFINITION",
    "NOISE_LEVELS",
    "QUICK_NOISE_LEVELS",
    "noise_job",
    "summary",
    "fault_counts",
    "study_note",
    "study_sentence",
    "read_study",
    "noise_markdown",
]

#: what "merges" and "splits" mean, in the words of the Playground's *How often?* (the same rule)
FAULT_DEFINITION = MERGE_DEFINITION
#: the study's noise levels (share of uniform noise points, relative to the 90,000 distribution points)
NOISE_LEVELS = (0.0, 0.02, 0.05, 0.10, 0.20)
#: ``paper --quick``: four levels
QUICK_NOISE_LEVELS = (0.0, 0.05, 0.10, 0.20)
COLUMNS = [
    "algorithm",
    "environment",
    "noise",
    "n_per_class",
    "run",
    "stage",
    "nmi",
    "ari",
    "n_nodes",
    "n_clusters",
    "merged",
    "split",
    "params",
    "seconds",
]


def noise_job(environment, noise, run, seed, algorithm="CAE", variant="paper", n_per_class=15000, data_csv=None):
    """One run of the synthetic protocol at noise level ``noise``: a row per stream."""
    rows = synthetic_job(environment, run, seed, algorithm, variant, n_per_class, data_csv, False, noise)
    for r in rows:
        r["environment"] = environment
        r["n_per_class"] = int(n_per_class)
    return rows


def summary(df):
    """Mean (std) of every metric and the merge/split counts per algorithm, environment, noise and stream."""
    out = []
    for (alg, env, noise, stage), part in df.groupby(["algorithm", "environment", "noise", "stage"], sort=False):
        row = {"algorithm": alg, "environment": env, "noise": noise, "stage": stage, "runs": len(part)}
        for m in ("nmi", "ari", "n_nodes", "n_clusters"):
            v = part[m].astype(float)
            row[f"{m}_mean"] = v.mean()
            row[f"{m}_std"] = v.std(ddof=1) if len(v) > 1 else 0.0
        row["merged"] = int(part["merged"].astype(bool).sum())
        row["split"] = int(part["split"].astype(bool).sum())
        out.append(row)
    return pd.DataFrame(out)


def fault_counts(df):
    """Per algorithm, environment and noise: how many runs merge (split) at some stream and at the last.

    Columns ``runs``, ``merged_any``, ``split_any``, ``merged_last``, ``split_last`` (counts of runs).
    """
    out = []
    for (alg, env, noise), part in df.groupby(["algorithm", "environment", "noise"], sort=False):
        per_run = part.groupby("run", sort=True)
        last = part.groupby("run", sort=True).tail(1)  # rows are in stream order within a run
        out.append(
            {
                "algorithm": alg,
                "environment": env,
                "noise": noise,
                "runs": per_run.ngroups,
                "merged_any": int(per_run["merged"].any().sum()),
                "split_any": int(per_run["split"].any().sum()),
                "merged_last": int(last["merged"].astype(bool).sum()),
                "split_last": int(last["split"].astype(bool).sum()),
            }
        )
    return pd.DataFrame(out)


def read_study(results):
    """``results/noise.csv`` as a DataFrame, or None when the study has not been run."""
    path = Path(results) / "noise.csv"
    if not path.exists():
        return None
    df = pd.read_csv(path)
    if not {"algorithm", "environment", "noise", "run", "stage", "merged", "split"} <= set(df.columns):
        return None
    return df


def study_note(df, algorithm, environment, noise):
    """``{"merged": k, "split": j, "runs": N, "n_per_class": …}`` for the Playground, or None.

    ``environment`` is ``"stationary"`` or ``"nonstationary"``; ``noise`` a share (0.1 for 10 %). A
    non-stationary run counts when it merges (splits) after at least one stream. None when the study
    has no run for that algorithm, environment and noise level.
    """
    if df is None:
        return None
    part = df[(df["algorithm"] == algorithm) & (df["environment"] == environment)]
    part = part[np.isclose(part["noise"].astype(float), float(noise), rtol=0, atol=1e-9)]
    if not len(part):
        return None
    c = fault_counts(part).iloc[0]
    out = {"merged": int(c["merged_any"]), "split": int(c["split_any"]), "runs": int(c["runs"])}
    if "n_per_class" in part:
        out["n_per_class"] = int(part["n_per_class"].iloc[0])
    return out


def noise_markdown(df, header):
    """The study's Markdown: fault counts per noise level, then mean (std) per stream."""
    faults = fault_counts(df)
    faults = faults.assign(
        noise=[f"{100 * v:g} %" for v in faults["noise"]],
        merged=[f"{a}/{n} ({b}/{n} at the end)" for a, b, n in zip(faults.merged_any, faults.merged_last, faults.runs)],
        split=[f"{a}/{n} ({b}/{n} at the end)" for a, b, n in zip(faults.split_any, faults.split_last, faults.runs)],
    )[["algorithm", "environment", "noise", "merged", "split"]]
    s = summary(df)
    table = s.assign(
        noise=[f"{100 * v:g} %" for v in s["noise"]],
        **{m: [fmt_mean_std(a, b) for a, b in zip(s[f"{m}_mean"], s[f"{m}_std"])] for m in ("nmi", "ari")},
        n_nodes=[fmt_mean_std(a, b) for a, b in zip(s["n_nodes_mean"], s["n_nodes_std"])],
        n_clusters=[fmt_mean_std(a, b) for a, b in zip(s["n_clusters_mean"], s["n_clusters_std"])],
        merged=[f"{k}/{n}" for k, n in zip(s["merged"], s["runs"])],
        split=[f"{k}/{n}" for k, n in zip(s["split"], s["runs"])],
    )[["algorithm", "environment", "noise", "stage", "nmi", "ari", "n_nodes", "n_clusters", "merged", "split"]]
    return "\n".join(
        [
            header,
            "",
            FAULT_DEFINITION
            + " (`cae.experiments.protocol.cluster_faults`.) A non-stationary run counts when it merges (splits) "
            "after at least one of its streams; in brackets, after the last.",
            "",
            "## Runs that merge or split clusters",
            "",
            markdown_table(faults),
            "## Per stream: mean (std)",
            "",
            markdown_table(table),
        ]
    )


#: the Playground's streams of the paper's data -> the study's environment
_PLAYGROUND_ENVIRONMENTS = {"paper2d-st": "stationary", "paper2d-ns": "nonstationary"}


def study_sentence(df, algorithm, source, noise, params=None):
    """What the noise study says about a Playground setting, as one Markdown sentence (or None).

    ``source`` is the Playground's stream key (only the paper's 2-D streams were studied), ``noise``
    its noise share, ``params`` CAEA's ``{"deletion_interval", "max_edge_age"}`` (the study ran CAEA
    with the paper's synthetic setting only).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"algorithm": "CAE", "environment": "stationary", "noise": 0.1, "n_per_class": 15000,
    ...                    "run": range(10), "stage": "all", "merged": [True] * 3 + [False] * 7, "split": False})
    >>> print(study_sentence(df, "CAE", "paper2d-st", 0.1))
    From the noise study: with this noise (10 %), CAE merges clusters in 3 of 10 seeds (15,000 per distribution; stationary).
    >>> print(study_sentence(df, "CAE", "paper2d-st", 0.15))
    From the noise study: it measured 10 % noise only, not 15 %.
    """
    env = _PLAYGROUND_ENVIRONMENTS.get(source)
    if df is None or env is None:
        return None
    if algorithm == "CAEA":
        from ..presets import paper_parameters

        paper = paper_parameters("CAEA", "synthetic", env)
        if params is not None and {k: float(v) for k, v in params.items()} != {k: float(v) for k, v in paper.items()}:
            return (
                f"From the noise study: it ran CAEA with the paper's λ = {paper['deletion_interval']}, a_max = "
                f"{paper['max_edge_age']:g} only."
            )
    note = study_note(df, algorithm, env, noise)
    if note is None:
        levels = sorted(set(df.loc[df["environment"] == env, "noise"].astype(float)))
        if not levels or algorithm not in set(df["algorithm"]):
            return None
        shown = ", ".join(f"{100 * v:g}" for v in levels)
        return f"From the noise study: it measured {shown} % noise only, not {100 * noise:g} %."
    where = "stationary" if env == "stationary" else "non-stationary, after any stream"
    size = f"{note['n_per_class']:,} per distribution; " if "n_per_class" in note else ""
    return (
        f"From the noise study: with this noise ({100 * noise:g}\u00a0%), {algorithm} merges clusters in "
        f"{note['merged']} of {note['runs']} seeds ({size}{where})."
    )

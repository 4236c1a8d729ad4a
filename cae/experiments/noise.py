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

import pandas as pd

from ..app.noise_note import FAULT_DEFINITION, fault_counts, read_study, study_note, study_sentence
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

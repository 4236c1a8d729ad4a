"""What the noise-robustness study says about a Playground setting: its results (``results/noise.csv``) read,
counted and put in one sentence.

The study itself (its runs and its Markdown) is :mod:`cae.experiments.noise`; this part is what the Playground
draws, so that drawing the Playground does not import the experiments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..evaluation import MERGE_DEFINITION

__all__ = ["FAULT_DEFINITION", "fault_counts", "read_study", "study_note", "study_sentence"]

#: what "merges" and "splits" mean, in the words of the Playground's *How often?* (the same rule)
FAULT_DEFINITION = MERGE_DEFINITION


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

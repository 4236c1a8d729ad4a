"""The paper's statistics: the Friedman test and the Nemenyi critical difference (Demšar 2006).

Blocks are (dataset, metric) pairs — the paper ranks "all NMI and ARI values" — and within a
block the algorithms are ranked by their mean score, 1 for the best (higher is better; ties get
the average rank). The Friedman statistic comes from :func:`scipy.stats.friedmanchisquare`, the
critical difference from the studentized range distribution
(:data:`scipy.stats.studentized_range`): CD = q_α / √2 · √(k (k + 1) / (6 N)), k algorithms and N
blocks. Two algorithms differ significantly when their average ranks differ by more than CD.

Examples
--------
>>> import pandas as pd
>>> t = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.5, 0.6, 0.4, 0.5], "C": [0.6, 0.5, 0.6, 0.4]})
>>> r = friedman_nemenyi(t)
>>> r["avg_ranks"].round(2).to_dict()
{'A': 1.0, 'B': 2.5, 'C': 2.5}
>>> round(r["cd"], 3)  # q_0.05(3, inf) / sqrt(2) = 2.343; sqrt(3 * 4 / 24) = 0.707
1.657
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["friedman_nemenyi", "critical_difference", "cliques", "rank_table"]


def critical_difference(k, n, alpha=0.05):
    """Nemenyi's critical difference of average ranks for k algorithms over n blocks."""
    q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(k * (k + 1) / (6.0 * n)))


def rank_table(table):
    """Ranks within each row (block), 1 for the highest value; ties share the average rank."""
    return table.rank(axis=1, ascending=False, method="average")


def friedman_nemenyi(table, alpha=0.05):
    """Friedman test and Nemenyi critical difference on a blocks × algorithms table of scores.

    Rows with a missing value are left out (an algorithm the paper could not run on a dataset).
    Returns a dict: ``avg_ranks`` (Series, best first), ``chi2``, ``p``, ``cd``, ``k``, ``n``,
    ``alpha``, ``dropped`` (the blocks left out) and ``significant`` (pairs whose average ranks differ
    by more than CD).
    """
    table = table.astype(float)
    complete = table.dropna(axis=0, how="any")
    k, n = complete.shape[1], complete.shape[0]
    if k < 3 or n < 2:
        raise ValueError(f"need at least 3 algorithms and 2 complete blocks, got {k} and {n}")
    ranks = rank_table(complete)
    avg = ranks.mean(axis=0).sort_values()
    chi2, p = stats.friedmanchisquare(*[complete[c].to_numpy() for c in complete.columns])
    cd = critical_difference(k, n, alpha)
    names = list(avg.index)
    sig = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if avg[b] - avg[a] > cd]
    return {
        "avg_ranks": avg,
        "chi2": float(chi2),
        "p": float(p),
        "cd": cd,
        "k": k,
        "n": n,
        "alpha": alpha,
        "dropped": [str(i) for i in table.index.difference(complete.index)],
        "significant": sig,
    }


def cliques(avg_ranks, cd):
    """Maximal groups of algorithms (in rank order) whose average ranks lie within CD of each other.

    These are the bars of a critical-difference diagram.
    """
    names = list(avg_ranks.index)
    vals = avg_ranks.to_numpy()
    groups = []
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and vals[j + 1] - vals[i] <= cd:
            j += 1
        if j > i and not any(g[0] <= i and j <= g[1] for g in groups):
            groups.append((i, j))
    return [names[a : b + 1] for a, b in groups]


def blocks(frame, datasets_col, metrics, algorithms, value="mean"):
    """A blocks × algorithms table from a long frame with columns dataset, metric, algorithm, value."""
    part = frame[frame["metric"].isin(metrics) & frame["algorithm"].isin(algorithms)]
    t = part.pivot_table(index=[datasets_col, "metric"], columns="algorithm", values=value, aggfunc="first")
    return t.reindex(columns=[a for a in algorithms if a in t.columns])


def summary_frame(result):
    """The average ranks and the test as a small DataFrame (for tables and CSVs)."""
    df = pd.DataFrame({"algorithm": result["avg_ranks"].index, "average rank": result["avg_ranks"].to_numpy()})
    df["k"], df["N blocks"], df["chi2"], df["p"], df["CD"] = (
        result["k"],
        result["n"],
        result["chi2"],
        result["p"],
        result["cd"],
    )
    return df

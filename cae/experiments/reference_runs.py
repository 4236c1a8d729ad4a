"""Numbers measured with the authors' own code, laid beside ours where the paper's cannot be reproduced.

Source: ``cae/experiments/paper_tables/README.md``, section *What the published synthetic numbers
imply*: the authors' MATLAB ``CAE_train.m`` (``Masuyama-lab/CAE``) run under Octave with the paper's
stated non-stationary protocol (one class per stream in the file's order, 1,500 uniform [0, 1]² noise
points added to each stream and shuffled in, each stream one training call, scored on the distribution
points seen so far), 8 seeds. Under that protocol the authors' code merges clusters as often as ours
(6 of 8 seeds), so the paper's NMI of 0.99 (std ≤ 0.02) after every stream is **not explained by the
paper's stated protocol**; only much less noise gives the paper's level (see ``results/noise.md``).

Each row: ``(table, stage, metric, algorithm, mean, std, runs)``; ``std`` is None where the source
gives a mean only.

Examples
--------
>>> reference_frame().query("stage == 'stream 2'")[["algorithm", "metric", "mean", "std"]].values.tolist()
[['CAE', 'NMI', 0.857, 0.347]]
"""

from __future__ import annotations

import pandas as pd

__all__ = [
    "AUTHORS_CODE",
    "SOURCE",
    "SOURCES",
    "NOT_EXPLAINED_NOTE",
    "CAEA_STATIONARY_NOTE",
    "reference_frame",
]

SOURCE = (
    "CAE_train.m (Masuyama-lab/CAE) under Octave, the stated protocol, 8 seeds (cae/experiments/paper_tables/README.md)"
)
#: where each table's authors'-code numbers come from
SOURCES = {
    "synthetic non-stationary": SOURCE,
    "synthetic stationary": "CAEA_Train.m (Masuyama-lab/CAEAC) under Octave on this project's streams (the 2-D file "
    "plus 10 % uniform noise, shuffled, one call), the paper's λ = 50, a_max = 30, 6 seeds "
    "(cae/experiments/paper_tables/README.md)",
}

CAEA_STATIONARY_NOTE = (
    "not explained by the paper's stated protocol: the authors' own CAEA_Train.m under it gives 191.2 (40.7) "
    "nodes, 4.83 (1.47) clusters, NMI 0.905, as ours does; λ ≈ 150–200 reproduces the whole row in both (the "
    "authors' code at λ = 200: 472 (32) nodes, 6.17 clusters, NMI 0.998; ours at λ = 200 stands beside) "
    "(cae/experiments/paper_tables/README.md)"
)

NOT_EXPLAINED_NOTE = (
    "not explained by the paper's stated protocol: under it the authors' own CAE_train.m merges clusters "
    "as often as ours (6 of 8 seeds; NMI after streams #2–#6 0.857 (0.347), 0.965, 0.964, 0.924, 0.894 against "
    "the paper's 0.99); only much less noise gives the paper's level (cae/experiments/paper_tables/README.md; results/noise.md)"
)

AUTHORS_CODE = [
    ("synthetic non-stationary", "stream 1", "n_nodes", "CAE", 128.0, None, 8),
    ("synthetic non-stationary", "stream 2", "NMI", "CAE", 0.857, 0.347, 8),
    ("synthetic non-stationary", "stream 3", "NMI", "CAE", 0.965, 0.084, 8),
    ("synthetic non-stationary", "stream 4", "NMI", "CAE", 0.964, 0.061, 8),
    ("synthetic non-stationary", "stream 5", "NMI", "CAE", 0.924, 0.077, 8),
    ("synthetic non-stationary", "stream 6", "NMI", "CAE", 0.894, 0.102, 8),
    ("synthetic non-stationary", "stream 6", "n_nodes", "CAE", 396.0, None, 8),
    ("synthetic stationary", "all", "n_nodes", "CAEA", 191.2, 40.7, 6),
    ("synthetic stationary", "all", "n_clusters", "CAEA", 4.83, 1.47, 6),
    ("synthetic stationary", "all", "NMI", "CAEA", 0.905, None, 6),
    ("synthetic stationary", "all", "ARI", "CAEA", 0.796, None, 6),
]


def reference_frame():
    """:data:`AUTHORS_CODE` as a DataFrame (columns table, stage, metric, algorithm, mean, std, runs)."""
    return pd.DataFrame(AUTHORS_CODE, columns=["table", "stage", "metric", "algorithm", "mean", "std", "runs"])

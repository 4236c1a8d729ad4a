"""Clustering and continual-learning metrics, as the paper computes them.

Examples
--------
>>> nmi([0, 0, 1, 1], [1, 1, 0, 0]), ari([0, 0, 1, 1], [1, 1, 0, 0])
(1.0, 1.0)
>>> R = [[0.9, 0.5], [0.0, 0.8]]  # R[i][j]: on stages 1..i after training through stage j
>>> round(average_incremental(R), 3), round(backward_transfer(R), 3)
(0.85, -0.4)
"""

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

__all__ = ["nmi", "ari", "average_incremental", "backward_transfer", "clustering_scores"]


def nmi(labels_true, labels_pred):
    """Normalised mutual information: I(T; P) / sqrt(H(T) H(P)) (geometric mean), as in the paper."""
    return float(normalized_mutual_info_score(labels_true, labels_pred, average_method="geometric"))


def ari(labels_true, labels_pred):
    """Adjusted Rand index."""
    return float(adjusted_rand_score(labels_true, labels_pred))


def clustering_scores(model, X, y):
    """NMI, ARI, #nodes and #clusters of a fitted CAE on (X, y)."""
    pred = model.predict(X)
    return {"nmi": nmi(y, pred), "ari": ari(y, pred), "n_nodes": len(model.nodes_), "n_clusters": model.n_clusters_}


def _square(R):
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1] or R.shape[0] == 0:
        raise ValueError("R must be a non-empty square matrix (stages x stages)")
    return R


def average_incremental(R):
    """AI = mean over stages c of R[c, c]: the performance after stage c on stages 1..c.

    ``R[i, j]`` is the performance on the data of stages 1..i (0-based: 0..i)
    after training through stage j.
    """
    R = _square(R)
    return float(np.mean(np.diag(R)))


def backward_transfer(R):
    """BWT = mean over i < C of (R[i, C] - R[i, i]); negative means forgetting.

    ``R[i, C]`` is the performance on stages 1..i after the last stage C.
    With one stage there is nothing to compare and BWT is 0.
    """
    R = _square(R)
    C = R.shape[0] - 1
    if C == 0:
        return 0.0
    return float(np.mean([R[i, C] - R[i, i] for i in range(C)]))

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

__all__ = ["nmi", "ari", "average_incremental", "backward_transfer", "clustering_scores", "continual_metrics",
           "CONVENTIONS"]

#: the two ways of computing AI and BWT (see :func:`continual_metrics`)
CONVENTIONS = ("paper", "text")


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


def continual_metrics(R, single_class=None, convention="paper"):
    """AI and BWT of a stage matrix, under one of two conventions.

    ``R[i, j]`` is the score on the data of stages 1..i after training through
    stage j. ``single_class[i]`` is True when the data of stages 1..i hold a
    single class (the first stage of a class-incremental stream).

    * ``"text"`` — the paper's text: AI = mean_c R[c, c]; BWT = mean over i < C
      of R[i, C] - R[i, i] (:func:`average_incremental`, :func:`backward_transfer`).
      A single-class stage scores what scikit-learn gives (0 unless the
      clustering also has one cluster).
    * ``"paper"`` — what the paper's published numbers imply (checked against
      every published AI/BWT of CAE and SOINN+ to 0.004): M_c = R[c, c], except
      that a single-class stage scores 1; AI = mean(M); BWT = M_C - mean(M_1 ...
      M_{C-1}), i.e. the final score on all classes against the earlier
      stages' own scores.

    Returns ``(AI, BWT)``.

    Examples
    --------
    >>> R = [[0.0, 0.2, 0.3], [float("nan"), 0.8, 0.6], [float("nan"), float("nan"), 0.7]]
    >>> [round(v, 3) for v in continual_metrics(R, [True, False, False], "paper")]
    [0.833, -0.2]
    >>> [round(v, 3) for v in continual_metrics(R, [True, False, False], "text")]
    [0.5, 0.05]
    """
    R = _square(R)
    if convention == "text":
        return average_incremental(R), backward_transfer(R)
    if convention != "paper":
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    M = np.diag(R).astype(float).copy()
    if single_class is not None:
        M[np.asarray(single_class, dtype=bool)] = 1.0
    C = len(M)
    bwt = 0.0 if C == 1 else float(M[-1] - np.mean(M[:-1]))
    return float(np.mean(M)), bwt

"""Clustering and continual-learning metrics, as the paper computes them.

Examples
--------
>>> nmi([0, 0, 1, 1], [1, 1, 0, 0]), ari([0, 0, 1, 1], [1, 1, 0, 0])
(1.0, 1.0)
>>> R = [[0.9, 0.5], [0.0, 0.8]]  # R[i][j]: on stages 1..i after training through stage j
>>> round(average_incremental(R), 3), round(backward_transfer(R), 3)
(0.85, -0.4)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

if TYPE_CHECKING:
    from ._base import StreamingClusterer
    from .data.streams import Stream

__all__ = [
    "nmi",
    "ari",
    "average_incremental",
    "backward_transfer",
    "clustering_scores",
    "continual_metrics",
    "CONVENTIONS",
    "ContinualResult",
    "continual_run",
]

#: the two ways of computing AI and BWT (see :func:`continual_metrics`)
CONVENTIONS = ("paper", "text")


def nmi(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Normalised mutual information: I(T; P) / sqrt(H(T) H(P)) (geometric mean), as in the paper."""
    return float(normalized_mutual_info_score(labels_true, labels_pred, average_method="geometric"))


def ari(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Adjusted Rand index."""
    return float(adjusted_rand_score(labels_true, labels_pred))


def clustering_scores(model: StreamingClusterer[Any], X: ArrayLike, y: ArrayLike) -> dict[str, float]:
    """NMI, ARI, #nodes and #clusters of a fitted CAE on (X, y)."""
    pred = model.predict(X)
    return {"nmi": nmi(y, pred), "ari": ari(y, pred), "n_nodes": len(model.nodes_), "n_clusters": model.n_clusters_}


def _square(R: ArrayLike) -> NDArray[np.float64]:
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1] or R.shape[0] == 0:
        raise ValueError("R must be a non-empty square matrix (stages x stages)")
    return R


def average_incremental(R: ArrayLike) -> float:
    """AI = mean over stages c of R[c, c]: the performance after stage c on stages 1..c.

    ``R[i, j]`` is the performance on the data of stages 1..i (0-based: 0..i)
    after training through stage j.
    """
    R = _square(R)
    return float(np.mean(np.diag(R)))


def backward_transfer(R: ArrayLike) -> float:
    """BWT = mean over i < C of (R[i, C] - R[i, i]); negative means forgetting.

    ``R[i, C]`` is the performance on stages 1..i after the last stage C.
    With one stage there is nothing to compare and BWT is 0.
    """
    R = _square(R)
    C = R.shape[0] - 1
    if C == 0:
        return 0.0
    return float(np.mean([R[i, C] - R[i, i] for i in range(C)]))


def continual_metrics(
    R: ArrayLike, single_class: Sequence[bool] | None = None, convention: str = "paper"
) -> tuple[float, float]:
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


# ---------------------------------------------------------------- class-incremental runs
@dataclass
class ContinualResult:
    """A class-incremental run: metrics after each stage.

    ``R_nmi[i, j]`` (i <= j) is the NMI on the data of stages 1..i after training
    through stage j (NaN below the diagonal); likewise ``R_ari``. ``per_stage_*[k, j]``
    is the score on stage k alone after stage j. ``single_class[i]`` says whether
    the data of stages 1..i hold one class. ``ai_nmi``/``bwt_nmi``/... follow the
    paper's text; :meth:`scores` gives either convention (see
    :func:`cae.evaluation.continual_metrics`).
    """

    stage_names: list[str]
    R_nmi: np.ndarray
    R_ari: np.ndarray
    per_stage_nmi: np.ndarray
    per_stage_ari: np.ndarray
    n_nodes: list[int]
    n_clusters: list[int]
    snapshots: list[StreamingClusterer[Any]] = field(repr=False)
    single_class: list[bool] = field(default_factory=list)
    noise_scored: bool = False

    def scores(self, convention: str = "paper") -> dict[str, float]:
        """``{"ai_nmi", "bwt_nmi", "ai_ari", "bwt_ari"}`` under a convention ("paper" or "text")."""
        out: dict[str, float] = {}
        for m, R in (("nmi", self.R_nmi), ("ari", self.R_ari)):
            out[f"ai_{m}"], out[f"bwt_{m}"] = continual_metrics(R, self.single_class or None, convention)
        return out

    @property
    def ai_nmi(self) -> float:
        return average_incremental(self.R_nmi)

    @property
    def ai_ari(self) -> float:
        return average_incremental(self.R_ari)

    @property
    def bwt_nmi(self) -> float:
        return backward_transfer(self.R_nmi)

    @property
    def bwt_ari(self) -> float:
        return backward_transfer(self.R_ari)

    def table(self) -> pd.DataFrame:
        rows = []
        for j, name in enumerate(self.stage_names):
            rows.append(
                {
                    "after stage": name,
                    "NMI (stages so far)": self.R_nmi[j, j],
                    "ARI (stages so far)": self.R_ari[j, j],
                    "#nodes": self.n_nodes[j],
                    "#clusters": self.n_clusters[j],
                }
            )
        return pd.DataFrame(rows)


def continual_run(
    stream: Stream,
    model: StreamingClusterer[Any] | None = None,
    progress: Callable[[float], object] | None = None,
    score_noise: bool = False,
) -> ContinualResult:
    """Train stage by stage and score every stage-prefix after every stage (the paper's AI and BWT).

    Each stage is one batch (``model.end_batch()`` after it). Samples with the
    stream's noise label are learned but not scored unless ``score_noise``.

    Examples
    --------
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> res = continual_run(nonstationary_stream(make_paper2d(200, seed=0), order=[0, 3, 4], seed=0))
    >>> res.R_nmi.shape, round(res.ai_nmi, 2) == round(float(np.mean(np.diag(res.R_nmi))), 2)
    ((3, 3), True)
    """
    if model is None:
        from .algorithms import CAE

        model = CAE()
    starts, ends = stream.stage_starts, stream.stage_ends
    C = len(starts)
    R_nmi = np.full((C, C), np.nan)
    R_ari = np.full((C, C), np.nan)
    ps_nmi = np.full((C, C), np.nan)
    ps_ari = np.full((C, C), np.nan)
    n_nodes, n_clusters, snaps = [], [], []
    scored = np.ones(len(stream), dtype=bool)
    if not score_noise and stream.noise_label is not None:
        scored = stream.y != stream.noise_label
    single = [len(np.unique(stream.y[: ends[i]][scored[: ends[i]]])) == 1 for i in range(C)]
    for j in range(C):
        model.learn_many(stream.X[starts[j] : ends[j]])
        model.end_batch()
        pred_all = model.predict(stream.X[: ends[j]]) if len(model.nodes_) else np.full(ends[j], -1)
        y_all = stream.y[: ends[j]]
        for i in range(j + 1):
            sl = np.flatnonzero(scored[: ends[i]])
            R_nmi[i, j] = nmi(y_all[sl], pred_all[sl])
            R_ari[i, j] = ari(y_all[sl], pred_all[sl])
            sk = starts[i] + np.flatnonzero(scored[starts[i] : ends[i]])
            ps_nmi[i, j] = nmi(y_all[sk], pred_all[sk])
            ps_ari[i, j] = ari(y_all[sk], pred_all[sk])
        n_nodes.append(len(model.nodes_))
        n_clusters.append(model.n_clusters_)
        snaps.append(model.snapshot())
        if progress is not None:
            progress((j + 1) / C)
    return ContinualResult(
        list(stream.stage_names),
        R_nmi,
        R_ari,
        ps_nmi,
        ps_ari,
        n_nodes,
        n_clusters,
        snaps,
        single_class=single,
        noise_scored=bool(score_noise),
    )

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

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from math import log
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from ._base import StreamingClusterer
    from .data.streams import Stream

__all__ = [
    "nmi",
    "ari",
    "ONE_CLASS_SO_FAR",
    "one_class",
    "scores_so_far",
    "contingency_table",
    "nmi_from_table",
    "ari_from_table",
    "average_incremental",
    "backward_transfer",
    "clustering_scores",
    "continual_metrics",
    "CONVENTIONS",
    "CONVENTION_TEXT",
    "ContinualResult",
    "continual_run",
    "MIN_SHARE",
    "MERGE_DEFINITION",
    "partition_outcome",
    "RunOutcome",
    "score_run",
    "typical_seed",
    "summarize_runs",
]

#: the two ways of computing AI and BWT (see :func:`continual_metrics`)
CONVENTIONS = ("paper", "text")


def nmi(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Normalised mutual information: I(T; P) / sqrt(H(T) H(P)) (geometric mean), as in the paper.

    scikit-learn's ``normalized_mutual_info_score(..., average_method="geometric")`` to the last bit, computed from
    the contingency table (:func:`nmi_from_table`) without its input checks: a tenth of the time, which Play pays on
    every frame.

    >>> nmi([0, 0, 1, 1], [1, 1, 0, 0]), nmi([0, 0, 1, 1], [0, 1, 0, 1])
    (1.0, 0.0)
    """
    return nmi_from_table(_table(labels_true, labels_pred))


def ari(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Adjusted Rand index: scikit-learn's ``adjusted_rand_score`` to the last bit, from the contingency table
    (:func:`ari_from_table`).

    >>> ari([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    """
    return ari_from_table(_table(labels_true, labels_pred))


def _table(labels_true: ArrayLike, labels_pred: ArrayLike) -> NDArray[np.int64]:
    """The contingency table of two labellings of any labels (codes in label order), checked for equal lengths."""
    y, p = np.asarray(labels_true).reshape(-1), np.asarray(labels_pred).reshape(-1)
    if len(y) != len(p):
        raise ValueError(f"the two labellings differ in length: {len(y)} and {len(p)}")
    ys, yc = np.unique(y, return_inverse=True)
    ps, pc = np.unique(p, return_inverse=True)
    return contingency_table(yc, pc, len(ys), len(ps))


#: what NMI and ARI show while the true labels scored so far hold one class: both are undefined there —
#: scikit-learn gives 0, or 1 when every point falls in one cluster, so they would flip between the two as clusters
#: split and merge (the Continual learning page's published convention scores such a stage 1, :data:`CONVENTION_TEXT`)
ONE_CLASS_SO_FAR = "n/a — one class so far"


def one_class(labels_true: ArrayLike) -> bool:
    """Whether the labels hold exactly one class (at least one label, all equal): NMI and ARI say nothing then.

    >>> one_class([2, 2, 2]), one_class([2, 2, 3]), one_class([])
    (True, False, False)
    """
    y = np.asarray(labels_true)
    return bool(len(y) and np.all(y == y.flat[0]))


def scores_so_far(labels_true: ArrayLike, labels_pred: ArrayLike | None) -> dict[str, Any]:
    """NMI and ARI of the labels scored so far, or, while they hold one class (:func:`one_class`), NaN for both
    and the reason in ``"n/a"`` (:data:`ONE_CLASS_SO_FAR`, what a display writes instead of a number);
    ``labels_pred`` is not read then (None will do).

    >>> scores_so_far([0, 0, 0], [1, 2, 2])
    {'NMI': nan, 'ARI': nan, 'n/a': 'n/a — one class so far'}
    >>> scores_so_far([0, 0, 1, 1], [5, 5, 7, 7])
    {'NMI': 1.0, 'ARI': 1.0, 'n/a': ''}
    """
    if one_class(labels_true):
        return {"NMI": float("nan"), "ARI": float("nan"), "n/a": ONE_CLASS_SO_FAR}
    if labels_pred is None:
        raise ValueError("labels_pred is needed once the labels hold two classes")
    return {"NMI": nmi(labels_true, labels_pred), "ARI": ari(labels_true, labels_pred), "n/a": ""}


def contingency_table(y_codes: ArrayLike, p_codes: ArrayLike, n_true: int, n_pred: int) -> NDArray[np.int64]:
    """``T[a, b]`` = how many samples have true code a and predicted code b (codes from 0, below
    ``n_true`` and ``n_pred``).

    >>> contingency_table([0, 0, 1], [1, 1, 0], 2, 2).tolist()
    [[0, 2], [1, 0]]
    """
    flat = np.asarray(y_codes, dtype=np.int64) * n_pred + np.asarray(p_codes, dtype=np.int64)
    return np.bincount(flat, minlength=n_true * n_pred).reshape(n_true, n_pred)


def _without_empty(T: ArrayLike) -> NDArray[np.int64]:
    T = np.asarray(T, dtype=np.int64)
    return T[T.sum(axis=1) > 0][:, T.sum(axis=0) > 0]


def _entropy_of_counts(counts: NDArray[np.int64]) -> float:
    """scikit-learn's entropy of a labelling, from its label counts (in label order)."""
    pi = counts.astype(np.float64)
    if pi.size == 1:
        return 0.0
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - log(pi_sum))))


def nmi_from_table(T: ArrayLike) -> float:
    """:func:`nmi` of the labellings whose contingency table is ``T`` (rows: true labels, columns:
    predicted ones, in label order; empty rows and columns do not count).

    The same arithmetic as scikit-learn's ``normalized_mutual_info_score(..., "geometric")`` on the
    same table, so the same value to the last bit (tested), without the labels.

    >>> T = contingency_table([0, 0, 1, 1, 1], [0, 0, 0, 1, 1], 2, 2)
    >>> nmi_from_table(T) == nmi([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])
    True
    """
    T = _without_empty(T)
    n_classes, n_clusters = T.shape
    if n_classes == n_clusters == 1 or n_classes == n_clusters == 0:
        return 1.0  # no split on either side: a perfect match
    pi = T.sum(axis=1)
    pj = T.sum(axis=0)
    mi = 0.0
    if pi.size > 1 and pj.size > 1:
        nzx, nzy = np.nonzero(T)
        nz_val = T[nzx, nzy]
        total = T.sum()
        log_contingency_nm = np.log(nz_val)
        contingency_nm = nz_val / total
        outer = pi.take(nzx) * pj.take(nzy)
        log_outer = -np.log(outer) + log(pi.sum()) + log(pj.sum())
        terms = contingency_nm * (log_contingency_nm - log(total)) + contingency_nm * log_outer
        terms = np.where(np.abs(terms) < np.finfo(terms.dtype).eps, 0.0, terms)
        mi = float(np.clip(terms.sum(), 0.0, None))
    if mi == 0:
        return 0.0
    return float(mi / np.sqrt(_entropy_of_counts(pi) * _entropy_of_counts(pj)))


def ari_from_table(T: ArrayLike) -> float:
    """:func:`ari` of the labellings whose contingency table is ``T``: scikit-learn's pair counts (exact
    integers) and formula, so the same value to the last bit (tested).

    >>> T = contingency_table([0, 0, 1, 1, 1], [0, 0, 0, 1, 1], 2, 2)
    >>> ari_from_table(T) == ari([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])
    True
    """
    T = np.asarray(T, dtype=np.int64)
    n = int(T.sum())
    sum_squares = int((T**2).sum())
    fp = int((T @ T.sum(axis=0)).sum()) - sum_squares
    fn = int((T.T @ T.sum(axis=1)).sum()) - sum_squares
    tp = sum_squares - n
    tn = n * n - fp - fn - sum_squares
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


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


# ---------------------------------------------------------------- one setting over many seeds
#: a cluster is "large" when it holds at least this share of the scored points
MIN_SHARE = 0.01
#: the definitions, in words, for the page
MERGE_DEFINITION = (
    "A run merges when two true classes share their home cluster (the cluster holding most of each class's "
    "points); it splits when a true class is the majority of two or more clusters that each hold at least 1 % of "
    "the points. The uniform noise is never a class to find."
)


def partition_outcome(y_true: ArrayLike, y_pred: ArrayLike, min_share: float = MIN_SHARE) -> dict[str, Any]:
    """Merges and splits of a clustering against the true classes.

    The **home cluster** of a true class is the cluster holding most of its points. A clustering **merges**
    when two or more classes share a home cluster, and **splits** when a class is the majority class of two
    or more *large* clusters (each holding at least ``min_share`` of the points; small fragments do not count).

    Returns a dict: ``n_classes``, ``n_large`` (clusters holding ≥ ``min_share`` of the points), ``merged``
    and ``merged_classes`` (tuples of classes sharing a home cluster), ``split`` and ``split_classes``.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    classes = np.unique(y_true)
    clusters, pred_idx = np.unique(y_pred, return_inverse=True)
    cls_idx = np.searchsorted(classes, y_true)
    table = np.zeros((len(classes), len(clusters)), dtype=np.int64)  # class x cluster counts
    np.add.at(table, (cls_idx, pred_idx), 1)
    home = table.argmax(axis=1)  # ties: the first cluster
    groups: dict[int, list[int]] = {}
    for c, h in enumerate(home):
        groups.setdefault(int(h), []).append(int(classes[c]))
    merged = sorted(tuple(g) for g in groups.values() if len(g) > 1)
    sizes = table.sum(axis=0)
    large = np.flatnonzero(sizes >= min_share * len(y_true))
    owners = Counter(int(classes[table[:, k].argmax()]) for k in large)
    split = sorted(c for c, n in owners.items() if n >= 2)
    return {
        "n_classes": len(classes),
        "n_large": len(large),
        "merged": bool(merged),
        "merged_classes": merged,
        "split": bool(split),
        "split_classes": split,
    }


@dataclass
class RunOutcome:
    """One seed of a setting, run to the end of its stream."""

    seed: int
    nmi: float
    ari: float
    n_nodes: int
    n_clusters: int
    n_large: int
    merged: bool
    split: bool
    merged_classes: list[tuple[int, ...]]
    split_classes: list[int]
    seconds: float

    @property
    def kind(self) -> str:
        """The outcome in a word: "clean", "merge", "split" or "merge and split"."""
        if self.merged and self.split:
            return "merge and split"
        return "merge" if self.merged else ("split" if self.split else "clean")


def score_run(
    model: StreamingClusterer[Any], stream: Stream, seed: int, score_noise: bool = False, seconds: float = 0.0
) -> RunOutcome:
    """A :class:`RunOutcome` of a model that has learned ``stream`` (see :func:`partition_outcome`).

    NMI and ARI leave the stream's noise out unless ``score_noise``; merges and splits always leave it out.
    """
    n = len(stream.X)
    pred = model.predict(stream.X) if len(model.nodes_) else np.full(n, -1)
    clean = np.ones(n, bool) if stream.noise_label is None else stream.y != stream.noise_label
    scored = np.ones(n, bool) if score_noise else clean
    out = partition_outcome(stream.y[clean], pred[clean])
    return RunOutcome(
        seed=int(seed),
        nmi=nmi(stream.y[scored], pred[scored]),
        ari=ari(stream.y[scored], pred[scored]),
        n_nodes=len(model.nodes_),
        n_clusters=int(model.n_clusters_) if len(model.nodes_) else 0,
        n_large=out["n_large"],
        merged=out["merged"],
        split=out["split"],
        merged_classes=out["merged_classes"],
        split_classes=out["split_classes"],
        seconds=float(seconds),
    )


def typical_seed(outcomes: Sequence[RunOutcome]) -> int:
    """The run that stands for the rest: the most common outcome (clean / merge / split / both), then among
    those runs the most common number of large clusters, then the most common number of clusters, and of what
    is left the run whose NMI is closest to the median NMI of all runs (ties: the lowest seed).

    Examples
    --------
    >>> mk = lambda s, v, k, m: RunOutcome(s, v, v, 100, k, k, m, False, [], [], 0.1)
    >>> typical_seed([mk(0, 0.70, 4, True), mk(1, 0.99, 6, False), mk(2, 0.97, 6, False), mk(3, 0.93, 5, True)])
    2
    """
    if not outcomes:
        raise ValueError("no runs")

    def most_common(pool: list[RunOutcome], key: Callable[[RunOutcome], int]) -> list[RunOutcome]:
        counts = Counter(key(o) for o in pool)
        top = max(counts.values())
        pick = min(k for k, v in counts.items() if v == top)
        return [o for o in pool if key(o) == pick]

    kinds = Counter(o.kind for o in outcomes)
    top = max(kinds.values())
    best = "clean" if kinds.get("clean") == top else sorted(k for k, v in kinds.items() if v == top)[0]
    pool = [o for o in outcomes if o.kind == best]
    pool = most_common(pool, lambda o: o.n_large)
    pool = most_common(pool, lambda o: o.n_clusters)
    med = float(np.median([o.nmi for o in outcomes]))
    return min(pool, key=lambda o: (abs(o.nmi - med), o.seed)).seed


def summarize_runs(outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """The spread of a list of :class:`RunOutcome`: a dict of plain numbers (and the typical seed).

    Examples
    --------
    >>> mk = lambda s, v, k, m: RunOutcome(s, v, v, 100, k, k, m, False, [], [], 0.1)
    >>> s = summarize_runs([mk(0, 0.70, 4, True), mk(1, 0.99, 6, False), mk(2, 0.97, 6, False), mk(3, 0.93, 5, True)])
    >>> s["runs"], s["merged"], s["nmi_median"], s["typical_seed"], s["n_large_counts"]
    (4, 2, 0.95, 2, {4: 1, 5: 1, 6: 2})
    """
    if not outcomes:
        return {"runs": 0}
    v = np.array([o.nmi for o in outcomes])
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    typ = typical_seed(outcomes)
    t = next(o for o in outcomes if o.seed == typ)
    return {
        "runs": len(outcomes),
        "seeds": [o.seed for o in outcomes],
        "nmi_median": round(float(med), 6),
        "nmi_q1": float(q1),
        "nmi_q3": float(q3),
        "nmi_min": float(v.min()),
        "nmi_max": float(v.max()),
        "merged": sum(o.merged for o in outcomes),
        "split": sum(o.split for o in outcomes),
        "clean": sum(o.kind == "clean" for o in outcomes),
        "n_large_counts": dict(sorted(Counter(o.n_large for o in outcomes).items())),
        "n_clusters_median": float(np.median([o.n_clusters for o in outcomes])),
        "typical_seed": typ,
        "typical": asdict(t),
        "seconds": float(sum(o.seconds for o in outcomes)),
    }


# ---------------------------------------------------------------- class-incremental runs
#: what each convention does, in words (the pages show it)
CONVENTION_TEXT = {
    "paper": "the paper's published numbers: a set of points holding a single class scores 1, "
    "AI = mean of the scores after each stage on the stages so far, "
    "BWT = the final score on all stages − the mean of the earlier stages' scores",
    "text": "the paper's text: every score as scikit-learn computes it (a single class scores 0 unless all its "
    "points fall in one cluster, then 1), AI = mean of the diagonal of R, "
    "BWT = mean over i < C of R[i, C] − R[i, i]",
}


@dataclass
class ContinualResult:
    """A class-incremental run: metrics after each stage.

    ``R_nmi[i, j]`` (i <= j) is the NMI on the data of stages 1..i after training
    through stage j (NaN below the diagonal), as scikit-learn computes it; likewise
    ``R_ari``. ``per_stage_*[k, j]`` is the score on stage k alone after stage j, and
    ``per_stage_share[k, j]`` the share of stage k's scored points that fall in the
    cluster holding most of them. ``single_class[i]`` says whether the data of stages
    1..i hold one class, ``stage_single_class[k]`` whether stage k alone does.

    Every number a page shows comes from one convention (see
    :func:`continual_metrics`): :meth:`matrix`, :meth:`per_stage`, :meth:`stage_scores`,
    :meth:`table` and :meth:`scores` take it as an argument, so the heatmaps, the table
    and AI/BWT always agree. ``ai_nmi``/``bwt_nmi``/... are the text's.

    Examples
    --------
    >>> nan = float("nan")
    >>> R = np.array([[0.0, 0.0], [nan, 0.5]])
    >>> res = ContinualResult(["a", "b"], R, R, R, R, [3, 5], [2, 3], [], single_class=[True, False])
    >>> res.matrix("nmi", "paper")[0].tolist(), res.matrix("nmi", "text")[0].tolist()
    ([1.0, 1.0], [0.0, 0.0])
    >>> res.explain("nmi", "paper")
    ['AI = mean(1.000, 0.500) = 0.750', 'BWT = 0.500 − mean(1.000) = −0.500']
    >>> res.explain("nmi", "text")[1]
    'BWT = mean(R[1,2] − R[1,1]) = mean(0.000 − 0.000) = +0.000'
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
    stage_single_class: list[bool] = field(default_factory=list)
    per_stage_share: np.ndarray | None = None

    def _raw(self, metric: str, per_stage: bool = False) -> np.ndarray:
        if metric not in ("nmi", "ari"):
            raise ValueError(f"metric must be 'nmi' or 'ari', got {metric!r}")
        if per_stage:
            return self.per_stage_nmi if metric == "nmi" else self.per_stage_ari
        return self.R_nmi if metric == "nmi" else self.R_ari

    @staticmethod
    def _check(convention: str) -> None:
        if convention not in CONVENTIONS:
            raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")

    def matrix(self, metric: str = "nmi", convention: str = "paper") -> np.ndarray:
        """R under a convention: under "paper" every cell whose data (stages 1..i) hold one class is 1."""
        self._check(convention)
        R = np.array(self._raw(metric), dtype=float)
        if convention == "paper" and self.single_class:
            one = np.asarray(self.single_class, dtype=bool)
            R[one] = np.where(np.isnan(R[one]), np.nan, 1.0)
        return R

    def per_stage(self, metric: str = "nmi", convention: str = "paper") -> np.ndarray:
        """The score on each stage alone (rows) after each stage (columns), under a convention."""
        self._check(convention)
        P = np.array(self._raw(metric, per_stage=True), dtype=float)
        if convention == "paper" and self.stage_single_class:
            one = np.asarray(self.stage_single_class, dtype=bool)
            P[one] = np.where(np.isnan(P[one]), np.nan, 1.0)
        return P

    def single_class_cells(self, per_stage: bool = False) -> np.ndarray:
        """A boolean mask of the cells of :meth:`matrix` (or :meth:`per_stage`) whose data hold one class."""
        flags = self.stage_single_class if per_stage else self.single_class
        C = len(self.stage_names)
        rows = np.asarray(flags if flags else [False] * C, dtype=bool)
        return np.repeat(rows[:, None], C, axis=1) & ~np.isnan(self._raw("nmi", per_stage))

    def stage_scores(self, metric: str = "nmi", convention: str = "paper") -> np.ndarray:
        """M_c: the score after stage c on stages 1..c (the diagonal of :meth:`matrix`); AI is their mean."""
        return np.diag(self.matrix(metric, convention)).copy()

    def scores(self, convention: str = "paper") -> dict[str, float]:
        """``{"ai_nmi", "bwt_nmi", "ai_ari", "bwt_ari"}`` under a convention ("paper" or "text")."""
        out: dict[str, float] = {}
        for m, R in (("nmi", self.R_nmi), ("ari", self.R_ari)):
            out[f"ai_{m}"], out[f"bwt_{m}"] = continual_metrics(R, self.single_class or None, convention)
        return out

    def explain(self, metric: str = "nmi", convention: str = "paper") -> list[str]:
        """AI and BWT written out with the numbers the table and the heatmap show: two strings."""
        R = self.matrix(metric, convention)
        M = np.diag(R)
        C = len(M)
        f = "{:.3f}".format
        ai = f"AI = mean({', '.join(f(v) for v in M)}) = {f(float(np.mean(M)))}"
        if C == 1:
            return [ai, "BWT = 0 (one stage: nothing to compare)"]
        if convention == "paper":
            bwt = float(M[-1] - np.mean(M[:-1]))
            text = f"BWT = {f(M[-1])} − mean({', '.join(f(v) for v in M[:-1])}) = {bwt:+.3f}"
        else:
            bwt = float(np.mean([R[i, C - 1] - R[i, i] for i in range(C - 1)]))
            cells = ", ".join(f"R[{i + 1},{C}] − R[{i + 1},{i + 1}]" for i in range(C - 1))
            nums = ", ".join(f"{f(R[i, C - 1])} − {f(R[i, i])}" for i in range(C - 1))
            text = f"BWT = mean({cells}) = mean({nums}) = {bwt:+.3f}"
        return [ai, text.replace("+-", "−").replace("= -", "= −")]

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

    def table(self, convention: str = "paper") -> pd.DataFrame:
        """One row per stage: the scores that AI averages (under ``convention``), #nodes and #clusters."""
        nmi_m, ari_m = self.stage_scores("nmi", convention), self.stage_scores("ari", convention)
        rows = []
        for j, name in enumerate(self.stage_names):
            rows.append(
                {
                    "after stage": name,
                    "one class so far": bool(self.single_class[j]) if self.single_class else False,
                    "NMI (stages so far)": nmi_m[j],
                    "ARI (stages so far)": ari_m[j],
                    "#nodes": int(self.n_nodes[j]),
                    "#clusters": int(self.n_clusters[j]),
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
    stage_single = [len(np.unique(stream.y[starts[k] : ends[k]][scored[starts[k] : ends[k]]])) == 1 for k in range(C)]
    share = np.full((C, C), np.nan)
    classes = np.unique(stream.y[scored])
    y_codes = np.searchsorted(classes, stream.y)  # scored samples only are ever counted
    for j in range(C):
        model.learn_many(stream.X[starts[j] : ends[j]])
        model.end_batch()
        pred_all = model.predict(stream.X[: ends[j]]) if len(model.nodes_) else np.full(ends[j], -1)
        # the scores from contingency tables: one per stage, summed over the stages so far (a prefix's
        # table is the sum of its stages'), the same values as scoring the labels themselves
        p_codes = pred_all + 1 - pred_all.min()
        n_pred = int(p_codes.max()) + 1

        def table(lo: int, hi: int) -> NDArray[np.int64]:
            keep = lo + np.flatnonzero(scored[lo:hi])
            return contingency_table(y_codes[keep], p_codes[keep], len(classes), n_pred)

        prefix: NDArray[np.int64] | None = None
        for i in range(j + 1):
            step = table(0 if i == 0 else ends[i - 1], ends[i])
            prefix = step if prefix is None else prefix + step
            R_nmi[i, j] = nmi_from_table(prefix)
            R_ari[i, j] = ari_from_table(prefix)
            alone = step if starts[i] == (0 if i == 0 else ends[i - 1]) else table(starts[i], ends[i])
            ps_nmi[i, j] = nmi_from_table(alone)
            ps_ari[i, j] = ari_from_table(alone)
            n_alone = int(alone.sum())
            if n_alone:
                share[i, j] = alone.sum(axis=0).max() / n_alone
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
        stage_single_class=stage_single,
        per_stage_share=share,
    )

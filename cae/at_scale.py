"""CAE on a long stream: see when more rows merge the clusters, say so, and learn on samples instead.

CAE's published studies stop at tens of thousands of samples. On a long stream with noise (a million
rows and more) its answer can get worse as the stream grows: nodes that sit on the noise win rarely, an
edge ages only when one of its ends wins, so the age test (a_max) never removes their edges; they survive
the isolated-node sweep, fill the space between the clusters and link them, until one cluster holds
nearly every row (``docs/long-streams.md`` measures it). The authors' ``CAE_train.m`` builds the same
network: this is the algorithm on long noisy streams, not this implementation.

This module changes nothing in CAE's learning. It keeps what is needed to see the merge and to avoid it:

* :class:`UniformSample` — a uniform random sample of the rows, kept while they stream by (constant
  memory: the rows with the smallest random keys);
* :class:`ClusterTrace` — the clusters over the rows learned, so that a user sees the answer settle or
  fall apart;
* :func:`learn_on_samples` — CAE learned on several disjoint uniform samples of the rows (each in the
  file's order, a thinned stream of the size the paper studies); the answer is the samples' network whose
  clusters agree most with the others' (the medoid by NMI), so that one unlucky sample does not decide;
* :func:`check_merge` — whether the network learned on every row joined clusters that the samples'
  network keeps apart, with one sentence that says so and what to do.

``cae learn`` and the *Your data* page use all four; ``cae learn --sampled`` and the page's *Learn on
samples* give the samples' answer, with the answer of every row beside it.

Examples
--------
>>> import numpy as np
>>> from cae import CAE
>>> rng = np.random.default_rng(0)
>>> X = np.vstack([rng.normal(c, 0.04, (40_000, 2)) for c in (0.2, 0.5, 0.8)])[rng.permutation(120_000)]
>>> sample = UniformSample(SAMPLE_RUNS * SAMPLE_ROWS, seed=0).add(X)
>>> runs = learn_on_samples(CAE, sample.rows())
>>> runs.model.n_clusters_, runs.rows_per_sample, runs.n_runs
(3, 20000, 5)
>>> plain = CAE().fit(X)
>>> check = check_merge(plain, runs, sample.rows(), n_rows=len(X))
>>> check.merged, check.sample_clusters, check.plain_clusters
(False, 3, 3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .evaluation import nmi

__all__ = [
    "SAMPLE_ROWS",
    "SAMPLE_RUNS",
    "CHECK_FROM_ROWS",
    "LARGE_SHARE",
    "UniformSample",
    "ClusterTrace",
    "SampleRuns",
    "learn_on_samples",
    "MergeCheck",
    "check_merge",
    "compare_answers",
    "STABLE",
    "sample_size",
    "uses_samples",
    "predict",
    "TRACE_ROWS",
]

#: rows in each sample: the size of stream on which the paper validated CAE's estimates (its 2-D data has
#: 90,000 rows; CAE's answer on the paper's 2-D data with noise holds to about 50,000 rows and then falls)
SAMPLE_ROWS = 20_000
#: disjoint samples learned; the answer is the one whose clusters agree most with the others'
SAMPLE_RUNS = 5
#: files of at most this many rows are learned whole: the merge needs a longer stream, and the samples
#: would be smaller than the paper's studies
CHECK_FROM_ROWS = 50_000
#: a cluster is "large" when it holds at least this share of the rows (noise makes many one-node clusters)
LARGE_SHARE = 0.01
#: the samples' answer and the answer of every row "agree" from this NMI (over the rows of the large
#: clusters of the samples' answer) on; below it, and with large clusters joined, the check speaks
AGREEMENT = 0.95
#: rows learned between two records of :class:`ClusterTrace` (a chunk of the file is learned in pieces this long)
TRACE_ROWS = 25_000
#: the samples are a reference only when they agree among themselves: the chosen run's mean NMI with the other
#: runs at least this (0.90-0.98 on the paper's and the blobs' noisy rows; 0.74-0.75 on Skin, where CAE's answer
#: depends on the rows it sees, and the answer of every row scores better than the samples')
STABLE = 0.85
#: the most memory the kept sample may take, in bytes (a wide file keeps fewer rows)
SAMPLE_BYTES = 128 * 2**20


def uses_samples(n_rows: int) -> bool:
    """Whether a file of ``n_rows`` rows is long enough to be checked and learned on samples.

    >>> uses_samples(50_000), uses_samples(50_001)
    (False, True)
    """
    return n_rows > CHECK_FROM_ROWS


def sample_size(n_features: int, runs: int = SAMPLE_RUNS, rows: int = SAMPLE_ROWS) -> int:
    """The rows :class:`UniformSample` keeps for ``runs`` samples of ``rows`` rows of ``n_features`` floats,
    within :data:`SAMPLE_BYTES`.

    >>> sample_size(2), sample_size(1000)
    (100000, 16777)
    """
    return int(min(runs * rows, SAMPLE_BYTES // (8 * max(int(n_features), 1))))


class UniformSample:
    """A uniform random sample of ``size`` rows of a stream, kept while the rows go by.

    Every row gets a random key; the sample is the ``size`` rows with the smallest keys, which is a uniform
    sample without replacement whatever the stream's length, in constant memory. The keys come from one
    generator seeded with ``seed``, one per row in stream order, so the sample depends on the rows and the
    seed only, not on how the stream was cut into chunks.

    Parameters
    ----------
    size : int
        Rows to keep.
    seed : int, default=0

    Attributes
    ----------
    n_seen : int
        Rows seen so far.

    Examples
    --------
    >>> X = np.arange(20.0).reshape(10, 2)
    >>> s = UniformSample(3, seed=1).add(X[:4]).add(X[4:])
    >>> s.n_seen, s.rows().shape, s.positions().tolist() == sorted(s.positions().tolist())
    (10, (3, 2), True)
    >>> bool(np.array_equal(UniformSample(3, seed=1).add(X).rows(), s.rows()))  # chunks do not matter
    True
    """

    def __init__(self, size: int, seed: int = 0) -> None:
        if int(size) < 1:
            raise ValueError(f"a sample holds at least one row, not {size}")
        self.size, self.seed = int(size), int(seed)
        self._rng = np.random.default_rng(self.seed)
        self.n_seen = 0
        self._X: NDArray[np.float64] | None = None
        self._key = np.zeros(0)
        self._pos = np.zeros(0, dtype=np.int64)

    def add(self, X: ArrayLike) -> UniformSample:
        """Offer the next rows of the stream (in stream order); returns self."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError("rows are a 2-D array")
        m = len(X)
        key = self._rng.random(m)
        pos = np.arange(self.n_seen, self.n_seen + m, dtype=np.int64)
        self.n_seen += m
        if self._X is None:
            self._X = np.zeros((0, X.shape[1]))
        if len(self._key) >= self.size:  # full: only rows whose key beats the largest kept one can enter
            come = key < self._key.max()
            X, key, pos = X[come], key[come], pos[come]
        allX = np.concatenate([self._X, X])
        allkey = np.concatenate([self._key, key])
        allpos = np.concatenate([self._pos, pos])
        if len(allkey) > self.size:
            keep = np.argpartition(allkey, self.size - 1)[: self.size]
            allX, allkey, allpos = allX[keep], allkey[keep], allpos[keep]
        self._X, self._key, self._pos = allX, allkey, allpos
        return self

    def _order(self) -> NDArray[np.int64]:
        return np.argsort(self._pos, kind="stable")

    def rows(self) -> NDArray[np.float64]:
        """The kept rows, in stream order."""
        if self._X is None:
            return np.zeros((0, 0))
        return self._X[self._order()]

    def positions(self) -> NDArray[np.int64]:
        """Where each kept row was in the stream (0-based), in stream order."""
        return self._pos[self._order()]


def predict(model: Any, X: NDArray[np.float64]) -> NDArray[np.int64]:
    """``model.predict(X)`` by feature name when the model has names (no warning), -1 when it has no node."""
    if not len(model.nodes_):
        return np.full(len(X), -1, dtype=np.int64)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        import pandas as pd

        return np.asarray(model.predict(pd.DataFrame(X, columns=list(names))))
    return np.asarray(model.predict(X))


def _large_clusters(model: Any) -> int:
    """Clusters holding at least :data:`LARGE_SHARE` of the samples the nodes won (or of the nodes)."""
    labels = np.asarray(model.node_labels_)
    if not len(labels):
        return 0
    w = np.asarray(getattr(model, "win_counts_", np.ones(len(labels))), dtype=float)
    per = np.bincount(labels, weights=w)
    return int((per >= LARGE_SHARE * per.sum()).sum())


@dataclass
class ClusterTrace:
    """The clusters over the rows learned: one record per chunk of the stream.

    ``rows[i]`` rows learned, ``clusters[i]`` clusters (connected components, one-node clusters included),
    ``large[i]`` of them holding at least 1 % of the rows won, ``nodes[i]`` nodes.

    Examples
    --------
    >>> from cae import CAE
    >>> X = np.random.default_rng(0).normal(0, 0.05, (3000, 2))
    >>> model, trace = CAE(), ClusterTrace()
    >>> for a in range(0, 3000, 1000):
    ...     trace.record(a + 1000, model.learn_many(X[a : a + 1000]))
    >>> trace.rows, trace.nodes[-1] == len(model.nodes_), trace.clusters[-1] == model.n_clusters_
    ([1000, 2000, 3000], True, True)
    """

    rows: list[int] = field(default_factory=list)
    clusters: list[int] = field(default_factory=list)
    large: list[int] = field(default_factory=list)
    nodes: list[int] = field(default_factory=list)

    def record(self, rows: int, model: Any) -> None:
        """Note the model's clusters after ``rows`` rows learned."""
        n_nodes = len(model.nodes_)
        self.rows.append(int(rows))
        self.clusters.append(int(model.n_clusters_) if n_nodes else 0)
        self.large.append(_large_clusters(model) if n_nodes else 0)
        self.nodes.append(int(n_nodes))

    def points(self) -> list[int]:
        """Indices of the records to show: the last record at or below 10k, 20k, 50k, 100k, … rows, and the
        last record."""
        if not self.rows:
            return []
        rows = np.asarray(self.rows)
        marks = [m * 10**e for e in range(4, 12) for m in (1, 2, 5)]
        out = []
        for mark in marks:
            if mark > rows[-1]:
                break
            i = int(np.searchsorted(rows, mark, side="right")) - 1
            if i >= 0 and (not out or out[-1] != i):
                out.append(i)
        if not out or out[-1] != len(rows) - 1:
            out.append(len(rows) - 1)
        return out

    def text(self) -> str:
        """One line: ``rows learned → large clusters (all clusters)`` at 10k, 20k, 50k … rows and at the end.

        >>> ClusterTrace([10_000, 50_000, 90_000], [9, 7, 3], [6, 6, 2], [100, 150, 200]).text()
        'clusters over the rows learned (with ≥ 1 % of the rows; all): 10,000: 6 (9) · 50,000: 6 (7) · 90,000: 2 (3)'
        """
        parts = [f"{self.rows[i]:,}: {self.large[i]} ({self.clusters[i]})" for i in self.points()]
        return "clusters over the rows learned (with ≥ 1 % of the rows; all): " + " · ".join(parts)

    def falling(self) -> bool:
        """Whether the large clusters fell while the rows grew: the last count below the largest count seen
        after the first 50,000 rows (before that the network is still forming).

        >>> ClusterTrace([60_000, 1_000_000], [9, 2], [6, 2], [200, 400]).falling()
        True
        """
        rows, large = np.asarray(self.rows), np.asarray(self.large)
        later = large[rows >= CHECK_FROM_ROWS]
        return bool(len(later) >= 2 and later[-1] < later.max())

    def as_list(self) -> list[list[int]]:
        """The records as ``[rows, clusters, large, nodes]`` lists (for the model file)."""
        return [list(r) for r in zip(self.rows, self.clusters, self.large, self.nodes)]

    @classmethod
    def from_list(cls, records: list[list[int]]) -> ClusterTrace:
        t = cls()
        for r, c, g, n in records:
            t.rows.append(int(r))
            t.clusters.append(int(c))
            t.large.append(int(g))
            t.nodes.append(int(n))
        return t


@dataclass
class SampleRuns:
    """The networks learned on disjoint samples, and the one chosen as the answer.

    Attributes
    ----------
    model : estimator
        The chosen network (learned on sample ``chosen``).
    chosen : int
    agreement : ndarray of shape (n_runs,)
        Each run's mean NMI with the other runs (over every sampled row).
    clusters : list of int
        Each run's clusters.
    labels : ndarray
        The chosen network's label of every sampled row.
    rows_per_sample, n_runs, seed : int
    """

    model: Any
    chosen: int
    agreement: NDArray[np.float64]
    clusters: list[int]
    labels: NDArray[np.int64]
    rows_per_sample: int
    n_runs: int
    seed: int

    def provenance(self, n_rows: int, plain_clusters: int | None = None) -> dict[str, Any]:
        """What the model file keeps of how the network was learned (``learned_on_``)."""
        return {
            "how": "samples",
            "rows": int(n_rows),
            "samples": int(self.n_runs),
            "sample_rows": int(self.rows_per_sample),
            "seed": int(self.seed),
            "chosen": int(self.chosen),
            "agreement": float(self.agreement[self.chosen]),
            "plain_clusters": None if plain_clusters is None else int(plain_clusters),
        }


def learn_on_samples(make_model: Callable[[], Any], X: ArrayLike, runs: int = SAMPLE_RUNS, seed: int = 0) -> SampleRuns:
    """Learn ``runs`` fresh models on disjoint random parts of the sampled rows ``X`` (each part in the
    order of ``X``, the stream's), and choose the one whose clusters agree most with the others'.

    Each model labels every row of ``X``; run *i*'s agreement is its mean NMI with the other runs; the run
    with the highest agreement is the answer (the first on ties). One run whose sample happened to join two
    clusters (CAE does, now and then, on any one stream of tens of thousands of noisy rows) is outvoted.

    Parameters
    ----------
    make_model : callable
        Returns a fresh, unfitted model (e.g. ``CAE``).
    X : array of shape (n, d)
        The sampled rows, in stream order (:meth:`UniformSample.rows`).
    runs : int, default=5
    seed : int, default=0
        How the rows are dealt into the runs.

    Returns
    -------
    SampleRuns
    """
    X = np.asarray(X, dtype=np.float64)
    runs = int(runs)
    if runs < 1 or len(X) < runs:
        raise ValueError(f"{len(X)} rows cannot be dealt into {runs} samples")
    parts = np.array_split(np.random.default_rng(seed).permutation(len(X)), runs)
    models, labels = [], []
    for part in parts:
        model = make_model()
        model.learn_many(X[np.sort(part)])
        model.end_batch()
        models.append(model)
        labels.append(predict(model, X))
    A = np.ones((runs, runs))
    for i in range(runs):
        for j in range(i + 1, runs):
            A[i, j] = A[j, i] = nmi(labels[i], labels[j])
    agreement = (A.sum(1) - 1) / max(runs - 1, 1)
    chosen = int(np.argmax(agreement))
    return SampleRuns(
        model=models[chosen],
        chosen=chosen,
        agreement=agreement,
        clusters=[int(m.n_clusters_) if len(m.nodes_) else 0 for m in models],
        labels=labels[chosen],
        rows_per_sample=int(min(len(p) for p in parts)),
        n_runs=runs,
        seed=int(seed),
    )


@dataclass
class MergeCheck:
    """Whether the network learned on every row joined clusters that the samples' network keeps apart.

    Attributes
    ----------
    merged : bool
        True when large clusters of the samples' answer share one cluster of the answer of every row, the
        two answers agree less than NMI 0.95 (:data:`AGREEMENT`) over the rows of those clusters, and the
        samples agree among themselves (``samples_agreement`` ≥ :data:`STABLE`).
    sample_clusters, plain_clusters : int
        Large clusters (≥ 1 % of the sampled rows) of each answer.
    joined : int
        Large clusters of the samples' answer that share a cluster of the answer of every row with another.
    largest_share : float
        The share of the sampled rows in the largest cluster of the answer of every row.
    agreement : float
        NMI between the two answers over the rows of the samples' large clusters.
    samples_agreement : float
        The chosen sample's mean NMI with the other samples: below :data:`STABLE`, CAE's answer on this file
        depends on the rows it sees, the samples are no reference, and the check stays silent.
    n_rows, rows_per_sample, n_runs : int
    algorithm : str
    """

    merged: bool
    sample_clusters: int
    plain_clusters: int
    joined: int
    largest_share: float
    agreement: float
    samples_agreement: float
    n_rows: int
    rows_per_sample: int
    n_runs: int
    algorithm: str

    @property
    def stable(self) -> bool:
        """Whether the samples agree among themselves (the chosen one's mean NMI with the others ≥ 0.85)."""
        return self.samples_agreement >= STABLE

    def sentence(self, how: str = "--sampled") -> str:
        """What happened and what to do, in one sentence (plain text); empty when nothing merged.

        ``how`` names the way to get the samples' answer (the CLI's option, the page's button).
        """
        if not self.merged:
            return ""
        return (
            f"Learned on all {self.n_rows:,} rows, {self.algorithm} joined clusters that it keeps apart on "
            f"{self.n_runs} samples of {self.rows_per_sample:,} rows: {self.plain_clusters} large "
            f"cluster{'s' if self.plain_clusters != 1 else ''} here (one with {self.largest_share:.0%} of the rows) "
            f"against {self.sample_clusters} there, because on a long stream with noise the nodes on the noise "
            f"link clusters together; {how} gives the samples' answer."
        )


def _large(labels: NDArray[np.int64]) -> NDArray[np.int64]:
    u, c = np.unique(labels, return_counts=True)
    return u[c >= LARGE_SHARE * len(labels)]


def compare_answers(mine: ArrayLike, theirs: ArrayLike) -> dict[str, Any]:
    """Where two labellings of the same rows differ: ``mine`` (the samples' answer) against ``theirs`` (the
    answer of every row).

    Each large cluster of ``mine`` (≥ 1 % of the rows) is hosted by the cluster of ``theirs`` holding most of its
    rows. Returns ``large_mine`` and ``large_theirs`` (their large clusters), ``joined`` (large clusters of
    ``mine`` that share a host with another), ``agreement`` (NMI over the rows of ``mine``'s large clusters)
    and ``largest_share`` (of the rows, in ``theirs``'s largest cluster).

    Examples
    --------
    >>> mine = np.repeat([0, 1, 2, 3], 25)            # four clusters of 25 rows
    >>> theirs = np.repeat([0, 0, 1, 2], 25)          # the first two joined
    >>> c = compare_answers(mine, theirs)
    >>> c["large_mine"], c["large_theirs"], c["joined"], round(c["agreement"], 3), c["largest_share"]
    (4, 3, 2, 0.866, 0.5)
    >>> compare_answers(mine, mine)["joined"], compare_answers(mine, mine)["agreement"]
    (0, 1.0)
    """
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    main = _large(mine)
    inside = np.isin(mine, main)
    hosts = []
    for c in main:
        h, k = np.unique(theirs[mine == c], return_counts=True)
        hosts.append(int(h[np.argmax(k)]))
    _, shared = np.unique(hosts, return_counts=True)
    _, sizes = np.unique(theirs, return_counts=True)
    return {
        "large_mine": len(main),
        "large_theirs": len(_large(theirs)),
        "joined": int(shared[shared >= 2].sum()),
        "agreement": float(nmi(mine[inside], theirs[inside])) if inside.any() else 1.0,
        "largest_share": float(sizes.max() / len(theirs)) if len(theirs) else 0.0,
    }


def check_merge(plain: Any, runs: SampleRuns, X: ArrayLike, n_rows: int) -> MergeCheck:
    """Compare the network learned on every row (``plain``) with the samples' answer over the sampled rows
    (:func:`compare_answers`): when large clusters of the samples' answer share one cluster of ``plain``, the
    two answers agree less than NMI 0.95 (:data:`AGREEMENT`) over the rows of those clusters, and the samples
    agree among themselves (:data:`STABLE`), ``plain`` merged them.

    Parameters
    ----------
    plain : estimator
        Learned on every row.
    runs : SampleRuns
        From :func:`learn_on_samples` on ``X``.
    X : array of shape (n, d)
        The sampled rows.
    n_rows : int
        Rows ``plain`` learned (for the sentence).
    """
    X = np.asarray(X, dtype=np.float64)
    c = compare_answers(runs.labels, predict(plain, X))
    stable = float(runs.agreement[runs.chosen])
    return MergeCheck(
        merged=bool(c["joined"] and c["agreement"] < AGREEMENT and stable >= STABLE),
        sample_clusters=c["large_mine"],
        plain_clusters=c["large_theirs"],
        joined=c["joined"],
        largest_share=c["largest_share"],
        agreement=c["agreement"],
        samples_agreement=stable,
        n_rows=int(n_rows),
        rows_per_sample=runs.rows_per_sample,
        n_runs=runs.n_runs,
        algorithm=str(getattr(plain, "algorithm", type(plain).__name__)),
    )

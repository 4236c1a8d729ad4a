"""Datasets and streams: a labelled dataset, an ordered stream over it, and the paper's three orders.

Everything here works offline and is reproducible from a seed.

Examples
--------
>>> from cae.data import make_paper2d, nonstationary_stream
>>> data = make_paper2d(n_per_class=1000, noise_fraction=0.1, seed=0)
>>> data.X.shape, sorted(set(data.y.tolist()))
((6600, 2), [0, 1, 2, 3, 4, 5, 6])
>>> s = nonstationary_stream(data, seed=0)
>>> s.stage_names[:2], s.stage_starts[:3].tolist()
(['stream #1', 'stream #2'], [0, 1100, 2200])
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

__all__ = ["Dataset", "Stream", "stationary_stream", "nonstationary_stream", "class_incremental_stream"]


@dataclass
class Dataset:
    """A labelled dataset: features ``X`` (n, d) and integer labels ``y``.

    ``class_names[c]`` names label ``c``; ``noise_label`` (or None) marks
    uniformly distributed noise.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    class_names: list[str]
    feature_names: list[str]
    noise_label: int | None = None
    description: str = ""

    @property
    def n_classes(self) -> int:
        return (
            len(np.unique(self.y[self.y != self.noise_label]))
            if self.noise_label is not None
            else len(np.unique(self.y))
        )


@dataclass
class Stream:
    """An ordered stream over a dataset, reproducible from its ``seed`` and ``kind``.

    Attributes
    ----------
    X, y : ndarray
        Samples in presentation order and their true labels (noise keeps its own label).
    stage_starts : ndarray of int
        Index of the first sample of each stage (stage ``i`` is
        ``X[stage_starts[i]:stage_starts[i + 1]]``; the last runs to the end).
    stage_names : list of str
        A name per stage ('stream #1', ..., or the class name).
    stage_classes : list of list of int
        The true classes presented in each stage (noise excluded).
    kind : str
        'stationary', 'nonstationary' or 'class-incremental'; the drifting streams:
        'gradual drift', 'sudden switch', 'recurring' or 'appear-disappear'.
    seed : int
    dataset : str
    """

    X: np.ndarray
    y: np.ndarray
    stage_starts: np.ndarray
    stage_names: list[str]
    stage_classes: list[list[int]]
    kind: str
    seed: int
    dataset: str
    noise_label: int | None = None
    class_names: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.X)

    @property
    def stage_ends(self) -> NDArray[np.int64]:
        return np.append(self.stage_starts[1:], len(self.X))

    def stage_of(self, t: int) -> int:
        """Stage index of the sample at position ``t`` (0-based)."""
        return int(np.searchsorted(self.stage_starts, t, side="right") - 1)

    def fingerprint(self) -> str:
        """A short hash of the stream's content (order included)."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X).tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        return h.hexdigest()[:16]


# ---------------------------------------------------------------------- streams
def _check_seed(seed: int) -> int:
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def stationary_stream(data: Dataset, seed: int = 0) -> Stream:
    """Every sample once, noise included, in random order (one stage).

    Examples
    --------
    >>> from cae.data import make_paper2d
    >>> s = stationary_stream(make_paper2d(100, seed=0), seed=3)
    >>> len(s), s.kind, s.stage_starts.tolist()
    (660, 'stationary', [0])
    """
    seed = _check_seed(seed)
    order = np.random.default_rng(seed).permutation(len(data.X))
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    return Stream(
        X=data.X[order],
        y=data.y[order],
        stage_starts=np.array([0]),
        stage_names=["all data"],
        stage_classes=[classes],
        kind="stationary",
        seed=seed,
        dataset=data.name,
        noise_label=data.noise_label,
        class_names=list(data.class_names),
    )


def class_incremental_stream(
    data: Dataset,
    order: Sequence[int] | None = None,
    seed: int = 0,
    names: Sequence[str] | None = None,
    kind: str = "class-incremental",
) -> Stream:
    """One class after another; within a stage, samples in random order.

    Noise samples (if the dataset has a noise label) are split at random into
    one share per class (1/C each) and each stage mixes in its share.

    Parameters
    ----------
    data : Dataset
    order : sequence of int, optional
        The class order (default: ascending). Classes left out are not presented.
    seed : int
    names : list of str, optional
        Stage names (default: the class names).

    Examples
    --------
    >>> from cae.data import make_paper2d
    >>> s = class_incremental_stream(make_paper2d(100, seed=0), order=[3, 0], seed=0)
    >>> s.stage_names, s.stage_classes, len(s)
    (['inner ring', 'blob (left)'], [[3], [0]], 220)
    """
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    order = [int(c) for c in (classes if order is None else order)]
    if not order:
        raise ValueError("the class order is empty")
    unknown = [c for c in order if c not in classes]
    if unknown or len(set(order)) != len(order):
        raise ValueError(f"class order {order} must list distinct classes among {classes}")
    noise_idx = np.flatnonzero(data.y == data.noise_label) if data.noise_label is not None else np.array([], int)
    # each presented class brings its share of the noise: 1/C of it, C = number of classes
    noise_parts = (
        np.array_split(rng.permutation(noise_idx), len(classes))
        if len(noise_idx)
        else [np.array([], int)] * len(classes)
    )
    parts: list[NDArray[np.int64]] = []
    starts: list[int] = []
    for k, c in enumerate(order):
        stage = np.concatenate([np.flatnonzero(data.y == c), noise_parts[k]])
        starts.append(sum(len(p) for p in parts))
        parts.append(rng.permutation(stage))
    idx = np.concatenate(parts).astype(np.int64)
    if names is None:
        names = [data.class_names[c] if c < len(data.class_names) else f"class {c}" for c in order]
    return Stream(
        X=data.X[idx],
        y=data.y[idx],
        stage_starts=np.array(starts),
        stage_names=list(names),
        stage_classes=[[c] for c in order],
        kind=kind,
        seed=seed,
        dataset=data.name,
        noise_label=data.noise_label,
        class_names=list(data.class_names),
    )


def nonstationary_stream(data: Dataset, order: Sequence[int] | None = None, seed: int = 0) -> Stream:
    """The paper's non-stationary environment: stream #1 ... #6, one distribution each.

    Stage ``k`` presents the ``k``-th distribution of ``order`` together with
    its share of the uniform noise (1/6 of it for the paper's data), in random
    order. See :func:`class_incremental_stream`.

    Examples
    --------
    >>> from cae.data import make_paper2d
    >>> s = nonstationary_stream(make_paper2d(200, seed=0), seed=0)
    >>> s.stage_names[0], s.kind, len(s.stage_starts)
    ('stream #1', 'nonstationary', 6)
    """
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    order = classes if order is None else list(order)
    names = [f"stream #{k + 1}" for k in range(len(order))]
    return class_incremental_stream(data, order=order, seed=seed, names=names, kind="nonstationary")

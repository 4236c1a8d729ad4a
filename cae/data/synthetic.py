"""Synthetic data: the paper's 2-D distributions, two moons, two circles, 3-D blobs, and drifting streams.

Everything here is reproducible from a seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .streams import Dataset, Stream, _check_seed

__all__ = [
    "make_paper2d",
    "make_moons2d",
    "make_circles2d",
    "make_blobs3d",
    "PAPER2D_CLASS_NAMES",
    "NOISE_LABEL",
    "gradual_drift_stream",
    "sudden_switch_stream",
    "recurring_stream",
    "appear_disappear_stream",
    "DRIFT_STREAMS",
    "make_drift_stream",
]

NOISE_LABEL = 6
PAPER2D_CLASS_NAMES = ["blob (left)", "blob (right)", "outer ring", "inner ring", "upper sine", "lower sine"]


# ------------------------------------------------------------- the paper's 2-D data
# Shapes fitted to the authors' file (x0, x1, label 0-5; 15,000 points each):
# per-class means, covariances and ranges are checked against it in the tests.
_BLOB_COV = np.array([[0.00234, -0.00167], [-0.00167, 0.00571]])
_BLOB_MEANS = np.array([[0.1751, 0.6993], [0.4706, 0.6987]])
_RING_CENTRE = np.array([[0.8133, 0.7084], [0.8123, 0.7104]])
_RING_AXES = np.array([[0.2313, 0.1501], [0.0910, 0.0462]])  # semi-major, semi-minor
_RING_ANGLE = np.radians([112.8, 113.0])  # direction of the major axis
_SINE_OFFSET = np.array([0.275, 0.135])


def _ring(rng: np.random.Generator, n: int, k: int) -> NDArray[np.float64]:
    phi = rng.uniform(0, 2 * np.pi, n)
    if k == 0:  # outer ring: radius uniform within +-13.4 %
        q = rng.uniform(0.866, 1.134, n)
    else:  # inner ring: thicker, triangular radial profile
        q = 0.98 + 0.43 * (rng.random(n) + rng.random(n) - 1)
    a, b = _RING_AXES[k]
    u = np.array([np.cos(_RING_ANGLE[k]), np.sin(_RING_ANGLE[k])])
    v = np.array([u[1], -u[0]])
    return _RING_CENTRE[k] + (q * a * np.cos(phi))[:, None] * u + (q * b * np.sin(phi))[:, None] * v


def _sine(rng: np.random.Generator, n: int, k: int) -> NDArray[np.float64]:
    x = rng.uniform(0, 1, n)
    y = _SINE_OFFSET[k] + 0.1 * np.sin(2.5 * np.pi * x) + rng.uniform(-0.03, 0.03, n)
    return np.column_stack([x, y])


def make_paper2d(n_per_class: int = 15000, noise_fraction: float = 0.1, seed: int = 0) -> Dataset:
    """The paper's six-distribution 2-D dataset, plus uniform noise.

    Six distributions of ``n_per_class`` points in [0, 1]^2: two tilted,
    elongated Gaussian blobs side by side (upper left), two concentric
    elliptical rings (upper right), two parallel sine bands (bottom). Noise:
    ``noise_fraction * n_per_class`` uniform points per distribution, labelled
    ``NOISE_LABEL`` (6).

    Parameters
    ----------
    n_per_class : int, default=15000
    noise_fraction : float, default=0.1
    seed : int, default=0

    Returns
    -------
    Dataset
        Rows grouped by class 0..5, then the noise, in generation order.

    Examples
    --------
    >>> d = make_paper2d(n_per_class=500, seed=1)
    >>> d.X.shape, int((d.y == 6).sum())
    ((3300, 2), 300)
    """
    if n_per_class < 1:
        raise ValueError("n_per_class must be >= 1")
    if not 0 <= noise_fraction <= 10:
        raise ValueError("noise_fraction must be between 0 and 10")
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for c in range(6):
        if c < 2:
            P = rng.multivariate_normal(_BLOB_MEANS[c], _BLOB_COV, n_per_class)
        elif c < 4:
            P = _ring(rng, n_per_class, c - 2)
        else:
            P = _sine(rng, n_per_class, c - 4)
        parts.append(P)
        labels.append(np.full(n_per_class, c))
    n_noise = int(round(noise_fraction * n_per_class)) * 6
    if n_noise:
        parts.append(rng.uniform(0, 1, (n_noise, 2)))
        labels.append(np.full(n_noise, NOISE_LABEL))
    X = np.clip(np.vstack(parts), 0.0, 1.0)
    y = np.concatenate(labels).astype(np.int64)
    return Dataset(
        name="paper2d",
        X=X,
        y=y,
        class_names=PAPER2D_CLASS_NAMES + ["noise"],
        feature_names=["x0", "x1"],
        noise_label=NOISE_LABEL if n_noise else None,
        description=f"The paper's 2-D data: 6 x {n_per_class} points + {n_noise} uniform noise (seed {seed})",
    )


def _with_uniform_noise(
    name: str,
    X: NDArray[np.float64],
    y: NDArray[np.int64],
    class_names: list[str],
    noise_fraction: float,
    seed: int,
    description: str,
) -> Dataset:
    rng = np.random.default_rng(seed)
    m = int(round(noise_fraction * len(X)))
    noise = len(class_names)
    X = np.clip(np.vstack([X, rng.uniform(0, 1, (m, 2))]), 0, 1)
    y = np.concatenate([y, np.full(m, noise)]).astype(np.int64)
    return Dataset(
        name=name,
        X=X,
        y=y,
        class_names=list(class_names) + ["noise"],
        feature_names=["x0", "x1"],
        noise_label=noise if m else None,
        description=f"{description}, {len(X) - m} points + {m} uniform noise (seed {seed})",
    )


def make_moons2d(n: int = 3000, noise_fraction: float = 0.1, seed: int = 0) -> Dataset:
    """Two interleaving half-moons in [0, 1]^2 plus uniform noise (labelled 2).

    Examples
    --------
    >>> make_moons2d(1000, seed=0).X.shape
    (1100, 2)
    """
    from sklearn.datasets import make_moons

    X, y = make_moons(n, noise=0.06, random_state=seed)
    X = (X - [-1.1, -0.6]) / [3.2, 1.7]
    return _with_uniform_noise("moons", X, y, ["upper moon", "lower moon"], noise_fraction, seed, "Two half-moons")


def make_circles2d(n: int = 3000, noise_fraction: float = 0.1, seed: int = 0) -> Dataset:
    """Two concentric circles in [0, 1]^2 plus uniform noise (labelled 2).

    Examples
    --------
    >>> make_circles2d(1000, seed=0).X.shape
    (1100, 2)
    """
    from sklearn.datasets import make_circles

    X, y = make_circles(n, noise=0.03, factor=0.45, random_state=seed)
    X = (X + 1.15) / 2.3
    return _with_uniform_noise(
        "circles", X, y, ["outer circle", "inner circle"], noise_fraction, seed, "Two concentric circles"
    )


def make_blobs3d(n: int = 6000, seed: int = 0) -> Dataset:
    """A small 3-D dataset: four Gaussian blobs and a helix, for trying uploads.

    Examples
    --------
    >>> make_blobs3d(500, seed=0).X.shape
    (500, 3)
    """
    rng = np.random.default_rng(seed)
    k = n // 5
    centres = np.array([[0.2, 0.2, 0.2], [0.8, 0.2, 0.3], [0.2, 0.8, 0.7], [0.7, 0.7, 0.8]])
    parts = [rng.normal(c, 0.05, (k, 3)) for c in centres]
    m = n - 4 * k
    s = rng.uniform(0, 4 * np.pi, m)
    parts.append(
        np.column_stack([0.5 + 0.15 * np.cos(s), 0.5 + 0.15 * np.sin(s), s / (4 * np.pi)]) + rng.normal(0, 0.01, (m, 3))
    )
    X = np.vstack(parts)
    y = np.repeat(np.arange(5), [k, k, k, k, m])
    return Dataset(
        name="blobs3d",
        X=X,
        y=y,
        class_names=["blob A", "blob B", "blob C", "blob D", "helix"],
        feature_names=["x", "y", "z"],
        description="Four 3-D Gaussian blobs and a helix",
    )


# ------------------------------------------------- drifting and recurring streams
# Four small, labelled 2-D streams in [0, 1]^2 for the classroom: a blob that
# drifts, an abrupt switch, a class that recurs, a class that leaves while
# another arrives. ``n`` counts the samples of the classes; uniform noise adds
# ``round(noise_fraction * n)`` more, labelled with the next free label (as in
# make_moons2d), shared among the stages in proportion to their sizes and put at
# random positions within each stage (the order of the class samples is kept).

_DRIFT_SD = 0.04  # standard deviation of the round blobs
_ARC_CENTRE = np.array([0.5, 0.35])
_ARC_RADIUS = 0.35
_LINE_ENDS = np.array([[0.15, 0.75], [0.85, 0.75]])


def _check_n(n: int, minimum: int, why: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be an integer, got {n!r}")
    if n < minimum:
        raise ValueError(f"n must be at least {minimum} ({why}), got {n}")
    return int(n)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_noise_fraction(noise_fraction: float) -> float:
    if not _is_number(noise_fraction):
        raise ValueError(f"noise_fraction must be a number between 0 and 1, got {noise_fraction!r}")
    f = float(noise_fraction)
    if not 0.0 <= f <= 1.0:  # NaN fails the comparison too
        raise ValueError(f"noise_fraction must be between 0 and 1, got {noise_fraction!r}")
    return f


def _split(total: int, weights: ArrayLike) -> NDArray[np.int64]:
    """``total`` split into integer parts in proportion to ``weights`` (the parts sum to ``total``)."""
    w = np.asarray(weights, dtype=float)
    edges = np.round(np.concatenate([[0.0], np.cumsum(w)]) / w.sum() * total).astype(np.int64)
    return np.diff(edges)


def _mixed_stage(
    rng: np.random.Generator, parts: Sequence[tuple[NDArray[np.float64], int]]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """One stage: the ``(X, label)`` parts together, in random order."""
    X = np.vstack([P for P, _ in parts])
    y = np.concatenate([np.full(len(P), c, dtype=np.int64) for P, c in parts])
    order = rng.permutation(len(X))
    return X[order], y[order]


def _drift_stream(
    rng: np.random.Generator,
    stages: Sequence[tuple[NDArray[np.float64], NDArray[np.int64]]],
    stage_names: Sequence[str],
    stage_classes: Sequence[Sequence[int]],
    class_names: Sequence[str],
    noise_fraction: float,
    kind: str,
    key: str,
    seed: int,
) -> Stream:
    """Mix each stage's share of the noise into it (random positions, class order kept); the Stream."""
    n = sum(len(y) for _, y in stages)
    noise = len(class_names)
    n_noise = _split(int(round(noise_fraction * n)), [len(y) for _, y in stages])
    Xs, ys, starts, at = [], [], [], 0
    for (X, y), m in zip(stages, n_noise):
        starts.append(at)
        is_noise = np.zeros(len(y) + m, dtype=bool)
        is_noise[rng.choice(len(is_noise), size=m, replace=False)] = True
        Xa = np.empty((len(is_noise), 2))
        ya = np.full(len(is_noise), noise, dtype=np.int64)
        Xa[~is_noise], ya[~is_noise] = X, y
        Xa[is_noise] = rng.uniform(0, 1, (m, 2))
        Xs.append(Xa)
        ys.append(ya)
        at += len(ya)
    return Stream(
        X=np.clip(np.vstack(Xs), 0.0, 1.0),
        y=np.concatenate(ys),
        stage_starts=np.array(starts, dtype=np.int64),
        stage_names=list(stage_names),
        stage_classes=[list(c) for c in stage_classes],
        kind=kind,
        seed=seed,
        dataset=f"drift-{key}",
        noise_label=noise if int(n_noise.sum()) else None,
        class_names=list(class_names) + ["noise"],
    )


def gradual_drift_stream(
    n: int = 3000,
    noise_fraction: float = 0.1,
    seed: int = 0,
    n_stages: int = 4,
    path: str = "arc",
    fixed_blob: bool = True,
) -> Stream:
    """A Gaussian blob whose centre drifts gradually along a path, optionally beside a blob that stays.

    The moving blob (label 0, standard deviation 0.04) starts at one end of
    the path and reaches the other end with its last sample; its centre moves
    a little with every sample, so the drift is gradual within each stage too.
    ``path="arc"``: a half circle of radius 0.35 from (0.15, 0.35) over
    (0.5, 0.70) to (0.85, 0.35); ``path="line"``: along y = 0.75 from
    x = 0.15 to x = 0.85. With ``fixed_blob`` a second blob (label 1) stays
    at (0.5, 0.35), the arc's centre, and takes half of every stage's
    samples, at random positions. Stages are equal segments of the stream
    (and so of the path), named ``"drift 1/4"``, ...

    Parameters
    ----------
    n : int, default=3000
        Samples of the blobs (the noise comes on top).
    noise_fraction : float in [0, 1], default=0.1
        ``round(noise_fraction * n)`` uniform noise samples, labelled after
        the classes (2 with the fixed blob, 1 without).
    seed : int, default=0
    n_stages : int, default=4
        Segments of the path.
    path : {"arc", "line"}, default="arc"
    fixed_blob : bool, default=True

    Returns
    -------
    Stream
        ``kind="gradual drift"``, ``dataset="drift-gradual"``.

    Examples
    --------
    >>> s = gradual_drift_stream(n=400, noise_fraction=0.1, seed=0)
    >>> len(s), s.stage_names, s.stage_starts.tolist()
    (440, ['drift 1/4', 'drift 2/4', 'drift 3/4', 'drift 4/4'], [0, 110, 220, 330])
    >>> s.class_names, s.noise_label, s.stage_classes[0]
    (['moving blob', 'fixed blob', 'noise'], 2, [0, 1])
    >>> first = s.X[:110][s.y[:110] == 0].mean(axis=0)
    >>> last = s.X[330:][s.y[330:] == 0].mean(axis=0)
    >>> bool(first[0] < 0.3 < 0.7 < last[0])  # the moving blob went from left to right
    True
    """
    seed = _check_seed(seed)
    if isinstance(n_stages, bool) or not isinstance(n_stages, (int, np.integer)) or n_stages < 1:
        raise ValueError(f"n_stages must be a positive integer, got {n_stages!r}")
    n_stages = int(n_stages)
    if path not in ("arc", "line"):
        raise ValueError(f"path must be 'arc' or 'line', got {path!r}")
    fixed_blob = bool(fixed_blob)
    n = _check_n(n, n_stages * (2 if fixed_blob else 1), f"a sample of each class in each of the {n_stages} stages")
    noise_fraction = _check_noise_fraction(noise_fraction)
    rng = np.random.default_rng(seed)
    bounds = np.concatenate([[0], np.cumsum(_split(n, np.ones(n_stages)))])
    y = np.zeros(n, dtype=np.int64)
    if fixed_blob:
        for a, b in zip(bounds[:-1], bounds[1:]):
            y[a + rng.choice(b - a, size=(b - a) // 2, replace=False)] = 1
    moving = y == 0
    m = int(moving.sum())
    u = np.linspace(0.0, 1.0, m)  # the moving blob's k-th sample is centred at path(k / (m - 1))
    if path == "arc":
        centres = _ARC_CENTRE + _ARC_RADIUS * np.column_stack([np.cos(np.pi * (1 - u)), np.sin(np.pi * (1 - u))])
    else:
        centres = _LINE_ENDS[0] + u[:, None] * (_LINE_ENDS[1] - _LINE_ENDS[0])
    X = np.empty((n, 2))
    X[moving] = centres + rng.normal(0.0, _DRIFT_SD, (m, 2))
    X[~moving] = rng.normal(_ARC_CENTRE, _DRIFT_SD, (n - m, 2))
    stages = [(X[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    names = [f"drift {k + 1}/{n_stages}" for k in range(n_stages)]
    classes = [[0, 1] if fixed_blob else [0] for _ in range(n_stages)]
    class_names = ["moving blob", "fixed blob"] if fixed_blob else ["moving blob"]
    return _drift_stream(rng, stages, names, classes, class_names, noise_fraction, "gradual drift", "gradual", seed)


def sudden_switch_stream(n: int = 3000, noise_fraction: float = 0.1, seed: int = 0, switch_at: float = 0.5) -> Stream:
    """One distribution, then, abruptly, a new one in another region (a new class).

    Before the switch every sample comes from a round blob at (0.3, 0.35)
    (label 0, "old region"); from the switch on, every sample comes from a
    tilted, elongated blob at (0.7, 0.7) (label 1, "new region").

    Parameters
    ----------
    n : int, default=3000
        Samples of the two classes (the noise comes on top).
    noise_fraction : float in [0, 1], default=0.1
        ``round(noise_fraction * n)`` uniform noise samples, labelled 2.
    seed : int, default=0
    switch_at : float in (0, 1), default=0.5
        Where the switch happens, as a fraction of ``n``.

    Returns
    -------
    Stream
        Two stages, ``"before the switch"`` and ``"after the switch"``;
        ``kind="sudden switch"``, ``dataset="drift-switch"``.

    Examples
    --------
    >>> s = sudden_switch_stream(n=300, noise_fraction=0.0, seed=1, switch_at=0.25)
    >>> s.stage_starts.tolist(), s.stage_names, s.noise_label
    ([0, 75], ['before the switch', 'after the switch'], None)
    >>> sorted(set(s.y[:75].tolist())), sorted(set(s.y[75:].tolist()))
    ([0], [1])
    """
    seed = _check_seed(seed)
    n = _check_n(n, 2, "a sample before and after the switch")
    noise_fraction = _check_noise_fraction(noise_fraction)
    if not _is_number(switch_at):
        raise ValueError(f"switch_at must be a number strictly between 0 and 1, got {switch_at!r}")
    at = float(switch_at)
    if not 0.0 < at < 1.0:
        raise ValueError(f"switch_at must be strictly between 0 and 1, got {switch_at!r}")
    rng = np.random.default_rng(seed)
    n_before = min(max(int(round(at * n)), 1), n - 1)
    before = rng.normal([0.3, 0.35], 0.05, (n_before, 2))
    after = rng.multivariate_normal([0.7, 0.7], [[0.0040, 0.0025], [0.0025, 0.0040]], n - n_before)
    stages = [(before, np.zeros(n_before, dtype=np.int64)), (after, np.ones(n - n_before, dtype=np.int64))]
    return _drift_stream(
        rng,
        stages,
        ["before the switch", "after the switch"],
        [[0], [1]],
        ["old region", "new region"],
        noise_fraction,
        "sudden switch",
        "switch",
        seed,
    )


def recurring_stream(n: int = 3000, noise_fraction: float = 0.1, seed: int = 0) -> Stream:
    """Classes A, then B, then a pause of C, then A again: does the network still know A?

    A is a blob at (0.25, 0.3) (label 0), B a blob at (0.75, 0.3) (label 1),
    C a horizontal band around y = 0.75 (label 2). The four stages have equal
    sizes; A keeps label 0 when it recurs.

    Parameters
    ----------
    n : int, default=3000
        Samples of the classes (the noise comes on top).
    noise_fraction : float in [0, 1], default=0.1
        ``round(noise_fraction * n)`` uniform noise samples, labelled 3.
    seed : int, default=0

    Returns
    -------
    Stream
        Stages ``"A"``, ``"B"``, ``"C (pause)"``, ``"A again"`` with classes
        ``[[0], [1], [2], [0]]``; ``kind="recurring"``, ``dataset="drift-recurring"``.

    Examples
    --------
    >>> s = recurring_stream(n=400, noise_fraction=0.0, seed=0)
    >>> s.stage_names, s.stage_classes, s.stage_starts.tolist()
    (['A', 'B', 'C (pause)', 'A again'], [[0], [1], [2], [0]], [0, 100, 200, 300])
    >>> set(s.y[:100].tolist()) == set(s.y[300:].tolist()) == {0}
    True
    """
    seed = _check_seed(seed)
    n = _check_n(n, 4, "a sample in each of the 4 stages")
    noise_fraction = _check_noise_fraction(noise_fraction)
    rng = np.random.default_rng(seed)
    sizes = _split(n, np.ones(4))

    def draw(c: int, k: int) -> NDArray[np.float64]:
        if c == 0:
            return rng.normal([0.25, 0.3], _DRIFT_SD, (k, 2))
        if c == 1:
            return rng.normal([0.75, 0.3], _DRIFT_SD, (k, 2))
        return np.column_stack([rng.uniform(0.2, 0.8, k), rng.normal(0.75, 0.025, k)])

    stages = [(draw(c, k), np.full(k, c, dtype=np.int64)) for c, k in zip([0, 1, 2, 0], sizes)]
    return _drift_stream(
        rng,
        stages,
        ["A", "B", "C (pause)", "A again"],
        [[0], [1], [2], [0]],
        ["A (left blob)", "B (right blob)", "C (upper band)"],
        noise_fraction,
        "recurring",
        "recurring",
        seed,
    )


def appear_disappear_stream(n: int = 3000, noise_fraction: float = 0.1, seed: int = 0) -> Stream:
    """A class present from the start disappears half way while a new class appears.

    Three classes: "stays" (label 0, a blob at (0.3, 0.7)) is present all
    along; "leaves" (label 1, a blob at (0.7, 0.7)) only in the first half;
    "arrives" (label 2, a wide blob at (0.5, 0.25)) only in the second half.
    Within a half, its two classes share the samples equally, in random order.

    Parameters
    ----------
    n : int, default=3000
        Samples of the classes (the noise comes on top).
    noise_fraction : float in [0, 1], default=0.1
        ``round(noise_fraction * n)`` uniform noise samples, labelled 3.
    seed : int, default=0

    Returns
    -------
    Stream
        Stages ``"first half"`` (classes 0 and 1) and ``"second half"``
        (classes 0 and 2); ``kind="appear-disappear"``, ``dataset="drift-appear"``.

    Examples
    --------
    >>> s = appear_disappear_stream(n=400, noise_fraction=0.0, seed=0)
    >>> s.stage_names, s.stage_classes, s.stage_starts.tolist()
    (['first half', 'second half'], [[0, 1], [0, 2]], [0, 200])
    >>> sorted(set(s.y[:200].tolist())), sorted(set(s.y[200:].tolist()))
    ([0, 1], [0, 2])
    """
    seed = _check_seed(seed)
    n = _check_n(n, 4, "a sample of each class in each half")
    noise_fraction = _check_noise_fraction(noise_fraction)
    rng = np.random.default_rng(seed)
    stages = []
    for half, newcomer in zip(_split(n, [1, 1]), (1, 2)):
        k_stay, k_other = _split(half, [1, 1])
        stay = rng.normal([0.3, 0.7], _DRIFT_SD, (k_stay, 2))
        if newcomer == 1:
            other = rng.normal([0.7, 0.7], _DRIFT_SD, (k_other, 2))
        else:
            other = rng.normal([0.5, 0.25], [0.09, 0.035], (k_other, 2))
        stages.append(_mixed_stage(rng, [(stay, 0), (other, newcomer)]))
    return _drift_stream(
        rng,
        stages,
        ["first half", "second half"],
        [[0, 1], [0, 2]],
        ["stays", "leaves half way", "arrives half way"],
        noise_fraction,
        "appear-disappear",
        "appear",
        seed,
    )


#: The drifting and recurring streams by short key: ``key -> (title, function)``.
DRIFT_STREAMS: dict[str, tuple[str, Callable[..., Stream]]] = {
    "gradual": ("Gradual drift: one blob moves along an arc, another stays", gradual_drift_stream),
    "switch": ("Sudden switch: the data jump to a new region", sudden_switch_stream),
    "recurring": ("Recurring class: A, B, a pause of C, then A again", recurring_stream),
    "appear": ("Appear and disappear: a class leaves half way as a new one arrives", appear_disappear_stream),
}


def make_drift_stream(key: str, n: int = 3000, noise_fraction: float = 0.1, seed: int = 0, **options: Any) -> Stream:
    """One of :data:`DRIFT_STREAMS` by key, with its size, noise and seed.

    Parameters
    ----------
    key : {"gradual", "switch", "recurring", "appear"}
    n : int, default=3000
        Samples of the classes (the noise comes on top).
    noise_fraction : float in [0, 1], default=0.1
    seed : int, default=0
    **options
        Further arguments of that stream's function (e.g. ``switch_at``,
        ``path``).

    Examples
    --------
    >>> s = make_drift_stream("recurring", n=800, seed=2)
    >>> s.kind, len(s), s.stage_names[-1]
    ('recurring', 880, 'A again')
    >>> sorted(DRIFT_STREAMS)
    ['appear', 'gradual', 'recurring', 'switch']
    >>> make_drift_stream("spiral")
    Traceback (most recent call last):
    ...
    ValueError: unknown drift stream 'spiral'; choose one of gradual, switch, recurring, appear
    """
    if not isinstance(key, str) or key not in DRIFT_STREAMS:
        raise ValueError(f"unknown drift stream {key!r}; choose one of {', '.join(DRIFT_STREAMS)}")
    return DRIFT_STREAMS[key][1](n=n, noise_fraction=noise_fraction, seed=seed, **options)

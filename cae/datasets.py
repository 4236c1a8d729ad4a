"""The paper's synthetic 2-D data, streams over any labelled data, and built-in datasets.

Everything here works offline and is reproducible from a seed.

Examples
--------
>>> from cae.datasets import make_paper2d, nonstationary_stream
>>> data = make_paper2d(n_per_class=1000, noise_fraction=0.1, seed=0)
>>> data.X.shape, sorted(set(data.y.tolist()))
((6600, 2), [0, 1, 2, 3, 4, 5, 6])
>>> s = nonstationary_stream(data, seed=0)
>>> s.stage_names[:2], s.stage_starts[:3].tolist()
(['stream #1', 'stream #2'], [0, 1100, 2200])
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "make_moons2d", "make_circles2d", "Dataset", "Stream", "make_paper2d", "make_blobs3d", "stationary_stream", "nonstationary_stream",
    "class_incremental_stream", "load_builtin", "BUILTINS", "load_labelled_csv", "PAPER2D_CLASS_NAMES",
    "NOISE_LABEL",
]

NOISE_LABEL = 6
PAPER2D_CLASS_NAMES = ["blob (left)", "blob (right)", "outer ring", "inner ring", "upper sine", "lower sine"]


@dataclass
class Dataset:
    """A labelled dataset: features ``X`` (n, d) and integer labels ``y``.

    ``class_names[c]`` names label ``c``; ``noise_label`` (or None) marks
    uniformly distributed noise.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    class_names: list
    feature_names: list
    noise_label: int | None = None
    description: str = ""

    @property
    def n_classes(self):
        return len(np.unique(self.y[self.y != self.noise_label])) if self.noise_label is not None else len(np.unique(self.y))


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
        'stationary', 'nonstationary' or 'class-incremental'.
    seed : int
    dataset : str
    """

    X: np.ndarray
    y: np.ndarray
    stage_starts: np.ndarray
    stage_names: list
    stage_classes: list
    kind: str
    seed: int
    dataset: str
    noise_label: int | None = None
    class_names: list = field(default_factory=list)

    def __len__(self):
        return len(self.X)

    @property
    def stage_ends(self):
        return np.append(self.stage_starts[1:], len(self.X))

    def stage_of(self, t):
        """Stage index of the sample at position ``t`` (0-based)."""
        return int(np.searchsorted(self.stage_starts, t, side="right") - 1)

    def fingerprint(self):
        """A short hash of the stream's content (order included)."""
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.X).tobytes())
        h.update(np.ascontiguousarray(self.y).tobytes())
        return h.hexdigest()[:16]


# ------------------------------------------------------------- the paper's 2-D data
# Shapes fitted to the authors' file (x0, x1, label 0-5; 15,000 points each):
# per-class means, covariances and ranges are checked against it in the tests.
_BLOB_COV = np.array([[0.00234, -0.00167], [-0.00167, 0.00571]])
_BLOB_MEANS = np.array([[0.1751, 0.6993], [0.4706, 0.6987]])
_RING_CENTRE = np.array([[0.8133, 0.7084], [0.8123, 0.7104]])
_RING_AXES = np.array([[0.2313, 0.1501], [0.0910, 0.0462]])  # semi-major, semi-minor
_RING_ANGLE = np.radians([112.8, 113.0])  # direction of the major axis
_SINE_OFFSET = np.array([0.275, 0.135])


def _ring(rng, n, k):
    phi = rng.uniform(0, 2 * np.pi, n)
    if k == 0:  # outer ring: radius uniform within +-13.4 %
        q = rng.uniform(0.866, 1.134, n)
    else:  # inner ring: thicker, triangular radial profile
        q = 0.98 + 0.43 * (rng.random(n) + rng.random(n) - 1)
    a, b = _RING_AXES[k]
    u = np.array([np.cos(_RING_ANGLE[k]), np.sin(_RING_ANGLE[k])])
    v = np.array([u[1], -u[0]])
    return _RING_CENTRE[k] + (q * a * np.cos(phi))[:, None] * u + (q * b * np.sin(phi))[:, None] * v


def _sine(rng, n, k):
    x = rng.uniform(0, 1, n)
    y = _SINE_OFFSET[k] + 0.1 * np.sin(2.5 * np.pi * x) + rng.uniform(-0.03, 0.03, n)
    return np.column_stack([x, y])


def make_paper2d(n_per_class=15000, noise_fraction=0.1, seed=0):
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
        name="paper2d", X=X, y=y, class_names=PAPER2D_CLASS_NAMES + ["noise"], feature_names=["x0", "x1"],
        noise_label=NOISE_LABEL if n_noise else None,
        description=f"The paper's 2-D data: 6 x {n_per_class} points + {n_noise} uniform noise (seed {seed})",
    )


def _with_uniform_noise(name, X, y, class_names, noise_fraction, seed, description):
    rng = np.random.default_rng(seed)
    m = int(round(noise_fraction * len(X)))
    noise = len(class_names)
    X = np.clip(np.vstack([X, rng.uniform(0, 1, (m, 2))]), 0, 1)
    y = np.concatenate([y, np.full(m, noise)]).astype(np.int64)
    return Dataset(name=name, X=X, y=y, class_names=list(class_names) + ["noise"], feature_names=["x0", "x1"],
                   noise_label=noise if m else None, description=f"{description}, {len(X) - m} points + {m} uniform noise (seed {seed})")


def make_moons2d(n=3000, noise_fraction=0.1, seed=0):
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


def make_circles2d(n=3000, noise_fraction=0.1, seed=0):
    """Two concentric circles in [0, 1]^2 plus uniform noise (labelled 2).

    Examples
    --------
    >>> make_circles2d(1000, seed=0).X.shape
    (1100, 2)
    """
    from sklearn.datasets import make_circles

    X, y = make_circles(n, noise=0.03, factor=0.45, random_state=seed)
    X = (X + 1.15) / 2.3
    return _with_uniform_noise("circles", X, y, ["outer circle", "inner circle"], noise_fraction, seed,
                               "Two concentric circles")


def make_blobs3d(n=6000, seed=0):
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
    parts.append(np.column_stack([0.5 + 0.15 * np.cos(s), 0.5 + 0.15 * np.sin(s), s / (4 * np.pi)]) + rng.normal(0, 0.01, (m, 3)))
    X = np.vstack(parts)
    y = np.repeat(np.arange(5), [k, k, k, k, m])
    return Dataset(name="blobs3d", X=X, y=y, class_names=["blob A", "blob B", "blob C", "blob D", "helix"],
                   feature_names=["x", "y", "z"], description="Four 3-D Gaussian blobs and a helix")


# ---------------------------------------------------------------------- streams
def _check_seed(seed):
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def stationary_stream(data, seed=0):
    """Every sample once, noise included, in random order (one stage).

    Examples
    --------
    >>> s = stationary_stream(make_paper2d(100, seed=0), seed=3)
    >>> len(s), s.kind, s.stage_starts.tolist()
    (660, 'stationary', [0])
    """
    seed = _check_seed(seed)
    order = np.random.default_rng(seed).permutation(len(data.X))
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    return Stream(X=data.X[order], y=data.y[order], stage_starts=np.array([0]), stage_names=["all data"],
                  stage_classes=[classes], kind="stationary", seed=seed, dataset=data.name,
                  noise_label=data.noise_label, class_names=list(data.class_names))


def class_incremental_stream(data, order=None, seed=0, names=None, kind="class-incremental"):
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
    >>> s = class_incremental_stream(make_paper2d(100, seed=0), order=[3, 0], seed=0)
    >>> s.stage_names, s.stage_classes, len(s)
    (['inner ring', 'blob (left)'], [[3], [0]], 220)
    """
    seed = _check_seed(seed)
    rng = np.random.default_rng(seed)
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    if order is None:
        order = classes
    order = [int(c) for c in order]
    if not order:
        raise ValueError("the class order is empty")
    unknown = [c for c in order if c not in classes]
    if unknown or len(set(order)) != len(order):
        raise ValueError(f"class order {order} must list distinct classes among {classes}")
    noise_idx = np.flatnonzero(data.y == data.noise_label) if data.noise_label is not None else np.array([], int)
    # each presented class brings its share of the noise: 1/C of it, C = number of classes
    noise_parts = np.array_split(rng.permutation(noise_idx), len(classes)) if len(noise_idx) else [np.array([], int)] * len(classes)
    idx, starts = [], []
    for k, c in enumerate(order):
        stage = np.concatenate([np.flatnonzero(data.y == c), noise_parts[k]])
        starts.append(sum(len(p) for p in idx))
        idx.append(rng.permutation(stage))
    idx = np.concatenate(idx).astype(np.int64)
    if names is None:
        names = [data.class_names[c] if c < len(data.class_names) else f"class {c}" for c in order]
    return Stream(X=data.X[idx], y=data.y[idx], stage_starts=np.array(starts), stage_names=list(names),
                  stage_classes=[[c] for c in order], kind=kind, seed=seed, dataset=data.name,
                  noise_label=data.noise_label, class_names=list(data.class_names))


def nonstationary_stream(data, order=None, seed=0):
    """The paper's non-stationary environment: stream #1 ... #6, one distribution each.

    Stage ``k`` presents the ``k``-th distribution of ``order`` together with
    its share of the uniform noise (1/6 of it for the paper's data), in random
    order. See :func:`class_incremental_stream`.

    Examples
    --------
    >>> s = nonstationary_stream(make_paper2d(200, seed=0), seed=0)
    >>> s.stage_names[0], s.kind, len(s.stage_starts)
    ('stream #1', 'nonstationary', 6)
    """
    classes = sorted(int(c) for c in np.unique(data.y) if c != data.noise_label)
    order = classes if order is None else list(order)
    names = [f"stream #{k + 1}" for k in range(len(order))]
    return class_incremental_stream(data, order=order, seed=seed, names=names, kind="nonstationary")


# ------------------------------------------------------------------- built-ins
def _sk(loader, name):
    def load():
        b = loader()
        names = [str(n) for n in getattr(b, "target_names", np.unique(b.target))]
        feats = [str(f) for f in getattr(b, "feature_names", [f"x{i}" for i in range(b.data.shape[1])])]
        return Dataset(name=name, X=np.asarray(b.data, float), y=np.asarray(b.target, np.int64),
                       class_names=names, feature_names=feats, description=f"scikit-learn's bundled {name} data")
    return load


def _builtins():
    from sklearn import datasets as skd

    return {
        "paper2d": lambda: make_paper2d(),
        "paper2d-small": lambda: make_paper2d(n_per_class=1500),
        "blobs3d": lambda: make_blobs3d(),
        "iris": _sk(skd.load_iris, "iris"),
        "wine": _sk(skd.load_wine, "wine"),
        "breast_cancer": _sk(skd.load_breast_cancer, "breast_cancer"),
        "digits": _sk(skd.load_digits, "digits"),
    }


BUILTINS = ("paper2d", "paper2d-small", "blobs3d", "iris", "wine", "breast_cancer", "digits")


def load_builtin(name, seed=0):
    """A built-in dataset by name (no download): one of :data:`BUILTINS`.

    The synthetic ones are generated with ``seed``; scikit-learn's bundled
    Iris, Wine, Breast cancer and Digits ignore it.

    Examples
    --------
    >>> load_builtin("iris").X.shape
    (150, 4)
    """
    table = _builtins()
    if name not in table:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(BUILTINS)}")
    if name == "paper2d":
        return make_paper2d(seed=seed)
    if name == "paper2d-small":
        d = make_paper2d(n_per_class=1500, seed=seed)
        d.name = "paper2d-small"
        return d
    if name == "blobs3d":
        return make_blobs3d(seed=seed)
    return table[name]()


def load_labelled_csv(path, label_column="label"):
    """A dataset from a CSV whose numeric columns are features and one column the label.

    This is the format of the paper's real-world datasets (features, then
    ``label``). Non-numeric labels are encoded in sorted order.

    Examples
    --------
    >>> import io
    >>> d = load_labelled_csv(io.StringIO("a,b,label\\n1,2,x\\n3,4,y\\n5,6,x\\n"))
    >>> d.X.tolist(), d.y.tolist(), d.class_names
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [0, 1, 0], ['x', 'y'])
    """
    import pandas as pd

    df = pd.read_csv(path)
    if label_column not in df.columns:
        raise ValueError(f"no column named {label_column!r}")
    labels = df.pop(label_column)
    X = df.apply(pd.to_numeric, errors="raise").to_numpy(float)
    if not np.all(np.isfinite(X)):
        raise ValueError("the features contain missing or infinite values")
    names, y = np.unique(labels.astype(str).to_numpy(), return_inverse=True)
    try:  # keep numeric labels in numeric order
        vals = np.array([float(n) for n in names])
        names = names[np.argsort(vals, kind="stable")]
        y = np.argsort(np.argsort(vals, kind="stable"))[y]
    except ValueError:
        pass
    name = Path(path).stem if isinstance(path, (str, Path)) else "csv"
    return Dataset(name=name, X=X, y=y.astype(np.int64), class_names=[str(n) for n in names],
                   feature_names=[str(c) for c in df.columns])


SAMPLE_FILES = {
    "paper2d_sample.csv": lambda: make_paper2d(n_per_class=1500, noise_fraction=0.1, seed=2026),
    "blobs3d_sample.csv": lambda: make_blobs3d(n=6000, seed=2026),
}


def sample_frame(name):
    """The content of one of the ``sample_data/`` files as a DataFrame (features, then ``label``).

    Rows are shuffled (seed 2026) so the file is a stationary stream as it stands.
    """
    import pandas as pd

    d = SAMPLE_FILES[name]()
    order = np.random.default_rng(2026).permutation(len(d.X))
    df = pd.DataFrame(np.round(d.X[order], 6), columns=d.feature_names)
    df["label"] = d.y[order]
    return df


def write_sample_data(folder):
    """(Re)write ``sample_data/``: small CSVs made by our own generators."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in SAMPLE_FILES:
        sample_frame(name).to_csv(folder / name, index=False, lineterminator="\n")


if __name__ == "__main__":  # python -m cae.datasets sample_data
    import sys

    write_sample_data(sys.argv[1] if len(sys.argv) > 1 else "sample_data")

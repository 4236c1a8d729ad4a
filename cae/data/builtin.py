"""Built-in datasets (no download), labelled CSV files, and the files of ``sample_data/``."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .streams import Dataset, Stream, nonstationary_stream
from .synthetic import make_blobs3d, make_paper2d

if TYPE_CHECKING:
    import pandas as pd

    from ..evaluation import RunOutcome

__all__ = [
    "load_builtin",
    "BUILTINS",
    "load_labelled_csv",
    "SAMPLE_FILES",
    "SORTED_SAMPLES",
    "sample_frame",
    "home_stream",
    "home_spread",
    "home_summary",
    "HOME_SEED",
    "HOME_SEEDS",
    "HOME_MODEL",
    "HOME_SUMMARY",
    "write_sample_data",
]


# ------------------------------------------------------------------- built-ins
def _sk(loader: Callable[[], Any], name: str) -> Callable[[], Dataset]:
    def load() -> Dataset:
        b = loader()
        names = [str(n) for n in getattr(b, "target_names", np.unique(b.target))]
        feats = [str(f) for f in getattr(b, "feature_names", [f"x{i}" for i in range(b.data.shape[1])])]
        return Dataset(
            name=name,
            X=np.asarray(b.data, float),
            y=np.asarray(b.target, np.int64),
            class_names=names,
            feature_names=feats,
            description=f"scikit-learn's bundled {name} data",
        )

    return load


def _builtins() -> dict[str, Callable[[], Dataset]]:
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


def load_builtin(name: str, seed: int = 0) -> Dataset:
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


def load_labelled_csv(path: str | os.PathLike[str] | IO[str], label_column: str = "label") -> Dataset:
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
    return Dataset(
        name=name,
        X=X,
        y=y.astype(np.int64),
        class_names=[str(n) for n in names],
        feature_names=[str(c) for c in df.columns],
    )


SAMPLE_FILES: dict[str, Callable[[], Dataset]] = {
    "paper2d_sample.csv": lambda: make_paper2d(n_per_class=1500, noise_fraction=0.1, seed=2026),
    "blobs3d_sample.csv": lambda: make_blobs3d(n=6000, seed=2026),
    "iris_sorted_by_class.csv": lambda: load_builtin("iris"),
}
#: the sample files kept with their rows sorted by class (the lesson on class-sorted files), the class's name
#: in a ``species`` column; the others are shuffled, with a numeric ``label`` column
SORTED_SAMPLES = ("iris_sorted_by_class.csv",)


def sample_frame(name: str) -> pd.DataFrame:
    """The content of one of the ``sample_data/`` files as a DataFrame (features, then ``label``).

    Rows are shuffled (seed 2026) so the file is a stationary stream as it stands; but the files of
    :data:`SORTED_SAMPLES` keep their rows sorted by class (a stable sort: the built-in order within a
    class) and name the class in a ``species`` column, as Iris is distributed.

    Examples
    --------
    >>> df = sample_frame("iris_sorted_by_class.csv")
    >>> list(df.columns)
    ['sepal length (cm)', 'sepal width (cm)', 'petal length (cm)', 'petal width (cm)', 'species']
    >>> df["species"].iloc[[0, 50, 100]].tolist()
    ['setosa', 'versicolor', 'virginica']
    """
    import pandas as pd

    d = SAMPLE_FILES[name]()
    if name in SORTED_SAMPLES:
        order = np.argsort(d.y, kind="stable")
        df = pd.DataFrame(np.round(d.X[order], 6), columns=d.feature_names)
        df["species"] = [d.class_names[k] for k in d.y[order]]
        return df
    order = np.random.default_rng(2026).permutation(len(d.X))
    df = pd.DataFrame(np.round(d.X[order], 6), columns=d.feature_names)
    df["label"] = d.y[order]
    return df


#: the home picture's seed: the typical one of seeds 0 … HOME_SEEDS − 1 (measured by :func:`write_sample_data`,
#: which refuses to write a picture of another seed; the Playground's default seed is the same)
HOME_SEED = 9
HOME_SEEDS = 30
HOME_MODEL = "home_model.npz"
#: what the home caption says about the picture: its seed, its numbers, and the spread over the seeds
HOME_SUMMARY = "home_model.json"


def home_stream(seed: int = HOME_SEED) -> Stream:
    """The stream of the app's home picture, which is also the Playground's default: the paper's 2-D data,
    1,500 per distribution with 10 % uniform noise, presented as stream #1 → #6 (9,900 samples)."""
    return nonstationary_stream(make_paper2d(n_per_class=1500, noise_fraction=0.1, seed=seed), seed=seed)


def home_spread(n_seeds: int = HOME_SEEDS) -> list[RunOutcome]:
    """CAE over :func:`home_stream` for seeds 0 … n_seeds − 1, each to the end: a list of
    :class:`cae.evaluation.RunOutcome` (NMI/ARI without the noise, merges, splits, #clusters)."""
    import time

    from ..algorithms.cae import CAE
    from ..evaluation import score_run

    out = []
    for seed in range(n_seeds):
        t0 = time.perf_counter()
        stream = home_stream(seed)
        model = CAE().learn_many(stream.X).end_batch()
        out.append(score_run(model, stream, seed, seconds=time.perf_counter() - t0))
    return out


def home_summary(outcomes: Sequence[RunOutcome]) -> dict[str, Any]:
    """The JSON the home caption and the Playground read: the typical seed's numbers and the spread over every
    seed, all computed from the per-seed numbers as stored (NMI to 4 decimals), so that every page agrees."""
    from ..evaluation import RunOutcome, typical_seed

    rows: list[dict[str, Any]] = [
        {"seed": o.seed, "nmi": round(o.nmi, 4), "n_clusters": o.n_clusters, "n_large": o.n_large, "kind": o.kind}
        for o in outcomes
    ]
    rounded = [
        RunOutcome(r["seed"], r["nmi"], 0.0, 0, r["n_clusters"], r["n_large"], o.merged, o.split, [], [], 0.0)
        for r, o in zip(rows, outcomes)
    ]
    seed = typical_seed(rounded)
    t = next(r for r in rows if r["seed"] == seed)
    q1, med, q3 = np.percentile([r["nmi"] for r in rows], [25, 50, 75])
    return {
        "setting": "paper 2-D, stream #1 -> #6, 1,500 per distribution, 10 % noise, CAE",
        "seed": seed,
        "typical": {k: t[k] for k in ("nmi", "n_clusters", "n_large", "kind")},
        "runs": len(rows),
        "nmi_median": round(float(med), 6),
        "nmi_q1": round(float(q1), 6),
        "nmi_q3": round(float(q3), 6),
        "merged": sum(o.merged for o in outcomes),
        "split": sum(o.split for o in outcomes),
        "clean": sum(o.kind == "clean" for o in outcomes),
        "per_seed": rows,
    }


def write_sample_data(folder: str | os.PathLike[str]) -> None:
    """(Re)write ``sample_data/``: small CSVs made by our own generators, and the home picture: CAE after
    one pass over :func:`home_stream` with the typical seed (so that a fresh install draws it at once instead of
    learning it while the kernels are being compiled) and the numbers its caption gives."""
    import json

    from ..algorithms.cae import CAE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in SAMPLE_FILES:
        sample_frame(name).to_csv(folder / name, index=False, lineterminator="\n")
    summary = home_summary(home_spread())
    if summary["seed"] != HOME_SEED:
        raise RuntimeError(
            f"the typical seed of the home stream is now {summary['seed']}, not {HOME_SEED}: set HOME_SEED "
            "(cae/data/builtin.py) and the Playground's default seed (cae/app/lesson_links.py) to it"
        )
    CAE().learn_many(home_stream().X).save(folder / HOME_MODEL)
    (folder / HOME_SUMMARY).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")

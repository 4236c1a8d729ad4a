"""The Continual learning page's data: which source gives which labelled data and which staged stream.

Pure (no Streamlit): the page reads its widgets, calls these, and draws.

Examples
--------
>>> data = labelled_data("builtin", seed=0, name="iris", scaling="minmax")
>>> classes, names = class_choices(data)
>>> classes, names[0]
([0, 1, 2], 'setosa')
>>> stream = staged_stream("builtin", data, order=[2, 0], seed=0)
>>> stream.stage_names[0].endswith("virginica"), len(stream)
(True, 100)
>>> link_name("builtin", "iris"), link_name("upload", "iris"), paper_name("paper", None)
('iris', None, 'synthetic')
"""

from __future__ import annotations

import numpy as np

#: the page's sources: the paper's 2-D data, a built-in dataset, a drifting stream, the CSV of *Your data*
SOURCES = ("paper", "builtin", "drift", "upload")


def labelled_data(source, seed, *, n_per_class=1500, noise=0.1, name=None, scaling="minmax", upload=None):
    """The labelled data of a source other than ``"drift"`` (whose stages are its stream's own: :func:`drift_data`).

    ``"paper"``: the paper's 2-D data (``n_per_class``, ``noise``, ``seed``); ``"builtin"``: the dataset ``name``
    scaled by ``scaling``; ``"upload"``: the selection of *Your data*'s last run (``upload``, a
    :class:`cae.app.your_data` run record), None when it has no label column.
    """
    from ..data import Dataset, load_builtin, make_paper2d
    from ..data.csvio import scale

    if source == "paper":
        return make_paper2d(n_per_class=n_per_class, noise_fraction=noise, seed=seed)
    if source == "builtin":
        data = load_builtin(name)
        data.X = scale(data.X, scaling)
        return data
    if source == "upload":
        if upload is None or upload["sel"].y is None:
            return None
        sel = upload["sel"]
        return Dataset(name="upload", X=sel.X, y=sel.y, class_names=list(sel.label_names), feature_names=sel.features)
    raise ValueError(f"unknown source {source!r}: one of {', '.join(SOURCES)}")


def drift_data(kind, noise, seed):
    """A drifting or recurring stream and its data: ``(stream, Dataset)``; its stages are the stream's own."""
    from ..data import Dataset, make_drift_stream

    stream = make_drift_stream(kind, noise_fraction=noise, seed=seed)
    data = Dataset(
        name=stream.dataset,
        X=stream.X,
        y=stream.y,
        class_names=stream.class_names,
        feature_names=["x0", "x1"],
        noise_label=stream.noise_label,
    )
    return stream, data


def class_choices(data):
    """The classes a stage can be (the noise is not one) and their names: ``(classes, {class: name})``."""
    classes = sorted(int(k) for k in np.unique(data.y) if k != data.noise_label)
    return classes, {k: data.class_names[k] if k < len(data.class_names) else str(k) for k in classes}


def staged_stream(source, data, order, seed):
    """One stage per class of ``order``: the paper's non-stationary stream for its data (each stage with its share
    of the noise), a class-incremental stream otherwise."""
    from ..data import class_incremental_stream, nonstationary_stream

    if source == "paper":
        return nonstationary_stream(data, order=order, seed=seed)
    return class_incremental_stream(data, order=order, seed=seed)


def link_name(source, name):
    """The lesson link's ``stream`` of a source (None: a drifting stream or an upload has no link)."""
    return "paper" if source == "paper" else (name if source == "builtin" else None)


def paper_name(source, name):
    """The dataset whose paper setting the algorithm picker offers (None: the paper has none for it)."""
    return "synthetic" if source == "paper" else (name if source == "builtin" else None)

"""The streams the app's pages offer, by key, the stream a Playground configuration describes, and the
parameters an algorithm starts with on them (the paper's setting for its 2-D data: one default for every page).

Examples
--------
>>> environment_of("paper2d-st"), environment_of("moons")
('stationary', 'nonstationary')
>>> paper_setting("CAEA", "paper2d-ns")
{'deletion_interval': 50, 'max_edge_age': 40}
"""

from __future__ import annotations

from ..data import (
    DRIFT_STREAMS,
    class_incremental_stream,
    make_circles2d,
    make_drift_stream,
    make_moons2d,
    make_paper2d,
    nonstationary_stream,
    stationary_stream,
)
from ..registry import ALGORITHMS

__all__ = ["SOURCES", "make_stream", "environment_of", "paper_setting"]

SOURCES = {
    "paper2d-ns": "Paper 2-D · non-stationary (stream #1 → #6)",
    "paper2d-st": "Paper 2-D · stationary (random order)",
    "moons": "Two moons · class by class",
    "circles": "Two circles · class by class",
    **{f"drift-{k}": f"Drift · {title}" for k, (title, _) in DRIFT_STREAMS.items()},
}


def make_stream(cfg):
    """The stream of a configuration (keys ``source``, ``n_per_class``, ``noise``, ``seed``)."""
    src, n, noise, seed = cfg["source"], int(cfg["n_per_class"]), float(cfg["noise"]), int(cfg["seed"])
    if src.startswith("paper2d"):
        data = make_paper2d(n_per_class=n, noise_fraction=noise, seed=seed)
        return nonstationary_stream(data, seed=seed) if src == "paper2d-ns" else stationary_stream(data, seed=seed)
    if src.startswith("drift-"):  # n class samples per class present (two at a time): 2n in all
        return make_drift_stream(src[len("drift-") :], n=2 * n, noise_fraction=noise, seed=seed)
    maker = make_moons2d if src == "moons" else make_circles2d
    return class_incremental_stream(maker(n=2 * n, noise_fraction=noise, seed=seed), seed=seed)


def environment_of(source):
    """The paper's environment a stream stands for: ``"stationary"`` for the stationary paper stream, else
    ``"nonstationary"`` (the paper's stream #1 → #6, and every stream that changes over time)."""
    return "stationary" if source == "paper2d-st" else "nonstationary"


def paper_setting(algo, source):
    """The parameters ``algo`` starts with on a stream, on every page: the paper's grid-searched values for its
    2-D data in the stream's environment (:func:`cae.presets.paper_parameters`); empty for CAE and SOINN+."""
    return ALGORITHMS[algo].paper_setting("synthetic", environment_of(source))

"""The streams the app's pages offer, by key, and the stream a Playground configuration describes."""

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

__all__ = ["SOURCES", "make_stream"]

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

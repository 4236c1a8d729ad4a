"""What the *Compare algorithms* page computes: several algorithms stepped together over one stream.

No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..registry import ALGORITHMS, make_algorithm
from .stepper import Stepper

__all__ = ["Lockstep"]


class Lockstep:
    """Several algorithms on the same stream, stepped together.

    Parameters
    ----------
    stream : cae.data.Stream
    runs : dict label -> (algorithm name, params)
        Labels must be unique; the same algorithm may appear with different parameters.
    """

    def __init__(self, stream, runs):
        self.stream = stream
        self.runs = dict(runs)
        self.playgrounds = {}
        for label, (algo, params) in self.runs.items():
            if algo not in ALGORITHMS:
                raise ValueError(f"unknown algorithm {algo!r}")
            ALGORITHMS[algo].make(**params)  # invalid parameters fail here, not at the first step
            self.playgrounds[label] = Stepper(
                stream, model_factory=lambda a=algo, p=dict(params): make_algorithm(a, **p)
            )

    @property
    def t(self):
        return min(pg.t for pg in self.playgrounds.values())

    @property
    def finished(self):
        return all(pg.finished for pg in self.playgrounds.values())

    def step(self, n):
        for pg in self.playgrounds.values():
            pg.step(n)

    def reset(self):
        for pg in self.playgrounds.values():
            pg.reset()

    def metrics(self, max_points=5000, score_noise=False):
        """One row per run: counts and NMI/ARI (noise not scored unless ``score_noise``; see
        :meth:`cae.app.stepper.Stepper.live_metrics`)."""
        rows = []
        for label, pg in self.playgrounds.items():
            m = pg.live_metrics(max_points, score_noise=score_noise)
            model = pg.model
            fitted = pg.t > 0 and hasattr(model, "network_")
            rows.append(
                {
                    "algorithm": label,
                    "samples seen": m["samples seen"],
                    "#nodes": m["nodes"] if ALGORITHMS[self.runs[label][0]].kind == "network" else np.nan,
                    "#clusters": m["clusters"],
                    "NMI": m["NMI"],
                    "ARI": m["ARI"],
                    "V": getattr(model, "threshold_", np.nan) if fitted else np.nan,
                    "λ": getattr(model, "deletion_interval_", None) if fitted else None,
                }
            )
        return pd.DataFrame(rows)

    def traces(self, name):
        """``{label: (t, values)}`` of one trace column for every run (NaN where a run has no such column)."""
        return {label: (pg.column("t"), pg.column(name)) for label, pg in self.playgrounds.items()}

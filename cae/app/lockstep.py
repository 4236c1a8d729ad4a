"""What the *Compare algorithms* page computes: several algorithms stepped together over one stream.

No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..registry import ALGORITHMS, make_algorithm
from .stepper import SINGLE_CLASS_NOTE, Stepper

__all__ = ["Lockstep", "display_table", "COUNT_COLUMNS", "traces_titles", "metrics_caption"]

#: columns that hold counts: shown as integers
COUNT_COLUMNS = ("samples seen", "#nodes", "#clusters", "λ")


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
                    "#nodes": m["nodes"] if ALGORITHMS[self.runs[label][0]].kind != "clouds" else np.nan,
                    "#clusters": m["clusters"],
                    "NMI": m["scores n/a"] or m["NMI"],  # the reason where they are undefined (one class)
                    "ARI": m["scores n/a"] or m["ARI"],
                    "V": getattr(model, "threshold_", np.nan) if fitted else np.nan,
                    "λ": getattr(model, "deletion_interval_", None) if fitted else None,
                }
            )
        return pd.DataFrame(rows)

    def one_class_so_far(self, score_noise=False):
        """Whether the samples scored so far hold a single class (NMI/ARI then n/a, see
        :meth:`cae.app.stepper.Stepper.live_metrics`)."""
        pg = next(iter(self.playgrounds.values()))  # every run sees the same samples
        return pg.live_metrics(score_noise=score_noise)["single class"]

    def traces(self, name):
        """``{label: (t, values)}`` of one trace column for every run (NaN where a run has no such column)."""
        return {label: (pg.column("t"), pg.column(name)) for label, pg in self.playgrounds.items()}


def display_table(table, digits=4, missing="—"):
    """The metrics table as a page shows it: counts as integers, other numbers rounded, ``missing`` where a run
    has no such quantity.

    A column without a missing cell keeps its numeric type (integers for :data:`COUNT_COLUMNS`); a column with
    one becomes text throughout, so that every column has one type (a table mixing numbers and text in a column
    cannot be sent to the browser as it is).

    Examples
    --------
    >>> df = pd.DataFrame({"algorithm": ["CAE", "AutoCloud"], "#nodes": [202.0, np.nan], "NMI": [0.98766, 0.5]})
    >>> out = display_table(df)
    >>> out["algorithm"].tolist(), out["#nodes"].tolist(), out["NMI"].tolist(), str(out["NMI"].dtype)
    (['CAE', 'AutoCloud'], ['202', '—'], [0.9877, 0.5], 'float64')
    """
    out = {}
    for name in table.columns:
        col = table[name]
        numeric = pd.api.types.is_numeric_dtype(col) or (
            col.dtype == object and all(v is None or isinstance(v, (int, float, np.number)) for v in col)
        )
        if not numeric:
            out[name] = col.astype(str)
            continue
        values = pd.to_numeric(col, errors="coerce").astype(float)
        is_count = name in COUNT_COLUMNS
        if values.isna().any():
            out[name] = [
                missing if np.isnan(v) else (f"{int(round(v)):d}" if is_count else f"{round(v, digits):g}")
                for v in values
            ]
        else:
            out[name] = values.round().astype(np.int64) if is_count else values.round(digits)
    return pd.DataFrame(out, index=table.index)


def _chosen_with(algorithms, attribute):
    """The algorithms among ``algorithms`` whose models have the fitted quantity ``attribute``."""
    return [a for a in algorithms if hasattr(type(ALGORITHMS[a].make()), attribute)]


def _words(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def traces_titles(algorithms):
    """The titles of the Compare page's traces chart, naming only the chosen ``algorithms``.

    >>> traces_titles(["CAE", "TCA"])
    ('#nodes', '#clusters')
    >>> traces_titles(["CAE", "AutoCloud"])
    ('#nodes (AutoCloud: #clouds)', '#clusters')
    """
    clouds = [a for a in dict.fromkeys(algorithms) if ALGORITHMS[a].kind == "clouds"]
    return ("#nodes" + (f" ({_words(clouds)}: #clouds)" if clouds else ""), "#clusters")


def metrics_caption(algorithms, score_noise=False, one_class=False):
    """The caption under the Compare page's table: what NMI/ARI are computed on and, for the chosen
    ``algorithms`` only, which have no nodes (clouds) and which have no V or λ.

    >>> metrics_caption(["CAE", "TCA"])
    'NMI/ARI on the samples seen so far, the uniform noise learned but not scored (as in the paper). λ belongs to CAE only (— for TCA).'
    """
    chosen = list(dict.fromkeys(algorithms))
    text = "NMI/ARI on the samples seen so far" + (
        ", the noise counted as a class of its own."
        if score_noise
        else ", the uniform noise learned but not scored (as in the paper)."
    )
    if one_class:
        text += f" NMI/ARI {SINGLE_CLASS_NOTE}."
    clouds = [a for a in chosen if ALGORITHMS[a].kind == "clouds"]
    if clouds:
        text += f" {_words(clouds)} {'has' if len(clouds) == 1 else 'have'} clouds, not nodes (#nodes —)."
    have = {"V": _chosen_with(chosen, "threshold_"), "λ": _chosen_with(chosen, "deletion_interval_")}
    groups = [("V and λ", have["V"])] if have["V"] == have["λ"] else list(have.items())
    for symbols, holders in groups:
        if len(holders) < len(chosen):
            verb = "belong" if " and " in symbols else "belongs"
            others = [a for a in chosen if a not in holders]
            text += (
                f" {symbols} {verb} to {_words(holders)} only (— for {_words(others)})."
                if holders
                else f" None of them has {symbols.replace(' and ', ' or ')} (—)."
            )
    return text

"""The numbers beside the main view: computed here once, shown by the still view and by every frame of Play.

The Playground's still view draws them with Streamlit's metrics, Play's browser half (``player_frontend``) as
HTML, in the same layout: the first two rows alone, then the rows two by two (:data:`PAIRS`). A page that puts a
line of its own among them places it by the pair's name (:data:`PARAMETERS`), not by a row's position.
"""

from __future__ import annotations

import math

import numpy as np

from .explanations_lineage import next_insertion  # noqa: F401 - GNG's counter, kept where its words are
from .stepper import SINGLE_CLASS_NOTE

__all__ = [
    "panel",
    "algorithm_rows",
    "next_insertion",
    "fmt",
    "score_row",
    "ROWS",
    "COUNTS",
    "SCORES",
    "PARAMETERS",
    "PAIRS",
    "named_rows",
]

#: the names of ``panel(...)["metrics"]``'s rows, in order (a row is ``[label, value]``; samples seen has a third
#: item, "of N")
ROWS = ("samples seen", "stream", "nodes", "clusters", "NMI", "ARI", "lambda", "V")
#: the rows shown side by side after the first two: the network's counts, the scores, the algorithm's parameters
COUNTS, SCORES, PARAMETERS = ("nodes", "clusters"), ("NMI", "ARI"), ("lambda", "V")
PAIRS = (COUNTS, SCORES, PARAMETERS)


def fmt(v):
    """A metric value as the panel shows it: "—" for none, 3 decimals for a float, thousands separators.

    >>> fmt(None), fmt(float("nan")), fmt(0.12345), fmt(12000)
    ('—', '—', '0.123', '12,000')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.3f}"
    return f"{int(v):,}"


def score_row(m, name):
    """The row of a score (``"NMI"``, ``"ARI"``) of live metrics ``m``: ``[name, "0.953"]``, or while the scores
    are undefined (one class seen, :meth:`cae.app.stepper.Stepper.live_metrics`) ``[name, "n/a", "one class"]``:
    the value and, under it, why — :data:`cae.evaluation.ONE_CLASS_SO_FAR` in words that fit the panel's box (98 px
    wide at 1280×720; "one class so far" was cut there), the note under the panel saying the rest.

    >>> score_row({"NMI": 0.95312, "scores n/a": ""}, "NMI")
    ['NMI', '0.953']
    >>> score_row({"NMI": float("nan"), "scores n/a": "n/a — one class so far"}, "NMI")
    ['NMI', 'n/a', 'one class']
    """
    if m["scores n/a"]:
        return [name, "n/a", "one class"]
    return [name, fmt(m[name])]


def panel(pg, score_noise=False):
    """The numbers beside the main view at the Stepper's step: the still view and every frame show these.

    Returns a dict: ``metrics`` (a list of ``[label, value]``: samples seen — with a third item,
    "of N" —, the current stream, #nodes, #clusters, NMI, ARI, λ, V), ``note`` (what NMI/ARI were computed on), ``network`` (a
    one-line count), ``last`` (what the last step did, or "") and ``finished``.

    >>> from cae.app.stepper import Stepper
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> pg = Stepper(nonstationary_stream(make_paper2d(100, seed=0), seed=0))
    >>> _ = pg.step(30)
    >>> p = panel(pg)
    >>> p["metrics"][0], p["last"][:7]
    (['Samples seen', '30', 'of 660'], 't = 30:')
    """
    m = pg.live_metrics(score_noise=score_noise)
    model = pg.model
    nodes_label, parameters = algorithm_rows(pg)
    metrics = [  # in the order of ROWS
        ["Samples seen", f"{m['samples seen']:,}", f"of {len(pg.stream):,}"],
        ["Current stream", str(m["stage"])],
        [nodes_label, fmt(m["nodes"])],
        ["#clusters", fmt(m["clusters"])],
        score_row(m, "NMI"),
        score_row(m, "ARI"),
        *parameters,
    ]
    network = ""
    if pg.t and hasattr(model, "network_"):
        network = f"network: {len(model.nodes_):,} nodes · {len(model.edges_):,} edges · {model.n_clusters_:,} clusters"
    note = "NMI/ARI against the true labels of the data seen so far"
    if m["thinned"]:
        note += f" (an even sample of them, {m['metric sample']:,} scored)"
    if pg.stream.noise_label is not None:
        note += (
            "; the noise counts as a class of its own"
            if score_noise
            else "; the uniform noise is learned but not scored, as in the paper"
        )
    if m["single class"]:
        note += "; " + SINGLE_CLASS_NOTE
    return {
        "metrics": metrics,
        "note": note + ".",
        "network": network,
        "last": _headline(pg.record) if pg.record is not None else "",
        "finished": bool(pg.finished),
    }


def _headline(rec):
    if hasattr(rec, "vigilance") or hasattr(rec, "inserted"):  # a Fuzzy ART or GNG step
        from .explanations_lineage import headline
    else:
        from .explanations import headline
    return headline(rec)


def algorithm_rows(pg):
    """The algorithm's own numbers: ``(the label of the node count, [the two rows of PARAMETERS])``.

    CAE: λ and V. Fuzzy ART: its categories, ρ and the last match |I ∧ w|/|I| (of the category that resonated;
    "new" for a new category). GNG: the next insertion in k samples (k alone under the label: "100 samples" was cut in
    the metric's box at 1280 px) and the largest accumulated error (none at
    its maximum node count: "—").

    >>> from functools import partial
    >>> from cae.registry import ALGORITHMS
    >>> from cae.app.stepper import Stepper
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> stream = nonstationary_stream(make_paper2d(100, seed=0), seed=0)
    >>> pg = Stepper(stream, model_factory=partial(ALGORITHMS["GNG"].make, insertion_interval=50))
    >>> _ = pg.step(30)
    >>> algorithm_rows(pg)[1][0]
    ['next insertion in', '22']
    """
    from ..algorithms.fuzzy_art import FuzzyART
    from ..algorithms.gng import GNG

    model, rec = pg.model, pg.record if pg.t else None
    if isinstance(model, FuzzyART):
        match = "—" if rec is None else ("new" if rec.case == 0 else fmt(float(rec.match)))
        return "#categories", [["ρ", f"{float(model.vigilance):g}"], ["last match", match]]
    if isinstance(model, GNG):
        full = pg.t and len(model.nodes_) >= int(model.max_nodes)
        k = next_insertion(pg.t, model.insertion_interval)
        err = float(np.max(model.errors_)) if pg.t and len(model.nodes_) else None
        return "#nodes", [
            ["next insertion in", "none" if full else f"{k:,}"],  # samples; none: n_max nodes already
            ["largest error", fmt(err)],
        ]
    lam = getattr(model, "deletion_interval_", None) if pg.t else None
    thr = getattr(model, "threshold_", float("nan")) if pg.t else float("nan")
    return "#nodes", [["λ", fmt(lam)], ["V", fmt(thr)]]


def named_rows(p):
    """The panel's metric rows by their names (:data:`ROWS`).

    >>> from cae.app.stepper import Stepper
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> rows = named_rows(panel(Stepper(nonstationary_stream(make_paper2d(100, seed=0), seed=0))))
    >>> [rows[name] for name in PARAMETERS]
    [['λ', '—'], ['V', '—']]
    """
    return dict(zip(ROWS, p["metrics"]))

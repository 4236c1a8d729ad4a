"""The main view (:func:`network_figure`), drawn in layers.

A :class:`Scene` holds what is drawn — the model's snapshot and the data around it, with the node positions
in the plotted plane computed once. Each layer is a function ``layer(scene, view, canvas)`` that adds its
traces to a :class:`Canvas`; the figure is the layers in order:

1. **data** (:func:`data_layer`): the stream to come, the data seen, the recent window;
2. **the model**, by the kind of model (the registry entry's ``kind``, :data:`MODEL_LAYERS`): for a
   ``"network"`` every node's vigilance region, the edges by age, the bandwidths and the nodes; for
   ``"clouds"`` the same with each cloud's spread and the cloud centres;
3. **focus** (:func:`focus_layer`): s1 and s2 ringed and named, the vigilance region of s1;
4. **marks** (:func:`marks_layer`): nodes a placed sample would resonate with, nodes just removed,
   regions drawn by hand, samples placed by hand, the current sample;
5. **the layout** (:func:`_layout`): the legend above the plot, the axes (zoomed when focused), the notes.

A new kind of model adds its own layers with one entry, e.g. ``MODEL_LAYERS["boxes"] = (edges_layer,
boxes_layer, nodes_layer)`` for an algorithm whose categories are rectangles: the data, focus and marks
layers and the layout stay as they are.

Every mark is drawn after — above — the nodes and edges, in black or magenta, colours no cluster has
(:data:`~cae.app.figures.palette.MARK_COLORS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..view_options import ViewOptions
from ._draw import (
    EDGE_WIDTH,
    REFERENCE_PX,
    _circles,
    _corner_note,
    _edge_trace,
    _f32,
    _label,
    _mark,
    _node_sizes,
    age_bands,
    mark_scale,
    px_size,
)
from .geometry import focus_window, region_outlines, vigilance_boundary
from .labels import LABEL_FONT, place_labels, point_marks
from .palette import (
    AXIS_TEXT,
    DATA_RECENT,
    DATA_SEEN,
    DATA_UPCOMING,
    MARK_DRAWN,
    MARK_PLACED,
    MARK_REMOVED,
    MARK_RESONATE,
    MARK_S1,
    MARK_S2,
    MARK_S2_TEXT,
    MARK_SAMPLE,
    MARKS_NOTE,
    MIN_FONT,
    UPCOMING_NAME,
    colour_of_index,
    node_colour_index,
    others_note,
)

__all__ = [
    "Scene",
    "Canvas",
    "MODEL_LAYERS",
    "model_kind",
    "model_layers",
    "network_figure",
    "network_spec",
    "data_layer",
    "vigilance_regions_layer",
    "edges_layer",
    "cloud_spread_layer",
    "bandwidth_layer",
    "nodes_layer",
    "focus_layer",
    "marks_layer",
]


@dataclass
class Scene:
    """What the main view draws: the model's snapshot and the data around it (see :func:`network_figure`);
    ``age_limit`` is the edge-age limit a_max the edges' colours are banded around (:func:`edge_age_limit`).

    ``P`` (the nodes in the plotted plane), ``span`` (the larger side of ``bounds``), ``fitted`` (a model
    with nodes to draw), ``has_regions`` (it has a vigilance region: σ̄ and a finite V) and ``kind`` (the
    registry's kind of model, :func:`model_kind`) are computed once, from the rest.
    """

    model: Any = None
    seen: Any = None
    recent: Any = None
    current: Any = None
    record: Any = None
    bounds: Any = None
    deleted: Any = None
    highlight: Any = None
    drawn_regions: Any = None
    placed: Any = None
    upcoming: Any = None
    dims: tuple[int, int] = (0, 1)
    age_limit: Any = None
    P: Any = field(init=False, default=None)
    span: float | None = field(init=False, default=None)
    fitted: bool = field(init=False, default=False)
    has_regions: bool = field(init=False, default=False)
    kind: str = field(init=False, default="network")

    def __post_init__(self) -> None:
        b = self.bounds
        self.span = None if b is None else max(b[0][1] - b[0][0], b[1][1] - b[1][0])
        m = self.model
        self.fitted = m is not None and hasattr(m, "network_") and len(m.nodes_) > 0
        self.has_regions = bool(
            self.fitted
            and hasattr(m, "prediction_sigma")
            and hasattr(m, "threshold_")
            and np.isfinite(getattr(m, "threshold_", np.nan))
        )
        if self.fitted:
            i, j = self.dims
            self.P = np.asarray(m.nodes_)[:, [i, j]]
            self.kind = model_kind(m)


@dataclass
class Canvas:
    """What the layers have drawn so far: ``traces`` (under the marks, in order), ``marks`` (over every node),
    ``labels`` (names to write beside marks: requests placed at the end, :func:`~.labels.place_labels`),
    ``shapes`` (layout shapes: SVG under every WebGL trace; no layer of this module draws one) and ``focus_points``
    (what the focused view must show)."""

    traces: list = field(default_factory=list)
    marks: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    shapes: list = field(default_factory=list)
    focus_points: list = field(default_factory=list)
    #: what the key says beyond the traces' names: the edge ages' bands (:class:`~._draw.AgeBands`) and the clusters
    #: drawn in grey (:func:`~.palette.others_note`)
    ages: Any = None
    others: str = ""
    #: how much larger than in the reference picture (605 px) every mark is drawn (:func:`~._draw.mark_scale`)
    scale: float = 1.0


Layer = Callable[[Scene, ViewOptions, Canvas], None]


def model_kind(model):
    """The registry's kind of ``model`` (``"network"``, ``"clouds"``, …), found by its class; for an object
    the registry does not know (a saved network read without its estimator), ``"clouds"`` if it has clouds'
    variances, else ``"network"``.

    >>> from cae import AutoCloud, CAE
    >>> model_kind(AutoCloud()), model_kind(CAE()), model_kind(object())
    ('clouds', 'network', 'network')
    """
    from ...registry import ALGORITHMS

    cls = type(model)
    name = f"{cls.__module__}:{cls.__qualname__}"
    for a in ALGORITHMS.values():
        if a.cls == name:
            return a.kind
    return "clouds" if hasattr(model, "cloud_variances_") else "network"


# ------------------------------------------------------------------ data
def _points(X, dims, name, size, color):
    i, j = dims
    return dict(
        type="scattergl",
        x=_f32(X[:, i]),
        y=_f32(X[:, j]),
        mode="markers",
        name=name,
        marker=dict(size=size, color=color),
        hoverinfo="skip",
    )


def data_layer(scene, view, canvas):
    """The stream to come (faintest), the data seen (lighter) and the recent window (3.6:1 on white), opaque greys
    (:data:`~.palette.DATA_RECENT`), their dots sized with the picture."""
    s = canvas.scale
    for X, name, size, color in (
        (scene.upcoming, UPCOMING_NAME, 3, DATA_UPCOMING),
        (scene.seen, "data seen", 3, DATA_SEEN),
        # a grey, no hue: a cluster colour among the data would read as nodes (the palette's teal did)
        (scene.recent, "recent window", 3.6, DATA_RECENT),
    ):
        if X is not None and len(X):
            canvas.traces.append(_points(X, scene.dims, name, float(px_size(size * s)), color))


# ------------------------------------------------------------------ the model
def vigilance_regions_layer(scene, view, canvas):
    """Every node's vigilance region (:func:`region_outlines`), one trace per cluster colour (when asked; the
    colours of the nodes, :func:`~.palette.node_colour_index`)."""
    model, P = scene.model, scene.P
    if not (view.show_all_regions and scene.has_regions):
        return
    outline = region_outlines(
        model.nodes_, model.prediction_sigma(), model.threshold_, dims=scene.dims, r_max=scene.span
    )
    if outline is None:
        return
    per = len(outline[0]) // len(P)  # points per node's curve (its closing gap included)
    ox, oy = outline[0].reshape(len(P), per), outline[1].reshape(len(P), per)
    colour_of = node_colour_index(model)
    for n, k in enumerate(np.unique(colour_of)):
        sel = colour_of == k
        canvas.traces.append(
            dict(
                type="scattergl",
                x=ox[sel].ravel(),
                y=oy[sel].ravel(),
                mode="lines",
                name="every node's vigilance region",
                legendgroup="regions",
                showlegend=n == 0,
                line=dict(color=colour_of_index(k), width=1),
                opacity=0.6,
                hoverinfo="skip",
            )
        )


def edge_age_limit(scene):
    """The edge-age limit a_max the edges are banded around: the step's own (CAE's a_max at s1, CAEA's given one),
    else the one the page knows (``scene.age_limit``: the run's last a_max), else the model's fixed ``max_edge_age``
    (ASOINN, GNG); None for a model without one (the bands are then the thirds of the oldest age)."""
    for v in (getattr(scene.record, "a_max", None), scene.age_limit, getattr(scene.model, "max_edge_age", None)):
        try:
            v = float(v)
        except (TypeError, ValueError):
            continue
        if np.isfinite(v) and v > 0:
            return v
    return None


def _age_legend(bands, width):
    """The edge-age bands as legend entries (a view with Plotly's legend): a line of each band's colour, named by its
    ages."""
    return [
        dict(
            type="scatter",
            x=[None],
            y=[None],
            mode="lines",
            name=f"edges, age {label}",
            legendgroup="edge ages",
            line=dict(color=colour, width=width),
            hoverinfo="skip",
        )
        for label, colour in zip(bands.labels, bands.colours)
        if label is not None
    ]


def _edge_name(label):
    return f"edges age {label}"


def edges_layer(scene, view, canvas):
    """The edges as lines over the data and under the nodes, one trace per age band (:func:`~._draw.age_bands`
    around the age limit a_max, :func:`edge_age_limit`; the bands in the key or the legend; one grey trace where
    edges have no age: TCA), as wide as the picture allows."""
    model, P = scene.model, scene.P
    edges = np.asarray(model.edges_).reshape(-1, 2)
    width = float(px_size(EDGE_WIDTH * canvas.scale))
    ages = np.asarray(model.edge_ages_) if hasattr(model, "edge_ages_") else None
    if ages is None:
        if len(edges):
            canvas.traces.append(_edge_trace(P, edges, "#555", width, "edges"))
        return
    bands = age_bands(ages, edge_age_limit(scene))
    for k, colour in enumerate(bands.colours):
        sel = bands.band == k
        if sel.any():
            canvas.traces.append(_edge_trace(P, edges[sel], colour, width, _edge_name(bands.labels[k])))
    if len(ages):
        canvas.ages = bands
        if view.legend:
            canvas.traces += _age_legend(bands, width)


def cloud_spread_layer(scene, view, canvas):
    """AutoCloud: each cloud's spread, a circle of radius the root of its variance (mean squared distance)."""
    spread = np.sqrt(np.maximum(np.asarray(scene.model.cloud_variances_, float), 0))
    x, y = _circles(scene.P, spread, n=48)
    canvas.traces.append(
        dict(
            type="scatter",
            x=x,
            y=y,
            mode="lines",
            name="cloud spread (√variance)",
            line=dict(color="rgba(31,119,180,0.55)", width=1.5),
            hoverinfo="skip",
        )
    )


def bandwidth_layer(scene, view, canvas):
    """Each node's bandwidth σ as a circle (when asked, for models that have one)."""
    if not (view.show_bandwidth and hasattr(scene.model, "sigmas_")):
        return
    x, y = _circles(scene.P, np.asarray(scene.model.sigmas_))
    canvas.traces.append(
        dict(
            type="scattergl",
            x=x,
            y=y,
            mode="lines",
            name="bandwidth σ",
            line=dict(color="rgba(148,103,189,0.35)", width=1),
            hoverinfo="skip",
        )
    )


#: the key's name of the ring around a node that has no edge
ALONE_NAME = "cluster of one node"


def _alone_ring(scene, colours, sizes, canvas):
    """A ring around every node without an edge, in its colour: a cluster of one node then reads as a node, not as a
    data point (which it looked like: a 5-px dot among the data). Only for models whose clusters are their edges'
    components."""
    model = scene.model
    if scene.kind not in ("network", "gas") or not hasattr(model, "edges_") or len(scene.P) < 2:
        return
    edges = np.asarray(model.edges_, dtype=np.int64).reshape(-1)
    alone = np.bincount(edges, minlength=len(scene.P)) == 0 if len(edges) else np.ones(len(scene.P), bool)
    if not alone.any():
        return
    s = canvas.scale
    canvas.traces.append(
        dict(
            type="scattergl",
            x=_f32(scene.P[alone, 0]),
            y=_f32(scene.P[alone, 1]),
            mode="markers",
            name=ALONE_NAME,
            marker=dict(
                symbol="circle-open",
                size=np.asarray(sizes)[alone] + 7 * s,
                color=[c for c, a in zip(colours, alone) if a],
                line=dict(width=round(1.8 * s, 2)),
            ),
            hoverinfo="skip",
        )
    )


def nodes_layer(scene, view, canvas, clouds=False):
    """The nodes coloured by cluster (the ten largest clusters in the palette, the others in grey:
    :func:`~.palette.node_colour_index`) and sized by win count M (``clouds``: cloud centres, diamonds of one
    size), outlined in white over the edges, each with its id, cluster, M (n) and σ on hover; a node without an
    edge ringed; every size in proportion to the picture."""
    model, P = scene.model, scene.P
    s = canvas.scale
    labels = np.asarray(model.node_labels_)
    M = np.asarray(model.win_counts_, dtype=float)
    ids = np.asarray(model.node_ids_)
    what = "cloud" if clouds else "node"
    hover = [f"{what} {n} · cluster {c} · {'n' if clouds else 'M'}={m:g}" for n, c, m in zip(ids, labels, M)]
    if hasattr(model, "sigmas_"):
        hover = [f"{h} · σ={v:.4g}" for h, v in zip(hover, np.asarray(model.sigmas_))]
    colours = [colour_of_index(k) for k in node_colour_index(model).tolist()]
    sizes = px_size(_node_sizes(M, s)) if not clouds else float(px_size(11 * s))
    canvas.traces.append(
        dict(
            type="scattergl",
            x=_f32(P[:, 0]),
            y=_f32(P[:, 1]),
            mode="markers",
            name="cloud centres" if clouds else "nodes",
            marker=dict(
                size=sizes,
                color=colours,
                symbol="diamond" if clouds else "circle",
                line=dict(color="white", width=round(1.0 * s, 2)),
            ),
            text=hover,
            hoverinfo="text",
        )
    )
    if not clouds:
        _alone_ring(scene, colours, sizes, canvas)
    canvas.others = others_note(labels)


#: The layers that draw a model, by the registry entry's ``kind`` (:attr:`cae.registry.Algorithm.kind`), in
#: drawing order. A new kind of model adds its entry (its own layers beside the shared ones).
MODEL_LAYERS: dict[str, tuple[Layer, ...]] = {
    "network": (vigilance_regions_layer, edges_layer, bandwidth_layer, nodes_layer),
    "clouds": (
        vigilance_regions_layer,
        edges_layer,
        cloud_spread_layer,
        bandwidth_layer,
        partial(nodes_layer, clouds=True),
    ),
}


def model_layers(scene):
    """The layers that draw the scene's model (none before it has nodes; a kind without an entry of its own in
    :data:`MODEL_LAYERS`: a network's)."""
    if not scene.fitted:
        return ()
    # a kind without layers of its own yet is drawn as a network (its nodes and edges): a class in the middle of
    # a lesson sees a picture, and tests/unit/test_figures.py says which kind still needs its entry
    return MODEL_LAYERS.get(scene.kind, MODEL_LAYERS["network"])


# ------------------------------------------------------------------ focus: s1, s2 and the region of s1
def _winner_rings(scene, canvas):
    """s2 and s1 ringed and named; returns the rings (drawn after the region of s1)."""
    rings = []
    ids, P, record = np.asarray(scene.model.node_ids_), scene.P, scene.record
    for key, sym, col, text_colour, what in (
        ("s2_id", "diamond-open", MARK_S2, MARK_S2_TEXT, "runner-up"),
        ("s1_id", "circle-open", MARK_S1, MARK_S1, "winner"),
    ):
        nid = getattr(record, key)
        rows = np.flatnonzero(ids == nid) if nid >= 0 else []
        if len(rows):
            r = rows[0]
            canvas.focus_points.append(P[r])
            hover = [f"{key[:2]} ({what}): node {nid}"]
            rings += _mark(P[r, 0], P[r, 1], key[:2], sym, col, 24, hover=hover, scale=canvas.scale)
            canvas.labels.append(_label(P[r, 0], P[r, 1], key[:2], text_colour, key[:2]))
    return rings


def _region_of_s1(scene, view, canvas):
    """The vigilance region of s1: always a point to focus on, drawn when asked."""
    model, record = scene.model, scene.record
    ids = np.asarray(model.node_ids_)
    if not (record.s1_id in ids and scene.has_regions):
        return
    r = int(np.flatnonzero(ids == record.s1_id)[0])
    centre = np.asarray(model.nodes_)[r]
    curve = vigilance_boundary(centre, model.prediction_sigma(), model.threshold_, dims=scene.dims, r_max=scene.span)
    if curve is None:
        return
    canvas.focus_points.append(np.column_stack(curve))
    if view.show_vigilance:
        canvas.marks.append(
            dict(
                type="scattergl",
                x=curve[0],
                y=curve[1],
                mode="lines",
                name="vigilance region of s1 (CIM ≤ V)",
                fill="toself",
                fillcolor="rgba(0,0,0,0.045)",
                line=dict(color=MARK_S1, dash="dot", width=round(2 * canvas.scale, 2)),
                hoverinfo="skip",
            )
        )


def _has_s1(scene):
    return scene.record is not None and getattr(scene.record, "s1_id", -1) >= 0


def focus_layer(scene, view, canvas):
    """The record's winners: the vigilance region of s1 (when asked), then s1 and s2 ringed and named."""
    if not (scene.fitted and _has_s1(scene)):
        return
    rings = _winner_rings(scene, canvas)
    _region_of_s1(scene, view, canvas)
    canvas.marks += rings


# ------------------------------------------------------------------ marks
def _drawing(regions, scale=1.0):
    """The outline of regions drawn by hand: a black dashed line on a white halo."""
    xs, ys = [], []
    for region in regions:
        ox, oy = region.outline()
        xs += [*ox, np.nan]
        ys += [*oy, np.nan]
    name = "your drawing: the next samples come from here"
    return [
        dict(
            type="scattergl",
            x=_f32(xs),
            y=_f32(ys),
            mode="lines",
            name=name if legend else f"{name} (halo)",
            legendgroup="drawing",
            showlegend=legend,
            line=dict(color=colour, width=round(width * scale, 2), dash=dash),
            hoverinfo="skip",
        )
        for colour, width, dash, legend in (("white", 5, "solid", False), (MARK_DRAWN, 2.5, "dash", True))
    ]


#: the name written beside the sample's star: the paper's x
SAMPLE_LABEL = "x"


def _current_sample(x, dims, name, scale=1.0):
    i, j = dims
    return dict(
        type="scattergl",
        x=_f32([x[i]]),
        y=_f32([x[j]]),
        mode="markers",
        name=name,
        marker=dict(
            symbol="star",
            size=float(px_size(20 * scale)),
            color=MARK_SAMPLE,
            line=dict(color="white", width=1.5 * scale),
        ),
        hovertext=[name],
        hoverinfo="text",
    )


def marks_layer(scene, view, canvas):
    """Nodes a placed sample would resonate with, nodes just removed, regions drawn and samples placed by
    hand, and the current sample (a star, named x; a point to focus on); every size in proportion to the picture."""
    i, j = scene.dims
    marks, s = canvas.marks, canvas.scale
    if scene.fitted and scene.highlight is not None and len(scene.highlight):
        H = scene.P[np.asarray(scene.highlight, dtype=int)]
        marks += _mark(H[:, 0], H[:, 1], "would resonate (CIM ≤ V)", "circle-open", MARK_RESONATE, 20, scale=s)
    if scene.deleted is not None and len(scene.deleted):
        d = scene.deleted
        marks += _mark(d[:, i], d[:, j], "removed this frame", "x", MARK_REMOVED, 13, width=1, scale=s)
    if scene.drawn_regions:
        marks += _drawing(scene.drawn_regions, s)
    if scene.placed is not None and len(scene.placed):
        placed = scene.placed
        marks += _mark(placed[:, i], placed[:, j], "placed by hand", "cross", MARK_PLACED, 12, width=1, scale=s)
    if scene.current is not None:
        x = scene.current
        canvas.focus_points.append([float(x[i]), float(x[j])])
        marks.append(_current_sample(x, scene.dims, view.current_name, s))
        canvas.labels.append(_label(x[i], x[j], SAMPLE_LABEL, MARK_SAMPLE, view.current_name))


# ------------------------------------------------------------------ layout
def _window(scene, view, canvas):
    """The focused view's bounds, or None (not focused, no s1, or it would show everything)."""
    if not (view.focus and _has_s1(scene) and canvas.focus_points):
        return None
    return focus_window(np.vstack([np.asarray(p, float).reshape(-1, 2) for p in canvas.focus_points]), scene.bounds)


def _shown_window(scene, canvas, window):
    """The axes' ranges as drawn: the focused window, the bounds with their margin, or (Plotly's autorange) the box
    around the nodes and the marks."""
    if window is not None:
        return window
    if scene.bounds is not None:
        (x0, x1), (y0, y1) = scene.bounds
        px, py = 0.03 * (x1 - x0 or 1), 0.03 * (y1 - y0 or 1)
        return (x0 - px, x1 + px), (y0 - py, y1 + py)
    pts = [np.asarray(p, float).reshape(-1, 2) for p in canvas.focus_points]
    if scene.P is not None:
        pts.append(np.asarray(scene.P, float))
    P = np.vstack(pts) if pts else np.zeros((1, 2))
    lo, hi = P.min(axis=0), P.max(axis=0)
    return (lo[0], hi[0] if hi[0] > lo[0] else lo[0] + 1), (lo[1], hi[1] if hi[1] > lo[1] else lo[1] + 1)


def plotted_side(view):
    """The plotted square's side (px) a view is drawn at, about: the picture's side (measured by the page, or its
    height, or the reference 605) less the axis numbers' margins."""
    return max((view.px or view.height or REFERENCE_PX) - 60, 100)


def _annotations(scene, view, canvas, window):
    """The names beside the marks, each placed on its own mark (:func:`~.labels.place_labels`), after the corner note
    (what to press first, or the focused view's width)."""
    labels = []
    if canvas.labels:
        font = max(LABEL_FONT, view.font_size)  # the present mode's larger text: the marks' names too
        labels = place_labels(
            canvas.labels, point_marks(canvas.marks), _shown_window(scene, canvas, window), plotted_side(view), font
        )
    if window:
        width = window[0][1] - window[0][0]
        full = f" (the full view: {scene.span:.2g})" if scene.span else ""
        return [_corner_note(f"focused on s1 · view {width:.2g} wide{full}", view.font_size), *labels]
    if view.note:
        return [_corner_note(view.note, view.font_size), *labels]
    return labels


def _axes(scene, window, font_size=MIN_FONT):
    """The axes: fixed to the bounds (with a margin) or the focused window, equal aspect, a light grid, the numbers
    in a dark grey (:data:`~.palette.AXIS_TEXT`, 9.7:1 on white)."""
    xaxis = dict(
        automargin=True, tickfont=dict(size=font_size, color=AXIS_TEXT), title=dict(font=dict(color=AXIS_TEXT))
    )
    yaxis = dict(
        automargin=True, tickfont=dict(size=font_size, color=AXIS_TEXT), title=dict(font=dict(color=AXIS_TEXT))
    )
    if window is not None or scene.bounds is not None:
        if window is not None:
            (x0, x1), (y0, y1) = window
            px = py = 0.0
        else:
            (x0, x1), (y0, y1) = scene.bounds
            px, py = 0.03 * (x1 - x0 or 1), 0.03 * (y1 - y0 or 1)
        grid = dict(showgrid=True, gridcolor="#eee", zeroline=False)
        xaxis.update(range=[x0 - px, x1 + px], constrain="domain", tickvals=nice_ticks(x0 - px, x1 + px), **grid)
        yaxis.update(
            range=[y0 - py, y1 + py],
            scaleanchor="x",
            scaleratio=1,
            constrain="domain",
            tickvals=nice_ticks(y0 - py, y1 + py),
            **grid,
        )
    return xaxis, yaxis


def nice_ticks(lo, hi, n=6):
    """About ``n`` round axis numbers in [lo, hi] (steps of 1, 2 or 5 times a power of ten): the still view's
    and Play's (the player computes the same where a figure gives none).

    >>> nice_ticks(-0.03, 1.03)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    span = hi - lo
    if not span > 0:
        return [float(lo)]
    raw = span / max(n, 1)
    p = 10.0 ** np.floor(np.log10(raw))
    step = next((m * p for m in (1, 2, 5, 10) if m * p >= raw), 10 * p)
    k = np.arange(np.ceil(lo / step - 1e-9), np.floor(hi / step + 1e-9) + 1)
    return [float(v) + 0.0 for v in np.round(k * step, 12)]


def _legend(canvas, view):
    """Plotly's legend above the plot (clear of the axis numbers; it makes its own room), titled when marks are
    drawn."""
    title = dict(text=MARKS_NOTE, side="top", font=dict(size=view.font_size, color="#555")) if canvas.marks else None
    return dict(
        orientation="h",
        yanchor="bottom",
        y=1.01,
        xanchor="left",
        x=0,
        title=title,
        font=dict(size=view.font_size),
    )


def _key(canvas, view):
    """The key beside the picture (``view.legend`` False): HTML, in the figure's ``layout.meta``."""
    from .key import key_html

    return key_html(
        canvas.traces + canvas.marks,
        ages=canvas.ages,
        others=canvas.others,
        note=MARKS_NOTE.rstrip(":") if canvas.marks else "",
        font_size=view.font_size,
        edge_width=EDGE_WIDTH * canvas.scale,
    )


def _layout(scene, view, canvas):
    """The figure's layout: the legend above the plot, or no legend and the key in ``meta`` (a picture that fills
    its box: no margins beyond the axis numbers), the shapes, the notes, the axes (zoomed to s1 when
    focused)."""
    window = _window(scene, view, canvas)
    pad = 10 if view.legend else 2
    layout = dict(
        margin=dict(l=pad, r=pad, t=40 if view.title else pad, b=pad),
        uirevision="network-focus" if window else "network",
        font=dict(size=view.font_size),
        plot_bgcolor="white",
        hoverlabel=dict(namelength=-1),
        showlegend=view.legend,
    )
    if view.height is not None:
        layout["height"] = view.height
    if view.legend:
        layout["legend"] = _legend(canvas, view)
        layout["meta"] = {"scale": canvas.scale}
    else:
        layout["meta"] = {"key": _key(canvas, view), "scale": canvas.scale}
    if view.px:
        layout["meta"]["px"] = int(view.px)
    if view.title:
        layout["title"] = dict(text=view.title)
    if canvas.shapes:
        layout["shapes"] = canvas.shapes
    annotations = _annotations(scene, view, canvas, window)
    if annotations:
        layout["annotations"] = annotations
    # the axes in the layout itself (update_xaxes/update_yaxes validate: a third of a Play frame's figure time)
    layout["xaxis"], layout["yaxis"] = _axes(scene, window, view.font_size)
    return layout


_VIEW_FIELDS = frozenset(ViewOptions.__dataclass_fields__)


def network_figure(
    model=None,
    seen=None,
    recent=None,
    current=None,
    record=None,
    bounds=None,
    *,
    view=None,
    deleted=None,
    highlight=None,
    drawn_regions=None,
    placed=None,
    upcoming=None,
    age_limit=None,
    **options,
):
    """The main view: data, nodes, edges by age, winners, the current sample — the layers of this module.

    Parameters
    ----------
    model : cae.CAE, another registered estimator, or None
    seen, recent : ndarray (n, d) or None
        Data seen so far (drawn faded) and the recent window (brighter).
    current : ndarray (d,) or None
        The sample just learned (marked).
    record : cae.CAEStepRecord or None
        Its record: s1 and s2 are marked (by id), the vigilance region is drawn around s1.
    bounds : ((xmin, xmax), (ymin, ymax)) or None
        Fixed axes, so the view does not jump between frames.
    view : cae.app.view_options.ViewOptions or None
        How it is drawn (regions, focus, height, …); ``**options`` change single fields of it
        (``network_figure(m, show_vigilance=True)``).
    deleted : ndarray (m, d) or None
        Nodes removed in this frame (flashed).
    highlight : sequence of int or None
        Rows of nodes to ring (e.g. the nodes a placed sample would resonate with).
    drawn_regions : sequence of cae.app.regions.Region or None
        Regions drawn by hand that the next samples come from: outlined (a black dashed line on a white halo).
    placed : ndarray (m, d) or None
        Samples placed by hand so far: magenta crosses.
    upcoming : ndarray (m, d) or None
        The stream still to come (before the first step), drawn fainter than the data seen.
    age_limit : float or None
        The a_max to band the edges' ages around when the record has none (the Playground: the run's last one).

    Examples
    --------
    >>> import numpy as np
    >>> from cae import CAE
    >>> X = np.random.default_rng(0).random((300, 2))
    >>> m = CAE()
    >>> recs = [m.learn_one(x) for x in X]
    >>> fig = network_figure(m, X, X[-50:], X[-1], recs[-1], bounds=((0, 1), (0, 1)), show_vigilance=True,
    ...                      focus=True, show_all_regions=True)
    >>> names = [t.name for t in fig.data]
    >>> names.index("s1") > names.index("nodes") and names.index("current sample") > names.index("nodes")
    True
    >>> fig.layout.xaxis.range[1] - fig.layout.xaxis.range[0] < 0.5  # zoomed in
    True
    """
    spec = network_spec(
        model,
        seen,
        recent,
        current,
        record,
        bounds,
        view=view,
        deleted=deleted,
        highlight=highlight,
        drawn_regions=drawn_regions,
        placed=placed,
        upcoming=upcoming,
        age_limit=age_limit,
        **options,
    )
    # plain dicts and no validation: plotly's per-element checks of 5,000 points and
    # hundreds of node colours would cost more than the learning itself
    return go.Figure(data=spec["data"], layout=spec["layout"], _validate=False)


def network_spec(
    model=None,
    seen=None,
    recent=None,
    current=None,
    record=None,
    bounds=None,
    *,
    view=None,
    deleted=None,
    highlight=None,
    drawn_regions=None,
    placed=None,
    upcoming=None,
    age_limit=None,
    **options,
):
    """:func:`network_figure`'s figure as plain data, ``{"data": [trace dicts], "layout": dict}`` with NumPy arrays
    — what Play's frames are made of (:func:`cae.app.player.figure_dict` encodes it without building a Plotly
    figure: a third of a frame's time on the server)."""
    unknown = set(options) - _VIEW_FIELDS
    if unknown:
        raise TypeError(f"network_figure() got unexpected keyword arguments {sorted(unknown)}")
    view = (view or ViewOptions()).with_(**options) if options else (view or ViewOptions())
    scene = Scene(
        model,
        seen,
        recent,
        current,
        record,
        bounds,
        deleted,
        highlight,
        drawn_regions,
        placed,
        upcoming,
        view.dims,
        age_limit,
    )
    canvas = Canvas(scale=mark_scale(view.px))
    data_layer(scene, view, canvas)
    for layer in model_layers(scene):
        layer(scene, view, canvas)
    focus_layer(scene, view, canvas)
    marks_layer(scene, view, canvas)
    return {"data": canvas.traces + canvas.marks, "layout": _layout(scene, view, canvas)}

"""Take a run to slides: a self-contained animated HTML file of a network learning a stream.

No Streamlit here. :func:`record_frames` learns a stream once, from its first
sample, and keeps the network at each frame's step; :func:`animation_html`
draws those frames as one Plotly figure with a play button and a slider, with
plotly.js inlined, so the file opens offline in any browser (and can be put
on a slide or sent to students). :func:`build_animation` does both for a
stream, :func:`export_playground` for the app's :class:`~cae.app.stepper.Stepper`,
and :func:`traces_csv` writes a run's per-step trace as a formula-safe CSV.

Each frame shows the data seen so far (faded grey, the samples that arrived
since the previous frame in blue; at most ``max_points`` of them over the
whole animation, evenly thinned), the edges, the nodes coloured by cluster
and sized by win count, and a title with the step, the stage, #nodes and
#clusters. The axes are fixed over the whole stream. To keep the file small,
coordinates are written as float32 in base64 binary (plotly.js typed arrays), each
data point is written once (frames only switch the data of earlier frames on),
and nodes carry no per-node text.

Models: anything with the streaming API of :class:`cae.CAE` (``learn_many``
and the fitted attributes ``nodes_``, ``edges_``, ``node_labels_``,
``win_counts_``, ``n_clusters_``): every registered algorithm. Edge ages are
not used (TCA's edges have none) and a model without edges (AutoCloud) draws
its cloud centres as nodes.

Examples
--------
>>> from cae import CAE
>>> from cae.data import make_drift_stream
>>> s = make_drift_stream("switch", n=600, noise_fraction=0.1, seed=0)
>>> frames = record_frames(s.X, CAE, t_start=60, t_end=660, n_frames=5)
>>> [f.t for f in frames]
[60, 210, 360, 510, 660]
>>> frames[-1].n_nodes == len(CAE().learn_many(s.X).nodes_)
True
>>> html = animation_html(frames, s.X, title="sudden switch")
>>> html.startswith(b"<!doctype html>"), b"<script src=" in html
(True, False)
"""

from __future__ import annotations

import base64
import html as _html
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from ..data.csvio import to_safe_csv
from . import toolbar
from .figures import PALETTE
from .figures.palette import OTHER_CLUSTERS, colour_index

__all__ = [
    "Frame",
    "frame_steps",
    "record_frames",
    "animation_spec",
    "animation_figure",
    "animation_html",
    "build_animation",
    "export_playground",
    "traces_csv",
    "MAX_FRAMES",
    "MIN_FRAMES",
]

MIN_FRAMES = 2
MAX_FRAMES = 200

_OLD_DATA = "rgba(120,120,120,0.3)"
_NEW_DATA = "rgba(40,40,40,0.6)"  # the recent samples as the main view draws them: a darker grey, no cluster hue
_EDGE = "rgba(60,60,60,0.75)"


@dataclass(frozen=True)
class Frame:
    """The network after step ``t`` (copies of the model's arrays; rows in the model's order).

    Attributes
    ----------
    t : int
        Samples learned.
    nodes : ndarray of shape (n_nodes, n_features)
    edges : ndarray of shape (n_edges, 2)
        Row indices into ``nodes``.
    node_labels : ndarray of shape (n_nodes,)
        Cluster of each node.
    win_counts : ndarray of shape (n_nodes,)
    n_clusters : int
    node_ids : ndarray of shape (n_nodes,) or None
        Each node's id (the oldest cluster keeps the first colour: :func:`cae.app.figures.palette.colour_index`).
    """

    t: int
    nodes: np.ndarray
    edges: np.ndarray
    node_labels: np.ndarray
    win_counts: np.ndarray
    n_clusters: int
    node_ids: np.ndarray | None = None

    @property
    def n_nodes(self):
        return len(self.nodes)

    @property
    def n_edges(self):
        return len(self.edges)


# ------------------------------------------------------------------ validation
def _as_int(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
            return int(value)
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def frame_steps(t_start, t_end, n_frames, n_samples):
    """The step of each frame: ``n_frames`` distinct steps from ``t_start`` to ``t_end``, evenly spaced.

    Step ``t`` means "after learning ``t`` samples" (0 is the empty network).
    Raises ValueError unless ``0 <= t_start < t_end <= n_samples``,
    ``MIN_FRAMES <= n_frames <= MAX_FRAMES`` and the range holds ``n_frames``
    distinct steps.

    Examples
    --------
    >>> frame_steps(0, 1000, 5, 3300).tolist()
    [0, 250, 500, 750, 1000]
    >>> frame_steps(10, 13, 4, 100).tolist()
    [10, 11, 12, 13]
    >>> frame_steps(0, 5000, 10, 3300)
    Traceback (most recent call last):
    ...
    ValueError: t_end (5000) is beyond the end of the stream (3300 samples)
    """
    n_samples = _as_int(n_samples, "the stream's length")
    t_start = _as_int(t_start, "t_start")
    t_end = _as_int(t_end, "t_end")
    n_frames = _as_int(n_frames, "n_frames")
    if n_samples < 1:
        raise ValueError("the stream is empty")
    if t_start < 0:
        raise ValueError(f"t_start must be 0 or more, got {t_start}")
    if t_end > n_samples:
        raise ValueError(f"t_end ({t_end}) is beyond the end of the stream ({n_samples} samples)")
    if t_start >= t_end:
        raise ValueError(f"t_start ({t_start}) must be less than t_end ({t_end})")
    if not MIN_FRAMES <= n_frames <= MAX_FRAMES:
        raise ValueError(f"n_frames must be between {MIN_FRAMES} and {MAX_FRAMES}, got {n_frames}")
    if t_end - t_start + 1 < n_frames:
        raise ValueError(
            f"{n_frames} frames need {n_frames} distinct steps, but steps {t_start} to {t_end} "
            f"are only {t_end - t_start + 1}"
        )
    k = np.arange(n_frames, dtype=np.int64)
    span, gaps = t_end - t_start, n_frames - 1
    return t_start + (2 * span * k + gaps) // (2 * gaps)  # round(span * k / gaps), half up, exact in integers


def _as_data(X):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a 2-D array with at least one row, got shape {X.shape}")
    if X.shape[1] < 2:
        raise ValueError("the animation draws two features; X has only one")
    return X


def _make_model(model_factory):
    if model_factory is None:
        from ..algorithms import CAE

        return CAE()
    if not callable(model_factory):
        raise ValueError(
            f"model_factory must be callable (a class or a function making a model), got {model_factory!r}"
        )
    model = model_factory()
    if not callable(getattr(model, "learn_many", None)):
        raise ValueError(f"the model factory made a {type(model).__name__}, which has no learn_many method")
    return model


def _algorithm_name(model):
    name = getattr(model, "algorithm", "") or type(model).__name__
    if name == "CAE" and getattr(model, "deletion_interval", None) is not None:
        return "CAEA"
    return name


# ------------------------------------------------------------------- learning
def _frame(model, t):
    try:
        nodes = np.array(model.nodes_, dtype=np.float64)
    except AttributeError:  # not fitted yet (t = 0)
        nodes = None
    if nodes is None or t == 0:
        return Frame(t, np.zeros((0, 2)), np.zeros((0, 2), np.int64), np.zeros(0, np.int64), np.zeros(0), 0)
    edges = np.array(getattr(model, "edges_", np.zeros((0, 2))), dtype=np.int64).reshape(-1, 2)
    labels = np.array(model.node_labels_, dtype=np.int64)
    wins = np.array(getattr(model, "win_counts_", np.ones(len(nodes))), dtype=np.float64)
    n_clusters = getattr(model, "n_clusters_", None)
    if n_clusters is None:
        n_clusters = len(np.unique(labels))
    ids = getattr(model, "node_ids_", None)
    return Frame(int(t), nodes, edges, labels, wins, int(n_clusters), None if ids is None else np.array(ids))


def record_frames(X, model_factory=None, t_start=0, t_end=None, n_frames=60, progress=None):
    """Learn ``X`` once, from its first sample, and keep the network at each frame's step.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The stream in presentation order.
    model_factory : callable, optional
        Makes a fresh model (a class such as ``cae.CAE``, or e.g.
        ``lambda: make_algorithm("TCA")``); default: ``CAE()``.
    t_start, t_end : int
        First and last frame step (0 <= t_start < t_end <= n_samples;
        ``t_end=None``: the end of the stream).
    n_frames : int, default=60
        Between 2 and 200; the steps are evenly spaced (:func:`frame_steps`).
    progress : callable, optional
        ``progress(fraction)`` after each frame.

    Returns
    -------
    list of Frame
        The network after each frame's step; identical to a fresh model
        learned up to that step (the stream is learned in one pass, never
        re-learned from the start).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(0, 1, (500, 2))
    >>> [(f.t, f.n_nodes > 0) for f in record_frames(X, t_start=0, t_end=500, n_frames=3)]
    [(0, False), (250, True), (500, True)]
    """
    X = _as_data(X)
    steps = frame_steps(t_start, len(X) if t_end is None else t_end, n_frames, len(X))
    model = _make_model(model_factory)
    frames, done = [], 0
    for k, t in enumerate(steps.tolist()):
        if t > done:
            model.learn_many(X[done:t])
            done = t
        frames.append(_frame(model, t))
        if progress is not None:
            progress((k + 1) / len(steps))
    return frames


# -------------------------------------------------------------------- drawing
def _edge_polyline(P, edges):
    """x, y (float32) of all edges as a few NaN-separated polylines.

    The edges are walked as trails (consecutive edges share a node, starting
    from nodes of odd degree), so a chain of k edges costs k + 2 points
    instead of 3k: a ring or a path is one polyline.
    """
    if len(edges) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    adj = [[] for _ in range(len(P))]
    for e, (a, b) in enumerate(edges.tolist()):
        adj[a].append((e, b))
        adj[b].append((e, a))
    used = np.zeros(len(edges), dtype=bool)
    nxt = [0] * len(P)
    odd = [v for v in range(len(P)) if len(adj[v]) % 2]
    seq = []
    for start in odd + list(range(len(P))):
        while True:
            v, path = start, [start]
            while True:  # extend the trail along an unused edge of v
                lst = adj[v]
                while nxt[v] < len(lst) and used[lst[nxt[v]][0]]:
                    nxt[v] += 1
                if nxt[v] == len(lst):
                    break
                e, w = lst[nxt[v]]
                used[e] = True
                v = w
                path.append(v)
            if len(path) == 1:
                break
            seq += path + [-1]
    idx = np.array(seq[:-1], dtype=np.int64)
    xy = P[np.maximum(idx, 0)].astype(np.float32)
    xy[idx < 0] = np.nan
    return xy[:, 0], xy[:, 1]


def _discrete_colorscale():
    """The palette, then the grey of the other clusters (index len(PALETTE)), as steps of a colour scale."""
    colours = [*PALETTE, OTHER_CLUSTERS]
    n = len(colours)
    scale = []
    for k, c in enumerate(colours):
        scale += [[k / n, c], [(k + 1) / n, c]]
    return scale


def _colour_codes(labels, win_counts, node_ids=None):
    k = colour_index(labels, win_counts, node_ids)
    return np.where(k < 0, len(PALETTE), k).astype(np.uint8)


def _small_ints(a):
    a = np.asarray(a, dtype=np.int64)
    return a.astype(np.int16) if len(a) == 0 or (a.min() >= -32768 and a.max() <= 32767) else a.astype(np.int32)


def _network_data(frame, dims):
    """The changing parts of the edges and nodes traces of one frame (plain dicts)."""
    i, j = dims
    P = frame.nodes[:, [i, j]].astype(np.float32) if frame.n_nodes else np.zeros((0, 2), np.float32)
    ex, ey = _edge_polyline(P, frame.edges)
    M = frame.win_counts
    size = (5 + 9 * np.sqrt(M / max(float(M.max()), 1.0))).round() if len(M) else np.zeros(0)
    edges = dict(x=ex, y=ey)
    nodes = dict(
        x=P[:, 0],
        y=P[:, 1],
        customdata=_small_ints(frame.node_labels),
        # the views' rule (cae.app.figures.palette.colour_index): the ten largest clusters in the palette, the
        # others in grey (index len(PALETTE))
        marker=dict(color=_colour_codes(frame.node_labels, M, frame.node_ids), size=size.astype(np.uint8)),
    )
    return edges, nodes


def _plural(k, word):
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def _frame_title(frame, n_samples, name, stage):
    parts = [f"step {frame.t:,} of {n_samples:,}"]
    if stage:
        parts.append(stage)
    parts += [_plural(frame.n_nodes, "node"), _plural(frame.n_clusters, "cluster")]
    head = f"<b>{_html.escape(name)}</b> · " if name else ""
    return head + " · ".join(_html.escape(p) for p in parts)


def _stage_at(t, stage_starts, stage_names):
    if stage_starts is None or stage_names is None or len(stage_names) == 0 or t == 0:
        return ""
    k = int(np.searchsorted(np.asarray(stage_starts), t - 1, side="right") - 1)  # stage of the last sample learned
    return str(stage_names[k]) if 0 <= k < len(stage_names) else ""


def animation_figure(frames, X, **kwargs):
    """The animation as a :class:`plotly.graph_objects.Figure` (arguments of :func:`animation_spec`)."""
    return go.Figure(animation_spec(frames, X, **kwargs), _validate=False)


def _checked(frames, X, max_points, dims, frame_duration):
    """The arguments of :func:`animation_spec`, checked: ``(frames, steps, max_points, (i, j), frame_duration)``."""
    if not MIN_FRAMES <= len(frames) <= MAX_FRAMES:
        raise ValueError(f"an animation needs between {MIN_FRAMES} and {MAX_FRAMES} frames, got {len(frames)}")
    steps = np.array([f.t for f in frames])
    if np.any(np.diff(steps) <= 0) or steps[0] < 0 or steps[-1] > len(X):
        raise ValueError("frames must have increasing steps within the stream")
    max_points = _as_int(max_points, "max_points")
    if max_points < 1:
        raise ValueError(f"max_points must be at least 1, got {max_points}")
    i, j = (_as_int(d, "dims") for d in dims)
    if not (0 <= i < X.shape[1] and 0 <= j < X.shape[1]):
        raise ValueError(f"dims {tuple(dims)} must name two of the {X.shape[1]} features")
    return steps, max_points, (i, j), _as_int(frame_duration, "frame_duration")


def _data_chunks(X, steps, max_points, dims):
    """Every drawn data point written once: chunk k holds those that arrived up to frame k's step."""
    t_last = int(steps[-1])
    shown = (
        np.unique(np.linspace(0, t_last - 1, min(max_points, t_last)).round().astype(np.int64))
        if t_last
        else np.zeros(0, np.int64)
    )
    cuts = np.searchsorted(shown, steps, side="left")  # shown[:cuts[k]]: the points drawn at frame k
    pts = X[shown][:, list(dims)].astype(np.float32)
    return [pts[(0 if k == 0 else cuts[k - 1]) : cuts[k]] for k in range(len(steps))]


def _first_traces(chunk, first, dims):
    """The figure's traces at the first frame: a chunk of data per frame, the newest data, edges, nodes."""
    data = [
        dict(
            type="scatter",
            x=c[:, 0],
            y=c[:, 1],
            mode="markers",
            marker=dict(size=3, color=_OLD_DATA),
            hoverinfo="skip",
            showlegend=False,
            visible=k == 0,
        )
        for k, c in enumerate(chunk)
    ]
    edges, nodes = _network_data(first, dims)
    empty = np.zeros(0, np.float32)
    newest = dict(type="scatter", x=empty, y=empty, mode="markers", hoverinfo="skip", showlegend=False)
    data.append(dict(newest, marker=dict(size=4, color=_NEW_DATA)))
    line = dict(color=_EDGE, width=1.2)
    data.append(
        dict(type="scatter", mode="lines", line=line, hoverinfo="skip", showlegend=False, connectgaps=False, **edges)
    )
    nodes["marker"].update(
        colorscale=_discrete_colorscale(),
        cmin=0,
        cmax=len(PALETTE) + 1,
        showscale=False,
        line=dict(color="white", width=0.7),
    )
    hover = "cluster %{customdata}<extra></extra>"
    data.append(dict(type="scatter", mode="markers", showlegend=False, hovertemplate=hover, **nodes))
    return data


def _animation_frames(frames, chunk, titles, dims):
    """One animation frame per :class:`Frame`, named by its step: the chunks shown so far, the newest, the network."""
    nf = len(frames)
    out = []
    for k, f in enumerate(frames):
        frame_data = [dict(visible=m <= k) for m in range(nf)]
        newest = chunk[k] if k else np.zeros((0, 2), np.float32)  # frame 0 has no previous frame
        frame_data.append(dict(x=newest[:, 0], y=newest[:, 1]))
        frame_data += list(_network_data(f, dims))
        out.append(
            dict(name=str(f.t), data=frame_data, traces=list(range(nf + 3)), layout=dict(title=dict(text=titles[k])))
        )
    return out


def _controls(frames, frame_duration):
    """The play and pause buttons, and the slider of steps: ``(updatemenus, sliders)``."""
    play = dict(
        frame=dict(duration=frame_duration, redraw=True),
        fromcurrent=True,
        transition=dict(duration=0),
        mode="immediate",
    )
    pause = dict(frame=dict(duration=0, redraw=False), transition=dict(duration=0), mode="immediate")
    jump = dict(frame=dict(duration=0, redraw=True), transition=dict(duration=0), mode="immediate")
    buttons = [
        dict(label="▶ Play", method="animate", args=[None, play]),
        dict(label="❚❚ Pause", method="animate", args=[[None], pause]),
    ]
    menu = dict(type="buttons", direction="left", x=0.0, xanchor="left", y=-0.06, yanchor="top")
    menu.update(pad=dict(t=0, r=10), showactive=False, buttons=buttons)
    slider = dict(
        active=0,
        x=0.16,
        len=0.84,
        y=-0.04,
        yanchor="top",
        pad=dict(t=0, b=10),
        currentvalue=dict(prefix="step ", visible=True, xanchor="left"),
        transition=dict(duration=0),
        steps=[dict(method="animate", label=f"{f.t:,}", args=[[str(f.t)], jump]) for f in frames],
    )
    return [menu], [slider]


_LEGEND = (
    "grey: data seen · blue: arrived since the previous frame · dots: nodes, coloured by "
    "cluster and sized by win count · lines: edges"
)


def _animation_layout(X, dims, height, title, first_title, controls):
    """The layout: the stream's extent (fixed axes, equal aspect), the title, the controls, the legend line."""
    i, j = dims
    (x0, y0), (x1, y1) = X[:, [i, j]].min(axis=0), X[:, [i, j]].max(axis=0)
    px, py = 0.03 * ((x1 - x0) or 1.0), 0.03 * ((y1 - y0) or 1.0)
    grid = dict(autorange=False, showgrid=True, gridcolor="#eee", zeroline=False)
    updatemenus, sliders = controls
    legend = dict(text=_LEGEND, xref="paper", yref="paper", x=0, y=-0.30, xanchor="left", yanchor="top")
    return dict(
        height=int(height),
        plot_bgcolor="white",
        margin=dict(l=40, r=20, t=80 if title else 60, b=150),
        title=dict(text=first_title, x=0.02, xanchor="left"),
        showlegend=False,
        xaxis=dict(range=[float(x0 - px), float(x1 + px)], **grid, constrain="domain"),
        yaxis=dict(range=[float(y0 - py), float(y1 + py)], **grid, scaleanchor="x", scaleratio=1),
        updatemenus=updatemenus,
        sliders=sliders,
        annotations=[dict(legend, showarrow=False, font=dict(size=11, color="#555"))],
    )


def animation_spec(
    frames,
    X,
    *,
    max_points=3000,
    title=None,
    algorithm="",
    stage_starts=None,
    stage_names=None,
    frame_duration=400,
    dims=(0, 1),
    height=680,
):
    """The animation as a plain Plotly figure dict: one frame per :class:`Frame`, a play button and a slider.

    ``{"data": [...], "layout": {...}, "frames": [...]}`` with NumPy arrays
    for the coordinates; :func:`animation_figure` wraps it in a Figure and
    :func:`animation_html` writes it straight into the HTML file.

    The figure's traces are: one per frame with the (thinned) samples that
    arrived up to that frame's step since the previous one (grey; frame
    ``k`` shows those of frames 0..k), the newest of them once more in blue
    (from the second frame on), the edges, and the nodes. Each animation
    frame is named by its step.

    Parameters
    ----------
    frames : list of Frame
        From :func:`record_frames`, in increasing step order (2 to 200).
    X : array-like of shape (n_samples, n_features)
        The stream the frames were learned from (the data drawn, and the axes).
    max_points : int, default=3000
        The most data points drawn in all (evenly thinned over the samples up
        to the last frame's step).
    title : str, optional
        A caption above the plot (e.g. the dataset).
    algorithm : str
        Named in each frame's title.
    stage_starts, stage_names : optional
        A stream's stages, to name the current stage in each frame's title.
    frame_duration : int, default=400
        Milliseconds per frame when playing.
    dims : (int, int)
        The two features drawn.
    height : int
        Pixels.
    """
    X = _as_data(X)
    frames = list(frames)
    steps, max_points, dims, frame_duration = _checked(frames, X, max_points, dims, frame_duration)
    chunk = _data_chunks(X, steps, max_points, dims)
    data = _first_traces(chunk, frames[0], dims)
    top = f"{_html.escape(title)}<br>" if title else ""
    titles = [top + _frame_title(f, len(X), algorithm, _stage_at(f.t, stage_starts, stage_names)) for f in frames]
    layout = _animation_layout(X, dims, height, title, titles[0], _controls(frames, frame_duration))
    return dict(data=data, layout=layout, frames=_animation_frames(frames, chunk, titles, dims))


_TYPED = {
    "float32": "f4",
    "float64": "f8",
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
}


def _typed_arrays(obj):
    """``obj`` with every NumPy array as plotly.js's typed-array spec (base64, little-endian)."""
    if isinstance(obj, np.ndarray):
        a = np.ascontiguousarray(obj)
        if a.dtype.name not in _TYPED:
            a = a.astype(np.float64)
        data = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
        return {"dtype": _TYPED[a.dtype.name], "bdata": base64.b64encode(data).decode("ascii")}
    if isinstance(obj, dict):
        return {k: _typed_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_typed_arrays(v) for v in obj]
    return obj


# Pausing interrupts Plotly.animate, whose promise then rejects with no reason; keep that out of the console.
_QUIET_PAUSE = (
    "window.addEventListener('unhandledrejection', function (e) {"
    " if (e.reason === undefined) { e.preventDefault(); } });"
)


def animation_html(frames, X, *, page_title=None, **kwargs):
    """The animation as a self-contained HTML file (UTF-8 bytes; plotly.js inlined, no network needed).

    ``frames``, ``X`` and the keyword arguments are those of
    :func:`animation_spec`; ``page_title`` is the browser tab's title
    (default: ``title``, or "CAE Explorer animation").
    """
    # the figure dict goes straight to the file: building plotly's objects for every frame would take
    # seconds (their per-element checks), longer than the learning
    spec = _typed_arrays(animation_spec(frames, X, **kwargs))
    text = pio.to_html(
        spec,
        validate=False,
        include_plotlyjs=True,
        full_html=True,
        auto_play=False,
        post_script=_QUIET_PAUSE,
        config=toolbar.config(responsive=True),  # no Share chart… or selection tools: they do nothing
    )
    name = page_title or kwargs.get("title") or "CAE Explorer animation"
    text = text.replace("<head>", f"<head><title>{_html.escape(str(name))}</title>", 1)
    return text.encode("utf-8")


def build_animation(stream, model_factory=None, t_start=0, t_end=None, n_frames=60, progress=None, **kwargs):
    """Learn a stream and return the animated HTML file (bytes) in one call.

    Parameters
    ----------
    stream : cae.data.Stream, an object with ``X``, or an array
        The stream; a :class:`~cae.data.Stream` also names its stages in
        the frame titles and its dataset in the caption.
    model_factory, t_start, t_end, n_frames, progress
        As in :func:`record_frames`.
    **kwargs
        Passed to :func:`animation_spec` (``max_points``, ``title``, ...).

    Examples
    --------
    >>> from cae.data import make_drift_stream
    >>> page = build_animation(make_drift_stream("gradual", n=300, seed=0), n_frames=4)
    >>> page.count(b'"method":"animate"') >= 4 + 2   # four slider steps, play and pause
    True
    """
    X = _as_data(getattr(stream, "X", stream))
    model = _make_model(model_factory)
    frames = record_frames(X, lambda: model, t_start=t_start, t_end=t_end, n_frames=n_frames, progress=progress)
    if getattr(stream, "stage_starts", None) is not None:
        kwargs.setdefault("stage_starts", stream.stage_starts)
        kwargs.setdefault("stage_names", stream.stage_names)
    if "title" not in kwargs and getattr(stream, "dataset", None):
        kind = getattr(stream, "kind", "")
        kwargs["title"] = f"{stream.dataset} ({kind}, seed {stream.seed})" if kind else str(stream.dataset)
    kwargs.setdefault("algorithm", _algorithm_name(model))
    return animation_html(frames, X, **kwargs)


def export_playground(pg, t_start=0, t_end=None, n_frames=60, progress=None, **kwargs):
    """The animated HTML file (bytes) of a :class:`~cae.app.stepper.Stepper`'s run.

    The playground's stream is learned again from step 0 by a fresh model of
    the playground's algorithm and parameters (``pg._new_model()``), up to
    ``t_end`` (default: the playground's current step ``pg.t``). A run that
    was forked with new parameters is therefore replayed with the new
    parameters from the start.

    Examples
    --------
    >>> from cae.data import make_drift_stream
    >>> from cae.app.stepper import Stepper
    >>> pg = Stepper(make_drift_stream("recurring", n=400, seed=0))
    >>> _ = pg.step(300)
    >>> page = export_playground(pg, 0, n_frames=3)   # steps 0, 150 and 300
    >>> b"step 300 of 440" in page
    True
    """
    if t_end is None:
        t_end = pg.t
        if _as_int(t_end, "t_end") <= _as_int(t_start, "t_start"):
            raise ValueError(f"the playground is at step {pg.t}; step it past t_start ({t_start}) or give t_end")
    return build_animation(
        pg.stream, pg._new_model, t_start=t_start, t_end=t_end, n_frames=n_frames, progress=progress, **kwargs
    )


# ---------------------------------------------------------------------- traces
def traces_csv(trace, columns):
    """A run's per-step trace as CSV bytes (UTF-8, one row per step, formula-safe).

    ``trace`` is an array of shape (steps, len(columns)), such as
    ``Stepper.trace_so_far`` with ``Stepper.columns``. Columns whose
    values are all whole numbers are written without a decimal point; NaN is
    an empty cell. Text that a spreadsheet would run as a formula (a header
    starting with ``=``, ``+``, ``-``, ``@``, ...) is escaped as in
    :func:`cae.data.csvio.to_safe_csv`.

    Examples
    --------
    >>> import numpy as np
    >>> print(traces_csv(np.array([[1, 0, 0.5], [2, 3, np.nan]]), ["t", "case", "=V"]).decode(), end="")
    t,case,'=V
    1,0,0.5
    2,3,
    """
    arr = np.asarray(trace, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"trace must be a 2-D array (steps x columns), got shape {arr.shape}")
    if isinstance(columns, str):
        raise ValueError("columns must be a list of column names, not one string")
    columns = [str(c) for c in columns]
    if len(columns) != arr.shape[1]:
        raise ValueError(f"the trace has {arr.shape[1]} columns but {len(columns)} names were given")
    if len(set(columns)) != len(columns):
        raise ValueError("column names must be distinct")
    df = pd.DataFrame(arr, columns=columns)
    for c in df.columns:
        v = df[c].to_numpy()
        ok = np.isfinite(v)
        if not np.all(ok | np.isnan(v)):
            continue  # +-inf stays a float column
        if np.all(v[ok] == np.round(v[ok])) and np.all(np.abs(v[ok]) < 2**53):
            df[c] = pd.array(np.where(ok, v, 0).astype(np.int64), dtype="Int64")
            df.loc[~ok, c] = pd.NA
    return to_safe_csv(df)

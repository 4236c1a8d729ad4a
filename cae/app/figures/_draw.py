"""Drawing primitives of the views: float32 arrays, edges as lines, circles, marks with halos, labels, notes.

Plain dicts, not Plotly objects: Plotly's per-element checks of thousands of points cost more than the learning.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .palette import AGE_COLOURS, MIN_FONT


def _f32(a):
    return np.asarray(a, dtype=np.float32)


def _segments(P, edges):
    """x, y arrays of all edges as one NaN-separated polyline."""
    if len(edges) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    seg = np.full((len(edges), 3, 2), np.nan, dtype=np.float32)
    seg[:, 0] = P[edges[:, 0]]
    seg[:, 1] = P[edges[:, 1]]
    seg = seg.reshape(-1, 2)
    return seg[:, 0], seg[:, 1]


def edge_path(P, edges):
    """The edges as one SVG path, ``"M x0,y0 L x1,y1"`` per edge (5 significant digits: well under a pixel).

    The main view drew its edges as layout shapes with these paths (SVG, under every WebGL trace) while Play drew
    its frames with plotly.js, whose WebGL lines cost more than the rest of a frame without a graphics processor;
    since Play draws on a canvas of its own and the data are opaque, they are WebGL lines over the data and under the
    nodes (:func:`_edge_trace`): opaque data over the SVG edges hid two in five of them in a dense cluster.

    >>> import numpy as np
    >>> edge_path(np.array([[0.0, 0.0], [0.5, 0.25], [1.0, 1 / 3]]), np.array([[0, 1], [1, 2]]))
    'M0,0L0.5,0.25M0.5,0.25L1,0.33333'
    """
    if len(edges) == 0:
        return ""
    ends = np.asarray(P, dtype=np.float32).astype(float)[np.asarray(edges).reshape(-1, 2)].reshape(-1, 4)
    return "".join([f"M{a:.5g},{b:.5g}L{c:.5g},{d:.5g}" for a, b, c, d in ends.tolist()])


def _edge_shape(P, edges, color, width, name):
    """Edges of one colour as a layout shape: an SVG path between the grid and the traces (under the nodes,
    which are WebGL and drawn over every SVG layer)."""
    return dict(
        type="path",
        path=edge_path(P, edges),
        xref="x",
        yref="y",
        layer="between",
        line=dict(color=color, width=width),
        name=name,
    )


def _edge_trace(P, edges, color, width, name):
    """Edges of one colour as one WebGL line trace (a NaN between two edges): drawn after the data and before the
    nodes, so over the data points (opaque: they hid the edges drawn under them) and under the nodes. Out of the key's
    and the legend's entries (the key writes the edges' age bands itself)."""
    x, y = _segments(np.asarray(P, dtype=np.float32), np.asarray(edges).reshape(-1, 2))
    return dict(
        type="scattergl",
        x=x,
        y=y,
        mode="lines",
        name=name,
        legendgroup="edges",
        showlegend=False,
        line=dict(color=color, width=width),
        hoverinfo="skip",
    )


def _circles(P, radii, n=24):
    ok = np.isfinite(radii)
    P, radii = P[ok], radii[ok]
    if len(P) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    th = np.append(np.linspace(0, 2 * np.pi, n), np.nan)
    x = (P[:, [0]] + radii[:, None] * np.cos(th)).ravel()
    y = (P[:, [1]] + radii[:, None] * np.sin(th)).ravel()
    return _f32(x), _f32(y)


#: the picture's side (px) every size below is given for: the Playground's square at 1400×900. A picture drawn larger
#: or smaller (:attr:`~cae.app.view_options.ViewOptions.px`) scales them all (:func:`mark_scale`)
REFERENCE_PX = 605
#: the least scale: a picture drawn smaller than about 480 px keeps its marks at this share of their size
MIN_SCALE = 0.8

#: the drawn width (px) of an edge in the reference picture: wide enough to read its age colour from the back of a
#: room, under the nodes (a 933-px picture draws it 4 px wide)
EDGE_WIDTH = 2.6


def px_size(v):
    """A size in px to two decimals, rounded up (so that a mark scaled with the picture never falls below its share)."""
    return np.ceil(np.asarray(v, dtype=float) * 100 - 1e-6) / 100


def mark_scale(px):
    """How much larger than in the reference picture (:data:`REFERENCE_PX`) the marks are drawn in a picture of
    side ``px`` (None: the reference itself): in proportion to the side, never below :data:`MIN_SCALE`.

    >>> mark_scale(None), mark_scale(605), round(mark_scale(933), 3), mark_scale(300)
    (1.0, 1.0, 1.542, 0.8)
    """
    if not px:
        return 1.0
    return max(float(px) / REFERENCE_PX, MIN_SCALE)


def _node_sizes(win_counts, scale=1.0):
    """Marker diameter (px) of each node: 5 to 10 by the square root of its win count M in the reference picture,
    times ``scale`` (small enough that the edges between the nodes of a dense cluster show: they were hidden under
    nodes of 8.5–16 px)."""
    M = np.asarray(win_counts, dtype=float)
    return (5 + 5 * np.sqrt(M / max(M.max(), 1))) * scale


class AgeBands(NamedTuple):
    """Edge ages in bands (:func:`age_bands`): ``band`` per edge (an index into :data:`~.palette.AGE_COLOURS`), and
    per band its ``label`` (the ages it holds, None for a band that can hold no age), ``colours`` and ``counts``
    (edges in it); ``limit`` the age limit the bands are drawn around (None: the thirds of the oldest age) and
    ``note`` what the key says of it."""

    band: np.ndarray
    labels: tuple
    colours: tuple
    counts: tuple
    limit: float | None
    note: str


def age_bands(ages, limit=None):
    """Edge ages in at most three bands, one colour each (:data:`~.palette.AGE_COLOURS`, which stay apart for
    colour-blind students too): with an age limit a_max (``limit``: the ages past which an edge goes), the edges
    up to half of it, those up to a_max, and those past it; without one, the thirds of the oldest age.

    >>> b = age_bands([1, 5, 14, 15, 28, 29, 40], limit=28.4)
    >>> b.band.tolist(), b.labels, b.counts, b.note
    ([0, 0, 0, 1, 1, 2, 2], ('≤ 14', '15–28', '> 28.4'), (3, 2, 2), 'a_max = 28.4')
    >>> b = age_bands([0, 10, 49, 50], limit=50)  # GNG: ages from 0, none past a_max (removed at once)
    >>> b.band.tolist(), b.labels, b.counts
    ([0, 0, 1, 1], ('≤ 25', '26–50', '> 50'), (2, 2, 0))
    >>> b = age_bands([1, 2, 3, 7, 20])  # no limit: the thirds of the oldest (20)
    >>> b.band.tolist(), b.labels, b.note
    ([0, 0, 0, 0, 2], ('≤ 7', '8–14', '> 14'), 'oldest 20, in thirds')
    """
    ages = np.asarray(ages, dtype=float).reshape(-1)
    oldest = int(np.max(ages)) if len(ages) else 0
    if limit is not None and np.isfinite(limit) and limit > 0:
        low, high = float(np.floor(limit / 2)), float(limit)
        note = f"a_max = {limit:.3g}"
    else:
        third = max(int(np.ceil(oldest / 3)), 1)
        low, high = float(third), float(2 * third)
        limit, note = None, f"oldest {oldest:,}, in thirds"
    band = np.where(ages <= low, 0, np.where(ages <= high, 1, 2)).astype(np.int64)
    first_mid, last_mid = int(low) + 1, int(np.floor(high))
    middle = None if last_mid < first_mid else (f"{first_mid}" if last_mid == first_mid else f"{first_mid}–{last_mid}")
    labels = (f"≤ {int(low)}", middle, f"> {high:.3g}")
    counts = tuple(int(c) for c in np.bincount(band, minlength=3))
    return AgeBands(band, labels, tuple(AGE_COLOURS), counts, None if limit is None else float(limit), note)


def _mark(x, y, name, symbol, color, size, width=3, hover=None, scale=1.0):
    """A mark drawn over the nodes: WebGL like them (Plotly draws its WebGL layer over the SVG one, and the
    WebGL traces in order), with a white halo under it so that it stands out on any cluster colour. ``size`` and
    ``width`` are the reference picture's (px), drawn ``scale`` times larger (:func:`mark_scale`)."""
    x, y = _f32(np.atleast_1d(x)), _f32(np.atleast_1d(y))
    size, width = float(px_size(size * scale)), float(px_size(max(width * scale, 1.0)))
    halo = dict(
        type="scattergl",
        x=x,
        y=y,
        mode="markers",
        name=f"{name} (halo)",
        legendgroup=name,
        showlegend=False,
        hoverinfo="skip",
        marker=dict(symbol=symbol, size=size, color="white", line=dict(color="white", width=width + 3 * scale)),
    )
    mark = dict(
        type="scattergl",
        x=x,
        y=y,
        mode="markers",
        name=name,
        legendgroup=name,
        marker=dict(symbol=symbol, size=size, color=color, line=dict(color=color, width=width)),
        hovertext=hover if hover is not None else [name] * len(x),
        hoverinfo="text",
    )
    return [halo, mark]


def _label(x, y, text, color, mark):
    """A mark's name to write beside it (s1, s2, the sample, GNG's q, f and r): a request, placed with every other
    one once the whole picture is known (:func:`cae.app.figures.labels.place_labels`: beside its own mark, nearer it
    than any other). ``mark``: the name of the mark's trace."""
    return dict(
        x=float(_f32(np.atleast_1d(x))[0]),  # where the mark is drawn (its coordinates are sent as float32)
        y=float(_f32(np.atleast_1d(y))[0]),
        text=text,
        color=color,
        mark=mark,
    )


def _corner_note(text, size=MIN_FONT):
    """A note in the plot's own top-left corner (its domain, which shrinks to keep the aspect ratio)."""
    return dict(
        text=text,
        xref="x domain",
        yref="y domain",
        x=0.01,
        y=0.99,
        xanchor="left",
        yanchor="top",
        showarrow=False,
        bgcolor="rgba(255,255,255,0.85)",
        bordercolor="#999",
        borderwidth=1,
        font=dict(size=size, color="#222"),
    )

"""Drawing primitives of the views: float32 arrays, edges as SVG paths, circles, marks with halos, labels, notes.

Plain dicts, not Plotly objects: Plotly's per-element checks of thousands of points cost more than the learning.
"""

from __future__ import annotations

import numpy as np
from plotly.colors import sample_colorscale

from .palette import AGE_COLORSCALE, LEGIBLE_AGE_END, MIN_FONT, N_AGE_BANDS


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

    The main view draws its edges as layout shapes with these paths (SVG), not as WebGL lines: in a browser
    without a graphics processor plotly.js's WebGL lines cost more than the rest of a frame together
    (the whole Playground figure plays at 13–14 frames per second with them, 22–24 with SVG paths).

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


def _circles(P, radii, n=24):
    ok = np.isfinite(radii)
    P, radii = P[ok], radii[ok]
    if len(P) == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    th = np.append(np.linspace(0, 2 * np.pi, n), np.nan)
    x = (P[:, [0]] + radii[:, None] * np.cos(th)).ravel()
    y = (P[:, [1]] + radii[:, None] * np.sin(th)).ravel()
    return _f32(x), _f32(y)


#: the drawn width (px) of an edge: wide enough to read its age colour from the back of a room, under the nodes
EDGE_WIDTH = 2.6


def _node_sizes(win_counts):
    """Marker diameter (px) of each node: 5 to 10 by the square root of its win count M (small enough that the
    edges between the nodes of a dense cluster show: they were hidden under nodes of 8.5–16 px)."""
    M = np.asarray(win_counts, dtype=float)
    return 5 + 5 * np.sqrt(M / max(M.max(), 1))


def _age_bands(ages):
    """Edge ages in (at most) N_AGE_BANDS geometric bands: (band index per edge, band starts, colour per band,
    largest age). Band k holds ages from starts[k] up to the next start; the last one everything above. The colours
    are the legible part of the age scale (at least 3:1 on white, :data:`~.palette.LEGIBLE_AGE_END`)."""
    amax = max(int(ages.max()) if len(ages) else 1, 2)
    bands = np.unique(np.geomspace(1, amax + 1, N_AGE_BANDS + 1).astype(int))
    colors = sample_colorscale(AGE_COLORSCALE, [LEGIBLE_AGE_END * (b - 1) / max(amax - 1, 1) for b in bands[:-1]])
    band = np.clip(np.searchsorted(bands, ages, side="right") - 1, 0, len(colors) - 1)
    return band, bands[:-1], colors, amax


def _mark(x, y, name, symbol, color, size, width=3, hover=None):
    """A mark drawn over the nodes: WebGL like them (Plotly draws its WebGL layer over the SVG one, and the
    WebGL traces in order), with a white halo under it so that it stands out on any cluster colour."""
    x, y = _f32(np.atleast_1d(x)), _f32(np.atleast_1d(y))
    halo = dict(
        type="scattergl",
        x=x,
        y=y,
        mode="markers",
        name=f"{name} (halo)",
        legendgroup=name,
        showlegend=False,
        hoverinfo="skip",
        marker=dict(symbol=symbol, size=size, color="white", line=dict(color="white", width=width + 3)),
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


def _label(x, y, text, color, where="top right", offset=12):
    """A mark's name written beside it (s1, s2): an annotation (SVG text, above every trace), lighter for the
    browser than plotly.js's WebGL text (about a tenth of a Play frame's drawing where the browser has no
    graphics processor) and as crisp as the axis numbers."""
    right, top = where.endswith("right"), where.startswith("top")
    return dict(
        x=float(_f32(np.atleast_1d(x))[0]),  # where the mark is drawn (its coordinates are sent as float32)
        y=float(_f32(np.atleast_1d(y))[0]),
        xref="x",
        yref="y",
        text=text,
        showarrow=False,
        xanchor="left" if right else "right",
        yanchor="bottom" if top else "top",
        xshift=offset if right else -offset,
        yshift=offset if top else -offset,
        font=dict(color=color, size=15, family="sans-serif"),
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

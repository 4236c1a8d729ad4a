"""More rows than a scatter can draw, as a density image under the network (*Your data* past a few thousand rows).

A scatter of millions of points is slow to send and to draw, and hides where the data are dense: every row is
counted instead into a 2-D histogram (:func:`density`), drawn as a heatmap on a log scale in light greys, and the
network is drawn over it (:func:`density_network_figure`): every node opaque, in its cluster's colour, outlined in a
near-black that keeps 3:1 or more against every grey of the picture — a cluster reads as a cluster over the density
for colour-blind students too (pink, dark green and maroon clusters read as the grey ones when the nodes let the grey
through). Its key names every colour: each coloured cluster, and the grey ("5 smaller clusters in grey").
No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures._draw import _f32, _segments
from .figures.palette import AXIS_TEXT, colour_index, colour_of_index, others_note, readable

__all__ = ["density", "density_network_figure", "SCATTER_MAX", "DENSITY_LOW", "DENSITY_HIGH", "NODE_OUTLINE"]

#: at most this many rows are drawn as points; more, as a density image
SCATTER_MAX = 5000
#: the density image's greys, from a cell of one row to the densest (log scale): light, so that a node's outline
#: (:data:`NODE_OUTLINE`) keeps at least 3:1 against every cell (5.2:1 against the darkest)
DENSITY_LOW, DENSITY_HIGH = "#f2f2f2", "#8c8c8c"
#: the outline of every node over the density: near-black, 1.5 px
NODE_OUTLINE, NODE_OUTLINE_WIDTH = "#1a1a1a", 1.5


def density(points, bins=240, extent=None):
    """Rows per cell of a ``bins`` x ``bins`` grid over ``extent`` ((x0, x1), (y0, y1); default: the points').

    Returns ``(counts, x_centres, y_centres)``, ``counts[j, i]`` the rows in column ``i``, row ``j`` (a
    heatmap's ``z``).

    Examples
    --------
    >>> c, x, y = density(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.9]]), bins=2, extent=[(0, 1), (0, 1)])
    >>> c.tolist(), x.tolist()
    ([[1.0, 0.0], [0.0, 2.0]], [0.25, 0.75])
    """
    P = np.asarray(points, dtype=float)
    if extent is None:
        extent = _extent(P)
    H, xe, ye = np.histogram2d(P[:, 0], P[:, 1], bins=bins, range=extent)
    return H.T, (xe[:-1] + xe[1:]) / 2, (ye[:-1] + ye[1:]) / 2


def _extent(*arrays):
    """The box around every finite point of the arrays, 2 % wider each way (a unit box for a single point)."""
    P = np.vstack([np.asarray(a, float).reshape(-1, 2) for a in arrays if len(a)])
    P = P[np.isfinite(P).all(axis=1)]
    lo, hi = P.min(axis=0), P.max(axis=0)
    pad = np.where(hi > lo, (hi - lo) * 0.02, 0.5)
    return [(float(lo[0] - pad[0]), float(hi[0] + pad[0])), (float(lo[1] - pad[1]), float(hi[1] + pad[1]))]


def _network_traces(nodes_2d, edges, node_labels, win_counts):
    """The edges (one dark line trace) and the nodes, one trace per colour shown — each coloured cluster named, the
    grey named as the clusters it holds (:func:`~cae.app.figures.palette.others_note`) — opaque and outlined."""
    P = np.asarray(nodes_2d, dtype=float).reshape(-1, 2)
    if not len(P):
        return []
    x, y = _segments(P, np.asarray(edges).reshape(-1, 2))
    traces = [
        dict(
            type="scattergl", x=x, y=y, mode="lines", name="edges", line=dict(color="#333", width=1.2), hoverinfo="skip"
        )
    ]
    labels = np.asarray(node_labels).reshape(-1)
    M = np.asarray(win_counts, dtype=float)
    size = 7 + 9 * np.sqrt(M / max(M.max(), 1))
    index = colour_index(labels, M)
    for k in sorted(set(index.tolist()), key=lambda k: (k < 0, k)):  # the palette's order, the grey last
        sel = index == k
        name = others_note(labels) if k < 0 else f"cluster {int(labels[sel][0])}"
        traces.append(
            dict(
                type="scattergl",
                x=_f32(P[sel, 0]),
                y=_f32(P[sel, 1]),
                mode="markers",
                name=name,
                legendgroup="clusters",
                marker=dict(
                    size=size[sel],
                    color=colour_of_index(k),
                    opacity=1,
                    line=dict(color=NODE_OUTLINE, width=NODE_OUTLINE_WIDTH),
                ),
                text=[f"cluster {c}" for c in labels[sel]],
                hoverinfo="text",
            )
        )
    return traces


def density_network_figure(
    data_2d, nodes_2d, edges, node_labels, win_counts, axis_titles=("x", "y"), bins=240, height=520
):
    """Every row of ``data_2d`` as a density image (log scale, light greys, empty cells blank) under the network:
    its edges, and its nodes opaque and outlined, one legend entry per colour (each coloured cluster, and the grey
    of the smaller ones).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(100_000, 2))
    >>> fig = density_network_figure(X, np.zeros((2, 2)) + [[0, 0], [1, 1]], [[0, 1]], [0, 0], [5, 5])
    >>> [t.type for t in fig.data], int(np.nansum(10 ** np.asarray(fig.data[0].z, float)))
    (['heatmap', 'scattergl', 'scattergl'], 100000)
    >>> [t.name for t in fig.data[1:]]
    ['edges', 'cluster 0']
    """
    counts, x, y = density(data_2d, bins, _extent(data_2d, nodes_2d))
    with np.errstate(divide="ignore"):
        z = np.where(counts > 0, np.log10(np.maximum(counts, 1)), np.nan)
    top = float(np.nanmax(z)) if np.isfinite(z).any() else 1.0
    heat = dict(
        type="heatmap",
        z=z,
        x=x,
        y=y,
        zmin=0,
        zmax=max(top, 1.0),
        colorscale=[[0, DENSITY_LOW], [1, DENSITY_HIGH]],
        colorbar=dict(
            title=dict(text="rows", side="right"),
            tickvals=list(range(int(np.ceil(max(top, 1.0))) + 1)),
            ticktext=[f"{10**k:,}" for k in range(int(np.ceil(max(top, 1.0))) + 1)],
            thickness=12,
        ),
        name="data (density)",
        hovertemplate="%{x:.3g}, %{y:.3g}: 10^%{z:.2f} rows<extra></extra>",
    )
    fig = go.Figure(
        data=[heat, *_network_traces(nodes_2d, edges, node_labels, win_counts)],
        layout=dict(
            height=height,
            margin=dict(l=10, r=10, t=10, b=10),
            plot_bgcolor="white",
            legend=dict(orientation="h", y=-0.12),
        ),
        _validate=False,
    )
    axis = dict(showgrid=True, gridcolor="#eee", tickfont=dict(color=AXIS_TEXT))
    fig.update_xaxes(title_text=axis_titles[0], **axis)
    fig.update_yaxes(title_text=axis_titles[1], **axis)
    return readable(fig)

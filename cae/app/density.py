"""More rows than a scatter can draw, as a density image under the network (*Your data* past a few thousand rows).

A scatter of millions of points is slow to send and to draw, and hides where the data are dense: every row is
counted instead into a 2-D histogram (:func:`density`), drawn as a heatmap on a log scale, and the network is
drawn over it (:func:`density_network_figure`). No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import projected_network_figure

__all__ = ["density", "density_network_figure", "SCATTER_MAX"]

#: at most this many rows are drawn as points; more, as a density image
SCATTER_MAX = 5000


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


def density_network_figure(
    data_2d, nodes_2d, edges, node_labels, win_counts, axis_titles=("x", "y"), bins=240, height=520
):
    """Every row of ``data_2d`` as a density image (log scale, empty cells blank) under the network drawn as
    :func:`cae.app.figures.projected_network_figure` draws it.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(100_000, 2))
    >>> fig = density_network_figure(X, np.zeros((2, 2)) + [[0, 0], [1, 1]], [[0, 1]], [0, 0], [5, 5])
    >>> [t.type for t in fig.data], int(np.nansum(10 ** np.asarray(fig.data[0].z, float)))
    (['heatmap', 'scattergl', 'scattergl'], 100000)
    """
    fig = projected_network_figure(nodes_2d, edges, node_labels, win_counts, axis_titles=axis_titles, height=height)
    counts, x, y = density(data_2d, bins, _extent(data_2d, nodes_2d))
    with np.errstate(divide="ignore"):
        z = np.where(counts > 0, np.log10(np.maximum(counts, 1)), np.nan)
    top = float(np.nanmax(z)) if np.isfinite(z).any() else 1.0
    heat = go.Heatmap(
        z=z,
        x=x,
        y=y,
        zmin=0,
        zmax=max(top, 1.0),
        colorscale=[[0, "#e8e8e8"], [1, "#2b2b2b"]],
        colorbar=dict(
            title=dict(text="rows", side="right"),
            tickvals=list(range(int(np.ceil(max(top, 1.0))) + 1)),
            ticktext=[f"{10**k:,}" for k in range(int(np.ceil(max(top, 1.0))) + 1)],
            thickness=12,
        ),
        name="data (density)",
        hovertemplate="%{x:.3g}, %{y:.3g}: 10^%{z:.2f} rows<extra></extra>",
    )
    fig.add_trace(heat)
    fig.data = (fig.data[-1], *fig.data[:-1])  # the image first, under the network
    return fig

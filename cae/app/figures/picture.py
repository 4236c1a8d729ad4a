"""The network as a static SVG picture (no Plotly), and a saved model's drawable parts read with NumPy alone."""

from __future__ import annotations

import numpy as np

from ._draw import EDGE_WIDTH, _node_sizes, age_bands
from .palette import DATA_SEEN, colour_of_index, node_colour_index


def saved_network(path):
    """The drawable parts of a saved CAE model, read with NumPy alone — no scikit-learn.

    Returns an object with ``network_``, ``nodes_``, ``node_ids_``, ``win_counts_``, ``sigmas_``,
    ``edges_``, ``edge_ages_``, ``node_labels_`` and ``n_clusters_``, the same values as
    ``cae.CAE.load(path)`` has (a test checks), for :func:`network_figure` on a first page that must
    not wait for scikit-learn to import (the app's home picture).
    """
    from types import SimpleNamespace

    from ..._graph import component_labels, edge_list
    from ..._storage import ModelFileError, read_npz
    from ...algorithms import CAENetwork

    meta, arrays = read_npz(path)
    if meta["algorithm"] != "CAE":
        raise ModelFileError(f"this file holds a {meta['algorithm']} model, not a CAE model")
    net = CAENetwork.from_arrays(arrays, meta)
    K = net.K
    edges, ages = edge_list(net.nbr, net.deg, net.age, K)
    labels, n = component_labels(net.nbr, net.deg, K)
    return SimpleNamespace(
        network_=net,
        nodes_=net.Y[:K],
        node_ids_=net.ids[:K],
        win_counts_=net.M[:K],
        sigmas_=net.sig[:K],
        edges_=edges,
        edge_ages_=ages,
        node_labels_=labels,
        n_clusters_=n,
    )


_LEGEND_H = 26  # the line under the plot (counts, the edge-age scale)


class _Screen:
    """The plotted area on screen: data coordinates to pixels, equal aspect as the Plotly view."""

    def __init__(self, bounds, width, height):
        (x0, x1), (y0, y1) = bounds
        dx, dy = (x1 - x0) or 1.0, (y1 - y0) or 1.0
        self.x0, self.x1 = x0 - 0.03 * dx, x1 + 0.03 * dx
        self.y0, self.y1 = y0 - 0.03 * dy, y1 + 0.03 * dy
        self.height = height
        self.scale = min((width - 20) / (self.x1 - self.x0), (height - 20 - _LEGEND_H) / (self.y1 - self.y0))
        self.ox = (width - self.scale * (self.x1 - self.x0)) / 2
        self.oy = (height - _LEGEND_H - self.scale * (self.y1 - self.y0)) / 2

    def sx(self, x):
        return self.ox + (np.asarray(x) - self.x0) * self.scale

    def sy(self, y):
        return self.height - _LEGEND_H - self.oy - (np.asarray(y) - self.y0) * self.scale

    def frame(self):
        w, h = self.scale * (self.x1 - self.x0), self.scale * (self.y1 - self.y0)
        return f'<rect x="{self.ox:.1f}" y="{self.oy:.1f}" width="{w:.1f}" height="{h:.1f}" fill="none" stroke="#eee"/>'


def _svg_data(pts, screen, max_points):
    """The data seen: small grey dots, at most ``max_points`` (an even sample)."""
    if not len(pts):
        return ""
    if len(pts) > max_points:
        pts = pts[np.linspace(0, len(pts) - 1, max_points).astype(int)]
    X, Y = screen.sx(pts[:, 0]), screen.sy(pts[:, 1])
    # one path of zero-length strokes with round caps: a dot each, a quarter of the bytes of a circle each
    dots = "".join(f"M{a:.0f} {b:.0f}h0" for a, b in zip(X, Y))  # whole pixels: a faint backdrop
    return f'<path d="{dots}" stroke="{DATA_SEEN}" stroke-width="2.6" stroke-linecap="round"/>'


def _svg_age_scale(bands, width, height, left=0.0):
    """The edge-age bands under the plot, as the Plotly view's key: a rule of each band's colour and the ages it
    holds (the bands drawn, :func:`~._draw.age_bands`), at the right of the line, clear of what ends at ``left``."""
    ly = height - _LEGEND_H + 8
    shown = [(label, c) for label, c in zip(bands.labels, bands.colours) if label is not None]
    steps = [22 + 6 * len(label) + 10 for label, _ in shown]  # a rule, its ages (12-px text: 6 px a letter), a gap
    x = width - 4 - sum(steps)
    word = x - 6 - 6 * len("edge age") >= left  # the words, where they fit beside the counts
    out = ['<g class="age-key">']
    if word:
        out.append(f'<text x="{x - 6:.0f}" y="{ly + 9}" fill="#444" text-anchor="end">edge age</text>')
    for (label, c), step in zip(shown, steps):
        out.append(
            f'<line x1="{x:.0f}" y1="{ly + 5}" x2="{x + 18:.0f}" y2="{ly + 5}" stroke="{c}" stroke-width="{EDGE_WIDTH + 1:g}"/>'
            f'<text x="{x + 22:.0f}" y="{ly + 9}" fill="#444">{label}</text>'
        )
        x += step
    return "".join(out) + "</g>"


def _svg_edges(model, edges, NX, NY, width, height):
    """The edges coloured by age band (grey without ages), and the bands under the plot."""
    ages = np.asarray(getattr(model, "edge_ages_", np.zeros(0)))
    bands = None
    if len(ages) == len(edges):
        bands = age_bands(ages, getattr(model, "max_edge_age", None))
        colors = [bands.colours[b] for b in bands.band]
    else:
        colors = ["#555"] * len(edges)
    # one path per colour, a move and a line per edge: a third of the bytes of a <line> each
    by_colour = {}
    for (a, b), c in zip(edges, colors):
        by_colour.setdefault(c, []).append(f"M{NX[a]:.0f} {NY[a]:.0f}L{NX[b]:.0f} {NY[b]:.0f}")
    paths = "".join(f'<path d="{"".join(d)}" stroke="{c}"/>' for c, d in by_colour.items())
    out = f'<g fill="none" stroke-width="{EDGE_WIDTH}" stroke-linecap="round">{paths}</g>'
    counts = len(f"{len(NX):,} nodes · {len(edges):,} edges · 00 clusters") * 6 + 16  # the line's left part
    return out + (_svg_age_scale(bands, width, height, counts) if bands is not None else "")


def _svg_nodes(model, NX, NY, n_edges, height):
    """The nodes coloured by cluster and sized by win count, and the counts under the plot."""
    radius = _node_sizes(model.win_counts_) / 2
    by_colour = {}  # a group per cluster colour: the fill said once
    for a, b, r, c in zip(NX, NY, radius, [colour_of_index(k) for k in node_colour_index(model).tolist()]):
        by_colour.setdefault(c, []).append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{r:.1f}"/>')
    circles = "".join(f'<g fill="{c}">{"".join(cs)}</g>' for c, cs in by_colour.items())
    n_clusters = int(getattr(model, "n_clusters_", len(np.unique(model.node_labels_))))
    return (
        f'<g stroke="white" stroke-width="1">{circles}</g>'
        f'<text x="10" y="{height - _LEGEND_H + 17}" fill="#444">{len(NX):,} nodes · {n_edges:,} edges · '
        f"{n_clusters:,} clusters</text>"
    )


def _svg_current(x, screen):
    """The current sample: a red star with a white rim, as the Plotly view marks it."""
    cx, cy = float(screen.sx(x[0])), float(screen.sy(x[1]))
    k = np.arange(10)
    r = np.where(k % 2 == 0, 9.0, 4.0)
    a = np.pi / 2 + k * np.pi / 5
    pts = " ".join(f"{cx + rr * np.cos(t):.1f},{cy - rr * np.sin(t):.1f}" for rr, t in zip(r, a))
    return f'<polygon points="{pts}" fill="#d62728" stroke="white" stroke-width="1.2"/>'


def network_svg(model, seen=None, bounds=None, width=560, height=430, max_points=3000, title=None, current=None):
    """A static picture of a network as SVG text: data seen, edges by age, nodes by cluster.

    The same marks and colours as :func:`network_figure`, drawn without Plotly, so that a page can show
    it the moment the page arrives (the browser needs no charting library for it; the app's home picture).
    Nodes are sized by win count M; at most ``max_points`` data points are drawn (an even sample).

    Parameters
    ----------
    model : fitted estimator or the result of :func:`saved_network`
        Needs ``nodes_``, ``edges_``, ``node_labels_`` and ``win_counts_``; ``edge_ages_`` if it has them.
    seen : ndarray (n, 2) or None
    bounds : ((xmin, xmax), (ymin, ymax)) or None
        The plotted area (default: the nodes' and data's extent); the axes keep the data's aspect ratio.
    title : str or None
        Alternative text of the picture.
    current : array (2,) or None
        The current sample, marked with a star on top.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> net = SimpleNamespace(nodes_=np.array([[0., 0.], [1., 1.]]), edges_=np.array([[0, 1]]),
    ...                       edge_ages_=np.array([3]), node_labels_=np.array([0, 0]), win_counts_=np.array([5, 2]))
    >>> svg = network_svg(net)
    >>> svg.startswith("<svg") and svg.count("<circle ") == 2 and svg.count("L") == 1  # one edge
    True
    """
    from html import escape

    P = np.asarray(model.nodes_, dtype=float).reshape(-1, 2) if len(model.nodes_) else np.zeros((0, 2))
    pts = np.zeros((0, 2)) if seen is None else np.asarray(seen, dtype=float).reshape(-1, 2)
    if bounds is None:
        both = np.vstack([P, pts]) if len(P) + len(pts) else np.array([[0.0, 0.0], [1.0, 1.0]])
        bounds = tuple(zip(both.min(axis=0), both.max(axis=0)))
    screen = _Screen(bounds, width, height)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" font-family="sans-serif" font-size="12">'
    ]
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    out.append(screen.frame())
    out.append(_svg_data(pts, screen, max_points))
    edges = np.asarray(model.edges_, dtype=int).reshape(-1, 2)
    NX, NY = screen.sx(P[:, 0]), screen.sy(P[:, 1])  # the nodes on screen
    if len(edges) and len(P):
        out.append(_svg_edges(model, edges, NX, NY, width, height))
    if len(P):
        out.append(_svg_nodes(model, NX, NY, len(edges), height))
    if current is not None:
        out.append(_svg_current(np.asarray(current, dtype=float).reshape(-1)[:2], screen))
    out.append("</svg>")
    return "".join(out)

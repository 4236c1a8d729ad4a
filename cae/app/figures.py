"""Figure builders: pure functions from a model (and data) to Plotly figures.

They import no Streamlit and are tested without a browser. Points are sent
as float32, all edges of an age band share one NaN-separated trace, and long
traces are thinned, so a play frame stays small.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

__all__ = [
    "cluster_colors",
    "network_figure",
    "network_svg",
    "traces_figure",
    "topology_figure",
    "diversity_heatmap",
    "vigilance_boundary",
    "layout_positions",
    "thin",
    "AGE_COLORSCALE",
    "MARK_COLORS",
    "focus_window",
    "figure_table",
    "region_outlines",
    "readable",
    "MIN_FONT",
]

#: The cluster colours. The first ten stay apart for colour-blind students: their smallest CIEDE2000 difference
#: is 13.1 or more with normal vision (13.9) and under simulated protanopia (13.3), deuteranopia (13.2) and
#: tritanopia (13.1) (Machado et al. 2009 at full severity; :mod:`cae.app.colour_vision`; Plotly's D3 colours had
#: 16.2, 1.3, 3.3 and 9.5). Every colour has at least 3:1 contrast against the white plot (WCAG 2.1's bar for
#: graphics) and is far from the marks' black and magenta. They were chosen by a max-min search over a grid of
#: sRGB colours with those constraints, in farthest-first order; the other fourteen, for more clusters, by the
#: same search for normal vision only.
PALETTE = [
    "#5577ff",
    "#aa0000",
    "#ff5577",
    "#664488",
    "#2222ff",
    "#aa77aa",
    "#006644",
    "#ff2200",
    "#558855",
    "#aa5577",
    "#bb8800",
    "#0099aa",
    "#665511",
    "#005599",
    "#996644",
    "#889900",
    "#0099ee",
    "#00aa00",
    "#446600",
    "#dd7722",
    "#cc2244",
    "#cc7766",
    "#007799",
    "#008877",
]
#: the smallest text a class must read from the back of a room (px): legends, axis numbers, colour bars, notes.
#: 14 px at 1280×720, a common projector (Plotly's and Streamlit's defaults are 10-12 px)
MIN_FONT = 14
AGE_COLORSCALE = "Viridis"
N_AGE_BANDS = 6


def cluster_colors(labels):
    """A colour per cluster number (cycling a qualitative palette)."""
    return [PALETTE[int(c) % len(PALETTE)] for c in np.asarray(labels, dtype=int)]


def readable(fig, size=MIN_FONT):
    """Every text a class reads in ``fig`` at least ``size`` px: legend, axis numbers and titles, colour bars,
    subplot titles and notes, the numbers written in heatmap cells (hover labels are read up close).

    Returns the figure (changed in place).

    >>> fig = readable(go.Figure(go.Heatmap(z=[[1, 2]]), layout=dict(annotations=[dict(text="a", font=dict(size=10))])))
    >>> fig.layout.font.size, fig.layout.xaxis.tickfont.size, fig.layout.annotations[0].font.size
    (14, 14, 14)
    """
    fig.update_layout(font=dict(size=size), legend=dict(font=dict(size=size), title=dict(font=dict(size=size))))
    fig.update_xaxes(tickfont=dict(size=size), title=dict(font=dict(size=size)))
    fig.update_yaxes(tickfont=dict(size=size), title=dict(font=dict(size=size)))
    for a in fig.layout.annotations or ():
        if a.font.size is None or a.font.size < size:
            a.font.size = size
    for t in fig.data:
        bars = []  # only the colour bars drawn (touching one that is not would draw it)
        if "colorbar" in t and t.showscale is not False:
            bars.append(t.colorbar)
        if "marker" in t and t.marker is not None and "colorbar" in t.marker and t.marker.showscale:
            bars.append(t.marker.colorbar)
        for cb in bars:
            cb.tickfont.size = size
            cb.title.font.size = size
        if t.type == "heatmap" and t.texttemplate:
            t.textfont.size = max(t.textfont.size or 0, size)
    return fig


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


def vigilance_boundary(center, sigma, threshold, dims=(0, 1), n_angles=96, r_max=None):
    """The curve where CIM(p, center, sigma) = V in the plane of ``dims`` (other features at the centre's values).

    Points inside have CIM <= V: a sample there would not create a node (it
    resonates with this node). Returns (x, y) of the closed curve, or None if
    V is not set. Rays are cut at ``r_max`` where the region is unbounded.
    """
    if threshold is None or not np.isfinite(threshold) or not np.isfinite(sigma):
        return None
    d = len(center)
    # CIM^2 = 1 - mean_j exp(-dx_j^2 / 2 s^2); only the two plotted features differ from the centre
    target = d * (1.0 - threshold**2) - (d - 2)  # needed sum of the two exp terms
    if r_max is None:
        r_max = 50 * sigma
    th = np.linspace(0, 2 * np.pi, n_angles)
    c, s = np.cos(th), np.sin(th)

    def f(r):
        return np.exp(-((r * c) ** 2) / (2 * sigma**2)) + np.exp(-((r * s) ** 2) / (2 * sigma**2))

    lo = np.zeros_like(th)
    hi = np.full_like(th, r_max)
    if target > 2:
        return None
    for _ in range(50):  # bisection: f decreases with r
        mid = (lo + hi) / 2
        inside = f(mid) >= target
        lo = np.where(inside, mid, lo)
        hi = np.where(inside, hi, mid)
    r = lo
    return _f32(center[dims[0]] + r * c), _f32(center[dims[1]] + r * s)


def saved_network(path):
    """The drawable parts of a saved CAE model, read with NumPy alone — no scikit-learn.

    Returns an object with ``network_``, ``nodes_``, ``node_ids_``, ``win_counts_``, ``sigmas_``,
    ``edges_``, ``edge_ages_``, ``node_labels_`` and ``n_clusters_``, the same values as
    ``cae.CAE.load(path)`` has (a test checks), for :func:`network_figure` on a first page that must
    not wait for scikit-learn to import (the app's home picture).
    """
    from types import SimpleNamespace

    from .._graph import component_labels, edge_list
    from .._storage import ModelFileError, read_npz
    from ..algorithms import CAENetwork

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


def _node_sizes(win_counts):
    """Marker diameter (px) of each node: 6 to 16 by the square root of its win count M."""
    M = np.asarray(win_counts, dtype=float)
    return 6 + 10 * np.sqrt(M / max(M.max(), 1))


def _age_bands(ages):
    """Edge ages in (at most) N_AGE_BANDS geometric bands: (band index per edge, band starts, colour per band,
    largest age). Band k holds ages from starts[k] up to the next start; the last one everything above."""
    amax = max(int(ages.max()) if len(ages) else 1, 2)
    bands = np.unique(np.geomspace(1, amax + 1, N_AGE_BANDS + 1).astype(int))
    colors = sample_colorscale(AGE_COLORSCALE, [(b - 1) / max(amax - 1, 1) for b in bands[:-1]])
    band = np.clip(np.searchsorted(bands, ages, side="right") - 1, 0, len(colors) - 1)
    return band, bands[:-1], colors, amax


def network_svg(model, seen=None, bounds=None, width=560, height=430, max_points=3000, title=None):
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

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> net = SimpleNamespace(nodes_=np.array([[0., 0.], [1., 1.]]), edges_=np.array([[0, 1]]),
    ...                       edge_ages_=np.array([3]), node_labels_=np.array([0, 0]), win_counts_=np.array([5, 2]))
    >>> svg = network_svg(net)
    >>> svg.startswith("<svg") and svg.count("<circle ") == 2 and svg.count("<line ") == 1
    True
    """
    from html import escape

    P = np.asarray(model.nodes_, dtype=float).reshape(-1, 2) if len(model.nodes_) else np.zeros((0, 2))
    pts = np.zeros((0, 2)) if seen is None else np.asarray(seen, dtype=float).reshape(-1, 2)
    if bounds is None:
        both = np.vstack([P, pts]) if len(P) + len(pts) else np.array([[0.0, 0.0], [1.0, 1.0]])
        bounds = tuple(zip(both.min(axis=0), both.max(axis=0)))
    (x0, x1), (y0, y1) = bounds
    dx, dy = (x1 - x0) or 1.0, (y1 - y0) or 1.0
    x0, x1, y0, y1 = x0 - 0.03 * dx, x1 + 0.03 * dx, y0 - 0.03 * dy, y1 + 0.03 * dy
    legend_h = 26
    scale = min((width - 20) / (x1 - x0), (height - 20 - legend_h) / (y1 - y0))  # equal aspect, as the Plotly view
    ox = (width - scale * (x1 - x0)) / 2
    oy = (height - legend_h - scale * (y1 - y0)) / 2

    def sx(x):
        return ox + (np.asarray(x) - x0) * scale

    def sy(y):
        return height - legend_h - oy - (np.asarray(y) - y0) * scale

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" font-family="sans-serif" font-size="12">'
    ]
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect width="{width}" height="{height}" fill="white"/>')
    out.append(
        f'<rect x="{ox:.1f}" y="{oy:.1f}" width="{scale * (x1 - x0):.1f}" height="{scale * (y1 - y0):.1f}" '
        'fill="none" stroke="#eee"/>'
    )
    if len(pts):
        if len(pts) > max_points:
            pts = pts[np.linspace(0, len(pts) - 1, max_points).astype(int)]
        X, Y = sx(pts[:, 0]), sy(pts[:, 1])
        out.append(
            '<g fill="rgb(120,120,120)" fill-opacity="0.3">'
            + "".join(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="1.3"/>' for a, b in zip(X, Y))
            + "</g>"
        )
    edges = np.asarray(model.edges_, dtype=int).reshape(-1, 2)
    NX, NY = sx(P[:, 0]), sy(P[:, 1])  # the nodes on screen
    if len(edges) and len(P):
        ages = np.asarray(getattr(model, "edge_ages_", np.zeros(0)))
        if len(ages) == len(edges):
            band, _, band_colors, amax = _age_bands(ages)
            colors = [band_colors[b] for b in band]
        else:
            colors, amax = ["#555"] * len(edges), None
        out.append(
            '<g stroke-width="1.6" stroke-linecap="round">'
            + "".join(
                f'<line x1="{NX[a]:.1f}" y1="{NY[a]:.1f}" x2="{NX[b]:.1f}" y2="{NY[b]:.1f}" stroke="{c}"/>'
                for (a, b), c in zip(edges, colors)
            )
            + "</g>"
        )
        if amax is not None:  # the edge-age scale, as the Plotly view's colour bar
            stops = "".join(
                f'<stop offset="{f:.2f}" stop-color="{c}"/>'
                for f, c in zip(np.linspace(0, 1, 6), sample_colorscale(AGE_COLORSCALE, list(np.linspace(0, 1, 6))))
            )
            ly = height - legend_h + 8
            out.append(
                f'<defs><linearGradient id="age">{stops}</linearGradient></defs>'
                f'<text x="{width - 182}" y="{ly + 9}" fill="#444">edge age</text>'
                f'<text x="{width - 122}" y="{ly + 9}" fill="#444" text-anchor="end">1</text>'
                f'<rect x="{width - 117}" y="{ly}" width="80" height="10" fill="url(#age)"/>'
                f'<text x="{width - 33}" y="{ly + 9}" fill="#444">{amax:,}</text>'
            )
    if len(P):
        radius = _node_sizes(model.win_counts_) / 2
        out.append(
            '<g stroke="white" stroke-width="0.8">'
            + "".join(
                f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{r:.1f}" fill="{c}"/>'
                for a, b, r, c in zip(NX, NY, radius, cluster_colors(model.node_labels_))
            )
            + "</g>"
        )
        out.append(
            f'<text x="10" y="{height - legend_h + 17}" fill="#444">{len(P):,} nodes · {len(edges):,} edges · '
            f"{int(getattr(model, 'n_clusters_', len(np.unique(model.node_labels_)))):,} clusters</text>"
        )
    out.append("</svg>")
    return "".join(out)


#: Colours of the marks drawn over the network — s1, s2, the (current, next or placed) sample, the nodes a
#: placed sample would resonate with, nodes just removed. No cluster colour (:data:`PALETTE`) is near black
#: or magenta (at least 40 CIELAB units away; a test checks), so a mark never reads as a cluster.
MARK_S1 = "#000000"
MARK_S2 = "#ff00ff"
MARK_SAMPLE = "#000000"
MARK_RESONATE = "#ff00ff"
MARK_REMOVED = "#000000"
MARK_PLACED = "#ff00ff"  # samples placed by hand
MARK_DRAWN = "#000000"  # the outline of regions drawn by hand
MARK_COLORS = (MARK_S1, MARK_S2, MARK_SAMPLE, MARK_RESONATE, MARK_REMOVED, MARK_PLACED, MARK_DRAWN)
#: the name of the faint stream drawn before the first step
UPCOMING_NAME = "the stream to come"
#: the legend's title, saying so
MARKS_NOTE = "marks in black and magenta (no cluster has these colours):"


def _mark(x, y, name, symbol, color, size, width=3, halo=True, hover=None):
    """A mark drawn over the nodes: WebGL like them (Plotly draws its WebGL layer over the SVG one, and the
    WebGL traces in order), with a white halo under it so that it stands out on any cluster colour."""
    x, y = _f32(np.atleast_1d(x)), _f32(np.atleast_1d(y))
    out = []
    if halo:
        out.append(
            dict(
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
        )
    mark = dict(
        type="scattergl",
        x=x,
        y=y,
        mode="markers",
        name=name,
        legendgroup=name,
        marker=dict(symbol=symbol, size=size, color=color, line=dict(color=color if halo else "white", width=width)),
        hovertext=hover if hover is not None else [name] * len(x),
        hoverinfo="text",
    )
    out.append(mark)
    return out


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


def region_outlines(nodes, sigma, threshold, dims=(0, 1), n_angles=48, r_max=None):
    """Every node's vigilance region, as one NaN-separated polyline per node: ``(x, y)`` or None.

    A node's region is where a sample would resonate with it, CIM(x, y_k, σ̄) ≤ V (the other features at
    the node's values). With one σ̄ and one V for every node, every region is the same closed curve moved
    to its node: it is computed once (:func:`vigilance_boundary`) and translated.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = region_outlines(np.array([[0.0, 0.0], [1.0, 1.0]]), sigma=0.1, threshold=0.3, n_angles=8)
    >>> len(x), int(np.isnan(x).sum())  # 2 curves of 8 points, each closed by a gap
    (18, 2)
    """
    nodes = np.asarray(nodes, dtype=float)
    if len(nodes) == 0:
        return None
    curve = vigilance_boundary(np.zeros(nodes.shape[1]), sigma, threshold, dims=dims, n_angles=n_angles, r_max=r_max)
    if curve is None:
        return None
    i, j = dims
    dx, dy = (np.append(c.astype(float), np.nan) for c in curve)
    return _f32((nodes[:, [i]] + dx).ravel()), _f32((nodes[:, [j]] + dy).ravel())


def focus_window(points, full=None, pad=0.2, min_side=None):
    """The square view around ``points`` (each row x, y): ``((x0, x1), (y0, y1))``, padded by ``pad`` of its
    side on each side; None when it would be as large as ``full`` (the full view's bounds) — no zoom then.

    Examples
    --------
    >>> focus_window([[0.50, 0.50], [0.52, 0.51]], full=((0, 1), (0, 1)))
    ((0.496, 0.524), (0.491, 0.519))
    >>> focus_window([[0.0, 0.0], [1.0, 1.0]], full=((0, 1), (0, 1))) is None
    True
    """
    P = np.asarray(points, dtype=float).reshape(-1, 2)
    P = P[np.all(np.isfinite(P), axis=1)]
    if len(P) == 0:
        return None
    lo, hi = P.min(axis=0), P.max(axis=0)
    side = float(max(hi - lo)) * (1 + 2 * pad)
    if full is not None:
        span = max(full[0][1] - full[0][0], full[1][1] - full[1][0]) or 1.0
        if side >= 0.9 * span:
            return None
        side = max(side, min_side if min_side is not None else 0.005 * span)
    elif min_side is not None:
        side = max(side, min_side)
    side = side or 1e-6
    c = (lo + hi) / 2
    r = lambda v: round(float(v), 12)  # noqa: E731 - plain floats, free of float32 noise
    return (r(c[0] - side / 2), r(c[0] + side / 2)), (r(c[1] - side / 2), r(c[1] + side / 2))


def _corner_note(text):
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
        font=dict(size=MIN_FONT, color="#222"),
    )


def network_figure(
    model=None,
    seen=None,
    recent=None,
    current=None,
    record=None,
    bounds=None,
    show_vigilance=False,
    show_bandwidth=False,
    deleted=None,
    dims=(0, 1),
    height=560,
    title=None,
    highlight=None,
    current_name="current sample",
    focus=False,
    show_all_regions=False,
    drawn_regions=None,
    placed=None,
    upcoming=None,
    note=None,
):
    """The main view: data, nodes, edges by age, winners, the current sample.

    Every mark (s1, s2, the sample, the nodes a placed sample would resonate with, the vigilance region of
    s1, nodes just removed) is drawn after — above — the nodes and edges, in black or magenta, colours no
    cluster has (:data:`MARK_COLORS`); the legend sits above the plot, clear of the axis numbers.

    Parameters
    ----------
    model : cae.CAE or None
    seen, recent : ndarray (n, d) or None
        Data seen so far (drawn faded) and the recent window (brighter).
    current : ndarray (d,) or None
        The sample just learned (marked).
    record : cae.CAEStepRecord or None
        Its record: s1 and s2 are marked (by id), the vigilance region is drawn around s1.
    bounds : ((xmin, xmax), (ymin, ymax)) or None
        Fixed axes, so the view does not jump between frames.
    deleted : ndarray (m, d) or None
        Nodes removed in this frame (flashed).
    highlight : sequence of int or None
        Rows of nodes to ring (e.g. the nodes a placed sample would resonate with).
    focus : bool
        Zoom to s1, s2, the sample and the vigilance region of s1 (a square view, with a note of its width);
        the full view while there is no s1.
    show_all_regions : bool
        Draw every node's vigilance region (:func:`region_outlines`), in its cluster's colour.
    drawn_regions : sequence of cae.app.regions.Region or None
        Regions drawn by hand that the next samples come from: outlined (a black dashed line on a white halo).
    placed : ndarray (m, d) or None
        Samples placed by hand so far: magenta crosses.
    upcoming : ndarray (m, d) or None
        The stream still to come (before the first step: what the class is about to see), drawn fainter
        than the data seen, as "the stream to come".
    note : str or None
        A line written in the plot's top left corner (e.g. what to press first).

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
    i, j = dims
    traces = []
    marks = []  # drawn after the nodes
    mark_labels = []  # the names written beside marks (annotations, above everything)
    edge_shapes = []  # the edges, as SVG paths (layout shapes) under every WebGL trace
    focus_points = []
    if upcoming is not None and len(upcoming):
        traces.append(
            dict(
                type="scattergl",
                x=_f32(upcoming[:, i]),
                y=_f32(upcoming[:, j]),
                mode="markers",
                name=UPCOMING_NAME,
                marker=dict(size=3, color="rgba(120,120,120,0.18)"),
                hoverinfo="skip",
            )
        )
    if seen is not None and len(seen):
        traces.append(
            dict(
                type="scattergl",
                x=_f32(seen[:, i]),
                y=_f32(seen[:, j]),
                mode="markers",
                name="data seen",
                marker=dict(size=3, color="rgba(120,120,120,0.25)"),
                hoverinfo="skip",
            )
        )
    if recent is not None and len(recent):
        traces.append(
            dict(
                type="scattergl",
                x=_f32(recent[:, i]),
                y=_f32(recent[:, j]),
                mode="markers",
                name="recent window",
                marker=dict(size=4, color="rgba(31,119,180,0.55)"),
                hoverinfo="skip",
            )
        )
    span = None
    if bounds is not None:
        span = max(bounds[0][1] - bounds[0][0], bounds[1][1] - bounds[1][0])
    fitted = model is not None and hasattr(model, "network_") and len(model.nodes_) > 0
    has_regions = (
        fitted
        and hasattr(model, "prediction_sigma")
        and hasattr(model, "threshold_")
        and np.isfinite(getattr(model, "threshold_", np.nan))
    )
    if fitted:
        P = np.asarray(model.nodes_)[:, [i, j]]
        clouds = hasattr(model, "cloud_variances_")
        labels = np.asarray(model.node_labels_)
        if show_all_regions and has_regions:
            outline = region_outlines(model.nodes_, model.prediction_sigma(), model.threshold_, dims=dims, r_max=span)
            if outline is not None:
                per = len(outline[0]) // len(P)  # points per node's curve (its closing gap included)
                ox, oy = outline[0].reshape(len(P), per), outline[1].reshape(len(P), per)
                colour_of = np.asarray(labels, dtype=int) % len(PALETTE)
                for n, k in enumerate(np.unique(colour_of)):
                    sel = colour_of == k
                    traces.append(
                        dict(
                            type="scattergl",
                            x=ox[sel].ravel(),
                            y=oy[sel].ravel(),
                            mode="lines",
                            name="every node's vigilance region",
                            legendgroup="regions",
                            showlegend=n == 0,
                            line=dict(color=PALETTE[k], width=1),
                            opacity=0.6,
                            hoverinfo="skip",
                        )
                    )
        edges = np.asarray(model.edges_).reshape(-1, 2)
        ages = np.asarray(model.edge_ages_) if hasattr(model, "edge_ages_") else None
        if ages is None:  # edges without an age (TCA): one colour
            if len(edges):
                edge_shapes.append(_edge_shape(P, edges, "#555", 1.4, "edges"))
        else:
            band, starts, colors, amax = _age_bands(ages)
            for k in range(len(colors)):
                sel = band == k
                if sel.any():
                    edge_shapes.append(_edge_shape(P, edges[sel], colors[k], 1.6, f"edges age {starts[k]}+"))
            if len(ages):
                traces.append(
                    dict(
                        type="scatter",
                        x=[None],
                        y=[None],
                        mode="markers",
                        showlegend=False,
                        hoverinfo="skip",
                        marker=dict(
                            color=[1, amax],
                            colorscale=AGE_COLORSCALE,
                            cmin=1,
                            cmax=amax,
                            showscale=True,
                            size=0,
                            colorbar=dict(
                                title=dict(text="edge age", font=dict(size=MIN_FONT)),
                                tickfont=dict(size=MIN_FONT),
                                thickness=12,
                                len=0.6,
                            ),
                        ),
                    )
                )
        if clouds:  # AutoCloud: each cloud's spread, the root of its variance (mean squared distance)
            spread = np.sqrt(np.maximum(np.asarray(model.cloud_variances_, float), 0))
            x, y = _circles(P, spread, n=48)
            traces.append(
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
        if show_bandwidth and hasattr(model, "sigmas_"):
            x, y = _circles(P, np.asarray(model.sigmas_))
            traces.append(
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
        M = np.asarray(model.win_counts_, dtype=float)
        size = _node_sizes(M)
        ids = np.asarray(model.node_ids_)
        what = "cloud" if clouds else "node"
        hover = [f"{what} {n} · cluster {c} · {'n' if clouds else 'M'}={m:g}" for n, c, m in zip(ids, labels, M)]
        if hasattr(model, "sigmas_"):
            hover = [f"{h} · σ={v:.4g}" for h, v in zip(hover, np.asarray(model.sigmas_))]
        traces.append(
            dict(
                type="scattergl",
                x=_f32(P[:, 0]),
                y=_f32(P[:, 1]),
                mode="markers",
                name="cloud centres" if clouds else "nodes",
                marker=dict(
                    size=size if not clouds else 12,
                    color=cluster_colors(labels),
                    symbol="diamond" if clouds else "circle",
                    line=dict(color="white", width=0.8),
                ),
                text=hover,
                hoverinfo="text",
            )
        )
        if record is not None and getattr(record, "s1_id", -1) >= 0:
            rings = []
            for key, sym, col, what, where in (
                ("s2_id", "diamond-open", MARK_S2, "runner-up", "bottom left"),
                ("s1_id", "circle-open", MARK_S1, "winner", "top right"),
            ):
                nid = getattr(record, key)
                rows = np.flatnonzero(ids == nid) if nid >= 0 else []
                if len(rows):
                    r = rows[0]
                    focus_points.append(P[r])
                    rings += _mark(P[r, 0], P[r, 1], key[:2], sym, col, 24, hover=[f"{key[:2]} ({what}): node {nid}"])
                    mark_labels.append(_label(P[r, 0], P[r, 1], key[:2], col, where))
            if record.s1_id in ids and has_regions:
                r = int(np.flatnonzero(ids == record.s1_id)[0])
                curve = vigilance_boundary(
                    np.asarray(model.nodes_)[r], model.prediction_sigma(), model.threshold_, dims=dims, r_max=span
                )
                if curve is not None:
                    focus_points.append(np.column_stack(curve))
                    if show_vigilance:
                        marks.append(
                            dict(
                                type="scattergl",
                                x=curve[0],
                                y=curve[1],
                                mode="lines",
                                name="vigilance region of s1 (CIM ≤ V)",
                                fill="toself",
                                fillcolor="rgba(0,0,0,0.045)",
                                line=dict(color=MARK_S1, dash="dot", width=2),
                                hoverinfo="skip",
                            )
                        )
            marks += rings
    if fitted and highlight is not None and len(highlight):
        H = P[np.asarray(highlight, dtype=int)]
        marks += _mark(H[:, 0], H[:, 1], "would resonate (CIM ≤ V)", "circle-open", MARK_RESONATE, 20)
    if deleted is not None and len(deleted):
        marks += _mark(deleted[:, i], deleted[:, j], "removed this frame", "x-thin", MARK_REMOVED, 14, halo=False)
    if drawn_regions:
        xs, ys = [], []
        for region in drawn_regions:
            ox, oy = region.outline()
            xs += [*ox, np.nan]
            ys += [*oy, np.nan]
        name = "your drawing: the next samples come from here"
        for colour, width, dash, legend in (("white", 5, "solid", False), (MARK_DRAWN, 2.5, "dash", True)):
            marks.append(
                dict(
                    type="scattergl",
                    x=_f32(xs),
                    y=_f32(ys),
                    mode="lines",
                    name=name if legend else f"{name} (halo)",
                    legendgroup="drawing",
                    showlegend=legend,
                    line=dict(color=colour, width=width, dash=dash),
                    hoverinfo="skip",
                )
            )
    if placed is not None and len(placed):
        marks += _mark(placed[:, i], placed[:, j], "placed by hand", "cross", MARK_PLACED, 12, width=1)
    if current is not None:
        focus_points.append([float(current[i]), float(current[j])])
        marks.append(
            dict(
                type="scattergl",
                x=_f32([current[i]]),
                y=_f32([current[j]]),
                mode="markers",
                name=current_name,
                marker=dict(symbol="star", size=20, color=MARK_SAMPLE, line=dict(color="white", width=1.5)),
                hovertext=[current_name],
                hoverinfo="text",
            )
        )
    traces += marks
    window = None
    if focus and record is not None and getattr(record, "s1_id", -1) >= 0 and focus_points:
        window = focus_window(np.vstack([np.asarray(p, float).reshape(-1, 2) for p in focus_points]), bounds)
    layout = dict(
        height=height,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        uirevision="network-focus" if window else "network",
        # above the plot, clear of the axis numbers; it makes its own room (the margin grows to hold it)
        legend=dict(
            orientation="h",
            yanchor="bottom",
            y=1.01,
            xanchor="left",
            x=0,
            title=dict(text=MARKS_NOTE, side="top", font=dict(size=MIN_FONT, color="#555")) if marks else None,
            font=dict(size=MIN_FONT),
        ),
        font=dict(size=MIN_FONT),
        plot_bgcolor="white",
        hoverlabel=dict(namelength=-1),
    )
    if title:
        layout["title"] = dict(text=title)
    if edge_shapes:
        layout["shapes"] = edge_shapes
    if mark_labels:
        layout["annotations"] = mark_labels
    if note:
        layout["annotations"] = [_corner_note(note), *layout.get("annotations", [])]
    if window:
        width = window[0][1] - window[0][0]
        full = f" (the full view: {span:.2g})" if span else ""
        layout["annotations"] = [_corner_note(f"focused on s1 · view {width:.2g} wide{full}"), *mark_labels]
    # plain dicts and no validation: plotly's per-element checks of 5,000 points and
    # hundreds of node colours would cost more than the learning itself
    # the axes in the layout itself (update_xaxes/update_yaxes validate: a third of a Play frame's figure time)
    layout["xaxis"] = dict(automargin=True, tickfont=dict(size=MIN_FONT))
    layout["yaxis"] = dict(automargin=True, tickfont=dict(size=MIN_FONT))
    if window is not None or bounds is not None:
        if window is not None:
            (x0, x1), (y0, y1) = window
            px = py = 0.0
        else:
            (x0, x1), (y0, y1) = bounds
            px, py = 0.03 * (x1 - x0 or 1), 0.03 * (y1 - y0 or 1)
        grid = dict(showgrid=True, gridcolor="#eee", zeroline=False)
        layout["xaxis"].update(range=[x0 - px, x1 + px], constrain="domain", **grid)
        layout["yaxis"].update(range=[y0 - py, y1 + py], scaleanchor="x", scaleratio=1, **grid)
    return go.Figure(data=traces, layout=layout, _validate=False)


def _values(a):
    """A trace's x / y / z as a NumPy array (plain lists, arrays or plotly.js typed-array specs)."""
    if a is None:
        return None
    if isinstance(a, dict) and "bdata" in a:
        import base64

        shape = a.get("shape")
        v = np.frombuffer(base64.b64decode(a["bdata"]), dtype=np.dtype(a["dtype"]).newbyteorder("<"))
        return v.reshape([int(n) for n in str(shape).split(",")]) if shape else v
    return np.asarray(a, dtype=object if isinstance(a, (list, tuple)) and a and isinstance(a[0], str) else None)


def figure_table(fig, x_name="x", y_name="y"):
    """A chart's data as a table: its text alternative, for a screen reader or for reading the numbers.

    A heatmap is its matrix (rows and columns named by its axes' labels). Any other figure gives one row per
    data point of every named trace: the panel (its subplot's title, when there are several), the series, x and
    y (``x_name``, ``y_name``); the gaps between line pieces (NaN) and unnamed traces are left out.

    >>> import plotly.graph_objects as go
    >>> fig = go.Figure([go.Scatter(x=[1, 2, None], y=[3.0, 4.0, None], name="V")])
    >>> figure_table(fig).to_dict("list")
    {'series': ['V', 'V'], 'x': [1.0, 2.0], 'y': [3.0, 4.0]}
    """
    import pandas as pd

    data = fig.data if hasattr(fig, "data") else fig["data"]
    for tr in data:
        if tr.type == "heatmap":
            z = np.asarray(_values(tr.z), dtype=float)
            rows = list(_values(tr.y)) if tr.y is not None else list(range(z.shape[0]))
            cols = list(_values(tr.x)) if tr.x is not None else list(range(z.shape[1]))
            return pd.DataFrame(z, index=pd.Index([str(r) for r in rows]), columns=[str(c) for c in cols])
    titles = {}
    grid = getattr(fig, "_grid_ref", None)
    if grid is not None:  # make_subplots: the subplot titles are the first annotations, one per subplot in order
        names = [a.text for a in fig.layout.annotations][: sum(len(row) for row in grid)]
        axes = [cell[0].trace_kwargs.get("yaxis", "y") for row in grid for cell in row if cell]
        titles = dict(zip(axes, names))
    out = []
    for tr in data:
        if not tr.name or tr.x is None or tr.y is None:
            continue
        x, y = _values(tr.x), _values(tr.y)
        n = min(len(x), len(y))
        for xv, yv in zip(x[:n], y[:n]):
            try:
                if yv is None or xv is None or np.isnan(float(yv)) or np.isnan(float(xv)):
                    continue
            except (TypeError, ValueError):
                pass
            row = {"series": tr.name, x_name: xv, y_name: yv}
            if titles:
                row = {"panel": titles.get(tr.yaxis or "y", ""), **row}
            out.append(row)
    table = pd.DataFrame(out, columns=(["panel"] if titles else []) + ["series", x_name, y_name])
    for c in (x_name, y_name):
        try:
            table[c] = table[c].astype(float)
        except (TypeError, ValueError):
            pass
    return table


def thin(t, *cols, max_points=1500):
    """Every k-th point so that at most ``max_points`` remain (the last one kept)."""
    n = len(t)
    if n <= max_points:
        return (t, *cols)
    idx = np.unique(np.append(np.linspace(0, n - 1, max_points).astype(int), n - 1))
    return (t[idx], *(c[idx] for c in cols))


def traces_figure(
    trace, columns, stage_starts=(), stage_names=(), events=(), t_now=None, height=900, max_points=1500, x_max=None
):
    """Internal quantities over samples seen, on one shared x-axis.

    Rows: #nodes/#edges/#clusters; the threshold V; lambda and n_active; the
    DPP diversity D (log scale, with the 1e-6 line); a_max at each step and the
    mean age of deleted edges. Vertical lines mark stream switches and
    threshold set-ups; ticks on the first row mark isolated-node sweeps.
    """
    col = {c: k for k, c in enumerate(columns)}
    trace = np.asarray(trace)
    fig = make_subplots(
        rows=5,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.055,
        subplot_titles=(
            "network size",
            "similarity threshold V",
            "λ and n_active",
            "diversity D = det(exp R) (initial phase)",
            "edge-age threshold a_max",
        ),
    )
    if len(trace):
        t = trace[:, col["t"]]

        def line(row, name, key, color, **kw):
            tt, v = thin(t, trace[:, col[key]], max_points=max_points)
            fig.add_trace(
                go.Scattergl(x=_f32(tt), y=_f32(v), mode="lines", name=name, line=dict(color=color), **kw),
                row=row,
                col=1,
            )

        line(1, "#nodes", "n_nodes", "#1f77b4")
        line(1, "#edges", "n_edges", "#7f7f7f")
        line(1, "#clusters", "n_clusters", "#2ca02c")
        line(2, "V", "threshold", "#d62728")
        line(3, "λ", "deletion_interval", "#9467bd")
        line(3, "n_active", "n_active_nodes", "#8c564b")
        D = trace[:, col["diversity"]]
        ok = np.isfinite(D)
        if ok.any():
            Dv = np.where(D[ok] > 0, D[ok], np.nan)
            tt, v = thin(t[ok], Dv, max_points=max_points)
            fig.add_trace(
                go.Scatter(
                    x=_f32(tt), y=v, mode="lines+markers", name="D", marker=dict(size=4), line=dict(color="#17becf")
                ),
                row=4,
                col=1,
            )
            fig.add_trace(
                go.Scatter(
                    x=[float(tt[0]), float(max(tt[-1], tt[0] + 1))],
                    y=[1e-6, 1e-6],
                    mode="lines",
                    name="1e-6",
                    line=dict(color="#d62728", dash="dash"),
                ),
                row=4,
                col=1,
            )
        fig.update_yaxes(type="log", row=4, col=1)
        A = trace[:, col["a_max"]]
        ok = np.isfinite(A)
        if ok.any():
            tt, v = thin(t[ok], A[ok], max_points=max_points)
            fig.add_trace(
                go.Scattergl(x=_f32(tt), y=_f32(v), mode="markers", name="a_max", marker=dict(size=3, color="#ff7f0e")),
                row=5,
                col=1,
            )
        line(5, "mean age of deleted edges", "mean_deleted_edge_age", "#1f77b4")
        top = float(np.nanmax(trace[:, col["n_nodes"]]))
        for kind, row, y, name, color in (
            ("sweep", 1, top * 1.05, "isolated-node sweep", "#d62728"),
            ("setup", 2, None, "threshold set-up", "#2ca02c"),
        ):
            ts = np.asarray([e[0] for e in events if e[1] == kind], dtype=float)
            if not len(ts):
                continue
            if len(ts) > max_points:
                ts = ts[np.linspace(0, len(ts) - 1, max_points).astype(int)]
            if y is None:
                ys = trace[np.clip(ts.astype(int) - 1, 0, len(trace) - 1), col["threshold"]]
            else:
                ys = np.full(len(ts), y)
            fig.add_trace(
                go.Scattergl(
                    x=_f32(ts),
                    y=_f32(ys),
                    mode="markers",
                    name=name,
                    marker=dict(symbol="line-ns-open", size=9, color=color),
                ),
                row=row,
                col=1,
            )
    if x_max is None:
        x_max = max(float(trace[-1, col["t"]]) * 1.04 if len(trace) else 0.0, 20.0)
    shapes, notes = [], []
    for k, s in enumerate(stage_starts):
        if k == 0 or s > x_max:
            continue
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=float(s),
                x1=float(s),
                y0=0,
                y1=1,
                line=dict(color="rgba(0,0,0,0.45)", dash="dash", width=1),
            )
        )
        notes.append(
            dict(
                x=float(s),
                y=1.0,
                xref="x",
                yref="paper",
                text=f"→ {stage_names[k]}",
                showarrow=False,
                xanchor="left",
                font=dict(size=MIN_FONT),
            )
        )
    for e in events:
        if e[1] == "lambda":
            shapes.append(
                dict(
                    type="line",
                    xref="x",
                    yref="paper",
                    x0=float(e[0]),
                    x1=float(e[0]),
                    y0=0,
                    y1=1,
                    line=dict(color="rgba(44,160,44,0.6)", width=1, dash="dot"),
                )
            )
            notes.append(
                dict(
                    x=float(e[0]),
                    y=0.02,
                    xref="x",
                    yref="paper",
                    text=e[2],
                    showarrow=False,
                    xanchor="left",
                    font=dict(size=MIN_FONT, color="#2ca02c"),
                )
            )
    if t_now is not None:
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=float(t_now),
                x1=float(t_now),
                y0=0,
                y1=1,
                line=dict(color="black", width=1),
            )
        )
    fig.update_layout(shapes=list(fig.layout.shapes) + shapes, annotations=list(fig.layout.annotations) + notes)
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        uirevision="traces",
        # at the right, top-aligned: clear of the "samples seen" title and of every axis's numbers
        legend=dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top"),
        hovermode="x unified",
        hoverlabel=dict(namelength=-1),  # names whole ("isolated-node sweep"), not cut at 15 characters
    )
    fig.update_xaxes(range=[0, x_max], automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(title_text="samples seen", row=5, col=1)
    return readable(fig)


def layout_positions(model, layout="spring", seed=0):
    """Node positions from a networkx layout ('spring' or 'kamada_kawai'), keyed by row."""
    import networkx as nx

    g = nx.Graph()
    K = len(model.nodes_)
    g.add_nodes_from(range(K))
    g.add_edges_from(map(tuple, np.asarray(model.edges_).tolist()))
    if K == 0:
        return np.zeros((0, 2))
    if layout == "kamada_kawai":
        # Kamada-Kawai needs finite distances: lay out each component, then place them on a grid
        pos = {}
        comps = sorted(nx.connected_components(g), key=lambda c: (-len(c), min(c)))
        cols = max(1, math.ceil(math.sqrt(len(comps))))
        for k, comp in enumerate(comps):
            sub = g.subgraph(comp)
            p = nx.kamada_kawai_layout(sub) if len(comp) > 1 else {next(iter(comp)): np.zeros(2)}
            scale = 0.45 * math.sqrt(len(comp) / K) if K else 1
            off = np.array([k % cols, -(k // cols)], dtype=float)
            for n, xy in p.items():
                pos[n] = off + scale * np.asarray(xy)
    elif layout == "spring":
        pos = nx.spring_layout(g, seed=seed, k=1.5 / math.sqrt(max(K, 1)))
    else:
        raise ValueError("layout must be 'spring' or 'kamada_kawai'")
    return np.array([pos[k] for k in range(K)])


def topology_figure(model, layout="spring", seed=0, height=480, positions=None):
    """The network laid out by networkx, coloured by cluster, sized by win count."""
    fig = go.Figure()
    if model is not None and hasattr(model, "network_") and len(model.nodes_):
        P = layout_positions(model, layout, seed) if positions is None else positions
        x, y = _segments(P, np.asarray(model.edges_))
        fig.add_trace(
            go.Scattergl(x=x, y=y, mode="lines", line=dict(color="#999", width=1), hoverinfo="skip", name="edges")
        )
        M = np.asarray(model.win_counts_)
        labels = np.asarray(model.node_labels_)
        hover = [f"node {n} · cluster {c} · M={m}" for n, c, m in zip(model.node_ids_, labels, M)]
        fig.add_trace(
            go.Scattergl(
                x=_f32(P[:, 0]),
                y=_f32(P[:, 1]),
                mode="markers",
                name="nodes",
                marker=dict(size=5 + 9 * np.sqrt(M / max(M.max(), 1)), color=cluster_colors(labels)),
                text=hover,
                hoverinfo="text",
            )
        )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10), showlegend=False, plot_bgcolor="white")
    readable(fig)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return fig


def diversity_heatmap(R, height=380):
    """The diversity matrix R (R_kl = 1 - CIM(y_k, y_l, sigma_init)) as a heatmap."""
    R = np.asarray(R)
    fig = go.Figure(go.Heatmap(z=R, colorscale="Blues", zmin=0, zmax=1, colorbar=dict(title=dict(text="R"))))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10))
    fig.update_yaxes(autorange="reversed", title_text="node")
    fig.update_xaxes(title_text="node")
    return readable(fig)


def compare_figure(series, titles, height=620, stage_starts=(), max_points=1500, stage_names=()):
    """Several runs' traces on shared axes: ``series`` is a list (one per row) of ``{label: (t, values)}``.

    A dashed line marks where each stage after the first starts, labelled at the top with its name from
    ``stage_names`` ("→ stream #2"), or "→ stage k" without names.
    """
    fig = make_subplots(rows=len(series), cols=1, shared_xaxes=True, vertical_spacing=0.07, subplot_titles=titles)
    for r, runs in enumerate(series, start=1):
        for k, (label, (t, v)) in enumerate(runs.items()):
            tt, vv = thin(np.asarray(t), np.asarray(v), max_points=max_points)
            fig.add_trace(
                go.Scattergl(
                    x=_f32(tt),
                    y=_f32(vv),
                    mode="lines",
                    name=label,
                    legendgroup=label,
                    showlegend=r == 1,
                    line=dict(color=PALETTE[k % len(PALETTE)]),
                ),
                row=r,
                col=1,
            )
    for k, s in enumerate(list(stage_starts)[1:], start=1):
        fig.add_vline(x=float(s), line=dict(color="rgba(0,0,0,0.4)", dash="dash", width=1))
        fig.add_annotation(
            x=float(s),
            y=1.0,
            xref="x",
            yref="paper",
            text=f"→ {stage_names[k]}" if k < len(stage_names) else f"→ stage {k + 1}",
            showarrow=False,
            xanchor="left",
            yanchor="top",
            font=dict(size=12),
            bgcolor="rgba(255,255,255,0.85)",  # readable over the traces
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        hovermode="x unified",
        hoverlabel=dict(namelength=-1),
        legend=dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top"),  # clear of the axis numbers
    )
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(title_text="samples seen", row=len(series), col=1)
    return readable(fig)


def projected_network_figure(
    nodes_2d, edges, node_labels, win_counts, data_2d=None, data_labels=None, axis_titles=("x", "y"), height=520
):
    """A network drawn in any 2-D view (e.g. a PCA projection): nodes by cluster, edges, data faded."""
    traces = []
    if data_2d is not None and len(data_2d):
        color = "rgba(120,120,120,0.3)" if data_labels is None else cluster_colors(data_labels)
        traces.append(
            dict(
                type="scattergl",
                x=_f32(data_2d[:, 0]),
                y=_f32(data_2d[:, 1]),
                mode="markers",
                name="data",
                marker=dict(size=3, color=color, opacity=0.35),
                hoverinfo="skip",
            )
        )
    if len(nodes_2d):
        x, y = _segments(np.asarray(nodes_2d), np.asarray(edges).reshape(-1, 2))
        traces.append(
            dict(
                type="scattergl",
                x=x,
                y=y,
                mode="lines",
                name="edges",
                line=dict(color="#555", width=1),
                hoverinfo="skip",
            )
        )
        M = np.asarray(win_counts)
        traces.append(
            dict(
                type="scattergl",
                x=_f32(nodes_2d[:, 0]),
                y=_f32(nodes_2d[:, 1]),
                mode="markers",
                name="nodes",
                marker=dict(
                    size=6 + 10 * np.sqrt(M / max(M.max(), 1)),
                    color=cluster_colors(node_labels),
                    line=dict(color="white", width=0.8),
                ),
                text=[f"cluster {c}" for c in node_labels],
                hoverinfo="text",
            )
        )
    fig = go.Figure(
        data=traces,
        layout=dict(
            height=height,
            margin=dict(l=10, r=10, t=10, b=10),
            plot_bgcolor="white",
            legend=dict(orientation="h", y=-0.08),
        ),
        _validate=False,
    )
    fig.update_xaxes(title_text=axis_titles[0], showgrid=True, gridcolor="#eee")
    fig.update_yaxes(title_text=axis_titles[1], showgrid=True, gridcolor="#eee")
    return readable(fig)


def matrix_heatmap(
    M, x_labels, y_labels, title="", zmin=None, zmax=None, colorscale="Blues", height=380, fmt=".2f", marked=None
):
    """A labelled heatmap with the values written in the cells (R matrices, contingency tables).

    ``marked``: a boolean mask of cells whose value gets a trailing ``*`` (a footnote the page explains).
    """
    M = np.asarray(M, dtype=float)
    mark = np.zeros(M.shape, bool) if marked is None else np.asarray(marked, bool)
    text = [
        ["" if not np.isfinite(v) else format(v, fmt) + ("*" if k else "") for v, k in zip(row, krow)]
        for row, krow in zip(M, mark)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=M,
            x=[str(v) for v in x_labels],
            y=[str(v) for v in y_labels],
            text=text,
            texttemplate="%{text}",
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            colorbar=dict(title=dict(text=title)),
        )
    )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return readable(fig)


def bars_with_std(df, group, metrics, reference=None, height=360):
    """Mean bars with a std error bar per group and metric; ``reference`` = {metric: (mean, std)} drawn beside."""
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=metrics)
    groups = list(dict.fromkeys(df[group]))
    for c, m in enumerate(metrics, start=1):
        mean = [df.loc[df[group] == g, m].mean() for g in groups]
        std = [df.loc[df[group] == g, m].std(ddof=1) if (df[group] == g).sum() > 1 else 0.0 for g in groups]
        fig.add_trace(
            go.Bar(
                x=[str(g) for g in groups],
                y=mean,
                error_y=dict(type="data", array=std),
                name="ours",
                marker_color=PALETTE[0],
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
        if reference and m in reference:
            fig.add_trace(
                go.Bar(
                    x=["paper"],
                    y=[reference[m][0]],
                    error_y=dict(type="data", array=[reference[m][1]]),
                    name="paper",
                    marker_color=PALETTE[1],
                    showlegend=c == 1,
                ),
                row=1,
                col=c,
            )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10), barmode="group")
    return readable(fig)


def lambda_sweep_figure(df, height=380):
    """NMI and #clusters against a fixed lambda, with the estimated lambda marked."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("NMI", "#clusters"))
    fixed = df[~df["estimated"]].groupby("lambda")[["nmi", "n_clusters"]].agg(["mean", "std"])
    est = df[df["estimated"]]
    for c, m in enumerate(("nmi", "n_clusters"), start=1):
        fig.add_trace(
            go.Scatter(
                x=fixed.index.to_numpy(float),
                y=fixed[(m, "mean")],
                mode="lines+markers",
                error_y=dict(type="data", array=fixed[(m, "std")].fillna(0)),
                name="λ fixed",
                marker_color=PALETTE[0],
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
        fig.add_trace(
            go.Scatter(
                x=est["lambda"].to_numpy(float),
                y=est[m],
                mode="markers",
                name="λ estimated",
                marker=dict(symbol="star", size=14, color=PALETTE[3]),
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
    fig.update_xaxes(type="log", title_text="λ")
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10))
    return readable(fig)


def runtime_figure(df, height=360):
    """Seconds per dataset, split into the diversity (lambda-estimation) phase and the rest; peak memory."""
    g = df.groupby("dataset", sort=False)[["seconds", "diversity_seconds", "peak_mb"]].mean()
    fig = make_subplots(rows=1, cols=2, subplot_titles=("wall time (s)", "peak memory (MB)"))
    fig.add_trace(
        go.Bar(x=g.index, y=g["diversity_seconds"], name="until λ is fixed (DPP diversity)", marker_color=PALETTE[1]),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=g.index, y=g["seconds"] - g["diversity_seconds"], name="the rest of the pass", marker_color=PALETTE[0]
        ),
        row=1,
        col=1,
    )
    fig.add_trace(go.Bar(x=g.index, y=g["peak_mb"], name="peak traced memory", marker_color=PALETTE[2]), row=1, col=2)
    fig.update_layout(barmode="stack", height=height, margin=dict(l=10, r=10, t=30, b=10))
    return readable(fig)

"""The colours, marks and text sizes every view shares, and :func:`readable` (text a class reads from the back).

No cluster colour (:data:`PALETTE`) is near the marks' black and magenta (:data:`MARK_COLORS`; a test checks).
"""

from __future__ import annotations

import numpy as np

#: The cluster colours: one for each of the ten largest clusters shown (:func:`cluster_colors`), every other cluster
#: in :data:`OTHER_CLUSTERS`. Any two colours shown at once — these ten, the grey of the others and the marks' black
#: and magenta (:data:`MARK_COLORS`) — are at least 12.1 CIEDE2000 apart with normal vision and under simulated
#: protanopia, deuteranopia and tritanopia (Machado et al. 2009 at full severity; :mod:`cae.app.colour_vision`;
#: the palette before this rule had 1.1 under deuteranopia once its eleventh colour was used, and the marks'
#: magenta 3.8 from its first colour). Every colour has at least 3:1 contrast against the white plot (WCAG 2.1's bar
#: for graphics), a CIELAB chroma of 30 or more, and is more than 40 CIELAB units from black and magenta. They were
#: chosen by a farthest-first search over the sRGB colours in steps of 17 with those constraints (restarted from 150
#: seeds, the largest set kept), then ordered by hand: bright and distinct first, for the largest clusters.
PALETTE = [
    "#0000ee",
    "#dd3366",
    "#2299aa",
    "#999922",
    "#661188",
    "#337755",
    "#772244",
    "#556600",
    "#775588",
    "#224411",
]

#: the one neutral tone of every cluster beyond the ten largest (the legend says how many): 3.9:1 on white
OTHER_CLUSTERS = "#808080"

#: the smallest text a class must read from the back of a room (px): legends, axis numbers, colour bars, notes.
#: 14 px at 1280×720, a common projector (Plotly's and Streamlit's defaults are 10-12 px)
MIN_FONT = 14

#: The edge-age bands' colours, youngest first: edges younger than half the age limit a_max, edges between half of
#: a_max and a_max, and edges past a_max (which go when one of their ends next wins; in the key by their ranges,
#: :func:`~._draw.age_bands`). Three because three stay apart for everyone: any two are at least 26 CIEDE2000 apart
#: with normal vision and under simulated protanopia, deuteranopia and tritanopia (Machado et al. 2009;
#: tests/unit/test_colour_vision.py), where the five Viridis bands of before were 2.8-3.0 apart (2.2 under
#: deuteranopia): a light slate, a dark navy (lighter to darker as an edge ages) and a vermilion for the edges past
#: the limit. Each keeps at least 3.4:1 on the white plot (WCAG 2.1's bar for graphics).
AGE_COLOURS = ("#7a8ca3", "#1f3d66", "#c85a00")
#: the most edge-age bands a picture draws (one per colour of :data:`AGE_COLOURS`)
N_AGE_BANDS = len(AGE_COLOURS)
#: the former continuous age scale, kept for the names that import it (no picture draws it any more)
AGE_COLORSCALE = "Viridis"
LEGIBLE_AGE_END = 0.58

#: The data under the network, opaque (a projector washes out a grey at 25 % opacity): the recent window at 3.6:1 on
#: the white plot (WCAG's 3:1 for graphics), the data seen before it lighter (2.0:1) but there, the stream still to
#: come (before the first step) fainter again. Greys: a cluster colour among the data would read as nodes.
DATA_RECENT = "#858585"
DATA_SEEN = "#b8b8b8"
DATA_UPCOMING = "#cccccc"

#: the axis numbers and titles of the pictures: 9.7:1 on white (Streamlit's theme writes them at 3.7:1)
AXIS_TEXT = "#444444"

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
#: the names written beside the marks in their mark's colour, as text: magenta itself is 3.1:1 on white, this
#: darker magenta 6.1:1 (WCAG's 4.5:1 for text)
MARK_S2_TEXT = "#b000b0"

MARK_COLORS = (MARK_S1, MARK_S2, MARK_SAMPLE, MARK_RESONATE, MARK_REMOVED, MARK_PLACED, MARK_DRAWN)

#: the name of the faint stream drawn before the first step
UPCOMING_NAME = "the stream to come"

#: the legend's title, saying so
MARKS_NOTE = "marks in black and magenta (no cluster has these colours):"


def colour_index(labels, weights=None, order=None):
    """Each element's colour in :data:`PALETTE` by the rule of the views (``-1``: :data:`OTHER_CLUSTERS`).

    The ten largest clusters — by their weight, the sum of ``weights`` over their elements (a network's win counts
    M), or their number of elements; ties by cluster number — take the palette's colours, every other cluster the
    one grey. So every pair of colours shown at once stays distinguishable, for colour-blind students too, however
    many clusters there are. Among the ten, the colours go by ``order`` (the smallest of each cluster's elements:
    a network's node ids, so the oldest cluster first), else by cluster number: a cluster keeps its colour while it
    grows past another, frame after frame.

    >>> colour_index([5, 5, 7, 9, 9, 9]).tolist()  # three clusters: the palette's first three, by cluster number
    [0, 0, 1, 2, 2, 2]
    >>> colour_index([5, 5, 7, 9, 9, 9], order=[4, 6, 0, 1, 2, 3]).tolist()  # cluster 7 holds the oldest node
    [2, 2, 0, 1, 1, 1]
    >>> from collections import Counter
    >>> Counter(colour_index(range(24)).tolist())[-1]  # 24 clusters of one node: the last 14 in grey
    14
    """
    labels = np.asarray(labels, dtype=np.int64).reshape(-1)
    if not len(labels):
        return np.zeros(0, dtype=np.int64)
    ids, inverse = np.unique(labels, return_inverse=True)
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=float).reshape(-1)
    size = np.bincount(inverse, weights=w, minlength=len(ids))
    chosen = np.lexsort((ids, -size))[: len(PALETTE)]  # the largest first; ties: the smaller cluster number first
    if order is None:
        first = ids.astype(float)
    else:
        first = np.full(len(ids), np.inf)
        np.minimum.at(first, inverse, np.asarray(order, dtype=float).reshape(-1))
    chosen = chosen[np.lexsort((ids[chosen], first[chosen]))]
    colour = np.full(len(ids), -1, dtype=np.int64)
    colour[chosen] = np.arange(len(chosen))
    return colour[inverse]


def node_colour_index(model):
    """The :func:`colour_index` of each node of a fitted model: its clusters weighted by their win counts M (their
    node counts for a model without them), ordered by their oldest node (its id), so the views that draw one model
    agree on its colours and a cluster keeps its colour from step to step."""
    return colour_index(model.node_labels_, getattr(model, "win_counts_", None), getattr(model, "node_ids_", None))


def colour_of_index(index):
    """The colour of a :func:`colour_index` value."""
    return PALETTE[index] if index >= 0 else OTHER_CLUSTERS


def cluster_colors(labels, weights=None, order=None):
    """A colour per element of ``labels`` by the views' rule (:func:`colour_index`): the ten largest clusters in the
    palette, the others in :data:`OTHER_CLUSTERS`."""
    colours = np.array([*PALETTE, OTHER_CLUSTERS])
    return colours[colour_index(labels, weights, order)].tolist()


def others_note(labels):
    """The legend's words for the clusters drawn in grey ("" when every cluster has its colour).

    >>> others_note(range(12))
    '2 smaller clusters in grey'
    """
    n = len(np.unique(np.asarray(labels, dtype=np.int64))) - len(PALETTE)
    return "" if n <= 0 else f"{n} smaller cluster{'s' if n > 1 else ''} in grey"


def readable(fig, size=MIN_FONT):
    """Every text a class reads in ``fig`` at least ``size`` px: legend, axis numbers and titles, colour bars,
    subplot titles and notes, the numbers written in heatmap cells (hover labels are read up close).

    Returns the figure (changed in place).

    >>> import plotly.graph_objects as go
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

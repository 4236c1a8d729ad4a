"""The colours, marks and text sizes every view shares, and :func:`readable` (text a class reads from the back).

No cluster colour (:data:`PALETTE`) is near the marks' black and magenta (:data:`MARK_COLORS`; a test checks).
"""

from __future__ import annotations

import numpy as np

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


def cluster_colors(labels):
    """A colour per cluster number (cycling a qualitative palette)."""
    return [PALETTE[int(c) % len(PALETTE)] for c in np.asarray(labels, dtype=int)]


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

"""The names written beside the marks (s1, s2, the sample x, GNG's q, f and r), each placed on its own mark.

A name was written at a fixed side of its mark ("s1" to the top right, "s2" to the bottom left): where s2 lay to the
top right of s1, "s1" sat beside the s2 diamond and "s2" under the sample's star, and a student copying the picture
learned the wrong winner. :func:`place_labels` places every name once the whole picture is known: around its mark,
in the direction that keeps the name's centre nearer its own mark than any other mark or name (and clear of them),
preferring directions pointing away from every mark near it — that holds however large the picture is drawn — and
the top right when all else is equal. The names are annotations (SVG text over every trace), centred where placed
(``xshift``/``yshift`` in px from the mark), each with the name of its mark's trace in ``name``.

Pure functions, no Streamlit.
"""

from __future__ import annotations

import numpy as np

__all__ = ["place_labels", "label_box", "point_marks", "text_size", "LABEL_FONT"]

#: the names' size (px) in the reference picture; the present mode writes them at its text size
LABEL_FONT = 15
#: px between a mark's edge and its name's box
GAP = 3
#: directions tried (degrees, counter-clockwise from the right), in order of preference: the top right first
_ANGLES = (45, 135, 315, 225, 0, 90, 180, 270, 22.5, 67.5, 112.5, 157.5, 202.5, 247.5, 292.5, 337.5)


def text_size(text, font_size):
    """The box (width, height) in px a short name takes, with its white background (a generous estimate of a
    sans-serif text: the browser test measures the real boxes)."""
    return 0.6 * font_size * len(str(text)) + 6, 1.25 * font_size + 4


#: how far a marker symbol reaches past half its size (plotly.js draws a diamond's corners at 1.3 and a star's
#: points at 1.4 times the radius)
_REACH = {"diamond": 1.3, "star": 1.4}


def point_marks(traces):
    """The marks drawn as points among ``traces`` (halos and lines left out): ``[(name, xy array (n, 2), radius in
    px)]``, the radius as far as the symbol reaches, and its line."""
    out = []
    for t in traces:
        name = str(t.get("name") or "")
        if not name or name.endswith(" (halo)") or "markers" not in str(t.get("mode", "markers")):
            continue
        x, y = np.asarray(t.get("x"), float).reshape(-1), np.asarray(t.get("y"), float).reshape(-1)
        if not len(x):
            continue
        marker = t.get("marker") or {}
        size = np.max(np.atleast_1d(np.asarray(marker.get("size", 8), float)))
        width = float((marker.get("line") or {}).get("width", 0) or 0)
        reach = _REACH.get(str(marker.get("symbol", "circle")).replace("-open", ""), 1.0)
        out.append((name, np.column_stack([x, y]), reach * size / 2 + width / 2))
    return out


def label_box(x, y, xshift, yshift, text, font_size, k, origin):
    """A placed name's box in px (y up, from ``origin``, the plot's lower left corner in data units, at ``k`` px
    per data unit): ``(centre x, centre y, width, height)``."""
    w, h = text_size(text, font_size)
    return (x - origin[0]) * k + xshift, (y - origin[1]) * k + yshift, w, h


def _overlap(a, b):
    return abs(a[0] - b[0]) * 2 < a[2] + b[2] and abs(a[1] - b[1]) * 2 < a[3] + b[3]


def place_labels(requests, marks, window, side_px, font_size=LABEL_FONT):
    """The annotations that write each requested name on its own mark.

    Parameters
    ----------
    requests : list of dict
        ``x``, ``y`` (the mark's position, data units), ``text``, ``color`` and ``mark`` (the name of the mark's
        trace): :func:`cae.app.figures._draw._label`.
    marks : list
        Every mark drawn as points (:func:`point_marks`): ``(name, xy, radius px)``.
    window : ((x0, x1), (y0, y1))
        The axes' ranges.
    side_px : float
        The plotted square's side (px): with the window, how far apart the marks are drawn.
    font_size : int

    Examples
    --------
    >>> marks = [("s1", np.array([[0.5, 0.5]]), 13.5), ("s2", np.array([[0.53, 0.53]]), 13.5)]
    >>> reqs = [dict(x=0.5, y=0.5, text="s1", color="#000", mark="s1"),
    ...         dict(x=0.53, y=0.53, text="s2", color="#b000b0", mark="s2")]
    >>> a = place_labels(reqs, marks, ((0, 1), (0, 1)), 550)
    >>> [(n["text"], n["xshift"] < 0, n["yshift"] < 0) for n in a]  # s2 lies to the top right of s1: s1 away from it
    [('s1', True, True), ('s2', False, False)]
    """
    (x0, x1), (y0, y1) = window
    k = float(side_px) / max(x1 - x0, y1 - y0, 1e-12)
    points = [(name, xy, r) for name, xy, r in marks]
    placed_boxes = []
    out = []
    for req in requests:
        own = np.array([req["x"], req["y"]], float)
        others, own_r = [], 0.0
        for name, xy, r in points:
            d = np.hypot(*(xy - own).T) * k
            for j in range(len(xy)):
                if name == req["mark"] and d[j] < 0.5:
                    own_r = max(own_r, r)
                else:
                    others.append(((xy[j] - own) * k, r))
        w, h = text_size(req["text"], font_size)
        here = ((own[0] - x0) * k, (own[1] - y0) * k)
        best = None
        for pref, angle in enumerate(_ANGLES):
            u = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
            dist = own_r + GAP + abs(u[0]) * w / 2 + abs(u[1]) * h / 2
            c = u * dist
            box = (here[0] + c[0], here[1] + c[1], w, h)
            nearer = min((np.hypot(*(c - v)) - dist for v, _ in others), default=np.inf)
            clear = all(np.hypot(*(c - v)) > r + 0.5 * np.hypot(w, h) for v, r in others)
            free = not any(_overlap(box, b) for b in placed_boxes)
            robust = all(u @ v <= 0 or np.hypot(*v) > 3 * dist for v, _ in others)
            inside = w / 2 <= box[0] <= (x1 - x0) * k - w / 2 and h / 2 <= box[1] <= (y1 - y0) * k - h / 2
            score = (nearer > 2 and clear and free, inside, robust, min(nearer, 40.0), -pref)
            if best is None or score > best[0]:
                best = (score, c, box)
        _, c, box = best
        placed_boxes.append(box)
        out.append(
            dict(
                x=req["x"],
                y=req["y"],
                xref="x",
                yref="y",
                text=req["text"],
                name=req["mark"],
                showarrow=False,
                xanchor="center",
                yanchor="middle",
                xshift=round(float(c[0]), 1),
                yshift=round(float(c[1]), 1),
                bgcolor="rgba(255,255,255,0.85)",
                borderpad=1,
                font=dict(color=req["color"], size=font_size, family="sans-serif"),
            )
        )
    return out

"""The main view's key: what every mark, line and colour of the picture means, as HTML beside it.

The Playground draws its network as a picture that fills the page (:class:`~cae.app.view_options.ViewOptions`
``legend=False``): a legend above it and a colour bar beside it would cost the picture its height and width. The
figure builder then writes its key into the figure (``layout.meta["key"]``, by :func:`key_html`), and the page — the
still view and every frame of Play alike — shows that HTML beside the picture. Each entry draws its mark as the
picture does (symbol, colour, line, halo), so that everything the key names can be found in the picture.

Plain strings, no Streamlit, no Plotly objects.
"""

from __future__ import annotations

import html

import numpy as np

__all__ = ["key_entries", "key_html", "glyph"]


def _palette_rank(colour):
    """A cluster colour's place in the palette (the largest cluster's first; the grey of the others last)."""
    from .palette import PALETTE

    return PALETTE.index(colour) if colour in PALETTE else len(PALETTE)


def _colour(value):
    """One colour of a trace's marker or line colour (a list of colours: its first)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return str(value[0]) if len(value) else "#888"
    return str(value) if value else "#888"


#: Plotly's marker symbols as characters (st.html keeps no inline SVG): filled and open
_SYMBOLS = {
    "circle": "●",
    "circle-open": "◯",
    "diamond": "◆",
    "diamond-open": "◇",
    "star": "★",
    "x": "✖",
    "cross": "✚",
    "square": "■",
    "square-open": "□",
}


def _span(style, text=""):
    return f'<span aria-hidden="true" style="{style}">{text}</span>'


def glyph(item):
    """A key entry's mark, drawn with a character or a rule in the mark's colours (a white halo as a shadow), in a
    box of 1.4 em."""
    box = "display:inline-flex;align-items:center;justify-content:center;width:1.4em;height:1.2em;flex:none;"
    kind = item["kind"]
    if kind == "markers":
        colours = item["colours"]
        if len(colours) > 1 and str(item["symbol"]).endswith("-open"):  # rings in the clusters' colours
            return _span(f"{box}color:{colours[0]};font-size:0.85em;", _SYMBOLS.get(item["symbol"], "◯"))
        if len(colours) > 1:  # the nodes: a dot of each of their first colours
            dots = "".join(f'<span style="color:{c}">●</span>' for c in colours[:4])
            return _span("display:inline-flex;flex:none;letter-spacing:-0.25em;font-size:0.85em;", dots)
        char = _SYMBOLS.get(item["symbol"], "●")
        scale = 0.55 if item["size"] < 8 else (1.05 if item["size"] > 14 else 0.85)
        halo = "text-shadow:0 0 2px #fff,0 0 2px #fff;" if item.get("halo") else ""
        return _span(f"{box}color:{colours[0]};font-size:{scale:g}em;{halo}", char)
    if kind == "fill":
        rule = f"border:1.5px {item['dash']} {item['colours'][0]};background:{item['fill']};height:0.7em;"
        return _span(f"{box}", _span(f"display:block;width:1.1em;box-sizing:border-box;{rule}"))
    width = max(1.5, min(item["width"], 4))
    rule = f"border-top:{width:g}px {item['dash']} {item['colours'][0]};"
    return _span(box, _span(f"display:block;width:1.2em;{rule}"))


_DASHES = {"dot": "dotted", "dash": "dashed", "dashdot": "dashed"}
#: a longer name in the key than in the figure's hover, where the name alone says too little
_KEY_NAMES = {"nodes": "nodes (colour: cluster · size: wins M)", "cloud centres": "cloud centres (colour: cluster)"}


def key_entries(traces):
    """The key's entries of a figure's traces (plain dicts, in drawing order): one per name shown in a legend
    (halos, unnamed traces and traces left out of the legend are not; a halo drawn under a mark is noted on it).

    >>> e = key_entries([dict(type="scattergl", mode="markers", name="s1 (halo)", showlegend=False,
    ...                       marker=dict(symbol="circle-open", size=24)),
    ...                  dict(type="scattergl", mode="markers", name="s1", marker=dict(symbol="circle-open", size=24,
    ...                       color="#000000", line=dict(color="#000000", width=3)))])
    >>> [(x["name"], x["symbol"], x["halo"]) for x in e]
    [('s1', 'circle-open', True)]
    """
    halos = {t["name"][: -len(" (halo)")] for t in traces if str(t.get("name", "")).endswith(" (halo)")}
    out, seen = [], set()
    for t in traces:
        name = t.get("name")
        if not name or name in seen or t.get("showlegend") is False or str(name).endswith(" (halo)"):
            continue
        seen.add(name)
        mode = t.get("mode", "markers")
        marker, line = t.get("marker") or {}, t.get("line") or {}
        if "markers" in mode:
            colour = marker.get("color", "#888")
            colours = (
                sorted(dict.fromkeys(colour), key=_palette_rank)
                if isinstance(colour, (list, tuple))
                else [_colour(colour)]
            )
            mline = marker.get("line") or {}
            size = marker.get("size", 8)
            size = float(np.max(size)) if isinstance(size, (list, tuple, np.ndarray)) and len(size) else float(size)
            out.append(
                dict(
                    name=_KEY_NAMES.get(name, name),
                    kind="markers",
                    symbol=str(marker.get("symbol", "circle")),
                    size=min(max(size, 6), 16),  # a dot of the data: large enough to see in the key
                    colours=colours,
                    stroke=_colour(mline.get("color", colours[0])),
                    width=float(min(mline.get("width", 0) or 0, 3)),
                    halo=name in halos,
                )
            )
        else:
            kind = "fill" if t.get("fill") == "toself" else "line"
            out.append(
                dict(
                    name=name,
                    kind=kind,
                    colours=[_colour(line.get("color", "#888"))],
                    width=float(line.get("width", 2)),
                    dash=_DASHES.get(line.get("dash", ""), "solid"),
                    fill=str(t.get("fillcolor", "none")),
                    halo=any(str(x.get("name", "")) == f"{name} (halo)" for x in traces),
                )
            )
    return out


def _ages_row(ages, font_size, width=3.5):
    """The edge ages' bands as drawn (:class:`~._draw.AgeBands`): each band's colour as a rule of the edges' width,
    the ages it holds and how many edges are in it, after what the bands are cut by (a_max, or the oldest age)."""
    cells = "".join(
        f'<span class="cae-key-age" style="display:inline-flex;align-items:center;gap:0.15em;margin-right:0.45em;'
        f'white-space:nowrap">'
        f'<span aria-hidden="true" style="display:inline-block;width:1em;border-top:{width:g}px solid {c}"></span>'
        f"{html.escape(label)} ({n:,})</span>"
        for label, c, n in zip(ages.labels, ages.colours, ages.counts)
        if label is not None
    )
    why = (
        "an edge's age: how often one of its ends has won since its two ends were last the winner and runner-up; "
        "an edge past a_max goes when one of its ends next wins (in brackets: the edges of each band)"
    )
    return f'<div class="cae-key-ages" title="{why}">edge age, {html.escape(ages.note)}: {cells}</div>'


def key_html(traces, ages=None, others="", note="", font_size=14, edge_width=3.5):
    """The key as one HTML block: an entry per mark, line and colour of the picture, the edge ages' bands
    (``ages``: :class:`~._draw.AgeBands`, drawn ``edge_width`` px wide) and the clusters in grey, in ``font_size`` px
    (``note``: a line above the entries).

    >>> from cae.app.figures._draw import age_bands
    >>> h = key_html([dict(type="scattergl", mode="markers", name="nodes", marker=dict(color=["#0000ee"], size=9))],
    ...              ages=age_bands([1, 3, 9], limit=7), others="2 smaller clusters in grey")
    >>> "nodes" in h and "edge age, a_max = 7: " in h and "&gt; 7 (1)" in h and "2 smaller clusters in grey" in h
    True
    """
    items = "".join(
        f'<li style="display:flex;align-items:center;gap:0.35em">{glyph(e)}<span>{html.escape(e["name"])}</span></li>'
        for e in key_entries(traces)
    )
    parts = [f'<div class="cae-key-note">{html.escape(note)}</div>'] if note else []
    parts.append(
        '<ul style="list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;column-gap:0.9em;'
        f'row-gap:0.15em">{items}</ul>'
    )
    if others:
        parts.append(f'<div class="cae-key-others">{html.escape(others)}</div>')
    if ages is not None:
        parts.append(_ages_row(ages, font_size, max(3.0, min(edge_width, 5.0))))
    return (
        f'<div class="cae-key" role="group" aria-label="Key of the picture" '
        f'style="font-size:{int(font_size)}px;line-height:1.45;color:#31333f">{"".join(parts)}</div>'
    )

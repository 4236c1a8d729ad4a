"""The lineage's models in the main view: Fuzzy ART's boxes and GNG's edges by age and insertions.

Two kinds of model (the registry entry's ``kind``) get their layers here, registered in
:data:`~cae.app.figures.network.MODEL_LAYERS` when this module is imported (``cae.app.figures`` imports it):

* ``"boxes"`` (Fuzzy ART): every category is what it is in 2-D, a rectangle from w's lower corner to the
  complement's upper corner (:func:`box_outlines`, coloured by category); with a current sample, the box
  that would accept it — R_J ⊕ x, category J's box stretched to hold x, whose sides sum to at most
  d (1 − ρ) — and J's vigilance region, the samples J accepts: its box grown by the slack
  d (1 − ρ) − (sides) in L1 distance, an octagon (:func:`accepting_box`, :func:`vigilance_octagon`);
* ``"gas"`` (GNG): the edges coloured by age in the views' three bands around a_max (up to half of it, up to it,
  past it: :func:`age_colours`), colours that stay apart for colour-blind students and keep 3:1 contrast on the
  white plot, and an insertion drawn as an event — the new node r ringed and named, with q and f
  (:func:`insertion_marks`).

And the *Lineage* page's two pieces of HTML: the paper's two families meeting in CAE, every arrow with its source
(:func:`lineage_html`), and the lesson's table grouped by stream (:func:`lineage_table_html`).

Pure functions, no Streamlit.
"""

from __future__ import annotations

import numpy as np

from ._draw import EDGE_WIDTH, _edge_trace, _f32, _label, _mark, age_bands, px_size
from .network import MODEL_LAYERS, _age_legend, _edge_name, nodes_layer
from .palette import (
    LEGIBLE_AGE_END,
    MARK_S1,
    MARK_S2,
    MARK_S2_TEXT,
    colour_of_index,
    node_colour_index,
)

__all__ = [
    "box_outlines",
    "boxes_layer",
    "accepting_box",
    "vigilance_octagon",
    "acceptance_layer",
    "LEGIBLE_AGE_END",
    "age_colours",
    "age_edges_layer",
    "insertion_marks",
    "insertion_layer",
    "KIND_NOTES",
    "NOT_HERE",
    "lineage_html",
    "lineage_table_html",
]


# ------------------------------------------------------------------ Fuzzy ART: boxes
def box_outlines(lower, upper):
    """Closed rectangles ``lower → upper`` (rows; two columns) as one NaN-separated polyline ``(x, y)``.

    >>> x, y = box_outlines([[0.1, 0.2]], [[0.3, 0.5]])
    >>> x.tolist()[:5], y.tolist()[:5]
    ([0.1, 0.3, 0.3, 0.1, 0.1], [0.2, 0.2, 0.5, 0.5, 0.2])
    """
    lo, hi = np.asarray(lower, float).reshape(-1, 2), np.asarray(upper, float).reshape(-1, 2)
    x = np.column_stack([lo[:, 0], hi[:, 0], hi[:, 0], lo[:, 0], lo[:, 0], np.full(len(lo), np.nan)])
    y = np.column_stack([lo[:, 1], lo[:, 1], hi[:, 1], hi[:, 1], lo[:, 1], np.full(len(lo), np.nan)])
    return x.ravel(), y.ravel()


def _rgba(hex_colour, alpha):
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def boxes_layer(scene, view, canvas):
    """Fuzzy ART's categories as rectangles (lower corner w[:d] to upper corner 1 − w[d:]), filled faintly in
    their category's colour; one trace per colour."""
    model = scene.model
    i, j = scene.dims
    lower = np.asarray(model.box_lower_)[:, [i, j]]
    upper = np.asarray(model.box_upper_)[:, [i, j]]
    colour_of = node_colour_index(model)  # the ten largest clusters in the palette, the others in grey
    ids = np.asarray(model.node_ids_)
    for n, k in enumerate(np.unique(colour_of)):
        sel = colour_of == k
        x, y = box_outlines(lower[sel], upper[sel])
        canvas.traces.append(
            dict(
                type="scatter",
                x=_f32(x),
                y=_f32(y),
                mode="lines",
                name="categories (boxes)",
                legendgroup="boxes",
                showlegend=n == 0,
                fill="toself",
                fillcolor=_rgba(colour_of_index(k), 0.10),
                line=dict(color=colour_of_index(k), width=round(2 * canvas.scale, 2)),
                text=[f"category {c}" for c in ids[sel] for _ in range(6)],
                hoverinfo="text",
            )
        )


def accepting_box(model, x, dims=(0, 1)):
    """The box that would accept the sample ``x``: ``(J, lower, upper)`` with J the category the search would
    resonate with and ``lower``/``upper`` (in the plotted ``dims``) the corners of R_J ⊕ x, its box stretched to
    hold x (:meth:`cae.algorithms.fuzzy_art.FuzzyART.acceptance`); ``(-1, None, None)`` when every category
    would be reset (x would make a new category), there is none, or x is outside [0, 1].

    >>> import numpy as np
    >>> from cae.algorithms.fuzzy_art import FuzzyART
    >>> m = FuzzyART(vigilance=0.8).fit(np.array([[0.2, 0.2], [0.3, 0.25]]))
    >>> J, lo, hi = accepting_box(m, [0.35, 0.3])
    >>> J, lo.tolist(), hi.tolist()
    (0, [0.2, 0.2], [0.35, 0.3])
    >>> accepting_box(m, [0.9, 0.9])[0]
    -1
    """
    if not hasattr(model, "network_") or model.n_categories_ == 0:
        return -1, None, None
    try:
        acc = model.acceptance(np.asarray(x, float))
    except ValueError:  # outside [0, 1] (a sample placed off the unit square) or of another dimension
        return -1, None, None
    if acc.winner < 0:
        return -1, None, None
    d = list(dims)
    return acc.winner, acc.lower[acc.winner, d], acc.upper[acc.winner, d]


def vigilance_octagon(lower, upper, slack):
    """The samples a box ``lower → upper`` (2-D) accepts: those within L1 distance ``slack`` of it, the box
    grown into an octagon; closed polyline ``(x, y)``; None when the slack is negative.

    >>> x, y = vigilance_octagon([0, 0], [1, 1], 0.5)
    >>> list(zip(x.tolist(), y.tolist()))[:3]
    [(-0.5, 0.0), (0.0, -0.5), (1.0, -0.5)]
    """
    if not slack >= 0:
        return None
    (x0, y0), (x1, y1), s = np.asarray(lower, float), np.asarray(upper, float), float(slack)
    x = [x0 - s, x0, x1, x1 + s, x1 + s, x1, x0, x0 - s, x0 - s]
    y = [y0, y0 - s, y0 - s, y0, y1, y1 + s, y1 + s, y1, y0]
    return np.array(x), np.array(y)


def acceptance_layer(scene, view, canvas):
    """With a current sample: the box that would accept it (R_J ⊕ x, dashed black) and, when the vigilance
    region is asked for and the data are 2-D, J's vigilance region (dotted, faintly filled)."""
    model, x = scene.model, scene.current
    if x is None:
        return
    J, lo, hi = accepting_box(model, x, scene.dims)
    if J < 0:
        return
    rows = np.flatnonzero(np.asarray(model.node_ids_) == J)
    if view.show_vigilance and model.n_features_in_ == 2 and len(rows):
        r = int(rows[0])
        octagon = vigilance_octagon(model.box_lower_[r], model.box_upper_[r], model.box_slack_[r])
        if octagon is not None:
            canvas.focus_points.append(np.column_stack(octagon))
            canvas.marks.append(
                dict(
                    type="scatter",
                    x=_f32(octagon[0]),
                    y=_f32(octagon[1]),
                    mode="lines",
                    name=f"vigilance region of category {J} (|I ∧ w|/|I| ≥ ρ)",
                    fill="toself",
                    fillcolor="rgba(0,0,0,0.045)",
                    line=dict(color=MARK_S1, dash="dot", width=round(2 * canvas.scale, 2)),
                    hoverinfo="skip",
                )
            )
    bx, by = box_outlines([lo], [hi])
    canvas.focus_points.append(np.column_stack([bx[:5], by[:5]]))
    canvas.marks.append(
        dict(
            type="scatter",
            x=_f32(bx),
            y=_f32(by),
            mode="lines",
            name=f"box that would accept the sample: category {J} stretched to hold it",
            line=dict(color=MARK_S1, dash="dash", width=round(2.5 * canvas.scale, 2)),
            hoverinfo="skip",
        )
    )


# ------------------------------------------------------------------ GNG: edges by age, insertions


def age_colours(ages, amax):
    """The band and colour of each edge age around GNG's a_max (``amax``): the views' three bands (up to half of
    a_max, up to a_max, past it: :func:`~._draw.age_bands`). Returns ``(band per edge, colour per band, the ages
    each band holds)``.

    >>> band, colours, labels = age_colours([0, 10, 26, 50], 50)
    >>> band.tolist(), labels
    ([0, 0, 1, 1], ('≤ 25', '26–50', '> 50'))
    """
    bands = age_bands(ages, max(float(amax), 1.0))
    return bands.band, list(bands.colours), bands.labels


def age_edges_layer(scene, view, canvas):
    """GNG's edges as lines over the data, one per age band around a_max (:func:`age_colours`), with the bands in the key
    (or the legend)."""
    model, P = scene.model, scene.P
    edges = np.asarray(model.edges_).reshape(-1, 2)
    ages = np.asarray(model.edge_ages_)
    amax = float(getattr(model, "max_edge_age", max(int(ages.max()) if len(ages) else 1, 1)))
    bands = age_bands(ages, max(amax, 1.0))
    bands = bands._replace(note=f"removed past a_max = {amax:g}")  # GNG removes an edge of s1 the moment it is older
    width = float(px_size(EDGE_WIDTH * canvas.scale))
    for k, colour in enumerate(bands.colours):
        sel = bands.band == k
        if sel.any():
            canvas.traces.append(_edge_trace(P, edges[sel], colour, width, _edge_name(bands.labels[k])))
    if len(edges):
        canvas.ages = bands
        if view.legend:
            canvas.traces += _age_legend(bands, width)


def insertion_marks(model, record, dims=(0, 1)):
    """Where the step's insertion happened: ``{"r": xy, "q": xy, "f": xy}`` (those still in the network, in the
    plotted ``dims``), empty when the step inserted no node.

    >>> import numpy as np
    >>> from cae.algorithms.gng import GNG
    >>> m = GNG(insertion_interval=3)
    >>> recs = [m.learn_one(x) for x in np.random.default_rng(0).random((5, 2))]
    >>> recs[-1].inserted, sorted(insertion_marks(m, recs[-1]))
    (True, ['f', 'q', 'r'])
    """
    if record is None or not getattr(record, "inserted", False):
        return {}
    ids = np.asarray(model.node_ids_)
    Y = np.asarray(model.nodes_)[:, list(dims)]
    out = {}
    for key, nid in (("r", record.new_node_id), ("q", record.q_id), ("f", record.f_id)):
        rows = np.flatnonzero(ids == nid) if nid >= 0 else []
        if len(rows):
            out[key] = Y[int(rows[0])]
    return out


def insertion_layer(scene, view, canvas):
    """An insertion as an event: the new node r ringed in magenta and named, q and f (the node of largest error
    and its worst neighbour) in black squares and named, a dashed line from q to f through r."""
    where = insertion_marks(scene.model, scene.record, scene.dims)
    if not where:
        return
    rec = scene.record
    if "q" in where and "f" in where:
        q, f = where["q"], where["f"]
        canvas.marks.append(
            dict(
                type="scatter",
                x=_f32([q[0], f[0]]),
                y=_f32([q[1], f[1]]),
                mode="lines",
                name="insertion: r halfway between q and f",
                line=dict(color=MARK_S1, dash="dash", width=round(2 * canvas.scale, 2)),
                hoverinfo="skip",
            )
        )
    for key, symbol, colour, text_colour, what in (
        ("q", "square-open", MARK_S1, MARK_S1, f"q: largest error (node {rec.q_id})"),
        ("f", "square-open", MARK_S1, MARK_S1, f"f: q's neighbour of largest error (node {rec.f_id})"),
        ("r", "circle-open", MARK_S2, MARK_S2_TEXT, f"r: inserted now (node {rec.new_node_id})"),
    ):
        if key in where:
            x, y = where[key]
            canvas.focus_points.append([x, y])
            canvas.marks += _mark(x, y, what, symbol, colour, 22, hover=[what], scale=canvas.scale)
            canvas.labels.append(_label(x, y, f"{key} (new)" if key == "r" else key, text_colour, what))


#: What a page says under a model of these kinds (Compare, Lineage): how to read the drawing.
KIND_NOTES = {
    "boxes": "Fuzzy ART's categories are boxes (lower corner w[:d], upper corner 1 − w[d:]); a dot marks each "
    "box's centre. Dashed: the box that would accept the current sample — the category the search resonates with, "
    "stretched to hold it (its sides sum to at most d (1 − ρ)).",
    "gas": "GNG's edges by age: up to half of a_max light slate, up to a_max dark navy (an edge of the winner older "
    "than a_max is removed); one cluster per connected component. An insertion step rings the new node r and names "
    "q and f.",
}

MODEL_LAYERS["boxes"] = (boxes_layer, nodes_layer, acceptance_layer)
MODEL_LAYERS["gas"] = (age_edges_layer, nodes_layer, insertion_layer)


# ------------------------------------------------------------------ the lineage and its table, as HTML
#: the lineage's boxes that are no algorithm of the registry (drawn dashed: named, not run here)
NOT_HERE = ("SOINN",)
_SMALL = "font-size:0.78rem;color:#333;line-height:1.1"


def _box(name, colour, chosen, title=""):
    from html import escape

    line = "dashed" if name in NOT_HERE else "solid"
    border = f"2px {line} #000" if chosen else f"1px {line} #767676" if name in NOT_HERE else "1px solid #b9b9b9"
    tip = f' title="{escape(title)}"' if title else ""
    return (
        f'<span{tip} style="display:inline-block;border:{border};border-left:5px solid {colour};border-radius:4px;'
        f'padding:0.1rem 0.4rem;background:#fff;font-weight:600;font-size:0.9rem;line-height:1.3;white-space:nowrap">'
        f"{escape(name)}</span>"
    )


def _arrow(link, stretch=False):
    """An arrow and its source above it: ``§2 based on`` over ``→`` (dashed: ``⇢``); ``stretch``: a line that fills
    the row up to CAE's box."""
    from html import escape

    label = " ".join(x for x in (link.source.where, link.words) if x)
    glyph = "⇢" if link.dashed else "→"
    if stretch:
        line = "dashed" if link.dashed else "solid"
        return (
            '<span style="flex:1 1 auto;min-width:5.5rem;display:inline-flex;flex-direction:column;margin:0 0.2rem">'
            f'<span style="{_SMALL};white-space:nowrap;text-align:center">{escape(label)}</span>'
            '<span aria-hidden="true" style="display:flex;align-items:center;color:#444">'
            f'<span style="flex:1;border-top:1.5px {line} #444"></span>'
            '<span style="font-size:0.9rem;line-height:0.9;margin-left:-0.1rem">▶</span></span></span>'
        )
    return (
        '<span style="display:inline-flex;flex-direction:column;align-items:center;margin:0 0.2rem;'
        f'vertical-align:middle"><span style="{_SMALL};white-space:nowrap">{escape(label)}</span>'
        f'<span aria-hidden="true" style="font-size:1rem;line-height:0.9;color:#444">{glyph}</span></span>'
    )


def lineage_html(chosen=(), colours=None):
    """The paper's two families, as HTML (:mod:`cae.app.lineage_lesson`): the ART-based row — Fuzzy ART, the
    CIM-based ARTs TCA and CAEA side by side in one group, CAE — and the GNG-based row — GNG, SOINN (dashed: not in
    this app), ASOINN, SOINN+, whose arrow into CAE is dashed (it inspired CAE's a_max) — each arrow and grouping
    with its source beside it (the paper's section, or the publication it cites). The boxes name the algorithms and
    nothing else: what is given, searched or estimated is said in the steps. The algorithms named in ``chosen`` (a
    step's) are framed in black; ``colours``: name → the box's edge colour (the registry's).

    >>> html = lineage_html(("GNG", "SOINN", "ASOINN"))
    >>> html.count("border:2px solid #000"), html.count("border:2px dashed #000"), "§2 based on" in html
    (2, 1, True)
    """
    from html import escape

    from ..lineage_lesson import FAMILY_WORDS, GROUPS, link

    colours = colours or {}

    def box(name):
        return _box(name, colours.get(name, "#7f7f7f"), name in chosen, "not in this app" if name in NOT_HERE else "")

    cim = next(g for g in GROUPS if g.name == "CIM-based ART")
    family = {g.name: g for g in GROUPS if g.name != cim.name}
    group = (
        '<span style="display:inline-flex;align-items:center;gap:0.3rem;border:1px solid #999;border-radius:6px;'
        f'padding:0.1rem 0.3rem;background:#f6f6f6;vertical-align:middle"><span style="{_SMALL}">'
        f"{escape(cim.name)}<br>{escape(cim.source.where)}</span>" + "".join(box(m) for m in cim.members) + "</span>"
    )
    art = box("Fuzzy ART") + _arrow(link("Fuzzy ART", "CIM-based ART")) + group
    gng = "".join(box(a) + _arrow(link(a, b)) for a, b in (("GNG", "SOINN"), ("SOINN", "ASOINN"), ("ASOINN", "SOINN+")))
    gng += box("SOINN+")

    def label(name, row):
        g = family[name]
        return (
            f'<div style="grid-row:{row};grid-column:1;{_SMALL}"><b>{escape(name)}</b><br>{escape(g.source.where)}'
            "</div>"
        )

    row = "display:flex;align-items:center;white-space:nowrap"
    cells = [
        label("ART-based", 1),
        f'<div style="grid-row:1;grid-column:2;{row}">{art}{_arrow(link("CAEA", "CAE"), True)}</div>',
        label("GNG-based", 2),
        f'<div style="grid-row:2;grid-column:2;{row}">{gng}{_arrow(link("SOINN+", "CAE"), True)}</div>',
        f'<div style="grid-row:1 / span 2;grid-column:3">{box("CAE")}</div>',
    ]
    return (
        f'<figure class="cae-lineage" style="margin:0;max-width:62rem" aria-label="{escape(FAMILY_WORDS)}">'
        '<div style="display:grid;grid-template-columns:auto 1fr auto;gap:0.25rem 0.4rem;align-items:center">'
        + "".join(cells)
        + "</div></figure>"
    )


def lineage_table_html(table, groups, first_columns=2):
    """The lesson's table (:func:`cae.app.lineage.summary_table`) as HTML: the columns of each number grouped under
    one heading (``groups``: heading → sub-headings, in the table's order after its ``first_columns``), every
    "mean ± sd" written as the mean with a smaller "±sd" after it and every "median [lowest–highest]" as the median
    with its range after it, one line a row, the algorithm named once for its block of rows.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"algorithm": ["CAE"], "setting": ["—"], "NMI, noisy": ["0.953 ± 0.064"], "NMI, clean": ["2 [1–105]"]})
    >>> html = lineage_table_html(t, {"NMI": ["noisy", "clean"]})
    >>> 'colspan="2"' in html, "±0.064" in html, " [1–105]" in html, html.count("<tr")
    (True, True, True, 3)
    """
    from html import escape

    pad = "padding:0.1rem 0.35rem"
    th = f'style="{pad};text-align:{{}};border-bottom:1px solid #888;font-weight:600"'
    head1 = "".join(
        f'<th rowspan="2" {th.format("left")} scope="col">{escape(c)}</th>' for c in table.columns[:first_columns]
    )
    head1 += "".join(
        f'<th colspan="{len(subs)}" {th.format("center")} scope="colgroup">{escape(g)}</th>'
        for g, subs in groups.items()
    )
    head2 = "".join(f'<th {th.format("right")} scope="col">{escape(s)}</th>' for subs in groups.values() for s in subs)
    algorithms = list(table.iloc[:, 0])
    rows = []
    for i, values in enumerate(table.itertuples(index=False)):
        first = i == 0 or algorithms[i - 1] != values[0]
        top = "border-top:1px solid #bbb;" if first else ""
        cells = []
        if first:
            span = 1
            while i + span < len(algorithms) and algorithms[i + span] == values[0]:
                span += 1
            cells.append(
                f'<th scope="rowgroup" rowspan="{span}" style="{top}{pad};text-align:left;vertical-align:top">{escape(values[0])}</th>'
            )
        cells += [f'<td style="{top}{pad}">{escape(str(v))}</td>' for v in values[1:first_columns]]
        for v in values[first_columns:]:
            text = str(v)
            if " ± " in text:
                main, after = text.split(" ± ", 1)
                after = f"±{after}"
            elif " [" in text:
                main, after = text.split(" [", 1)
                after = f"[{after}"
            else:
                main, after = text, ""
            small = f'<span style="font-size:0.78rem;color:#444"> {escape(after)}</span>' if after else ""
            cells.append(f'<td style="{top}{pad};text-align:right;white-space:nowrap">{escape(main)}{small}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<table class="cae-lineage-table" style="border-collapse:collapse;font-size:0.875rem;line-height:1.25;'
        f'width:100%"><thead><tr>{head1}</tr><tr>{head2}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )

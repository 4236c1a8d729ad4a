"""The Playground's *Place samples and draw your own distribution* section.

On its plot a click chooses a position (and, if asked, feeds it at once as the next sample: the history
forks there); a box or a lasso dragged on it becomes a region, and the next samples come from the drawn
regions (uniformly from their union), then the stream's own samples resume. The typed numbers are the
accessible alternative to the click; the regions are listed, each with a button that removes it. Samples
placed and drawn by hand travel in the lesson link (``place``, ``draw``).
"""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from cae.app.explanations import resonance
from cae.app.regions import MAX_DRAWN, MAX_REGIONS, click_position, region_from_selection
from cae.app.view_options import ViewOptions

from .common import send_values
from .playground_session import network_view
from .plot_input import plot_input
from .session import session

POINTER_MODES = {
    "click": "Click: place a sample",
    "box": "Drag a box: draw a region",
    "lasso": "Lasso: draw a region",
}
_DRAGMODE = {"click": "zoom", "box": "select", "lasso": "lasso"}
DEFAULT_DRAWN = 1000


def _input_bounds(pg):
    """The typed numbers' bounds (and a click's): the stream's own data range, one range wider each side."""
    X = pg.original_stream.X
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    return lo - span, hi + span


def _changed():
    session().invalidate_traces()
    st.session_state.draw_revision = st.session_state.get("draw_revision", 0) + 1


def _feed(pg, xy):
    pg.place(np.asarray(xy, dtype=float))
    _changed()


def _on_click(event):
    pg = session().run
    if pg is None or pg.stream.X.shape[1] != 2:
        return
    try:
        xy = click_position(event, *_input_bounds(pg))
    except ValueError as exc:
        st.session_state.place_note = f"That click could not be used ({exc})."
        return
    st.session_state.w_place_x0, st.session_state.w_place_x1 = float(xy[0]), float(xy[1])
    if st.session_state.get("w_place_at_once") and not pg.finished:
        _feed(pg, xy)


def _feed_typed():
    pg = session().run
    if pg is not None and not pg.finished:
        _feed(pg, [st.session_state.w_place_x0, st.session_state.w_place_x1])


def _remaining(pg, drawing):
    return drawing.start + drawing.count - max(pg.t, drawing.start)


def _on_region(event):
    pg = session().run
    if pg is None or pg.stream.X.shape[1] != 2:
        return
    try:
        region = region_from_selection(event)
    except ValueError as exc:
        st.session_state.place_note = f"That region could not be used: {exc}."
        _changed()  # the selection's outline goes
        return
    drawing = pg.drawing_at()
    regions = (drawing.regions if drawing is not None else ()) + (region,)
    if len(regions) > MAX_REGIONS:
        st.session_state.place_note = f"A drawing has at most {MAX_REGIONS} regions: remove one first."
        _changed()
        return
    count = _remaining(pg, drawing) if drawing is not None else int(st.session_state.get("w_draw_n", DEFAULT_DRAWN))
    pg.draw(regions, count)
    _changed()


def _add_typed_box():
    ss = st.session_state
    _on_region({"kind": "box", "x": [ss.w_box_x0, ss.w_box_x1], "y": [ss.w_box_y0, ss.w_box_y1]})


def _remove_region(k):
    pg = session().run
    drawing = pg.drawing_at() if pg is not None else None
    if drawing is None:
        return
    rest = tuple(r for i, r in enumerate(drawing.regions) if i != k)
    pg.draw(rest, _remaining(pg, drawing) if rest else 0)
    _changed()


def _remove_drawing():
    pg = session().run
    if pg is not None and pg.drawing_at() is not None:
        pg.draw((), 0)
        _changed()


def place_and_draw(pg, all_regions=False):
    """The section (a 2-D stream): the plot with its pointer modes, the typed position, the drawing's regions."""
    with st.expander("Place samples and draw your own distribution: what if points arrive here?", expanded=False):
        note = st.session_state.pop("place_note", None)
        if note:
            st.warning(note)
        mode = st.radio(
            "What the mouse does on this plot",
            list(POINTER_MODES),
            format_func=POINTER_MODES.get,
            horizontal=True,
            key="w_pointer",
        )
        st.caption(
            {
                "click": "Click anywhere on the plot to choose a position (or type it below). Before you feed it, "
                "the nodes it would resonate with — CIM within V — are ringed in magenta. Feeding it makes it the "
                "next sample: the history forks there. (A drag still zooms; double-click to zoom out.)",
                "box": "Drag a box on the plot: the next samples come from it, drawn uniformly, then the stream's "
                "own samples resume. Draw more regions to add them; remove them below.",
                "lasso": "Draw around an area with the mouse: the next samples come from inside it, drawn "
                "uniformly, then the stream's own samples resume. Draw more regions to add them; remove them below.",
            }[mode]
        )
        lo, hi = _input_bounds(pg)
        X = pg.original_stream.X
        send_values(
            {
                "w_place_x0": round(float((X[:, 0].min() + X[:, 0].max()) / 2), 4),
                "w_place_x1": round(float((X[:, 1].min() + X[:, 1].max()) / 2), 4),
            }
        )
        plot_box = st.container()
        p = st.columns([1, 1, 1.4, 1.4], vertical_alignment="bottom")
        x0 = p[0].number_input("x0", float(lo[0]), float(hi[0]), step=0.01, format="%.4f", key="w_place_x0")
        x1 = p[1].number_input("x1", float(lo[1]), float(hi[1]), step=0.01, format="%.4f", key="w_place_x1")
        p[2].button(
            "Feed it as the next sample", type="primary", key="b_place", on_click=_feed_typed, disabled=pg.finished
        )
        p[3].toggle(
            "Feed a click at once",
            key="w_place_at_once",
            help="On: a click on the plot feeds the sample there at once. Off: a click only chooses the position.",
        )
        xp = np.array([x0, x1])
        rows, cims, V = resonance(pg.model, xp) if pg.t else (np.zeros(0, int), np.zeros(0), float("nan"))
        with plot_box:
            fig = network_view(
                pg,
                ViewOptions(current_name="sample to place", height=600, show_all_regions=all_regions),
                current=xp,
                highlight=rows,
                record=False,
            )
            fig.update_layout(
                dragmode=_DRAGMODE[mode],
                selectionrevision=st.session_state.get("draw_revision", 0),  # a drawn region's outline goes
                newselection=dict(line=dict(color="#000000", width=2, dash="dot")),
            )
            st.plotly_chart(fig, key="place_fig", config={"displaylogo": False})
            plot_input("place_fig", "click" if mode == "click" else "drag", "place_input", _on_click, _on_region)
            if not hasattr(pg.model, "threshold_"):  # Fuzzy ART, GNG: no vigilance region to show
                st.caption("Feed it, then read under the view what the algorithm did with it.")
            elif math.isnan(V):
                st.caption("No threshold V yet: a sample anywhere simply becomes a node (initial phase).")
            elif len(rows) == 0:
                st.caption(
                    f"The sample to place resonates with no node (the nearest has CIM {cims.min():.4f} > "
                    f"V = {V:.4f}): it would become a new node (Case I)."
                )
            else:
                st.caption(
                    f"The sample to place resonates with {len(rows)} node(s) (CIM ≤ V = {V:.4f}); the nearest, "
                    "s1, would learn it."
                )
        _drawing_panel(pg)


def _drawing_panel(pg):
    drawing = pg.drawing_at()
    st.markdown("**Your own distribution**")
    if drawing is None:
        st.caption(
            "No drawing gives the next samples: the stream's own come. Choose *Drag a box* or *Lasso* above and "
            "draw on the plot; the next samples (as many as below) come from what you draw."
        )
    else:
        left = _remaining(pg, drawing)
        st.caption(
            f"Samples {drawing.start + 1:,}–{drawing.start + drawing.count:,} come uniformly from "
            f"{'this region' if len(drawing.regions) == 1 else f'these {len(drawing.regions)} regions'} "
            f"({left:,} still to come; outlined in the main view), then the stream's own samples resume. "
            "Step or play to feed them."
        )
        for k, region in enumerate(drawing.regions):
            row = st.columns([5, 1.2], vertical_alignment="center")
            row[0].markdown(f"{k + 1}. {region.describe()}")
            row[1].button("Remove", key=f"b_region_rm_{k}", on_click=_remove_region, args=(k,), width="stretch")
        st.button("Remove the drawing", key="b_drawing_rm", on_click=_remove_drawing)
    lo, hi = _input_bounds(pg)
    X = pg.original_stream.X
    mid, quarter = (X.min(axis=0) + X.max(axis=0)) / 2, (X.max(axis=0) - X.min(axis=0)) / 8
    st.caption("Or type a box (the same as dragging one on the plot):")
    row = st.columns([1, 1, 1, 1, 1.3], vertical_alignment="bottom")
    for col, key, axis, sign, label in (
        (row[0], "w_box_x0", 0, -1, "x0 from"),
        (row[1], "w_box_x1", 0, 1, "x0 to"),
        (row[2], "w_box_y0", 1, -1, "x1 from"),
        (row[3], "w_box_y1", 1, 1, "x1 to"),
    ):
        send_values({key: round(float(mid[axis] + sign * quarter[axis]), 3)})
        col.number_input(label, float(lo[axis]), float(hi[axis]), step=0.05, format="%.3f", key=key)
    row[4].button(
        "Add this box",
        key="b_box_add",
        on_click=_add_typed_box,
        width="stretch",
        help="The same as dragging a box on the plot, typed (its corners on a grid of 0.001).",
    )
    st.columns([1, 2])[0].number_input(
        "Samples from a new drawing",
        1,
        MAX_DRAWN,
        DEFAULT_DRAWN,
        step=100,
        key="w_draw_n",
        help="How many of the next samples a new drawing gives; adding or removing a region keeps what is left.",
    )

"""A page's lesson link in and out of the address bar: read when it is new (a link just opened, the URL edited),
applied to the Playground's run, written back as the page changes, and shown as a full link.

The Streamlit half of :mod:`cae.app.lesson_links` (which turns a page's state into query parameters and back). The
Playground, Explain, Continual and Classroom pages use it, and so does the classroom's session (the class's lesson
adopted as a link would be). It imports only :mod:`cae.streamlit_glue.session` of the glue, so the imports go one way:
``playground_session`` -> ``classroom_session`` -> ``lesson_links`` -> ``session``.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from cae.app.lesson_links import parse_playground, playground_query
from cae.app.streams import SOURCES

from .session import session


def url_query():
    """The address bar's query parameters, as a dict."""
    return {k: st.query_params.get(k) for k in st.query_params.keys()}


def link_is_new(page, q):
    """True if the URL's query is a link to apply (:meth:`PlaygroundSession.link_is_new`)."""
    return session().link_is_new(page, q)


def remember_link(page, q):
    """Note a query as this session's own (the last 200 per page)."""
    session().remember_link(page, q)


def lesson_in(page):
    """Apply a lesson link's query parameters if they are new (a link just opened, or the URL edited).

    Sets the configuration and view widgets and leaves the step (and any placed samples) pending
    for :func:`lesson_apply`. Returns the notices about values that had to be dropped or clamped.
    """
    q = url_query()
    if not link_is_new(page, q):
        return []
    state, notices = parse_playground(q, streams=list(SOURCES))
    session().open_lesson(state)  # the widgets show the link's values
    remember_link(page, q)
    return notices


def lesson_apply(pg, slot=None):
    """Bring the Playground to the pending step of a lesson link (rebuilding placed samples first); the
    learning's progress bar goes into ``slot`` (default: the page)."""
    pending = session().take_pending_lesson()
    if not pending:
        return []
    notes = []
    placed, drawn = pending["place"], pending.get("draw", [])
    if placed or drawn:
        if pg.stream.X.shape[1] != 2:
            notes.append("ignored the samples placed or drawn by hand: they need a 2-D stream")
        else:
            try:
                pg.with_placed([(pos, np.array([x0, x1])) for pos, x0, x1 in placed], drawn)
            except ValueError as exc:
                notes.append(f"ignored the samples placed or drawn by hand: {exc}")
                pg.reset()
    elif pg.placed or pg.drawn:  # the link has none: neither has its run
        pg.reset()
    t = pending["t"]
    if t is not None:
        if t > len(pg.stream):
            notes.append(f"t = {t:,} is beyond the stream ({len(pg.stream):,} samples): showing its end")
            t = len(pg.stream)
        if t <= pg.t_max:
            pg.go_to(t)
        else:
            if pg.t < pg.t_max:
                pg.go_to(pg.t_max)
            words = f"learning the first {t:,} samples of the lesson's stream…"
            bar = (slot if slot is not None else st).progress(0.0, text=words)
            pg.run_to(t, progress=lambda f: bar.progress(f, text=f"{words} {f:.0%}"), chunk=10000)
            bar.empty()
            pg.deleted_in_frame = pg.deleted_in_frame[:0]  # a jump of thousands of steps is not one frame
        session().invalidate_traces()
    return notes


def lesson_query(cfg, pg, t=None):
    """The Playground's state as lesson-link query parameters (step ``t``, default the run's)."""
    placed = [(pos, float(x[0]), float(x[1])) for pos, x in pg.placed] if pg.stream.X.shape[1] == 2 else []
    return playground_query(cfg, session().view_state(), pg.t if t is None else t, placed, pg.drawn)


def lesson_out(page, cfg, pg, t=None):
    """Write the page's state into the URL (and remember it, so it is not applied back)."""
    q = lesson_query(cfg, pg, t)
    if url_query() != q:
        st.query_params.from_dict(q)
    remember_link(page, q)
    return q


def lesson_link(q, page="playground"):
    """The full link of a query (this page's address with the parameters)."""
    from urllib.parse import urlencode

    base = ""
    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - AppTest and old servers have no URL
        base = ""
    return (base or f"http://localhost:8501/{page}") + "?" + urlencode(q)

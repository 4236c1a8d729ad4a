"""What both views of the Classroom page share (:mod:`cae.streamlit_glue.classroom_teacher` and
:mod:`cae.streamlit_glue.classroom_student`): a shared step drawn as a figure with its numbers beside it, the step
explained, a question's view in words, the teacher's view toggles read from the class's state, the app's address for
the links, a new class (from the lobby, or when a class has gone), and the page of a class that has gone.

What a screen of the class draws is computed once per step for every screen with the same view
(:class:`cae.classroom.views.SharedRuns`); ``pages/classroom.py`` says which view a session sees.
"""

from __future__ import annotations

import os

import streamlit as st

from cae.app.explanations import explain_step, headline
from cae.app.lesson_links import VIEW_DEFAULTS, parse_playground
from cae.app.panel import score_row
from cae.app.stepper import SINGLE_CLASS_NOTE
from cae.app.streams import SOURCES
from cae.app.view_options import ViewOptions
from cae.classroom.store import LimitReached, StoreError

from .classroom_session import become_teacher, client, forget_teacher, gone_words, leave, safely, store
from .common import message, network_summary, render_blocks
from .playground_session import network_view


def fmt(v):
    import math

    return (
        "—"
        if v is None or (isinstance(v, float) and math.isnan(v))
        else (f"{v:.3f}" if isinstance(v, float) else f"{v:,}")
    )


def app_base():
    """This app's address as the browser sees it (no page, no query), for the links the page shows."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - AppTest has no URL
        url = ""
    url = url.split("?")[0].rstrip("/")
    for page in ("/classroom", "/playground"):
        if url.endswith(page):
            url = url[: -len(page)]
    return st.session_state.get("w_room_base") or url or "http://localhost:8501"


#: the last state read and its toggles, ``(state, toggles)``: every student's page asks for the same one (one
#: tuple, read and replaced whole: the pages of a process run in threads of their own)
_LAST_VIEW = [(None, None)]


def view_of(state):
    """The teacher's view toggles in a published state (defaults where the state says nothing)."""
    last = _LAST_VIEW[0]
    if last[0] is state:
        return last[1]
    parsed, _ = parse_playground(state, streams=list(SOURCES))
    toggles = {**VIEW_DEFAULTS, **parsed["view"]}
    _LAST_VIEW[0] = (state, toggles)
    return toggles


def step_figure(view, toggles, record="step", height=520):
    """The network at a shared step, built once for every screen that draws it with these toggles.

    ``record="next"`` draws what the class predicts: the next sample, its s1 and s2, the vigilance region.
    """
    vig, bw, win = toggles["vig"], toggles["bw"], toggles["win"]
    focus, regions = bool(toggles.get("focus")), bool(toggles.get("regions"))
    options = ViewOptions(
        show_vigilance=vig, show_bandwidth=bw, window=win, height=height, focus=focus, show_all_regions=regions
    )
    if record == "next":
        probe = view.probe
        return view.cached(
            ("fig-next", vig, bw, win, focus, regions, height),
            lambda: network_view(
                view,
                options.with_(current_name="next sample"),
                record=probe if probe is not None else False,
                current=view.stream.X[view.t] if not view.finished else None,
            ),
        )
    return view.cached(
        ("fig", vig, bw, win, focus, regions, height),
        lambda: network_view(view, options, record=view.record if view.record is not None else False),
    )


def step_numbers(view, toggles, last_step=True):
    """The Playground's numbers beside the figure: samples seen, stream, counts, NMI/ARI, λ and V."""
    m = view.live_metrics(score_noise=toggles["sn"])
    st.metric("Samples seen", f"{m['samples seen']:,} / {len(view.stream):,}")
    st.metric("Current stream", m["stage"])
    a, b = st.columns(2)
    a.metric("#nodes", m["nodes"])
    b.metric("#clusters", m["clusters"])
    for col, row in zip((a, b), (score_row(m, "NMI"), score_row(m, "ARI"))):  # "n/a" over "one class so far"
        col.metric(row[0], row[1], delta=row[2] if len(row) > 2 else None, delta_color="off", delta_arrow="off")
    a.metric("λ", fmt(view.model.deletion_interval_ if view.t else None))
    b.metric("V", fmt(view.model.threshold_ if view.t else float("nan")))
    if m["single class"]:
        st.caption("NMI/ARI: " + SINGLE_CLASS_NOTE + ".")
    if last_step and view.record is not None:
        st.markdown(f"**Last step** · {headline(view.record)}")


def draw_step(view, toggles, key, record="step", height=520):
    """The figure and its numbers side by side, as on the Playground (and the figure in words, for a screen
    reader: :func:`cae.streamlit_glue.common.network_summary`)."""
    left, right = st.columns([3, 1.1])
    left.plotly_chart(step_figure(view, toggles, record, height), key=key, config={"displaylogo": False})
    with left:
        network_summary(view, key)
    with right:
        step_numbers(view, toggles, last_step=record != "next")


def question_summary(view, q, key):
    """A question's view in words, for a screen reader (visually hidden, like :func:`network_summary`): the network
    before the sample the class predicts, and that sample."""
    with st.container(key=f"fig_summary_{key}"):
        st.markdown(view.summary() + f" The star is sample {q.step:,}: what will CAE do with it?")


def explanation(view):
    blocks = view.cached("explain", lambda: explain_step(view.record, view.model, view.sample))
    with st.expander(headline(view.record), expanded=True):
        render_blocks(blocks)


def start_class(passphrase):
    """A new class for this browser: the passphrase (when the server asks for one) and the per-client limits
    first. Returns ``(code, token)`` or None (the page says why)."""
    import hmac

    key = os.environ.get("CAE_CLASSROOM_TEACHER_KEY")
    if key and not hmac.compare_digest(str(passphrase or "").encode(), key.encode()):
        st.error("A class cannot be started: that is not this server's teacher passphrase.")
        return None
    me = client()
    try:
        lim = store().limits
        if safely(store().allow, f"start:{me}", lim.starts_per_client, lim.starts_window) is False:
            raise LimitReached(
                f"this address has started {lim.starts_per_client} classes in the last "
                f"{lim.starts_window / 3600:.0f} hour(s); end one and try later"
            )
        return safely(store().create_room, owner=me)
    except StoreError as exc:
        message("error", "A class cannot be started: {}.", exc)
        return None


def class_gone(r):
    """The class has ended, expired or its store was reset: say so, with the way back to the Classroom page (and,
    for its teacher, a new class that goes on with the same lesson)."""
    gone = st.session_state.get("room_code", "")
    st.info(gone_words(gone), icon=":material/cloud_off:")
    keyed = bool(os.environ.get("CAE_CLASSROOM_TEACHER_KEY"))  # then the lobby asks for the passphrase first
    if r == "teacher" and not keyed and st.button("Start a new class with this lesson", key="b_room_restart"):
        made = start_class(None)
        if made is not None:
            forget_teacher(gone)
            become_teacher(*made)  # the new class gets this page's run, at the step the old one was at
            st.query_params.from_dict({"room": made[0]})
            st.rerun()
    if st.button("Back to the Classroom page", key="b_room_gone"):
        if r == "teacher":
            forget_teacher(gone)
        leave()
        st.query_params.clear()
        st.rerun()
    st.stop()

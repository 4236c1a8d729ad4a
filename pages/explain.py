"""Explain a step: the plain-words and formula account of any recorded step (CAE, CAEA, Fuzzy ART or GNG)."""

import streamlit as st

from cae.app import explainable
from cae.app.step_events import removed_positions, step_events, step_title
from cae.app.view_options import ViewOptions
from cae.streamlit_glue.common import ensure_entrypoint, render_blocks, send_values, show_notices
from cae.streamlit_glue.lesson_links import lesson_link, lesson_out
from cae.streamlit_glue.playground_session import network_view, start, view_toggles
from cae.streamlit_glue.session import W, session

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

cfg, pg, notices = start("explain")  # a lesson link: its stream and step first
ALGO = explainable.entry(cfg["algo"])  # its explanation and the kinds of step to jump to
st.sidebar.header("View")
focus, all_regions = view_toggles()
st.title("Explain a step")
with st.container():  # made on every run: a link's notices come and go without moving what follows
    show_notices(notices)
if session().take_lesson_applied() and pg.t:
    st.session_state[W.EXPLAIN_T] = pg.t
    st.session_state.explain_follow = False
if pg.t_max == 0:
    st.info("Nothing has been learned yet. Go to the **Playground** and press **Step** (or use the buttons below).")
    if st.button("Learn the first 50 samples", key="b_first50"):
        pg.step(50)
        st.rerun()
    st.stop()

if st.session_state.get("explain_follow", True):
    st.session_state[W.EXPLAIN_T] = max(pg.t, 1)
send_values({W.EXPLAIN_T: max(pg.t, 1)})  # (every run: the box shows the step explained)
st.session_state.explain_follow = False

KINDS = list(ALGO.jumps)


def _jump(label, kw, direction):
    now = st.session_state[W.EXPLAIN_T]
    hit = pg.find_step(now, direction=direction, **kw)
    if hit is None:
        where = "after" if direction == "next" else "before"
        st.session_state.explain_notice = f"No {label} in the recorded steps {where} t = {now}."
    else:
        st.session_state[W.EXPLAIN_T] = hit


def _jump_lambda():
    hit = pg.find_step(0, event="lambda")
    if hit is None:
        st.session_state.explain_notice = "λ has not been fixed in the recorded steps (CAEA is given λ)."
    else:
        st.session_state[W.EXPLAIN_T] = hit


st.caption("Jump to the previous ◀ or next ▶ step of a kind (from the step shown).")
jump = st.columns(len(KINDS) + (1 if ALGO.is_cae else 0))
for col, (label, kw) in zip(jump, KINDS):
    col.markdown(f"**{label}**")
    b = col.columns(2)
    b[0].button(
        "◀",
        key=f"b_prev_{label}",
        width="stretch",
        on_click=_jump,
        args=(label, kw, "previous"),
        help=f"the previous {label}",
    )
    b[1].button(
        "▶", key=f"b_next_{label}", width="stretch", on_click=_jump, args=(label, kw, "next"), help=f"the next {label}"
    )
if ALGO.is_cae:  # CAE's own event: λ fixed by the diversity criterion
    jump[-1].markdown("**λ fixed**")
    jump[-1].button(
        "Go",
        key="b_jump_lambda",
        width="stretch",
        on_click=_jump_lambda,
        help="the step where the diversity criterion fixed λ",
    )
if st.session_state.get("explain_notice"):
    st.info(st.session_state.pop("explain_notice"))
t = int(st.number_input("Step t", 1, pg.t_max, key=W.EXPLAIN_T, help=f"1 … {pg.t_max} (recorded so far)"))

rec, model, x = pg.inspect(t)
st.header(step_title(rec))
# every event of the step, from the same source as the Playground's "Last step" line (cae/app/step_events.py)
st.markdown("**This step:** " + " · ".join(e.text for e in step_events(rec)))
left, right = st.columns([1.15, 1])
with left:
    render_blocks(ALGO.explain_step(rec, model, x))
with right:
    # the picture without a legend (a legend above a column this narrow cut its long entries and shrank the
    # picture); its key under it, every entry whole
    # the nodes the step removed marked where they were, as the Playground marks them (✖)
    fig = network_view(
        pg,
        ViewOptions(show_vigilance=True, height=460, focus=focus, show_all_regions=all_regions, legend=False, px=460),
        model=model,
        record=rec,
        t=t,
        deleted=removed_positions(rec),
    )
    st.plotly_chart(fig, key="explain_fig", config={"displaylogo": False})
    if fig.layout.meta and "key" in fig.layout.meta:
        st.html(fig.layout.meta["key"])
    st.caption(ALGO.view_caption)

q = lesson_out("explain", cfg, pg, t=t)
with st.expander("Copy lesson link to this step", expanded=False):
    st.code(lesson_link(q, "explain"), language=None)
    st.caption("Opens this page on the same stream, learned up to this step, explained.")

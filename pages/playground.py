"""Playground: step, play, rewind a run of CAE, CAEA, Fuzzy ART or GNG; watch its numbers; quiz, place samples, share links."""

import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import streamlit as st

from cae.app import explainable, figures
from cae.app import noise_note as noise_study
from cae.app.panel import COUNTS, PARAMETERS, ROWS, SCORES, named_rows, panel
from cae.app.quiz import peek
from cae.app.stepper import drawn_sample
from cae.app.view_options import ViewOptions
from cae.streamlit_glue import how_often, player, stage
from cae.streamlit_glue.a11y import focus_after, key_selector, skip_to
from cae.streamlit_glue.classroom_session import classroom_bar, publish_step
from cae.streamlit_glue.common import (
    data_table,
    ensure_entrypoint,
    message,
    network_summary,
    render_blocks,
    show_notices,
    slow_hint,
)
from cae.streamlit_glue.fragment import fragment
from cae.streamlit_glue.lesson_links import lesson_link, lesson_out
from cae.streamlit_glue.place_and_draw import place_and_draw
from cae.streamlit_glue.playground_session import (
    network_view,
    new_seed,
    start,
    stream_bounds,
    switch_note,
    view_toggles,
)
from cae.streamlit_glue.session import W, session

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

ss = session()
# a lesson link opened (or the URL edited): its settings first, then the run, then the link's step (its progress
# bar in a slot made on every run: Streamlit knows an element by its position, an open expander below would close)
cfg, pg, notices = start("playground")
ALGO = explainable.entry(cfg["algo"])  # what explains, quizzes and finds the steps of the chosen algorithm
player.settle(pg)  # Play switched off beside the plot: stop on the frame the class last saw
ss.take_lesson_applied()
#: where the focus goes after the quiz's Next sample, and where "Skip to the controls" goes in the quiz
PREDICTION = (
    key_selector(ALGO.quiz_key, "input[type=radio]:checked"),
    key_selector(ALGO.quiz_key, "input[type=radio]"),
)
skip_to(key_selector("b_step1"), *PREDICTION, key_selector("b_quiz_next"))


def _quiz_focus():  # the quiz starts focused (so the class can tell whether the sample lies inside V)
    st.session_state[W.FOCUS] = bool(st.session_state.get(W.QUIZ))


st.sidebar.header("View")
#: the view toggles that mean something for the chosen algorithm (GNG has no vigilance; only CAE has bandwidths)
VIGILANCE_HELP = {
    "cae": "Points within CIM V of the winner s1: a sample there resonates with s1.",
    "Fuzzy ART": "Where category s1's box may grow and still pass the vigilance test |I ∧ w|/|I| ≥ ρ.",
}
_vig_help = VIGILANCE_HELP.get("cae" if ALGO.is_cae else ALGO.name)
# the view widgets take their values from the session state (PlaygroundSession.carry_widgets), not value=
vigilance = bool(_vig_help) and st.sidebar.toggle("Vigilance region of s1", key=W.VIGILANCE, help=_vig_help)
focus, all_regions = view_toggles()
bandwidth = ALGO.is_cae and st.sidebar.toggle("Node bandwidths σ", key=W.BANDWIDTH)
window = st.sidebar.slider("Recent window (samples)", 50, 2000, step=50, key=W.WINDOW)
score_noise = st.sidebar.toggle(
    "Score the noise as a class",
    key=W.SCORE_NOISE,
    help="The paper learns the uniform noise but does not score it. Scored, the noise "
    "is a class no clustering can form: a perfect result then shows NMI ≈ 0.88.",
)
st.sidebar.header("Teaching")
quiz = st.sidebar.toggle(
    "Quiz: predict, then reveal",
    key=W.QUIZ,
    help=f"Before each step, predict what {ALGO.name} will do with the next sample; then reveal it. "
    "The view starts focused on s1.",
    on_change=_quiz_focus,
)
teacher = st.sidebar.toggle(
    "Teacher view",
    key=W.TEACH,
    help="In the quiz, hide the metrics and the answers until they are revealed.",
)

present = bool(
    st.session_state.get(W.PRESENT)
)  # a projector: the picture takes the screen (cae/streamlit_glue/stage.py)
# the page's own style, on every run (a style that came and went would shift the page's later elements), and the
# script that lays the stage out and reports the square's side
stage.write_style(present)
STAGE_PX = stage.stage_size(present)
#: how the main view is drawn, from the toggles above (the still view, Play's frames and the quiz): a picture as
#: large as the stage's square (its height from the page's style), its marks in proportion to it, its key beside it
VIEW = ViewOptions(
    show_vigilance=vigilance,
    show_bandwidth=bandwidth,
    window=window,
    focus=focus,
    show_all_regions=all_regions,
    height=None,
    legend=False,
    font_size=stage.PRESENT_FONT if present else 14,
    px=STAGE_PX,
)
with st.container(key="page_head"):
    st.title("Playground")
    s = pg.stream
    _algo_text = "CAE (parameter-free)" if cfg["algo"] == "CAE" else explainable.algo_text(cfg)
    st.caption(
        f"{len(s):,} samples · stages: {', '.join(s.stage_names)} · seed {s.seed} · {_algo_text}"
        + (f" · {len(pg.placed)} sample(s) placed by hand" if pg.placed else "")
        + (f" · {sum(d.count for d in pg.drawn):,} drawn from your regions" if pg.drawn else "")
    )


# the noise study's results (python -m cae.experiments noise); CAE_EXPLORER_RESULTS points elsewhere (tests)
RESULTS = Path(os.environ.get("CAE_EXPLORER_RESULTS", Path(__file__).resolve().parent.parent / "results"))


@st.cache_data(show_spinner=False)
def _noise_study(folder, mtime):
    return noise_study.read_study(folder)


def _noise_study_sentence():
    """The noise study's sentence for this setting (results/noise.csv; None without it)."""
    path = RESULTS / "noise.csv"
    if not path.exists() or not ALGO.is_cae:  # the study ran CAE and CAEA
        return None
    df = _noise_study(str(RESULTS), path.stat().st_mtime)
    params = {"deletion_interval": cfg["lam"], "max_edge_age": cfg["amax"]} if cfg["algo"] == "CAEA" else None
    return noise_study.study_sentence(df, cfg["algo"], cfg["source"], float(cfg["noise"]), params)


# ------------------------------------------------------------------ controls
#: the controls row's columns: Step 1, N, Step N, Play, samples per frame, Run to end, Reset, New seed, Present
CONTROLS = [0.8, 0.75, 0.8, 0.7, 1.35, 1.05, 0.75, 0.95, 0.9]
#: Play's samples per frame
SPEEDS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


def controls():
    """One row of controls over the stage (labels kept for a screen reader, unseen); it wraps where its labels would
    not fit (a zoomed page, a narrow window: cae/streamlit_glue/stage.py)."""
    c = st.container(key="controls").columns(CONTROLS, vertical_alignment="center")
    if c[0].button("Step 1", key="b_step1", width="stretch"):
        pg.step(1)
        focus_after(key_selector("b_step1"))  # a keyboard user presses it again
    # no help button: its name, "Help for N for Step N", would be a second "Step N" button to a screen reader
    n_step = int(c[1].number_input("N for Step N", 1, 100000, 100, key="w_stepn", label_visibility="collapsed"))
    if c[2].button(
        "Step N", key="b_stepn", width="stretch", help="Learn the next N samples (N in the box at the left)"
    ):
        with st.spinner(f"learning {n_step:,} samples…" + slow_hint()):
            pg.step(n_step)
        focus_after(key_selector("b_stepn"))
    # (no help icons in this row: each took a toggle's room and cut its label; the player says what Pause does)
    c[3].toggle("Play", key=W.PLAY)
    c[4].selectbox(
        "Samples per frame",
        SPEEDS,
        index=SPEEDS.index(20),
        key=W.SPEED,
        format_func=lambda n: f"{n:,} per frame",
        label_visibility="collapsed",
        help="Samples learned between two frames of Play (the frames per second are set in the player).",
    )
    run_end = c[5].button("Run to end", key="b_end", width="stretch")
    if c[6].button("Reset", key="b_reset", width="stretch", help="Back to t = 0 with the same seed"):
        ss.reset()
    c[7].button("New seed", key="b_seed", width="stretch", on_click=new_seed)
    # Present (for a projector: the sidebar hidden, the picture the screen's height, every text 20 px or more;
    # present=1 in a lesson link)
    c[8].toggle("Present", key=W.PRESENT)
    return run_end


if not quiz:
    run_end = controls()
    end_slot = st.empty()  # on every run, for the same reason as the lesson link's slot
    if run_end:
        bar = end_slot.progress(0.0, text="learning the rest of the stream…" + slow_hint())
        pg.run_to_end(progress=lambda f: bar.progress(f, text=f"learning… {f:.0%}" + slow_hint()))
        bar.empty()
else:
    st.session_state[W.PLAY] = False

# ------------------------------------------------------------------ history
playing = bool(st.session_state.get(W.PLAY)) and not pg.finished and not quiz


def history_row():
    """The history slider, under the picture (a scrubber below it, like a video's; beside it in the present mode).
    While playing, the player's own slider follows the frame shown. In a container made on every run: the elements
    after it keep their places."""
    with st.container(key="history"):
        if pg.t_max > 0 and not quiz and not playing:
            _history()


def _history():
    """The slider over the recorded steps, and the way to learn on from a past one. It is drawn in the stage's
    fragment: a move reruns the whole page (the explanation below follows the step), as Pause does."""

    def _scrub():
        ss.go_to(st.session_state[W.SCRUB])
        st.session_state.pg_rerun_app = True

    st.session_state[W.SCRUB] = pg.t
    h = st.columns([6, 1.4])
    h[0].slider(
        "History: samples seen",
        0,
        max(pg.t_max, 1),
        key=W.SCRUB,
        on_change=_scrub,
        help="Go back to any recorded step; the network is shown as it was.",
        # a projector: the slider alone (its name stays for a screen reader), every line of the screen counts
        label_visibility="collapsed" if present else "visible",
    )
    if pg.t < pg.t_max:
        if h[1].button(
            "Continue from here", key="b_fork", help="Forget the recorded future and learn on from this step"
        ):
            ss.fork(cfg)
            st.rerun()
        h[1].caption(f"viewing t = {pg.t:,} of {pg.t_max:,}")


# ------------------------------------------------------------------ quiz
def quiz_panel():
    """Predict, then reveal: the next sample, the winner candidates and the vigilance region first."""
    score = ss.quiz
    if pg.finished:
        st.success(f"End of the stream. Score: {score.right} of {score.asked}.")
        return
    with stage.stage():
        left, right = stage.columns()
        revealed = score.showing(pg.t)
        if revealed is not None:
            _quiz_revealed(left, right, score, revealed)
        else:
            _quiz_asked(left, right, score, peek(pg))


def _quiz_revealed(left, right, score, revealed):
    """After the reveal: the step CAE took, the prediction marked, the score, and the step explained."""
    with left, stage.net_box():
        fig = network_view(pg, VIEW, deleted=pg.deleted_in_frame)
        st.plotly_chart(fig, key="quiz_fig_after", config={"displaylogo": False}, height="stretch")
        _view_summary()
    with right:
        _key(fig)
        (st.success if revealed.right else st.error)("Right!" if revealed.right else "Not quite.")
        st.markdown("  \n".join(revealed.lines()))
        st.metric("Score", score.text)
        if st.button("Next sample ▶", type="primary", key="b_quiz_next"):
            score.next_sample()
            focus_after(*PREDICTION, key_selector("b_quiz_reveal"))  # the next prediction
            st.rerun()
    with st.expander(ALGO.headline(pg.record), expanded=True):
        render_blocks(ALGO.explain_step(pg.record, pg.model, pg.stream.X[pg.t - 1]))


def _quiz_asked(left, right, score, ahead):
    """Before the reveal: the next sample where CAE will see it (``ahead``, a :class:`cae.app.quiz.Peek`), and the
    prediction's widgets."""
    with left, stage.net_box():
        fig = network_view(pg, VIEW.with_(current_name="next sample"), record=ahead.record, current=ahead.x)
        st.plotly_chart(fig, key="quiz_fig_before", config={"displaylogo": False}, height="stretch")
        _view_summary(ahead=ahead.x)
        if not ALGO.is_cae:
            st.caption(f"The star is the next sample: what will {ALGO.name} do with it?")
        elif ahead.record.case > 0:
            st.caption(
                "The star is the next sample; s1 (black ring) and s2 (magenta diamond) are its two nearest nodes "
                "by CIM, and the dotted region is where CIM to s1 is at most V."
            )
        else:
            st.caption("The star is the next sample. No threshold V is set yet.")
    with right:
        _quiz_prediction(score)
        _key(fig)


def _quiz_prediction(score):
    """The class's prediction, the Reveal button, and (outside the teacher view) the score and the metrics."""
    question, choices, _ = explainable.quiz_of(ALGO.name)
    st.markdown(f"**Step {pg.t + 1}: {question}**")
    answer = st.radio(
        "Prediction",
        list(choices),
        format_func=choices.get,
        key=ALGO.quiz_key,
        label_visibility="collapsed",
    )
    # the yes/no questions beside it (CAE: "A node will be deleted (sweep)", short enough to show whole here)
    checks = [st.checkbox(label, key=key) for key, label, _ in ALGO.quiz_checks]
    if st.button("Reveal", type="primary", key="b_quiz_reveal"):
        score.reveal_step(pg, (answer, *checks), ALGO.name)
        ss.invalidate_traces()
        # the focus on Next sample (at the stream's end, where there is none: on the quiz's toggle)
        focus_after(key_selector("b_quiz_next"), key_selector(W.QUIZ, "input"))
        st.rerun()
    if not teacher:
        st.metric("Score", score.text)
        m = pg.live_metrics(score_noise=score_noise)
        a, b = st.columns(2)
        a.metric("#nodes", m["nodes"])
        b.metric("#clusters", m["clusters"])
    else:
        st.caption("Teacher view: the metrics and the score show after the reveal.")


def _view_summary(ahead=None):
    """The main view in words, beside the chart, for a screen reader (visually hidden: the panel beside the chart
    shows the same numbers); in the quiz before the reveal, where the next sample (``ahead``, its position) is."""
    where = ", ".join(f"{v:.3g}" for v in ahead) if ahead is not None else ""
    network_summary(
        pg,
        "main",
        then=f"The star is the next sample, at ({where}): what will {ALGO.name} do with it?" if where else "",
    )


# ------------------------------------------------------------------ live view
def _draw(p, spec=False):
    """The main view at the Stepper's step: the still view, and every frame of Play (``spec``: as plain data)."""
    return network_view(p, VIEW.with_(note=FIRST_HINT), deleted=p.deleted_in_frame, spec=spec)


def _frame(p):
    return _draw(p, spec=True)


#: written in the main view before the first step, where the eye is (the page's own hint was three screens below)
FIRST_HINT = "The stream to come, in grey: press <b>Step 1</b> to present its first sample"


def _describe(p):
    return panel(p, score_noise=score_noise)


def _key(fig):
    """The picture's key beside it (its marks, the clusters' colours, the edges' ages: the figure's own)."""
    meta = fig.layout.meta
    if meta and "key" in meta:
        st.html(meta["key"])


_EMPTY_NETWORK = SimpleNamespace(
    nodes_=np.zeros((0, 2)), edges_=np.zeros((0, 2), int), node_labels_=np.zeros(0, int), win_counts_=np.zeros(0)
)


def _first_picture_style():
    """Lays the first picture over the chart until the chart is drawn (hidden from then on)."""
    st.html(
        "<style>.st-key-net { position: relative; }"
        " .st-key-first_picture { position: absolute; inset: 0; z-index: 2; background: white; }"
        " .st-key-first_picture img { width: 100%; height: 100%; object-fit: contain; }"
        " .st-key-net:has(.st-key-main_fig .main-svg) .st-key-first_picture { display: none; }</style>"
    )


def _first_picture():
    """A session's first view: the network as a picture the browser shows the moment it arrives, laid over
    the interactive chart until that is drawn (a fresh browser first loads and starts the charting
    library: seconds on a classroom laptop). The same marks and colours as the home page's picture."""
    X = pg.stream.X
    model = pg.model if pg.t else _EMPTY_NETWORK
    seen = X[pg.seen(3000)] if pg.t else X[drawn_sample(len(X), max_points=3000)]  # at t = 0: the stream to come
    svg = figures.network_svg(model, seen=seen, bounds=stream_bounds(pg), width=640, height=640, title="the network")
    with st.container(key="first_picture"):
        st.image(svg, width="stretch", alt=f"Picture of the network at step t = {pg.t:,} (the chart follows)")


@fragment
def live():
    # Pause in the player, or the scrubber moved: the whole page follows (Play off, history, explanation)
    stopped = player.stopped()
    if stopped or st.session_state.pop("pg_rerun_app", False):
        if stopped:
            focus_after(key_selector(W.PLAY, "input"))  # the player's Pause is gone: Play again is the next action
        st.rerun(scope="app")
    # the first picture's style, on every run: a style-only st.html is a top-level element, and one that
    # came and went would shift the page's later elements (an open expander below would close)
    _first_picture_style()
    play_on = bool(st.session_state.get(W.PLAY)) and not pg.finished
    # The still view, in one container on every run (its chart then stays the same element, drawn, when Play
    # starts): while Play starts it stays, with a line saying what it waits for, and the browser hides it the
    # moment the player has drawn its first frame (an empty box for 10-36 s on a busy machine, before)
    with stage.stage():
        with st.container(key="still_view"):
            if not play_on or player.starting(pg):
                _still_view(waiting=play_on)
        if play_on:
            shown = player.player(pg, _frame, _describe, int(st.session_state.get(W.SPEED, 20)), present=present)
            lesson_out("playground", cfg, pg, t=shown)
            publish_step(cfg, pg, t=shown)  # a live class follows the frame the teacher's browser shows


def _still_view(waiting=False):
    """The network at the Playground's step, as large as the screen allows, and beside it its numbers, its key and
    the traces that decide the next step."""
    net, side = stage.columns()
    with net:
        with stage.net_box():
            if ss.first_picture_due():
                _first_picture()
            fig = _draw(pg)
            st.plotly_chart(fig, key="main_fig", config={"displaylogo": False}, height="stretch")
            _view_summary()
        if not present:
            history_row()
    with side:
        if waiting:
            st.caption(
                ":material/hourglass_top: **Play is starting**: computing the first frames and loading the "
                "player in this browser. The view stays until the first frame is drawn." + slow_hint()
            )
        _numbers()
        _key(fig)
        _side_traces()
        if present:
            history_row()


def _numbers():
    """The panel's numbers, compact: samples seen (of N) and the stream; the counts and the scores; the algorithm's
    two numbers (a projector: all in one row that wraps where the side panel is narrow, as many to a line as fit)."""
    p = _describe(pg)
    rows = named_rows(p)
    label, value, of = rows["samples seen"]  # "of N" under the count: "135,000 / 135,000" was cut at the edge
    first = st.columns(len(ROWS) if present else 2)
    first[0].metric(label, value, delta=of, delta_color="off", delta_arrow="off")
    first[1].metric(*rows["stream"][:2])
    names = (*PARAMETERS, *COUNTS, *SCORES)  # a projector: λ and V beside the stream, the short ones next
    groups = (
        (zip(first[2:], names),) if present else (zip(st.columns(len(n)), n) for n in ((*COUNTS, *SCORES), PARAMETERS))
    )
    for group in groups:
        for column, name in group:  # a third item under the value: "one class" under n/a
            row = rows[name]
            column.metric(row[0], row[1], delta=row[2] if len(row) > 2 else None, delta_color="off", delta_arrow="off")
    if p["last"]:
        st.markdown(f"**Last step** · {p['last']}")
    if p["finished"]:
        st.success("End of the stream.")


def _side_traces():
    """λ, V and a_max over the samples seen (the network's size for an algorithm without them), the step shown
    marked: the traces move with the picture."""
    if pg.t_max == 0:
        return
    # a projector: as tall as the side panel leaves them (the stage's style), else 210 px
    fig = figures.side_traces_figure(
        pg.trace_so_far, pg.columns, t_now=pg.t, height=None if present else 210, font_size=VIEW.font_size
    )
    st.plotly_chart(
        fig,
        key="side_traces",
        config={"displaylogo": False, "displayModeBar": False},
        height="stretch" if present else "content",
    )


def _notes():
    """What the numbers were computed on, the spread over seeds, the noise study's sentence and the network's
    count (under the stage)."""
    p = _describe(pg)
    st.caption(p["note"])
    how_often.hint(cfg, score_noise)  # the spread over seeds beside this run's scores, when known
    study = _noise_study_sentence()
    if study:
        st.caption(
            study,
            help="The noise-robustness study (Experiments page, tab Noise robustness; results/noise.md): the "
            "paper's 2-D data at this noise level, the paper's setting, every seed of the study. "
            + noise_study.FAULT_DEFINITION,
        )
    if p["network"] and not playing:  # while playing, the panel beside the frame shown has its numbers: this line
        st.caption(p["network"])  # would stay at the step where Play started (it did: "99 nodes" at step 5,183)


def traces_panel():
    """The internal quantities over time: rebuilt when the run changes; while playing it stays as it was."""
    with st.container():  # one element either way: an open expander below stays open at the first step
        if not ALGO.is_cae:
            st.caption(
                f"**Internal quantities over time** (V, λ, the diversity D, a_max) are CAE's: {ALGO.name} has none "
                "of them. Its numbers are beside the view, and every step is explained below."
            )
            return
        fig = ss.traces_figure(
            lambda: figures.traces_figure(
                pg.trace_so_far, pg.columns, s.stage_starts, s.stage_names, pg.events, t_now=pg.t
            ),
            frozen=playing,
        )
        if pg.t_max == 0:  # five empty charts said nothing: one line instead
            st.caption(
                "**Internal quantities over time** (network size, V, λ, the diversity D, a_max): "
                "drawn from the first step on."
            )
            return
        st.header("Internal quantities over time")
        st.plotly_chart(fig, key="traces_fig_chart", config={"displaylogo": False})
        st.caption(
            f"{pg.t_max:,} step{'' if pg.t_max == 1 else 's'} recorded"
            + (" · drawn up to the step where Play started; they follow again when you pause" if playing else "")
        )
        data_table(fig, "traces", x_name="t", y_name="value")


if quiz:
    quiz_panel()
else:
    live()
# messages that come and go, in one container made on every run, under the stage (they pushed the picture off
# the screen above it): the elements after it keep their places (an open expander below would close)
with st.container():
    classroom_bar()  # a live class: the teacher's steps go to the students; a student's way back to following
    show_notices(notices)
    _switched = switch_note()
    if _switched:
        st.info(_switched, icon=":material/swap_horiz:")
if not quiz:
    _notes()
    traces_panel()
    how_often.section(cfg, score_noise)

    st.header("Why did this step happen?")
    if pg.record is None:
        st.info("Press **Step 1** to present the first sample.")
    else:
        with st.expander(ALGO.headline(pg.record), expanded=not st.session_state.get(W.PLAY, False)):
            render_blocks(ALGO.explain_step(pg.record, pg.model, pg.stream.X[pg.t - 1]))
        st.page_link("pages/explain.py", label="Explain any step in detail →")

# ------------------------------------------------------------------ place a sample, draw a distribution
if s.X.shape[1] == 2 and not st.session_state.get(W.PLAY, False):
    place_and_draw(pg, all_regions)

# ------------------------------------------------------------------ take it to class
graph = st.expander("The same network, laid out as a graph", key="x_topology", on_change="rerun")
with graph:
    lay = st.radio(
        "Layout",
        ["spring", "kamada_kawai"],
        horizontal=True,
        key="w_layout",
        format_func={"spring": "spring", "kamada_kawai": "Kamada–Kawai"}.get,
    )
    if not pg.t:
        st.caption("Nothing learned yet.")
    elif playing:
        st.caption("Shown when paused (laying out a graph every frame would slow the animation).")
    elif graph.open:  # laid out only when asked for (about a second for 400 nodes), once per step

        def _lay_out():
            with st.spinner("laying out the graph…"):
                return figures.topology_figure(pg.model, layout=lay)

        st.plotly_chart(ss.topology(lay, _lay_out), key="topology_fig")
        st.caption(
            "Components (clusters) and the bridges between them are easier to see here than in data space. "
            "Colours match the main view."
        )

if pg.t_max >= 2 and not st.session_state.get(W.PLAY, False):
    with st.expander("Take this run to slides: an animated HTML file, and the traces as CSV", expanded=False):
        e = st.columns([3, 1, 1.2])
        lo_hi = e[0].slider(
            "Steps",
            0,
            pg.t_max,
            (0, pg.t_max),
            key="w_export_range",
            help="The animation replays the run from the first to the last of these steps.",
        )
        frames = int(e[1].number_input("Frames", 2, 200, 60, key="w_export_frames"))
        if e[2].button("Build the animation", key="b_export"):
            from cae.app.slides import export_playground

            try:
                with st.spinner(f"drawing {frames} frames…" + slow_hint()):
                    ss.keep_export(lo_hi, frames, export_playground(pg, lo_hi[0], lo_hi[1], frames))
            except ValueError as exc:
                message("error", "The animation cannot be built: {}", exc)
        html = ss.export(lo_hi, frames)
        if html is not None:
            st.download_button(
                "Download the animation (HTML)",
                html,
                f"cae_run_{lo_hi[0]}-{lo_hi[1]}.html",
                "text/html",
                key="d_export_html",
                on_click="ignore",
            )
            st.caption(
                f"{len(html) / 1e6:.1f} MB, plotly.js included: it opens offline in any browser, with a play "
                "button and a slider (one frame per step chosen)."
            )
        from cae.app.slides import traces_csv

        st.download_button(
            "Download the traces (CSV)",
            lambda: traces_csv(pg.trace_so_far, pg.columns),  # written when clicked (seconds for 99,000 steps)
            "cae_traces.csv",
            "text/csv",
            key="d_traces_csv",
            on_click="ignore",
            help="One row per recorded step: every quantity the traces panel draws.",
        )

q = lesson_out("playground", cfg, pg, t=player.shown_step(pg))
publish_step(cfg, pg, t=player.shown_step(pg))
with st.expander("Copy lesson link: this exact view, for your students", expanded=False):
    st.code(lesson_link(q), language=None)
    st.caption(
        "Copy it with the button at the right of the box. Opening it (on any machine with the app) shows the "
        "same stream at the same step with the same view; the parameters are readable and editable: "
        "stream, n, noise, seed, algo, lam, amax, t, and the view toggles vig, focus, regions, bw, win, sn, "
        "quiz, teach; samples placed by hand (place) and drawn from your regions (draw) come with it."
    )

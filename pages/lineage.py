"""Lineage: the paper's two families meeting in CAE, taught in seven steps as the paper tells them.

Thin: the widgets, :mod:`cae.app.lineage_lesson` (the families with their sources, the steps, their words, numbers
and paper-says/code-does notes), :mod:`cae.app.lineage` (the settings, the runs — in a background job —, the table
and its sentences), the families and the table as HTML (:mod:`cae.app.figures.lineage`), and the two networks of
the step side by side at a chosen sample step (:func:`cae.app.figures.network_figure`). The first screen holds the
families, the step's words and its two pictures (at 1280×720 too); under them, the table's rows of the step.
"""

import os
from pathlib import Path

import streamlit as st

from cae.app import figures
from cae.app import lineage as ln
from cae.app import lineage_lesson as lesson
from cae.app.explanations_lineage import DEMOGNG_ORDER, gng_counter_words
from cae.app.figures.lineage import KIND_NOTES, lineage_html, lineage_table_html
from cae.app.lesson_links import (
    LINEAGE_DEFAULTS,
    LINEAGE_N,
    LINEAGE_SEEDS,
    LINEAGE_STEPS,
    LINEAGE_STREAMS,
    lineage_query,
    parse_lineage,
)
from cae.registry import ALGORITHMS
from cae.streamlit_glue.common import ensure_entrypoint, message, send_values
from cae.streamlit_glue.fragment import fragment
from cae.streamlit_glue.stage import grid_style

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

# the lesson's committed run (python -m cae.experiments lineage); CAE_EXPLORER_RESULTS points elsewhere (tests)
RESULTS = Path(os.environ.get("CAE_EXPLORER_RESULTS", Path(__file__).resolve().parent.parent / "results"))
#: px above the two pictures: the title, the families, the controls, the step's words (at most
#: lineage_lesson.MAX_WORDS, 7 lines at 1280 px) and the pictures' names (cae/streamlit_glue/stage.py sizes each picture a square
#: as large as the first screen then allows)
PICTURES_CHROME = 340

# a lesson link (once per session; later reruns carry the query this page wrote itself)
if not st.session_state.get("lineage_link_read"):
    st.session_state.lineage_link_read = True
    _state, _notices = parse_lineage({k: st.query_params.get(k) for k in st.query_params.keys()})
    for k, v in _state.items():
        st.session_state[f"w_lin_{k}"] = v
    for note in _notices:
        message("caption", "Lesson link: {}", note)
send_values({f"w_lin_{k}": v for k, v in LINEAGE_DEFAULTS.items()})  # (every run: the browser shows them)

# the page's own style, on every run: a compact head, the step's words in one block, and the two pictures of the
# step as large as the first screen allows (at 1280×720 too)
grid_style(2, grid="lin_grid", cell="lin_net_", chrome=PICTURES_CHROME, per_row=2)
st.html(
    "<style>.st-key-lin_step { background:#f7f7f7; border-left:4px solid #555; padding:0.3rem 0.6rem; gap:0.2rem; }"
    ".st-key-lin_step p { font-size:0.9rem; line-height:1.32; margin:0; }"
    ".st-key-lin_step [data-testid='stMarkdownContainer'] { margin-bottom:0; }</style>"
)
st.title("Lineage: two families meeting in CAE")
number = int(st.session_state.w_lin_step)
step = lesson.STEPS[number - 1]
st.html(lineage_html(step.draws + step.named, {name: a.colour for name, a in ALGORITHMS.items()}))

c = st.columns([1.9, 1.5, 2.4, 0.8])
c[0].selectbox(
    "Step of the lesson",
    LINEAGE_STEPS,
    format_func=lambda k: f"{k} · {lesson.STEPS[k - 1].title}",
    key="w_lin_step",
)
stream_name = c[1].radio("Stream", LINEAGE_STREAMS, horizontal=True, key="w_lin_stream")
n = int(st.session_state.w_lin_n)
n_samples = int(round(6 * n * (1 + ln.STREAMS[stream_name])))
st.session_state.w_lin_t = min(int(st.session_state.w_lin_t), n_samples)
t = c[2].slider("Sample step t (the arrow keys step by one)", 0, n_samples, step=1, key="w_lin_t")
seed = int(c[3].number_input("Seed", 0, 10**6, key="w_lin_seed"))


@st.cache_data(show_spinner=False, max_entries=2)
def _committed(path, mtime):
    """The committed run's runs, or None and why not (read again when the file changes)."""
    try:
        return ln.read_runs(path), ""
    except (OSError, ValueError) as exc:
        return None, str(exc)


def _plural(k, word):
    return f"{k:,} {word}{'' if k == 1 else 's'}"


_path = RESULTS / "lineage.csv"
committed, committed_error = _committed(str(_path), _path.stat().st_mtime if _path.exists() else 0.0)
job = st.session_state.get("lineage_job")
# the lesson's numbers: a run of the page's own that has finished every run, else the committed one
finished = job is not None and not job.running and job.error is None and len(job.runs) == job.total
lesson_runs = job.runs if finished else committed or []

with st.container(key="lin_step"):
    head = lesson.heading(step)
    notes = lesson.notes_text(step.notes).replace("Paper says / code does", "**Paper says / code does**", 1)
    words = f"**{head[: head.index(' (')]}** {head[head.index(' (') + 1 :]} " + lesson.step_text(step, lesson_runs)
    st.markdown(words + (f"  \n{notes}" if notes else ""))


@st.cache_resource(show_spinner="learning…", max_entries=4)
def _models(t, seed, n, stream_name, keys):
    return ln.models_at(t, seed=seed, n_per_class=n, stream_name=stream_name, settings=[ln.setting(k) for k in keys])


def _picture(s, model, rec, stream, t, k):
    st.markdown(f"**{s.key}** · {s.role}")
    fig = figures.network_figure(
        model if t else None,
        figures.thin(stream.X[:t], max_points=4000)[0] if t else None,
        None,
        stream.X[t - 1] if t else None,
        rec,
        bounds=((0, 1), (0, 1)),
        show_vigilance=True,
        height=None,
        legend=False,
        current_name="the sample of step t",
    )
    with st.container(key=f"lin_net_{k}"):
        st.plotly_chart(fig, key=f"lin_fig_{k}", config={"displayModeBar": False}, height="stretch")
    if fig.layout.meta:  # the picture's key (its marks, colours and edge ages) under it
        st.html(fig.layout.meta["key"])
    if rec is not None:
        clusters, nodes = _plural(int(model.n_clusters_), "cluster"), _plural(len(model.nodes_), "node")
        st.caption(f"Step {t:,}: {rec.event}. {clusters}, {nodes}.")
    if ALGORITHMS[s.algorithm].kind in KIND_NOTES:
        st.caption(KIND_NOTES[ALGORITHMS[s.algorithm].kind])
    if s.algorithm == "GNG" and t:
        st.caption(gng_counter_words(t, model) + " " + DEMOGNG_ORDER)


drawn = tuple(ln.usual_setting(a) for a in step.draws)
stream, models = _models(t, seed, n, stream_name, tuple(s.key for s in drawn))
with st.container(key="lin_grid"):
    for k, (col, (s, model, rec)) in enumerate(zip(st.columns(2), models)):
        with col:
            _picture(s, model, rec, stream, t, k)

st.header(f"Step {number}'s numbers")
what = (
    "Every algorithm at its usual setting"
    if step.rows == ("usual",)
    else "Each parameter of the step's algorithms at a low value, the usual one and a high one, one at a time"
)
st.caption(
    f"{what} (usual: the values the paper's grid search chose for its non-stationary 2-D stream for TCA, CAEA and "
    f"ASOINN; Fritzke 1995's for GNG, with n_max = {ln.GNG_MAX_NODES:,}; the app's default ρ for Fuzzy ART), on the "
    f"app's copy of the paper's stream #1 → #6 ({ln.N_PER_CLASS:,} points per distribution; the paper has 15,000) "
    "with its 10 % uniform noise and on the same stream without noise. NMI leaves the noise out. Edges across "
    f"classes: edges joining two nodes whose nearest points belong to different classes. {ln.TABLE_WORDS}"
)


def _table(runs, settings):
    return lineage_table_html(ln.summary_table(runs, settings), ln.TABLE_GROUPS)


def _lesson(runs, all_rows):
    """The table (the step's rows, or all), CAE's λ seed by seed at its step, and each row in words."""
    settings = ln.SETTINGS if all_rows else lesson.step_settings(step)
    st.html(_table(runs, settings))
    if step.per_seed and any(r.setting == "CAE" for r in runs):
        st.markdown("**CAE's λ beside its #nodes, seed by seed** (λ = 2K: always even)")
        st.table(lesson.lam_per_seed(runs)[0])
    shown = [s for s in settings if any(r.setting == s.key for r in runs)]
    with st.expander(f"In words: what each parameter is, and {_plural(len(shown), 'row')}"):
        st.markdown("\n".join(f"- **{head}**: {text}." for head, text in ln.meanings(shown)))
        st.markdown("\n".join(f"- {text}" for _, text in ln.sentences(runs, shown)))


st.toggle(f"Whole table ({len(ln.SETTINGS)} rows)", key="w_lin_all")
c = st.columns([1.2, 1.2, 1, 3])
c[0].selectbox("Points per distribution", LINEAGE_N, key="w_lin_n")
n_seeds = c[1].select_slider("Seeds", LINEAGE_SEEDS, key="w_lin_seeds")
if c[2].button(f"Run {n_seeds} seeds", key="b_lin_run", type="primary", width="stretch"):
    if job is not None:
        job.cancel()
    job = st.session_state.lineage_job = ln.LineageJob(n_seeds=n_seeds, n_per_class=n).start()
if job is not None and job.running:
    c[3].button("Stop", key="b_lin_stop", on_click=job.cancel)


@fragment(run_every=1.0 if job is not None and job.running else None)
def results():
    job = st.session_state.get("lineage_job")
    all_rows = bool(st.session_state.get("w_lin_all"))
    if job is None:
        if committed is None:
            st.caption(
                f"No committed run to show ({committed_error}). Press **Run** to run the lesson in the background."
            )
            return
        seeds = _plural(len({r.seed for r in committed}), "seed")
        samples = max(r.n_samples for r in committed)
        st.caption(
            f"The committed run, `results/lineage.csv` ({seeds}, {samples:,} samples a run on the noisy stream; "
            "`python -m cae.experiments lineage`): the numbers of the steps too."
        )
        _lesson(committed, all_rows)
    else:
        if job.running:
            st.progress(job.fraction, text=job.words())
        else:
            st.caption(job.words() + (" The steps quote this run." if finished else ""))
        if not job.runs:
            return
        _lesson(job.runs, all_rows)
    if job is not None and not job.running and st.session_state.get("lineage_polling"):
        st.session_state.lineage_polling = False
        st.rerun()  # the job has ended: one full run to stop polling (and to quote it in the step)


st.session_state.lineage_polling = job is not None and job.running
results()

_link = lineage_query({k: st.session_state[f"w_lin_{k}"] for k in LINEAGE_DEFAULTS})
if {k: st.query_params.get(k) for k in st.query_params.keys()} != _link:
    st.query_params.from_dict(_link)
with st.expander("Copy lesson link: this step, this stream, this sample step", expanded=False):
    from urllib.parse import urlencode

    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - AppTest has no URL
        base = ""
    st.code(f"{base or '/lineage'}?{urlencode(_link)}", language=None)

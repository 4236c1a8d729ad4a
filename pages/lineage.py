"""Lineage: the paper's two families meeting in CAE, each parameter shown doing what it does.

Thin: the widgets, :mod:`cae.app.lineage` (the lineage's steps, the settings, the runs — in a background job —, the
table and its sentences), the lineage and the table as HTML (:mod:`cae.app.figures.lineage`), and the two networks of
one step of the lineage side by side at a chosen sample step (:func:`cae.app.figures.network_figure`).
"""

import os
from pathlib import Path

import streamlit as st

from cae.app import figures
from cae.app import lineage as ln
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
from pages._common import ensure_entrypoint, message
from pages._fragment import fragment
from pages._stage import grid_style

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

# the lesson's committed run (python -m cae.experiments lineage); CAE_EXPLORER_RESULTS points elsewhere (tests)
RESULTS = Path(os.environ.get("CAE_EXPLORER_RESULTS", Path(__file__).resolve().parent.parent / "results"))
#: px above the two pictures: the title, the lineage's boxes, its controls and the pictures' names (pages/_stage.py
#: sizes each picture a square as large as the first screen then allows)
PICTURES_CHROME = 330

# a lesson link (once per session; later reruns carry the query this page wrote itself)
if not st.session_state.get("lineage_link_read"):
    st.session_state.lineage_link_read = True
    _state, _notices = parse_lineage({k: st.query_params.get(k) for k in st.query_params.keys()})
    for k, v in _state.items():
        st.session_state[f"w_lin_{k}"] = v
    for note in _notices:
        message("caption", "Lesson link: {}", note)
for k, v in LINEAGE_DEFAULTS.items():
    st.session_state.setdefault(f"w_lin_{k}", v)

# the page's own style, on every run: a compact head, and the two pictures of one step as large as the first screen
# allows (at 1280×720 too)
grid_style(2, grid="lin_grid", cell="lin_net_", chrome=PICTURES_CHROME, per_row=2)
st.title("Lineage: two families meeting in CAE")
step = ln.STEPS[int(st.session_state.w_lin_step) - 1]
st.html(lineage_html((step.before, step.after), {name: a.colour for name, a in ALGORITHMS.items()}))

c = st.columns([1.6, 1.6, 2.6, 0.8])
c[0].selectbox("Step of the lineage", LINEAGE_STEPS, format_func=lambda k: ln.STEPS[k - 1].key, key="w_lin_step")
stream_name = c[1].radio("Stream", LINEAGE_STREAMS, horizontal=True, key="w_lin_stream")
n = int(st.session_state.w_lin_n)
n_samples = int(round(6 * n * (1 + ln.STREAMS[stream_name])))
st.session_state.w_lin_t = min(int(st.session_state.w_lin_t), n_samples)
t = c[2].slider("Sample step t (the arrow keys step by one)", 0, n_samples, step=1, key="w_lin_t")
seed = int(c[3].number_input("Seed", 0, 10**6, key="w_lin_seed"))


@st.cache_resource(show_spinner="learning…", max_entries=4)
def _models(t, seed, n, stream_name, keys):
    return ln.models_at(t, seed=seed, n_per_class=n, stream_name=stream_name, settings=[ln.setting(k) for k in keys])


def _plural(k, word):
    return f"{k:,} {word}{'' if k == 1 else 's'}"


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


drawn = (ln.usual_setting(step.before), ln.usual_setting(step.after))
stream, models = _models(t, seed, n, stream_name, tuple(s.key for s in drawn))
with st.container(key="lin_grid"):
    for k, (col, (s, model, rec)) in enumerate(zip(st.columns(2), models)):
        with col:
            _picture(s, model, rec, stream, t, k)
st.caption(f"**{step.key}** · {step.change}")

st.header("Each parameter low, usual and high, on both streams")
st.caption(
    "Every parameter of the lineage (ρ, λ, a_max, σ_init) at a low value, the usual one and a high one, one at a time "
    "(usual: the paper's grid-searched values for this stream for TCA, CAEA and ASOINN; Fritzke 1995's for GNG, here "
    f"with n_max = {ln.GNG_MAX_NODES:,}; the app's default ρ for Fuzzy ART), on the paper's stream #1 → #6 with its "
    "10 % uniform noise and on the same stream without noise. NMI leaves the noise out; mean ± sd over the seeds. "
    "Edges across classes: edges joining two nodes whose nearest points belong to different classes (a network "
    "that has learned the shapes has none)."
)
c = st.columns([1.2, 1.2, 1, 3])
c[0].selectbox("Points per distribution", LINEAGE_N, key="w_lin_n")
n_seeds = c[1].select_slider("Seeds", LINEAGE_SEEDS, key="w_lin_seeds")
job = st.session_state.get("lineage_job")
if c[2].button(f"Run {n_seeds} seeds", key="b_lin_run", type="primary", width="stretch"):
    if job is not None:
        job.cancel()
    job = st.session_state.lineage_job = ln.LineageJob(n_seeds=n_seeds, n_per_class=n).start()
if job is not None and job.running:
    c[3].button("Stop", key="b_lin_stop", on_click=job.cancel)


@st.cache_data(show_spinner=False, max_entries=2)
def _committed(path, mtime):
    """The committed run's table and sentences (read again when the file changes)."""
    try:
        runs = ln.read_runs(path)
    except (OSError, ValueError) as exc:
        return None, str(exc)
    seeds = _plural(len({r.seed for r in runs}), "seed")
    return _lesson(runs), f"{seeds}, {max(r.n_samples for r in runs):,} samples a run on the noisy stream"


def _lesson(runs):
    table = lineage_table_html(ln.summary_table(runs), ln.TABLE_GROUPS)
    return table, "\n".join(f"- {text}" for _, text in ln.sentences(runs))


@fragment(run_every=1.0 if job is not None and job.running else None)
def results():
    job = st.session_state.get("lineage_job")
    if job is None:
        path = RESULTS / "lineage.csv"
        lesson, words = _committed(str(path), path.stat().st_mtime if path.exists() else 0.0)
        if lesson is None:
            st.caption(f"No committed run to show ({words}). Press **Run** to run the lesson in the background.")
            return
        st.caption(f"The committed run, `results/lineage.csv` ({words}; `python -m cae.experiments lineage`).")
    else:
        if job.running:
            st.progress(job.fraction, text=job.words())
        else:
            st.caption(job.words())
        if not job.runs:
            return
        lesson = _lesson(job.runs)
    st.html(lesson[0])
    st.markdown(lesson[1])
    if job is not None and not job.running and st.session_state.get("lineage_polling"):
        st.session_state.lineage_polling = False
        st.rerun()  # the job has ended: one full run to stop polling


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

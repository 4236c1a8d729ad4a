"""Compare algorithms: the same stream, the same seed, two to four algorithms stepped together."""

import streamlit as st

from cae.app import figures
from cae.app.figures.lineage import KIND_NOTES
from cae.app.lockstep import Lockstep, display_table, metrics_caption, traces_titles
from cae.app.streams import SOURCES, environment_of, make_stream, paper_setting
from cae.app.view_options import ViewOptions
from cae.registry import ALGORITHMS
from cae.streamlit_glue.common import data_table, ensure_entrypoint, message, network_summary, slow_hint
from cae.streamlit_glue.playground_session import network_view, stream_title
from cae.streamlit_glue.stage import columns_for, grid_style

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

DEFAULT_ALGOS = ["CAE", "CAEA", "SOINN+", "TCA"]

# the page's own style (on every run): a compact head, and the networks' grid sized to the screen (cae/streamlit_glue/stage.py)
grid_style(len(st.session_state.get("w_cmp_algos", DEFAULT_ALGOS)))
st.title("Compare algorithms")
st.caption(
    "The same stream, in the same order, learned by two to four algorithms in lock step; choose them and their "
    "parameters in the sidebar (the **paper's setting** button fills in the paper's grid-searched values)."
)
sb = st.sidebar
sb.header("Data")
src = sb.selectbox("Stream", list(SOURCES), format_func=stream_title, key="w_cmp_src")
n = sb.select_slider("Points per distribution", [250, 500, 1500, 5000, 15000], value=1500, key="w_cmp_n")
noise = sb.slider("Noise", 0.0, 0.5, 0.1, 0.05, key="w_cmp_noise")
seed = int(sb.number_input("Seed", 0, 10**6, 0, key="w_cmp_seed"))
environment = environment_of(src)
sb.header("Algorithms")
chosen = sb.multiselect(
    "Algorithms (two to four)",
    list(ALGORITHMS),
    default=DEFAULT_ALGOS,
    max_selections=4,
    key="w_cmp_algos",
    help="; ".join(f"{a.name}: {a.description}" for a in ALGORITHMS.values()),
)
if len(chosen) < 2:
    st.info("Choose at least two algorithms (in the sidebar).")
    st.stop()


def _widget_key(algo, param):
    return f"w_cmp_{algo}_{param}"


def _use_paper_setting(algo):
    for name, value in paper_setting(algo, src).items():
        st.session_state[_widget_key(algo, name)] = value


runs = {}
with_params = [a for a in chosen if ALGORITHMS[a].params]
if with_params:
    for algo in with_params:
        spec = ALGORITHMS[algo]
        with sb:
            st.markdown(f"**{algo}**")
            params = {}
            for p in spec.params:
                key = _widget_key(algo, p.name)
                st.session_state.setdefault(key, paper_setting(algo, src).get(p.name, p.default))
                st.session_state[key] = (int if p.kind == "int" else float)(st.session_state[key])
                params[p.name] = st.number_input(p.label, key=key, help=p.help, **p.widget_kwargs())
            st.button(
                "Paper's setting",
                key=f"b_cmp_paper_{algo}",
                on_click=_use_paper_setting,
                args=(algo,),
                help=f"The paper's grid-searched values for its 2-D data, {environment} environment: "
                + ", ".join(f"{k} = {v:g}" for k, v in paper_setting(algo, src).items()),
            )
            runs[algo] = params
for algo in chosen:
    runs.setdefault(algo, {})
labels = {algo: ALGORITHMS[algo].describe(params) for algo, params in runs.items()}

cfg = dict(source=src, n_per_class=n, noise=noise, seed=seed)
key = (tuple(sorted(cfg.items())), tuple((labels[a], a) for a in chosen))
if st.session_state.get("cmp_key") != key:
    try:
        st.session_state.cmp = Lockstep(make_stream(cfg), {labels[a]: (a, runs[a]) for a in chosen})
    except ValueError as exc:
        message("error", "These settings cannot be used: {}", exc)
        st.stop()
    st.session_state.cmp_key = key
ls = st.session_state.cmp

b = st.columns([0.9, 1, 1.1, 0.9, 3.2], vertical_alignment="center")
nstep = int(b[0].number_input("N", 1, 100000, 500, key="w_cmp_stepn", label_visibility="collapsed"))
if b[1].button("Step N", key="b_cmp_step", width="stretch"):
    ls.step(nstep)
if b[2].button("Run to end", key="b_cmp_end", width="stretch"):
    bar = st.progress(0.0, text="learning…" + slow_hint())
    while not ls.finished:
        ls.step(5000)
        bar.progress(ls.t / len(ls.stream), text=f"learning… {ls.t:,} of {len(ls.stream):,} samples")
    bar.empty()
if b[3].button("Reset", key="b_cmp_reset", width="stretch"):
    ls.reset()
b[4].caption(f"{ls.t:,} of {len(ls.stream):,} samples · stages: {', '.join(ls.stream.stage_names)}")

items = list(ls.playgrounds.items())
keys = []
with st.container(key="cmp_grid"):
    per_row = columns_for(len(items))
    for r in range(0, len(items), per_row):
        cols = st.columns(per_row, gap="small")
        for k, (col, (label, pg)) in enumerate(zip(cols, items[r : r + per_row]), start=r):
            with col:
                st.markdown(f"**{label}**")
                fig = network_view(pg, ViewOptions(height=None, legend=False))
                with st.container(key=f"cmp_net_{k}"):
                    st.plotly_chart(fig, key=f"cmp_fig_{label}", height="stretch")
                network_summary(pg, f"cmp_{k}")
                keys.append(fig.layout.meta["key"])
# under the grid, each picture's key (the marks are shared; the clusters, the edges' ages and a model's own marks are
# its own) and how to read each kind of model
for key, label in zip(keys, ls.playgrounds):
    st.markdown(f"**{label}**")
    st.html(key)
for label in ls.playgrounds:
    kind = ALGORITHMS[ls.runs[label][0]].kind
    if kind == "clouds":
        st.caption(
            f"**{label}**: AutoCloud has no nodes or edges: its clouds are drawn as centres (diamonds) with their "
            "spread (a circle of radius √variance)."
        )
    elif kind in KIND_NOTES:
        st.caption(f"**{label}**: " + KIND_NOTES[kind])
score_noise = st.toggle("Score the noise as a class", value=False, key="w_cmp_score_noise")
st.dataframe(  # "—": no such quantity; NMI and ARI wide enough for "n/a — one class so far"
    display_table(ls.metrics(score_noise=score_noise)),
    hide_index=True,
    column_config={k: st.column_config.Column(width=150) for k in ("NMI", "ARI")},
)
algorithms = [ls.runs[label][0] for label in ls.playgrounds]
st.caption(metrics_caption(algorithms, score_noise, one_class=ls.one_class_so_far(score_noise)))
if ls.t:
    series = [ls.traces("n_nodes"), ls.traces("n_clusters")]
    cmp_fig = figures.compare_figure(
        series,
        traces_titles(algorithms),
        stage_starts=ls.stream.stage_starts,
        stage_names=ls.stream.stage_names,
        height=460,
    )
    st.plotly_chart(cmp_fig, key="cmp_traces")
    data_table(cmp_fig, "cmp_traces", x_name="samples seen", y_name="value")

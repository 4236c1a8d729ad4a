"""Lineage: Fuzzy ART and GNG with their fixed parameters beside CAEA and CAE, on one drifting stream.

Thin: the widgets, :mod:`cae.app.lineage` (the runs, in a background job, and the table), and the four networks
drawn side by side at a chosen step (:func:`cae.app.figures.network_figure`).
"""

import streamlit as st

from cae.app import figures
from cae.app import lineage as ln
from cae.app.figures.lineage import KIND_NOTES
from cae.app.lesson_links import (
    LINEAGE_ART,
    LINEAGE_DEFAULTS,
    LINEAGE_GNG,
    LINEAGE_N,
    LINEAGE_SEEDS,
    lineage_query,
    parse_lineage,
)
from cae.registry import ALGORITHMS
from pages._common import ensure_entrypoint, message

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

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

st.title("Lineage: Fuzzy ART, GNG, CAE")
st.caption(
    "CAE descends from two classics. **Fuzzy ART** (Carpenter, Grossberg & Rosen 1991) keeps a category when a "
    "sample passes its vigilance test — with a fixed vigilance ρ. **Growing Neural Gas** (Fritzke 1995) inserts a "
    "node every λ samples and removes edges older than a_max — with λ and a_max fixed. CAE estimates what they "
    "fix: the threshold V from the data, λ from the nodes' diversity, a_max from the edges' ages. Here the four "
    "learn the same drifting stream — the paper's six 2-D distributions one after another (#1 → #6) with 10 % "
    "noise — and each fixed parameter is set too low, as usual, and too high."
)

c = st.columns([1.2, 1.2, 1, 3])
n = c[0].selectbox("Points per distribution", LINEAGE_N, key="w_lin_n")
n_seeds = c[1].select_slider("Seeds", LINEAGE_SEEDS, key="w_lin_seeds")
job = st.session_state.get("lineage_job")
if c[2].button(f"Run {n_seeds} seeds", key="b_lin_run", type="primary", width="stretch"):
    if job is not None:
        job.cancel()
    job = st.session_state.lineage_job = ln.LineageJob(n_seeds=n_seeds, n_per_class=n).start()
if job is not None and job.running:
    c[3].button("Stop", key="b_lin_stop", on_click=job.cancel)


@st.fragment(run_every=1.0 if job is not None and job.running else None)
def results():
    job = st.session_state.get("lineage_job")
    if job is None:
        st.caption(
            f"Press **Run** to run the {len(ln.SETTINGS)} settings over seeds 0 … N−1 in the background (a few "
            "seconds; the page stays usable)."
        )
        return
    if job.running:
        st.progress(job.fraction, text=job.words())
    else:
        st.caption(job.words() + f" {job.n_per_class:,} points per distribution.")
    if not job.runs:
        return
    st.dataframe(
        ln.summary_table(job.runs),
        hide_index=True,
        key="lin_table",
        column_config={"setting": st.column_config.TextColumn(width="large")},  # CAEA's whole setting
    )
    st.caption(ln.MERGE_WORDS + " NMI and ARI leave the noise out; mean ± sd over the seeds run.")
    st.markdown(
        "\n".join(
            f"- **{s.key}**: {ln.setting_sentence(s, job.runs)}"
            for s in ln.SETTINGS
            if any(r.setting == s.key for r in job.runs)
        )
    )
    if not job.running and st.session_state.get("lineage_polling"):
        st.session_state.lineage_polling = False
        st.rerun()  # the job has ended: one full run to stop polling


st.session_state.lineage_polling = job is not None and job.running
results()

st.header("The four networks at one step")
seed = int(st.columns([1, 5])[0].number_input("Seed", 0, 10**6, key="w_lin_seed"))
n_samples = int(round(6.6 * n))
st.session_state.w_lin_t = min(int(st.session_state.w_lin_t), n_samples)
t = st.slider("Step t (samples seen; the arrow keys step by one)", 0, n_samples, step=1, key="w_lin_t")
p = st.columns(2)
rho = p[0].select_slider("Fuzzy ART's ρ", LINEAGE_ART, key="w_lin_art")
lam = p[1].select_slider("GNG's λ", LINEAGE_GNG, key="w_lin_gng")
drawn = [
    next(s for s in ln.SETTINGS if s.algorithm == "Fuzzy ART" and s.params["vigilance"] == rho),
    next(s for s in ln.SETTINGS if s.algorithm == "GNG" and s.params["insertion_interval"] == lam),
    *[s for s in ln.SETTINGS if s.algorithm in ("CAEA", "CAE")],
]


@st.cache_resource(show_spinner="learning…", max_entries=4)
def _models(t, seed, n, keys):
    return ln.models_at(t, seed=seed, n_per_class=n, settings=[s for s in ln.SETTINGS if s.key in keys])


stream, models = _models(t, seed, n, tuple(s.key for s in drawn))
seen = figures.thin(stream.X[:t], max_points=4000)[0] if t else None
for row in range(0, len(models), 2):
    cols = st.columns(2)
    for col, (s, model, rec) in zip(cols, models[row : row + 2]):
        with col:
            st.markdown(f"**{s.key}** ({s.role})")
            fig = figures.network_figure(
                model if t else None,
                seen,
                None,
                stream.X[t - 1] if t else None,
                rec,
                bounds=((0, 1), (0, 1)),
                show_vigilance=True,
                height=540,  # room for the legend of an insertion step (r, q, f) above a readable plot
                current_name="the sample of step t",
            )
            st.plotly_chart(fig, key=f"lin_fig_{s.algorithm}", config={"displayModeBar": False})
            if rec is not None:
                st.caption(f"Step {t:,}: {rec.event}. {model.n_clusters_} clusters, {len(model.nodes_)} nodes.")
            if ALGORITHMS[s.algorithm].kind in KIND_NOTES:
                st.caption(KIND_NOTES[ALGORITHMS[s.algorithm].kind])

_link = lineage_query({k: st.session_state[f"w_lin_{k}"] for k in LINEAGE_DEFAULTS})
if {k: st.query_params.get(k) for k in st.query_params.keys()} != _link:
    st.query_params.from_dict(_link)
with st.expander("Copy lesson link: these settings and this step", expanded=False):
    from urllib.parse import urlencode

    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - AppTest has no URL
        base = ""
    st.code(f"{base or '/lineage'}?{urlencode(_link)}", language=None)

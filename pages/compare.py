"""Compare: the same stream, the same seed, CAE beside CAEA, stepped together."""

import streamlit as st

from cae import viz
from cae import workbench as wb
from pages._ui import SOURCES, make_stream, network_view

from pages._ui import ensure_entrypoint  # noqa: E402

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

st.title("CAE beside CAEA")
st.caption("What does “parameter-free” buy? Both learn the same stream in lock step. CAE estimates λ and a_max; "
           "CAEA is given them.")
c = st.columns(6)
src = c[0].selectbox("Stream", list(SOURCES), format_func=SOURCES.get, key="w_cmp_src")
n = c[1].select_slider("Points per distribution", [250, 500, 1500, 5000, 15000], value=1500, key="w_cmp_n")
noise = c[2].slider("Noise", 0.0, 0.5, 0.1, 0.05, key="w_cmp_noise")
seed = int(c[3].number_input("Seed", 0, 10**6, 0, key="w_cmp_seed"))
lam = int(c[4].slider("CAEA λ", 4, 400, 80, 2, key="w_cmp_lam"))
amax = int(c[5].slider("CAEA a_max", 1, 200, 40, key="w_cmp_amax"))
cfg = dict(source=src, n_per_class=n, noise=noise, seed=seed)
runs = {"CAE": ("CAE", {}), f"CAEA (λ={lam}, a_max={amax})": ("CAEA", {"deletion_interval": lam, "max_edge_age": amax})}
key = (tuple(sorted(cfg.items())), lam, amax)
if st.session_state.get("cmp_key") != key:
    st.session_state.cmp = wb.Lockstep(make_stream(cfg), runs)
    st.session_state.cmp_key = key
ls = st.session_state.cmp

b = st.columns([1, 1, 1, 1, 3])
nstep = int(b[0].number_input("N", 1, 100000, 500, key="w_cmp_stepn", label_visibility="collapsed"))
if b[1].button("Step N", key="b_cmp_step", width="stretch"):
    ls.step(nstep)
if b[2].button("Run to end", key="b_cmp_end", width="stretch"):
    bar = st.progress(0.0)
    while not ls.finished:
        ls.step(5000)
        bar.progress(ls.t / len(ls.stream))
    bar.empty()
if b[3].button("Reset", key="b_cmp_reset", width="stretch"):
    ls.reset()
b[4].caption(f"{ls.t:,} of {len(ls.stream):,} samples · stages: {', '.join(ls.stream.stage_names)}")

cols = st.columns(len(ls.playgrounds))
for col, (label, pg) in zip(cols, ls.playgrounds.items()):
    with col:
        st.markdown(f"**{label}**")
        st.plotly_chart(network_view(pg, height=430), key=f"cmp_fig_{label}")
st.dataframe(ls.metrics().round(4), hide_index=True)
if ls.t:
    series = [ls.traces("n_nodes"), ls.traces("n_clusters"), ls.traces("threshold")]
    st.plotly_chart(viz.compare_figure(series, ("#nodes", "#clusters", "similarity threshold V"),
                                       stage_starts=ls.stream.stage_starts), key="cmp_traces")

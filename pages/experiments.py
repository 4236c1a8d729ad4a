"""Experiments: the paper's studies, small enough to run here, as plots."""

import pandas as pd
import streamlit as st

from cae import experiments as ex
from cae import viz
from cae.datasets import load_builtin

from pages._ui import ensure_entrypoint

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

st.title("Experiments")
st.caption("Small versions of the paper's studies. The full grids run from the command line: "
           "`python -m cae.experiments synthetic|realworld|lambda-sweep|runtime --help`.")
tabs = st.tabs(["Synthetic 2-D", "λ sweep", "Runtime"])


def _run(job, args, label):
    bar = st.progress(0.0, text=label)
    rows = []
    for k, a in enumerate(args, start=1):
        rows.extend(job(*a))
        bar.progress(k / len(args), text=f"{label} {k}/{len(args)}")
    bar.empty()
    return pd.DataFrame(rows)


with tabs[0]:
    c = st.columns(4)
    env = c[0].radio("Environment", ["stationary", "nonstationary"], key="w_ex_env", horizontal=True)
    runs = int(c[1].number_input("Runs", 1, 15, 3, key="w_ex_runs"))
    n = c[2].select_slider("Points per distribution", [500, 1500, 5000, 15000], value=1500, key="w_ex_n",
                           help="The paper: 15,000 (99,000 samples with noise).")
    seed = int(c[3].number_input("Seed", 0, 10**6, 0, key="w_ex_seed"))
    if st.button("Run", type="primary", key="b_ex_syn"):
        st.session_state.ex_syn = (env, n, _run(ex.synthetic_job, [(env, r, seed, n) for r in range(runs)], "runs"))
    got = st.session_state.get("ex_syn")
    if got:
        env_done, n_done, df = got
        ref = ex.PAPER_SYNTHETIC_STATIONARY if env_done == "stationary" and n_done == 15000 else None
        st.plotly_chart(viz.bars_with_std(df, "stage", ["nmi", "ari"], reference=ref), key="ex_syn_q")
        st.plotly_chart(viz.bars_with_std(df, "stage", ["n_nodes", "n_clusters"], reference=ref), key="ex_syn_n")
        st.dataframe(df.round(4), hide_index=True)
        if env_done == "stationary":
            st.caption("The paper's CAE, stationary, 15 runs of 15,000 points per distribution: "
                       "NMI 0.907 (0.254), ARI 0.868 (0.270), #nodes 243.1 (34.4), #clusters 7.0 (2.4)"
                       + ("" if ref else " — shown beside ours only for the paper's size, 15,000."))

with tabs[1]:
    c = st.columns(4)
    name = c[0].selectbox("Dataset (min-max scaled)", ["iris", "wine", "breast_cancer", "digits"], key="w_ex_lds")
    lams = c[1].text_input("λ values", "10,20,40,80,160", key="w_ex_lams")
    runs = int(c[2].number_input("Runs", 1, 20, 5, key="w_ex_lruns"))
    if st.button("Run", type="primary", key="b_ex_lam"):
        try:
            values = [int(v) for v in lams.split(",") if v.strip()]
            if not values or min(values) < 4:
                raise ValueError
        except ValueError:
            st.error("Give λ values as integers of at least 4, separated by commas.")
        else:
            d = load_builtin(name)
            st.session_state.ex_lam = _run(ex.lambda_job, [(d, lam, r, 0) for lam in [None] + values for r in range(runs)],
                                           "runs")
    if "ex_lam" in st.session_state:
        df = st.session_state.ex_lam
        st.plotly_chart(viz.lambda_sweep_figure(df), key="ex_lam_fig")
        st.caption("Stars: the λ that CAE estimated itself in each run (its NMI and #clusters).")

with tabs[2]:
    names = st.multiselect("Datasets (min-max scaled)", ["iris", "wine", "breast_cancer", "digits", "paper2d-small"],
                           default=["iris", "digits", "paper2d-small"], key="w_ex_rt")
    if st.button("Run", type="primary", key="b_ex_rt") and names:
        st.session_state.ex_rt = _run(ex.runtime_job, [(load_builtin(k), 0, 0) for k in names], "datasets")
    if "ex_rt" in st.session_state:
        df = st.session_state.ex_rt
        st.plotly_chart(viz.runtime_figure(df), key="ex_rt_fig")
        st.dataframe(df.round(4), hide_index=True)

"""Experiments: the paper reproduction beside the paper, and the studies in small, as plots."""

import os
from pathlib import Path

import pandas as pd
import streamlit as st

from cae import experiments as ex
from cae.app import figures as app_figures
from cae.data import load_builtin
from cae.experiments import against_paper, figures
from cae.experiments import noise as noise_study
from cae.registry import ALGORITHMS
from cae.streamlit_glue.common import data_table, ensure_entrypoint

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

# CAE_EXPLORER_RESULTS points the page at another results folder (the tests use it)
RESULTS = Path(os.environ.get("CAE_EXPLORER_RESULTS", Path(__file__).resolve().parent.parent / "results"))

st.title("Experiments")
st.caption(
    "The paper's studies. The full reproduction runs from the command line "
    "(`python -m cae.experiments paper --out results --n-jobs 2 --data authors`, after `python -m cae.data fetch`) and "
    "is shown under *Against the paper*; the other "
    "tabs run small versions here."
)
tabs = st.tabs(["Against the paper", "Noise robustness", "Synthetic 2-D", "λ sweep", "Runtime"])


def _run(job, args, label):
    bar = st.progress(0.0, text=label)
    rows = []
    for k, a in enumerate(args, start=1):
        rows.extend(job(*a))
        bar.progress(k / len(args), text=f"{label} {k}/{len(args)}")
    bar.empty()
    return pd.DataFrame(rows)


def _download(fig, name, key):
    st.download_button(
        "Download as HTML",
        figures.standalone_html(fig),
        f"{name}.html",
        "text/html",
        key=key,
        on_click="ignore",
        help="A standalone page (plotly.js included): opens offline.",
    )


@st.cache_data(show_spinner=False)
def _comparison(path, mtime):
    text = ("mark", "mark_abs", "note", "stage", "beside")  # read as text: a column that is all missing stays text
    return pd.read_csv(path, keep_default_na=True, dtype=dict.fromkeys(text, str)).fillna(dict.fromkeys(text, ""))


@st.cache_data(show_spinner=False)
def _table(path, mtime):
    return pd.read_csv(path)


def runs_text(rows):
    """ "20 runs", or "10–20 runs" when the rows differ."""
    runs = pd.to_numeric(rows["runs"], errors="coerce").dropna()
    if not len(runs):
        return "the runs"
    lo, hi = int(runs.min()), int(runs.max())
    return f"{hi} runs" if lo == hi else f"{lo}–{hi} runs"


with tabs[0]:
    path = RESULTS / "paper_comparison.csv"
    if not path.exists():
        st.info(
            "No comparison yet: run `python -m cae.experiments paper --out results` (or `--quick` for a small "
            "one), then reload this page."
        )
    else:
        df = _comparison(str(path), path.stat().st_mtime)
        info = RESULTS / "paper_run.json"
        if info.exists():
            import json

            meta = json.loads(info.read_text())
            st.caption(
                f"From `{meta.get('command', '')}`: {meta.get('realworld_runs')} real-world runs and "
                f"{meta.get('synthetic_runs')} synthetic runs per algorithm, "
                f"{meta.get('wall_seconds', 0) / 60:.0f} min on {meta.get('cpus')} cores"
                + (" (a quick run)" if meta.get("quick") else "")
                + "."
            )
        st.markdown(
            "Marks: **✓** within the paper's ±1 std, **~** within 2, **✗** beyond; AI/BWT rows also by "
            "absolute difference (✓ within 0.03); **n/e**: the paper's stated protocol does not explain its "
            "number (the row's note says why)."
        )
        summary = against_paper.summary_counts(df)
        st.dataframe(summary, hide_index=True, key="ex_cmp_summary")
        tables = list(dict.fromkeys(df["table"]))
        c = st.columns(3)
        table = c[0].selectbox("Table", tables, key="w_ex_cmp_table")
        part = df[df["table"] == table]
        metric_opts = list(dict.fromkeys(part["metric"]))
        metrics = c[1].multiselect("Metrics", metric_opts, default=metric_opts, key=f"w_ex_cmp_metrics_{table}")
        algo_opts = [a for a in against_paper.ALGORITHM_ORDER if a in set(part["algorithm"])]
        algos = c[2].multiselect("Algorithms", algo_opts, default=algo_opts, key=f"w_ex_cmp_algos_{table}")
        shown = part[part["metric"].isin(metrics) & part["algorithm"].isin(algos)]
        if table == "synthetic non-stationary":
            note = against_paper.nonstationary_synthetic_note(df)
            if note:
                with st.container(border=True, key="ex_cmp_ne_note"):
                    st.markdown(note)
                    st.caption(
                        "Our noise study (tab *Noise robustness*) measures how the merges depend on the amount "
                        "of noise, for every algorithm."
                    )
        if table == "synthetic stationary":
            note = against_paper.stationary_caea_note(df)
            if note:
                with st.container(border=True, key="ex_cmp_caea_note"):
                    st.markdown(note)
        st.dataframe(  # narrow enough for a projector; the CSV below has every column
            against_paper.display_rows(shown),
            hide_index=True,
            key="ex_cmp_rows",
            column_config={
                "paper": st.column_config.TextColumn("paper", help="The paper's mean (std)"),
                "ours": st.column_config.TextColumn("ours", help=f"Our mean (std) over {runs_text(shown)}"),
                "z": st.column_config.NumberColumn("z", help="(ours − paper) / the paper's std", format="%.2f"),
                "reference": st.column_config.TextColumn(
                    "reference", help="The authors' own code under the paper's stated protocol: mean (std)"
                ),
                "beside": st.column_config.TextColumn(
                    "beside", help="Our run at the setting that reproduces the row (named after the dot): mean (std)"
                ),
                "note": st.column_config.TextColumn("note", width="medium", help="Why a number is marked n/e"),
            },
        )
        st.download_button(
            "Download the comparison (CSV)",
            path.read_bytes(),
            "paper_comparison.csv",
            "text/csv",
            key="d_ex_cmp_csv",
            on_click="ignore",
        )
        if len(shown):
            fig = figures.comparison_heatmap(shown.assign(table=table), table)
            st.plotly_chart(fig, key="ex_cmp_heatmap")
            data_table(fig, "ex_cmp_heatmap")
            _download(fig, f"heatmap_{table}", "d_ex_heatmap")
        st.header("Friedman test and Nemenyi critical difference")
        ours, theirs = against_paper.statistics(df, "ours"), against_paper.statistics(df, "paper")
        if not ours:
            st.info("Not enough algorithms or datasets in these results for the Friedman test.")
        else:
            study = st.selectbox("Study", list(ours), key="w_ex_cd_study")
            left, right = st.columns(2)
            with left:
                fig = figures.cd_diagram(ours[study], f"ours — {study}")
                st.plotly_chart(fig, key="ex_cd_ours")
                _download(fig, "cd_ours", "d_ex_cd_ours")
            with right:
                if study in theirs:
                    fig = figures.cd_diagram(theirs[study], f"the paper — {study}")
                    st.plotly_chart(fig, key="ex_cd_paper")
                    _download(fig, "cd_paper", "d_ex_cd_paper")
            st.caption(
                "Blocks are (dataset, metric) pairs; average ranks (1 best) of the mean scores; red bars join "
                "algorithms whose ranks differ by less than the critical difference (α = 0.05)."
            )
        lam = RESULTS / "lambda_validity.csv"
        if lam.exists():
            st.header("Validity of the number of active nodes")
            ldf = _table(str(lam), lam.stat().st_mtime)
            env = st.radio("Environment", list(dict.fromkeys(ldf["environment"])), horizontal=True, key="w_ex_lam_env")
            fig = figures.lambda_validity_figure(ldf, env)
            st.plotly_chart(fig, key="ex_lam_validity")
            data_table(fig, "ex_lam_validity", x_name="λ", y_name="value")
            _download(fig, f"lambda_validity_{env}", "d_ex_lam")
            st.caption(
                "Grey bars: NMI with λ fixed; blue line: #clusters (right axis); red star: the λ CAE "
                "estimated itself, at its mean NMI."
            )

with tabs[1]:
    ndf = noise_study.read_study(RESULTS)
    if ndf is None:
        st.info(
            "No noise study yet: run `python -m cae.experiments noise --out results` (part of `paper`), then "
            "reload this page."
        )
    else:
        levels = ", ".join(f"{100 * v:g}" for v in sorted(set(ndf["noise"])))
        st.caption(
            f"Every algorithm with the paper's synthetic setting on the paper's 2-D data plus {levels} % uniform "
            f"noise, {ndf['run'].nunique()} seeds; the noise is learned but not scored. From `results/noise.csv`."
        )
        metric = st.radio("Metric", ["nmi", "ari", "n_nodes", "n_clusters"], horizontal=True, key="w_ex_noise_metric")
        fig = figures.noise_figure(ndf, metric)
        st.plotly_chart(fig, key="ex_noise_fig")
        data_table(fig, "ex_noise_fig", x_name="noise (%)", y_name=metric)
        _download(fig, f"noise_{metric}", "d_ex_noise")
        st.caption(
            "Lines: the mean over the seeds; bands: ±1 std. Non-stationary: after the last stream (#6). "
            + noise_study.FAULT_DEFINITION
            + " A non-stationary run counts when it merges (splits) after any of its streams."
        )
        faults = noise_study.fault_counts(ndf)
        st.markdown("**Runs that merge or split clusters**")
        st.dataframe(
            faults.assign(
                noise=[f"{100 * v:g} %" for v in faults["noise"]],
                merged=[f"{a} of {n}" for a, n in zip(faults["merged_any"], faults["runs"])],
                split=[f"{a} of {n}" for a, n in zip(faults["split_any"], faults["runs"])],
            )[["algorithm", "environment", "noise", "merged", "split"]],
            hide_index=True,
            key="ex_noise_faults",
        )

with tabs[2]:
    c = st.columns(5)
    env = c[0].radio("Environment", ["stationary", "nonstationary"], key="w_ex_env", horizontal=True)
    runs = int(c[1].number_input("Runs", 1, 15, 3, key="w_ex_runs"))
    n = c[2].select_slider(
        "Points per distribution",
        [500, 1500, 5000, 15000],
        value=1500,
        key="w_ex_n",
        help="The paper: 15,000 (99,000 samples with noise).",
    )
    seed = int(c[3].number_input("Seed", 0, 10**6, 0, key="w_ex_seed"))
    algos = c[4].multiselect(
        "Algorithms",
        list(ALGORITHMS),
        default=["CAE"],
        key="w_ex_algos",
        help="Each with the paper's grid-searched parameters for its 2-D data.",
    )
    if st.button("Run", type="primary", key="b_ex_syn") and algos:
        st.session_state.ex_syn = (
            env,
            n,
            _run(ex.synthetic_job, [(env, r, seed, a, "paper", n) for a in algos for r in range(runs)], "runs"),
        )
    got = st.session_state.get("ex_syn")
    if got:
        env_done, n_done, df = got
        df = df.assign(group=df["algorithm"] + " · " + df["stage"])
        ref = ex.PAPER_SYNTHETIC_STATIONARY if env_done == "stationary" and n_done == 15000 else None
        st.plotly_chart(app_figures.bars_with_std(df, "group", ["nmi", "ari"], reference=ref), key="ex_syn_q")
        st.plotly_chart(
            app_figures.bars_with_std(df, "group", ["n_nodes", "n_clusters"], reference=ref), key="ex_syn_n"
        )
        st.dataframe(df.drop(columns=["group"]).round(4), hide_index=True)
        st.caption(
            "The uniform noise is learned but not scored, as in the paper. "
            + (
                "The dashed lines: the paper's CAE, stationary, 15 runs of 15,000 points per distribution."
                if ref
                else "The paper's CAE is drawn beside ours only for the stationary stream at 15,000."
            )
        )

with tabs[3]:
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
            st.session_state.ex_lam = _run(
                ex.lambda_job, [(d, lam, r, 0) for lam in [None] + values for r in range(runs)], "runs"
            )
    if "ex_lam" in st.session_state:
        df = st.session_state.ex_lam
        st.plotly_chart(figures.lambda_validity_figure(df, "stationary", cols=1, height_per_row=360), key="ex_lam_fig")
        st.caption("Grey bars: NMI with λ fixed; blue line: #clusters; red star: the λ that CAE estimated itself.")

with tabs[4]:
    names = st.multiselect(
        "Datasets (min-max scaled)",
        ["iris", "wine", "breast_cancer", "digits", "paper2d-small"],
        default=["iris", "digits", "paper2d-small"],
        key="w_ex_rt",
    )
    if st.button("Run", type="primary", key="b_ex_rt") and names:
        st.session_state.ex_rt = _run(ex.runtime_job, [(load_builtin(k), 0, 0) for k in names], "datasets")
    if "ex_rt" in st.session_state:
        df = st.session_state.ex_rt
        st.plotly_chart(app_figures.runtime_figure(df), key="ex_rt_fig")
        st.dataframe(df.round(4), hide_index=True)

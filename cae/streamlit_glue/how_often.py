"""The Playground's *How often?* section: the current setting over N seeds, run in the background, and its spread.

The computation is :mod:`cae.app.how_often` (a thread per job, kept in the session); this module only starts,
stops and draws it. For the default setting, the measurement stored with the home picture
(``sample_data/home_model.json``, 30 seeds) is shown until a job of the reader's own replaces it.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from cae.app import how_often as ho
from cae.app.lesson_links import PLAYGROUND_DEFAULTS
from cae.data import HOME_SUMMARY

from .fragment import fragment

STORED = Path(__file__).resolve().parents[2] / "sample_data" / HOME_SUMMARY  # sample_data/ of the checkout
SEED_CHOICES = [5, 10, 20, 30, 50]


@st.cache_data(show_spinner=False)
def _stored_rows():
    try:
        return json.loads(STORED.read_text("utf-8"))["per_seed"]
    except (OSError, ValueError, KeyError):
        return None


def _rows(cfg, score_noise):
    """The runs to show for this setting: this session's job if it ran this setting, else the stored
    measurement when this is the default setting; and where they come from."""
    job = st.session_state.get("how_often_job")
    if job is not None and job.same_setting(cfg, score_noise) and len(job.outcomes) >= (3 if job.running else 1):
        return job.outcomes, "these runs, so far" if job.running else "these runs"
    if not score_noise and ho.same_setting(cfg, PLAYGROUND_DEFAULTS) and _stored_rows():
        return _stored_rows(), "measured when the home picture was made"
    return None, None


def hint(cfg, score_noise):
    """One line beside the live metrics, when the spread of this setting is known."""
    rows, _ = _rows(cfg, score_noise)
    if rows:
        st.caption(ho.spread_short(rows, seed=int(cfg["seed"])) + " See *How often?* below.")


def _open_seed(seed):
    from .playground_session import set_config

    set_config(seed=int(seed))  # the Seed box shows it too (popping its key left the old number in the box)


def section(cfg, score_noise):
    """The section: how many seeds, Run / Stop, progress in words, and the spread."""
    st.header("How often?")
    st.caption(
        "One run is one draw of the data and of their order. This runs the setting in the sidebar (stream, size, "
        "noise, algorithm) to the end for seeds 0 … N−1, one after another in the background — the page stays "
        "usable — and shows how the runs spread. Change the noise or the size and run again: how often a run "
        "merges depends on both. " + ho.MERGE_DEFINITION
    )
    job = st.session_state.get("how_often_job")
    c = st.columns([2, 1.2, 1, 3])
    n = c[0].select_slider("Seeds", SEED_CHOICES, value=10, key="w_howoften_n")
    if c[1].button(f"Run {n} seeds", key="b_howoften", type="primary", width="stretch"):
        if job is not None:
            job.cancel()
        job = st.session_state.how_often_job = ho.HowOften(cfg, n_seeds=n, score_noise=score_noise).start()
    if job is not None and job.running:
        c[2].button("Stop", key="b_howoften_stop", on_click=job.cancel, width="stretch")
    _results(cfg, score_noise, polling=job is not None and job.running)


def _results(cfg, score_noise, polling):
    @fragment(run_every=1.0 if polling else None)
    def results():
        job = st.session_state.get("how_often_job")
        if job is not None and (job.running or not job.same_setting(cfg, score_noise) or job.error or job.cancelled):
            done, total = len(job.outcomes), len(job.seeds)
            if job.running:
                st.progress(min(1.0, (done + job.fraction) / max(total, 1)), text=job.words())
            elif not job.same_setting(cfg, score_noise):
                st.caption(f"The last runs ({job.words()}) were for another setting: run again for this one.")
            else:
                st.caption(job.words())
        if polling and (job is None or not job.running):
            st.rerun()  # the job has ended: one full run to stop polling and draw the final spread
        rows, source = _rows(cfg, score_noise)
        if not rows:
            if job is None:
                st.caption("No runs of this setting yet.")
            return
        seed = int(cfg["seed"])
        st.markdown(ho.spread_words(rows, seed=seed) + f" ({source.capitalize()}.)")
        st.plotly_chart(ho.spread_figure(rows, seed=seed), key="howoften_fig", config={"displayModeBar": False})
        o = st.columns([1.2, 1, 3.8])
        seeds = [r["seed"] for r in ho.outcome_rows(rows)]
        pick = o[0].selectbox(
            "Open the run of seed",
            seeds,
            index=seeds.index(seed) if seed in seeds else 0,
            key="w_howoften_open",
            format_func=lambda s: (
                f"{s}: " + next(f"{r['kind']}, NMI {r['nmi']:.3f}" for r in ho.outcome_rows(rows) if r["seed"] == s)
            ),
        )
        o[1].button(
            "Open it",
            key="b_howoften_open",
            on_click=_open_seed,
            args=(pick,),
            disabled=pick == seed,
            help="The Playground switches to this seed (at t = 0): run it to the end to see the partition.",
            width="stretch",
        )

    results()

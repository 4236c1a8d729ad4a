"""Playground: step, play, rewind a CAE run and watch every internal quantity."""

import math
import time

import streamlit as st

from cae import viz
from cae.explain import explain_step, headline
from cae.playground import TRACE_COLUMNS
from pages._ui import get_playground, network_view, render_blocks, sidebar_config

from pages._ui import ensure_entrypoint  # noqa: E402

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

cfg = sidebar_config()
pg = get_playground(cfg)
st.sidebar.header("View")
vigilance = st.sidebar.toggle("Vigilance region of s1", value=True, key="w_vig",
                              help="Points within CIM V of the winner s1: a sample there resonates with s1.")
bandwidth = st.sidebar.toggle("Node bandwidths σ", value=False, key="w_bw")
window = st.sidebar.slider("Recent window (samples)", 50, 2000, 300, 50, key="w_window")
score_noise = st.sidebar.toggle("Score the noise as a class", value=False, key="w_score_noise",
                                help="The paper learns the uniform noise but does not score it. Scored, the noise "
                                     "is a class no clustering can form: a perfect result then shows NMI ≈ 0.88.")

st.title("Playground")
s = pg.stream
st.caption(f"{len(s):,} samples · stages: {', '.join(s.stage_names)} · seed {s.seed} · "
           f"{'CAE (parameter-free)' if cfg['algo'] == 'CAE' else 'CAEA (λ = %d, a_max = %d)' % (cfg['lam'], cfg['amax'])}")

# ------------------------------------------------------------------ controls
c = st.columns([1, 1.1, 1, 1, 1.6, 1.2, 1, 1.1])
if c[0].button("Step 1", key="b_step1", width="stretch"):
    pg.step(1)
n_step = int(c[1].number_input("N", 1, 100000, 100, key="w_stepn", label_visibility="collapsed"))
if c[2].button("Step N", key="b_stepn", width="stretch"):
    pg.step(n_step)
c[3].toggle("Play", key="w_play")
c[4].select_slider("samples / frame", [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], value=20, key="w_speed",
                   label_visibility="collapsed")
run_end = c[5].button("Run to end", key="b_end", width="stretch")
if c[6].button("Reset", key="b_reset", width="stretch", help="Back to t = 0 with the same seed"):
    pg.reset()
    st.session_state.pop("traces_fig", None)
if c[7].button("New seed", key="b_seed", width="stretch"):
    st.session_state.pg_cfg["seed"] = int(cfg["seed"]) + 1
    st.session_state.pop("w_seed", None)
    st.rerun()
if run_end:
    bar = st.progress(0.0, text="learning the rest of the stream…")
    pg.run_to_end(progress=lambda f: bar.progress(f, text=f"learning… {f:.0%}"))
    bar.empty()

# ------------------------------------------------------------------ history
if pg.t_max > 0:
    def _scrub():
        pg.go_to(st.session_state.w_scrub)
        st.session_state.pop("traces_fig", None)

    st.session_state.w_scrub = pg.t
    h = st.columns([6, 1.4])
    h[0].slider("History: samples seen", 0, max(pg.t_max, 1), key="w_scrub", on_change=_scrub,
                help="Go back to any recorded step; the network is shown as it was.")
    if pg.t < pg.t_max:
        if h[1].button("Continue from here", key="b_fork", help="Forget the recorded future and learn on from this step"):
            pg.fork(**({"deletion_interval": int(cfg["lam"]), "max_edge_age": int(cfg["amax"])}
                       if cfg["algo"] == "CAEA" else {}))
            st.session_state.pop("traces_fig", None)
            st.rerun()
        h[1].caption(f"viewing t = {pg.t:,} of {pg.t_max:,}")


# ------------------------------------------------------------------ live view
def _fmt(v):
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else (f"{v:.3f}" if isinstance(v, float) else f"{v:,}")


@st.fragment(run_every=0.35 if st.session_state.get("w_play") else None)
def live():
    playing = st.session_state.get("w_play", False)
    t0 = time.perf_counter()
    if playing and not pg.finished:
        if pg.t < pg.t_max:  # playing from a rewound view continues the recorded run
            pg.fork(deletion_interval=pg.deletion_interval, max_edge_age=pg.max_edge_age)
        pg.step(int(st.session_state.get("w_speed", 20)))
    left, right = st.columns([3, 1.1])
    with left:
        fig = network_view(pg, vigilance=vigilance, bandwidth=bandwidth, window=window, deleted=pg.deleted_in_frame)
        st.plotly_chart(fig, key="main_fig", config={"displaylogo": False})
    with right:
        m = pg.live_metrics(score_noise=score_noise)
        st.metric("Samples seen", f"{m['samples seen']:,} / {len(pg.stream):,}")
        st.metric("Current stream", m["stage"])
        a, b = st.columns(2)
        a.metric("#nodes", m["nodes"])
        b.metric("#clusters", m["clusters"])
        a.metric("NMI", _fmt(m["NMI"]))
        b.metric("ARI", _fmt(m["ARI"]))
        lam = pg.model.deletion_interval_ if pg.t else None
        a.metric("λ", _fmt(lam))
        thr = pg.model.threshold_ if pg.t else float("nan")
        b.metric("V", _fmt(thr))
        noise_note = ("; the noise counts as a class of its own" if score_noise else
                      "; the uniform noise is learned but not scored, as in the paper")
        st.caption("NMI/ARI against the true labels of the data seen so far"
                   + (f" ({m['metric sample']:,} of them, evenly sampled)" if m["metric sample"] < m["samples seen"] else "")
                   + (noise_note if pg.stream.noise_label is not None else "") + ".")
        if pg.record is not None:
            st.markdown(f"**Last step** · {headline(pg.record)}")
        if pg.finished:
            st.success("End of the stream.")
        st.caption(f"frame: {1000 * (time.perf_counter() - t0):.0f} ms")
    # the traces panel: rebuilt when paused, and every few frames while playing
    tick = st.session_state.get("tick", 0) + 1
    st.session_state.tick = tick
    if "traces_fig" not in st.session_state or not playing or tick % 4 == 0:
        st.session_state.traces_fig = viz.traces_figure(pg.trace_so_far, TRACE_COLUMNS, s.stage_starts, s.stage_names,
                                                        pg.events, t_now=pg.t)
    st.subheader("Internal quantities over time")
    st.plotly_chart(st.session_state.traces_fig, key="traces_fig_chart", config={"displaylogo": False})
    st.caption(f"{pg.t_max:,} steps recorded")


live()

st.subheader("Why did this step happen?")
if pg.record is None:
    st.info("Press **Step 1** to present the first sample.")
else:
    with st.expander(headline(pg.record), expanded=not st.session_state.get("w_play", False)):
        render_blocks(explain_step(pg.record, pg.model, pg.stream.X[pg.t - 1]))
    st.page_link("pages/explain.py", label="Explain any step in detail →")

st.subheader("The same network, laid out as a graph")
lay = st.radio("Layout", ["spring", "kamada_kawai"], horizontal=True, key="w_layout",
               format_func={"spring": "spring", "kamada_kawai": "Kamada–Kawai"}.get)
if not pg.t:
    st.caption("Nothing learned yet.")
elif not st.session_state.get("w_play", False):
    st.plotly_chart(viz.topology_figure(pg.model, layout=lay), key="topology_fig")
    st.caption("Components (clusters) and the bridges between them are easier to see here than in data space. "
               "Colours match the main view.")
else:
    st.caption("Shown when paused (laying out a graph every frame would slow the animation).")

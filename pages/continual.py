"""Continual learning: a class-incremental run of any registered algorithm, stage by stage, with AI and BWT."""

import numpy as np
import streamlit as st

from cae.app import continual as source
from cae.app import figures
from cae.app.lesson_links import continual_query, parse_continual
from cae.data import DRIFT_STREAMS, load_builtin
from cae.evaluation import CONVENTION_TEXT, CONVENTIONS, continual_run
from cae.registry import make_algorithm
from cae.streamlit_glue.common import (
    algorithm_picker,
    data_table,
    ensure_entrypoint,
    keep_value,
    message,
    show_notices,
    slow_hint,
)
from cae.streamlit_glue.lesson_links import lesson_link, link_is_new, remember_link

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

# lesson links: ?stream=paper|iris|wine|breast_cancer|digits&order=2,0,1&seed=3
LINK_SOURCES = ["paper", "iris", "wine", "breast_cancer", "digits"]


def _classes_of(stream):
    return list(range(6)) if stream == "paper" else sorted(int(c) for c in np.unique(load_builtin(stream).y))


def _order_key(stream):
    return "w_cl_order_paper" if stream == "paper" else f"w_cl_order_builtin_{stream}"


_q = {k: st.query_params.get(k) for k in st.query_params.keys()}
_notices = []
if link_is_new("continual", _q):
    _state, _notices = parse_continual(_q, LINK_SOURCES, _classes_of)
    _stream = _state.get("stream")
    if _stream is not None:
        st.session_state.w_cl_src = "paper" if _stream == "paper" else "builtin"
        if _stream != "paper":
            st.session_state.w_cl_builtin = _stream
    if "seed" in _state:
        st.session_state.w_cl_seed = _state["seed"]
    if "order" in _state:
        st.session_state[_order_key(_stream or "paper")] = _state["order"]
    remember_link("continual", _q)

st.title("Continual learning")
show_notices(_notices)
st.caption(
    "Train on one class after another and watch whether what was learned first survives. "
    "R[i, j] is the score on the data of stages 1…i after training through stage j; AI averages the score "
    "after each stage, BWT compares the end with the earlier stages (negative means forgetting)."
)

src = st.radio(
    "Stream",
    list(source.SOURCES),
    horizontal=True,
    key="w_cl_src",
    format_func={
        "paper": "Paper 2-D stream #1 → #6",
        "builtin": "A built-in labelled dataset",
        "drift": "A drifting or recurring stream",
        "upload": "My uploaded CSV (label column)",
    }.get,
)
c = st.columns(3)
seed = int(c[2].number_input("Seed", 0, 10**6, 0, key="w_cl_seed"))
name = None
if src == "paper":
    n = c[0].select_slider("Points per distribution", [250, 500, 1500, 5000, 15000], value=1500, key="w_cl_n")
    noise = c[1].slider("Noise", 0.0, 0.5, 0.1, 0.05, key="w_cl_noise")
    data = source.labelled_data(src, seed, n_per_class=n, noise=noise)
elif src == "drift":
    kind = c[0].selectbox("Stream", list(DRIFT_STREAMS), format_func=lambda k: DRIFT_STREAMS[k][0], key="w_cl_drift")
    noise = c[1].slider("Noise", 0.0, 0.5, 0.1, 0.05, key="w_cl_drift_noise")
elif src == "builtin":
    name = c[0].selectbox("Dataset", ["iris", "wine", "breast_cancer", "digits"], key="w_cl_builtin")
    how = c[1].radio("Scaling", ["minmax", "zscore", "none"], key="w_cl_scaling", horizontal=True)
    data = source.labelled_data(src, seed, name=name, scaling=how)
else:
    data = source.labelled_data(src, seed, upload=st.session_state.get("up_result"))
    if data is None:
        st.info("On **Your data**, load a CSV, choose a label column and press **Learn** first.")
        st.stop()

link_name = source.link_name(src, name)
if src == "drift":  # its stages are the stream's own: the order is part of the story
    stream, data = source.drift_data(kind, noise, seed)
    order = list(range(len(stream.stage_starts)))
    message(
        "caption", f"{len(stream):,} samples in {len(stream.stage_names)} stages: {{}}", " → ".join(stream.stage_names)
    )
else:
    classes, names = source.class_choices(data)
    order_key = _order_key(link_name) if link_name else "w_cl_order_upload"
    order = st.multiselect(
        "Class order (one stage per class, in the order chosen)",
        classes,
        default=classes,
        format_func=names.get,
        key=order_key,
    )
    if not order:
        st.warning("Choose at least one class.")
        st.stop()
    stream = source.staged_stream(src, data, order, seed)
    st.caption(
        f"{len(stream):,} samples in {len(order)} stages"
        + (" (each stage with its share of the uniform noise)" if data.noise_label is not None else "")
    )
if link_name:
    _link = continual_query(link_name, order, seed)
    if _q != _link:
        st.query_params.from_dict(_link)
    remember_link("continual", _link)
    with st.expander("Copy lesson link: this stream and class order", expanded=False):
        st.code(lesson_link(_link, "continual"), language=None)

paper_name = source.paper_name(src, name)
algo, params = algorithm_picker("cl", dataset=paper_name, environment="nonstationary")
score_noise = False
if data.noise_label is not None:
    score_noise = st.toggle(
        "Score the noise as a class",
        value=False,
        key="w_cl_score_noise",
        help="The paper learns the uniform noise but does not score it.",
    )
key = (src, stream.fingerprint(), algo, tuple(sorted(params.items())), score_noise)
if st.button("Run", type="primary", key="b_cl_run"):
    bar = st.progress(0.0, text="training stage by stage…" + slow_hint())
    model = make_algorithm(algo, **params)
    try:
        result = continual_run(stream, model=model, progress=lambda f: bar.progress(f), score_noise=score_noise)
    except ValueError as exc:  # data this algorithm cannot take (Fuzzy ART: values outside [0, 1])
        bar.empty()
        message("error", "{} cannot learn this stream: {}", algo, exc)
        st.stop()
    st.session_state.cl_result = (key, result, stream)
    bar.empty()
got = st.session_state.get("cl_result")
if got is None or got[0] != key:
    st.stop()
_, res, stream = got

keep_value("w_cl_convention", "paper")  # drawn only once there is a result: the browser must show what is used
convention = st.radio(
    "Convention",
    list(CONVENTIONS),
    horizontal=True,
    key="w_cl_convention",
    format_func={
        "paper": "The paper's published numbers (a single class scores 1)",
        "text": "The paper's text (scikit-learn's scores)",
    }.get,
    help="Both conventions are needed to understand the paper: its published AI/BWT follow the first, its "
    "text defines the second. Every number and map below uses the one chosen here.",
)
other = "text" if convention == "paper" else "paper"
now, alt = res.scores(convention), res.scores(other)
m = st.columns(4)
m[0].metric("AI (NMI)", f"{now['ai_nmi']:.3f}")
m[1].metric("BWT (NMI)", f"{now['bwt_nmi']:+.3f}")
m[2].metric("AI (ARI)", f"{now['ai_ari']:.3f}")
m[3].metric("BWT (ARI)", f"{now['bwt_ari']:+.3f}")
st.caption(
    f"Everything on this page follows {CONVENTION_TEXT[convention]}. "
    + (
        "This convention reproduces the paper's published AI and BWT. "
        if convention == "paper"
        else "This is how the paper's text defines AI and BWT; its published numbers do not follow it. "
    )
    + f"Under the other convention ({'the published numbers' if other == 'paper' else 'the text'}): "
    f"AI (NMI) = {alt['ai_nmi']:.3f}, BWT (NMI) = {alt['bwt_nmi']:+.3f}, "
    f"AI (ARI) = {alt['ai_ari']:.3f}, BWT (ARI) = {alt['bwt_ari']:+.3f}."
    + (
        " The noise counts as a class."
        if res.noise_scored
        else (" The uniform noise is learned but not scored." if data.noise_label is not None else "")
    )
)
tab = res.table(convention)
one = tab.pop("one class so far")
shown = tab.round(3)
shown.insert(1, "classes so far", ["one" if v else "several" for v in one])
st.dataframe(shown, hide_index=True)
for metric, name in (("nmi", "NMI"), ("ari", "ARI")):
    st.caption(f"{name}: " + "; ".join(res.explain(metric, convention)))
if one.any():
    st.caption(
        "The first stage(s) hold a single class: "
        + (
            "the convention scores them 1 (clustering one class is neither right nor wrong)."
            if convention == "paper"
            else "scikit-learn scores them 0 unless all their points fall in one cluster (then 1)."
        )
    )

keep_value("w_cl_metric", "NMI")
which = st.radio("Matrix", ["NMI", "ARI"], horizontal=True, key="w_cl_metric")
metric = which.lower()
R = res.matrix(metric, convention)
labels = [f"{k + 1}: {s}" for k, s in enumerate(res.stage_names)]
by_share = False
h = st.columns(2)
with h[0]:
    st.markdown(f"**R — {which} on stages 1…i (rows) after stage j (columns)**")
    r_fig = figures.matrix_heatmap(
        R, labels, labels, title=which, zmin=0, zmax=1, fmt=".3f", marked=res.single_class_cells()
    )
    st.plotly_chart(r_fig, key="cl_R", config={"displayModeBar": False})
    data_table(r_fig, "cl_R")
    st.caption(
        "The diagonal is the table's column; "
        + (
            "BWT compares its last cell with the mean of the others. "
            if convention == "paper"
            else "BWT averages, over the rows but the last, the last column minus the diagonal. "
        )
        + (
            "\\* one class: scored 1 by the convention."
            if convention == "paper"
            else "\\* one class: 1 only while all its points are in one cluster, else 0."
        )
    )
with h[1]:
    st.markdown("**Each stage alone (rows) after stage j (columns)**")
    keep_value("w_cl_stage_view", "metric")
    by_share = (
        st.radio(
            "Each stage alone, scored by",
            ["metric", "share"],
            horizontal=True,
            key="w_cl_stage_view",
            format_func={
                "metric": f"{which} ({'published' if convention == 'paper' else 'text'} convention)",
                "share": "share of its points in its largest cluster",
            }.get,
        )
        == "share"
    )
    if by_share:
        P, marks, title = res.per_stage_share, None, "share"
    else:
        P, marks, title = res.per_stage(metric, convention), res.single_class_cells(per_stage=True), which
    p_fig = figures.matrix_heatmap(P, labels, labels, title=title, zmin=0, zmax=1, fmt=".3f", marked=marks)
    st.plotly_chart(p_fig, key="cl_P", config={"displayModeBar": False})
    data_table(p_fig, "cl_P")
    if by_share:
        st.caption(
            "1 means every point of the stage falls in one cluster; 0.5, half of them. It does not depend on the "
            "convention, and it says whether a class stays together after later stages."
        )
    elif any(res.stage_single_class):
        st.caption(
            "\\* one class: "
            + (
                "scored 1 by the convention"
                if convention == "paper"
                else "1 only while all its points are in one cluster, else 0"
            )
            + ". For a single class the score says nothing; the share of its points in its largest cluster does."
        )

st.header("The network after each stage")
X = stream.X
if X.shape[1] == 2:
    Xv = X
    project = lambda nodes: np.asarray(nodes)  # noqa: E731
    titles = ("x0", "x1")
else:  # one PCA of the whole stream, so every small multiple shares the axes
    from sklearn.decomposition import PCA

    pca = PCA(n_components=2, random_state=0).fit(X)
    Xv = pca.transform(X)
    project = lambda nodes: pca.transform(np.asarray(nodes)) if len(nodes) else np.zeros((0, 2))  # noqa: E731
    titles = ("PC1", "PC2")
lo, hi = Xv.min(axis=0), Xv.max(axis=0)
per_row = min(3, len(res.snapshots))
cols = st.columns(per_row)
for k, (snap, name) in enumerate(zip(res.snapshots, res.stage_names)):
    end = stream.stage_ends[k]
    idx = np.linspace(0, end - 1, min(end, 2000)).round().astype(int)
    fig = figures.projected_network_figure(
        project(snap.nodes_),
        snap.edges_,
        snap.node_labels_,
        snap.win_counts_,
        data_2d=Xv[idx],
        axis_titles=titles,
        height=320,
    )
    fig.update_xaxes(range=[lo[0], hi[0]])
    fig.update_yaxes(range=[lo[1], hi[1]])
    fig.update_layout(showlegend=False)
    with cols[k % per_row]:
        message("caption", f"after stage {k + 1}: {{}} · {len(snap.nodes_)} nodes, {snap.n_clusters_} clusters", name)
        st.plotly_chart(fig, key=f"cl_small_{k}")

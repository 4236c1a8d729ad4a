"""Your data: upload a CSV, learn it with any registered algorithm, look at the clusters, download the results."""

import dataclasses
import io
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from cae import ModelFileError, load_model
from cae.app import density, figures, your_data
from cae.at_scale import ClusterTrace
from cae.data.csvio import SCALINGS, CSVLoadError, Scaling, escape_markdown, read_csv
from cae.evaluation import ari, nmi
from cae.registry import ALGORITHMS, make_algorithm
from cae.streamlit_glue.common import algorithm_picker, ensure_entrypoint, message, slow_hint
from cae.streamlit_glue.fragment import fragment

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

SAMPLES = Path(__file__).resolve().parent.parent / "sample_data"
MAX_MB = int(st.get_option("server.maxUploadSize"))  # .streamlit/config.toml; a deployment lowers it (docs/app.md)

st.title("Your data")
st.caption(
    "Upload a CSV (numbers in columns; an optional label column). Nothing leaves this session; "
    "text from the file is shown as data, never rendered as HTML."
)

c1, c2 = st.columns([2.2, 1])
upload = c1.file_uploader(
    "CSV file",
    type=["csv", "tsv", "txt", "gz"],
    key="w_upload",
    help=f"Up to {MAX_MB} MB, {your_data.MAX_ROWS:,} rows and 1,000 columns (gzip-compressed or not). A larger "
    "file: learn it with `cae learn` and open its model here (A saved model) with a sample of its rows.",
)
samples = sorted(p.name for p in SAMPLES.glob("*.csv"))
sample = c2.selectbox("…or try a sample file", samples, key="w_sample_name")
if sample in your_data.SAMPLE_NOTES:
    c2.caption(your_data.SAMPLE_NOTES[sample])
if c2.button("Use this sample", key="b_sample"):
    st.session_state.up_sample = sample
if upload is not None:
    st.session_state.pop("up_sample", None)
    name, data, ident = upload.name, upload.getvalue(), upload.file_id
elif st.session_state.get("up_sample"):
    name = st.session_state.up_sample
    data, ident = (SAMPLES / name).read_bytes(), f"sample:{name}"
else:
    st.info("Choose a file, or click **Use this sample**.")
    st.stop()

with st.expander("Reading options (detected automatically)"):
    o = st.columns(3)
    delim = o[0].selectbox("Delimiter", ["auto", ",", ";", "tab", "|"], key="w_delim")
    dec = o[1].selectbox("Decimal separator", ["auto", ".", ","], key="w_dec")
    head = o[2].selectbox("Header row", ["auto", "yes", "no"], key="w_head")
read_key = (ident, delim, dec, head, bool(st.session_state.get("w_unparsable")))
if st.session_state.get("up_read", (None,))[0] != read_key:  # read once per file and reading options
    st.session_state.pop("up_read", None)
    try:
        with st.spinner(f"reading {name}…"):
            table, report = read_csv(
                data,
                delimiter=None if delim == "auto" else ("\t" if delim == "tab" else delim),
                decimal=None if dec == "auto" else dec,
                header=None if head == "auto" else head == "yes",
                limits=your_data.upload_limits(MAX_MB),
                unparsable="missing" if st.session_state.get("w_unparsable") else "text",
            )
    except CSVLoadError as exc:
        message("error", "This file cannot be used: {}", exc)
        st.stop()
    st.session_state.up_read = (read_key, table, report, your_data.data_hash(data))
_, table, report, digest = st.session_state.up_read

st.header("What was read")
st.text(f"File: {name}")
st.dataframe(pd.DataFrame(report.summary_rows(), columns=["item", "value"]), hide_index=True)
for w in report.warnings:
    message("warning", "{}", w)
if report.unparsable_cells:  # a few cells that are not numbers in a column of numbers
    n_cells = sum(len(v) for v in report.unparsable_cells.values())
    rows = report.unparsable_rows
    for col, line, text, more in your_data.columns_left_out(report):  # said at once, before any offer is taken
        message(
            "warning",
            "Column {} is left out of the features: it is read as text because line {} holds {}, not a number"
            + (f" (and {more:,} more cell{'s' if more > 1 else ''})" if more else "")
            + ". Tick the box below to treat such cells as missing: the column becomes a feature and those rows "
            "are dropped.",
            col,
            str(line),
            repr(text),
        )
    st.checkbox(
        f"Treat the {n_cells:,} unparsable cell{'s' if n_cells > 1 else ''} as missing and drop "
        f"{'those' if rows > 1 else 'that'} {rows:,} row{'s' if rows > 1 else ''}",
        key="w_unparsable",
        help="The column then counts as numbers (a feature) and the rows with such a cell are left out of "
        "learning, counted below. Unticked, the column is text and cannot be a feature.",
    )
    shown = report.unparsable_list(10)
    st.caption(
        "Cells that are not numbers, in columns that otherwise are: "
        + "; ".join(
            f"line {line}, column {escape_markdown(col)}: {escape_markdown(repr(text))}" for line, col, text in shown
        )
        + (f"; and {n_cells - len(shown):,} more" if n_cells > len(shown) else "")
        + "."
    )

st.header("Columns and scaling")
LABEL_NAMES = ["label", "labels", "class", "target", "species", "category"]  # in order of preference
by_name = {c.strip().lower(): c for c in table.text_columns + table.numeric_columns}
guess = next((by_name[n] for n in LABEL_NAMES if n in by_name), None)
fkey = (  # new file or new reading, new widgets
    digest[:10] + report.delimiter + report.decimal + str(report.header) + str(report.unparsable_as_missing)
)
cc = st.columns([2, 1, 1])
features = cc[0].multiselect(
    "Features",
    table.numeric_columns,
    default=[c for c in table.numeric_columns if c != guess],
    key=f"w_features_{fkey}",
)
label_options = ["(none)"] + table.text_columns + [c for c in table.numeric_columns if c not in features]
label = cc[1].selectbox(
    "Label column (optional)",
    label_options,
    key=f"w_label_{fkey}",
    index=label_options.index(guess) if guess in label_options else 0,
)
label = None if label == "(none)" else label
scaling = cc[2].radio(
    "Scaling",
    SCALINGS,
    key="w_scaling",
    horizontal=True,
    help="The paper feeds raw data; min-max or z-score helps when feature ranges differ widely.",
)
try:
    sel = table.select(features, label=label, scaling=scaling)
except CSVLoadError as exc:
    message("error", "{}", exc)
    st.stop()
kept = f"{len(sel.X):,} rows × {len(sel.features)} features"
if sel.rows_dropped:
    kept += (
        f" ({sel.rows_dropped:,} dropped: " + ", ".join(f"{v:,} with {k}" for k, v in sel.drop_reasons.items()) + ")"
    )
out = [c[0] for c in your_data.columns_left_out(report)]
if out:
    kept += f"; left out, cells not numbers: {', '.join(out)}"
st.text(kept)
for w in sel.warnings:
    message("warning", "{}", w)

st.header("Learn")
source = st.radio(
    "Model",
    ["new", "saved"],
    horizontal=True,
    key="w_up_source",
    format_func={"new": "A new model", "saved": "A saved model (.npz from this page)"}.get,
)
a = st.columns([3, 1.2])
mode = "learn"
if source == "new":
    algo, params = algorithm_picker("up", container=a[0], dataset=Path(name).stem)
    model_key = (algo, tuple(sorted(params.items())))

    def new_model():
        return make_algorithm(algo, **params)
else:
    mfile = a[0].file_uploader(
        "Model file",
        type=["npz"],
        key="w_up_model",
        help="A model downloaded from this page (or saved with model.save). Loading checks "
        "every array and value; nothing in the file is executed.",
    )
    if mfile is None:
        st.info("Choose a model file to label these rows with it, or to continue its learning with them.")
        st.stop()
    mbytes = mfile.getvalue()
    try:
        loaded = load_model(io.BytesIO(mbytes))
    except ModelFileError as exc:
        message("error", "This model file cannot be used: {}", exc)
        st.stop()
    names = getattr(loaded, "feature_names_in_", None)
    if loaded.n_features_in_ != len(sel.features):
        st.error(
            f"The model was trained on {loaded.n_features_in_} feature(s); {len(sel.features)} are selected "
            "here. Choose the same columns, in the same order."
        )
        st.stop()
    if names is not None and [str(n) for n in names] != [str(f) for f in sel.features]:
        message(
            "error",
            "The model was trained on the columns {}; selected here: {}. Choose the same columns, in the same order.",
            ", ".join(map(str, names)),
            ", ".join(map(str, sel.features)),
        )
        st.stop()
    algo, params = loaded.algorithm, loaded.get_params()
    if algo == "CAE" and params.get("deletion_interval") is not None:
        algo = "CAEA"
    if getattr(loaded, "input_scaling_", None) is not None:  # learned by `cae learn --scale ...`
        own = Scaling.from_dict(loaded.input_scaling_, loaded.n_features_in_)
        raw = table.select(sel.features, label=label, scaling="none")
        sel = dataclasses.replace(raw, X=own.apply(raw.X), scaling=f"{own.how} (the model's)", warnings=[])
        st.caption(
            f"This model was learned with its features {own.how} scaled (`cae learn --scale {own.how}`) and keeps "
            "the numbers: these rows are scaled the same way (the Scaling choice above is not used)."
        )
    st.text(
        f"A {algo} model: {len(loaded.nodes_):,} nodes, {loaded.n_clusters_} clusters, "
        f"{loaded.n_samples_seen_:,} samples learned"
    )
    mode = a[0].radio(
        "Use it to",
        ["label", "learn"],
        horizontal=True,
        key="w_up_model_mode",
        format_func={"label": "label these rows", "learn": "continue learning with these rows"}.get,
    )
    if getattr(loaded, "input_scaling_", None) is None:
        st.caption(
            "The model does not know how its data were scaled: choose the same scaling as when it was trained "
            "(the run configuration JSON downloaded with it says which)."
        )
    model_key = ("file", your_data.data_hash(mbytes), mode)

    def new_model():
        return loaded.snapshot()


_domain = ALGORITHMS[algo].estimator_class.input_range  # Fuzzy ART's complement coding takes [0, 1] only
if _domain is not None and len(sel.X) and (sel.X.min() < _domain[0] or sel.X.max() > _domain[1]):
    message(
        "error",
        "{} takes only values in [{}, {}], and these rows go from {} to {}: choose **minmax** scaling above.",
        algo,
        f"{_domain[0]:g}",
        f"{_domain[1]:g}",
        f"{sel.X.min():g}",
        f"{sel.X.max():g}",
    )
    st.stop()

shuffle = a[1].checkbox(
    "Present rows in random order",
    key="w_shuffle",
    help="The algorithms learn a stream; by default the file's row order is the stream. "
    "The paper presents the rows in a random order.",
)
seed = int(a[1].number_input("Order seed", 0, 10**6, 0, key="w_order_seed")) if shuffle else None
order = np.random.default_rng(seed).permutation(len(sel.X)) if shuffle else np.arange(len(sel.X))
run_key = (
    digest,
    tuple(sel.features),
    label,
    sel.scaling,
    model_key,
    seed,
    report.delimiter,
    report.decimal,
    report.header,
    report.unparsable_as_missing,
)

b = st.columns([1, 1, 4])
if mode == "label":
    if b[0].button("Label", type="primary", key="b_label"):
        st.session_state.up_result = your_data.run_record(run_key, new_model(), sel, order, "label", algo, params)
else:
    go = b[0].button("Learn", type="primary", key="b_learn") | bool(st.session_state.pop("up_learn_again", False))
    b[1].button("Stop", key="b_stop", help="Stops after the current chunk; what was learned is kept.")
    if go:
        if st.session_state.get("up_result", {}).get("job") is not None:  # a run still learning: stopped
            st.session_state.up_result["job"].cancel()
        model = new_model()
        st.session_state.up_result = res = your_data.run_record(run_key, model, sel, order, "learn", algo, params)
        res["trace"] = ClusterTrace()
        if len(sel.X) >= your_data.BACKGROUND_ROWS:  # in a thread: the page stays usable
            res["job"] = job = your_data.LearnJob(model, sel.X[order], chunk=max(20_000, len(sel.X) // 100))
            res["trace"] = job.trace
            job.start()
        else:
            bar = st.progress(0.0, text="learning…" + slow_hint())

            def _progress(f):
                res["learned"] = int(round(f * len(sel.X)))
                bar.progress(f, text=f"learning… {res['learned']:,} / {len(sel.X):,} rows")

            your_data.learn_in_chunks(
                model, sel.X[order], chunk=max(500, len(sel.X) // 50), progress=_progress, trace=res["trace"]
            )
            bar.empty()

res = st.session_state.get("up_result")


@fragment(run_every=0.5)
def _learning_in_the_background(job):
    """The background run's progress, redrawn twice a second; the whole page reruns when it ends."""
    if not job.running:
        st.rerun()
    clusters = f" · {job.trace.clusters[-1]:,} clusters so far" if job.trace.rows else ""
    st.progress(
        job.fraction,
        text=f"learning in the background… {job.learned:,} / {len(job.X):,} rows{clusters} (the page stays usable; "
        "**Stop** keeps what was learned)",
    )


if res is not None and res.get("job") is not None and not res.get("done"):
    job = res["job"]
    if st.session_state.get("b_stop"):
        job.cancel()
    if job.running:
        _learning_in_the_background(job)
        st.stop()
    res["model"], res["learned"], res["done"] = job.finish(), job.learned, True
    if job.error:
        message("error", "The learning stopped: {}", job.error)
if res is None or (res["learned"] == 0 and res.get("mode") != "label"):
    st.stop()
if res["key"] != run_key:
    st.info(
        "The data, columns, scaling or model changed since the last run: press **Learn** (or **Label**) to see results."
    )
    st.stop()
model, rsel, rorder = res["model"], res["sel"], res["order"]
algo, params = res["algo"], res["params"]
if res.get("mode") == "label":
    st.caption("The rows were labelled by the saved model as it is (nothing learned).")
elif res["learned"] < res["n"]:
    st.warning(f"Stopped after {res['learned']:,} of {res['n']:,} rows; the results below are for the rows learned.")
learned = rorder[: res["learned"]]
if res.get("mode") != "label" and "long" not in res:  # once per run: CAE on samples of a long run's rows
    with st.spinner("learning samples of the rows beside it…"):
        res["long"] = your_data.long_stream(model, rsel.X[learned], new_model if source == "new" else None)
long_run = res.get("long")
answer = "all"
if long_run is not None:
    runs, check = long_run.runs, long_run.check
    answer = st.radio(
        "Answer",
        ["all", "samples"],
        horizontal=True,
        key="w_up_answer",
        format_func={
            "all": f"{algo} on all {res['learned']:,} rows (as published)",
            "samples": f"{algo} on {runs.n_runs} samples of {runs.rows_per_sample:,} rows (the one the others agree "
            "with most)",
        }.get,
        help="On a long stream with noise, CAE's nodes on the noise can link clusters: more rows, fewer clusters. "
        f"The page also learned {runs.n_runs} disjoint uniform samples of the rows (each in the learned order) and "
        "kept the network the others agree with most (docs/long-streams.md).",
    )
    if check.merged:
        message("warning", "{}", check.sentence("choosing the samples under Answer above"))
    elif not check.stable:
        st.caption(
            f"The {runs.n_runs} samples agree only to NMI {check.samples_agreement:.2f} among themselves: {algo}'s "
            "answer on these rows depends on the rows it sees, so neither answer is the reference; compare the two."
        )
    if answer == "samples":
        model = runs.model
per_answer = res if answer == "all" else res.setdefault("samples", {})  # what is computed once, per answer
if "labels" not in per_answer:  # once per run and answer (a few seconds for millions of rows)
    with st.spinner("labelling the rows…"):
        per_answer["labels"] = model.predict(rsel.X) if len(model.nodes_) else np.full(len(rsel.X), -1)
        if rsel.y is not None:
            per_answer["scores"] = nmi(rsel.y, per_answer["labels"]), ari(rsel.y, per_answer["labels"])
labels = per_answer["labels"]
m = st.columns(5)
if res.get("mode") == "label":
    m[0].metric("Rows labelled", f"{res['n']:,}")
elif answer == "samples":
    m[0].metric("Rows learned, each sample", f"{runs.rows_per_sample:,}")
else:
    m[0].metric("Rows learned", f"{res['learned']:,}")
m[1].metric("#nodes", len(model.nodes_))
m[2].metric("#clusters", model.n_clusters_)
if rsel.y is not None:
    m[3].metric("NMI", f"{per_answer['scores'][0]:.3f}")
    m[4].metric("ARI", f"{per_answer['scores'][1]:.3f}")
if long_run is not None:  # the other answer, always beside the one shown
    other = "samples" if answer == "all" else "all"
    other_model = runs.model if other == "samples" else res["model"]
    ov = res if other == "all" else res.setdefault("samples", {})
    if "labels" not in ov:
        ov["labels"] = other_model.predict(rsel.X) if len(other_model.nodes_) else np.full(len(rsel.X), -1)
        if rsel.y is not None:
            ov["scores"] = nmi(rsel.y, ov["labels"]), ari(rsel.y, ov["labels"])
    st.caption(
        ("On all rows" if other == "all" else f"On the samples ({runs.n_runs} × {runs.rows_per_sample:,} rows)")
        + f": {len(other_model.nodes_):,} nodes, {other_model.n_clusters_:,} clusters"
        + (f", NMI {ov['scores'][0]:.3f}, ARI {ov['scores'][1]:.3f}" if rsel.y is not None else "")
        + "."
    )
if res.get("mode") != "label":
    if "advice" not in res:  # once per run: it may learn the rows again to try a remedy
        with st.spinner("checking the run…"):
            res["advice"] = your_data.advise(
                res["model"],
                rsel.X[learned],
                None if rsel.y is None else rsel.y[learned],
                rsel.label_names,
                rsel.features,
                label=rsel.label,
                scaling=rsel.scaling,
                shuffled=seed is not None,
                make_model=new_model,
                try_rows=20_000 if not slow_hint() else 2_000,
            )
    advice = res["advice"]
    if advice is not None:
        message("warning", "{}", advice.text())

        def _remedy(kind):
            if kind == "shuffle":
                st.session_state.w_shuffle = True
            if "minmax" in kind:
                st.session_state.w_scaling = "minmax"
            if kind.startswith("caea"):
                st.session_state.w_up_source = "new"
                st.session_state.w_up_algo = "CAEA"
                st.session_state.w_up_CAEA_deletion_interval = 80
                st.session_state.w_up_CAEA_max_edge_age = 40
            st.session_state.up_learn_again = True

        for kind in advice.remedies:
            st.button(your_data.REMEDIES[kind], key=f"b_remedy_{kind}", on_click=_remedy, args=(kind,))

tabs = st.tabs(["Data and network", "Topology", "Clusters", "Labels vs clusters", "Downloads"])
with tabs[0]:
    d = rsel.X.shape[1]
    show = np.linspace(0, len(rsel.X) - 1, min(len(rsel.X), 5000)).round().astype(int)
    if d == 1:
        st.info("One feature: the view plots it against the row number.")
        Xv = np.column_stack([rsel.X[:, 0], np.arange(len(rsel.X))])
        Nv = np.column_stack([np.asarray(model.nodes_)[:, 0], np.zeros(len(model.nodes_))])
        titles = (rsel.features[0], "row")
    elif d == 2:
        Xv, Nv, titles = rsel.X, np.asarray(model.nodes_), tuple(rsel.features)
    else:
        if "pca" not in per_answer:  # once per run and answer
            per_answer["pca"] = your_data.pca_view(rsel.X, np.asarray(model.nodes_))
        Xp, Np, evr = per_answer["pca"]
        axes = [f"PC{k + 1} ({100 * v:.0f} %)" for k, v in enumerate(evr)]
        p = st.columns(2)
        i = p[0].selectbox("Horizontal axis", range(len(axes)), format_func=axes.__getitem__, key="w_pc_x")
        j = p[1].selectbox("Vertical axis", range(len(axes)), index=1, format_func=axes.__getitem__, key="w_pc_y")
        Xv, Nv, titles = Xp[:, [i, j]], Np[:, [i, j]], (axes[i], axes[j])
        st.caption("A PCA of the data (fitted on the data; the nodes are projected by the same PCA).")
    if len(Xv) > density.SCATTER_MAX:  # every row, counted into a picture
        view = density.density_network_figure(
            Xv, Nv, model.edges_, model.node_labels_, model.win_counts_, axis_titles=titles
        )
        st.caption(
            f"All {len(Xv):,} rows as a density image (rows per cell of a 240 × 240 grid, log scale; blank: "
            "none), the network over it."
        )
    else:
        view = figures.projected_network_figure(
            Nv,
            model.edges_,
            model.node_labels_,
            model.win_counts_,
            data_2d=Xv[show],
            data_labels=labels[show],
            axis_titles=titles,
        )
    st.plotly_chart(view, key="up_view")
with tabs[1]:
    lay = st.radio("Layout", ["spring", "kamada_kawai"], horizontal=True, key="w_up_layout")
    st.plotly_chart(figures.topology_figure(model, layout=lay), key="up_topology")
with tabs[2]:
    if "cluster_table" not in per_answer:
        per_answer["cluster_table"] = your_data.cluster_table(model, rsel.X, labels, rsel.features)
    st.dataframe(per_answer["cluster_table"], hide_index=True)
with tabs[3]:
    if rsel.y is None:
        st.info("Choose a label column to compare the clusters with it.")
    else:
        if "contingency" not in per_answer:
            per_answer["contingency"] = your_data.contingency_table(rsel.y, labels, rsel.label_names)
        ct = per_answer["contingency"]
        st.plotly_chart(
            figures.matrix_heatmap(ct.to_numpy(), ct.columns, ct.index, title="samples", fmt=".0f"),
            key="up_contingency",
        )
        message("caption", "Rows: the file's labels; columns: {}'s clusters.", algo)
with tabs[4]:
    stem = Path(name).stem or "data"
    label_values = None if rsel.label is None else table.frame[rsel.label].to_numpy()[rsel.row_index]
    dl = st.columns(3)
    if "labels_csv" not in per_answer:
        per_answer["labels_csv"] = your_data.labels_csv(table.lines[rsel.row_index], labels, label_values)
    dl[0].download_button(
        "Labels per row (CSV)",
        per_answer["labels_csv"],
        f"{stem}_labels.csv",
        "text/csv",
        key="d_labels",
        on_click="ignore",
    )
    dl[1].download_button(
        "Nodes (CSV)",
        your_data.nodes_csv(model, rsel.features),
        f"{stem}_nodes.csv",
        "text/csv",
        key="d_nodes",
        on_click="ignore",
    )
    dl[2].download_button(
        "Edges (CSV)", your_data.edges_csv(model), f"{stem}_edges.csv", "text/csv", key="d_edges", on_click="ignore"
    )
    dl[0].download_button(
        "Graph (GraphML)",
        your_data.graphml_bytes(model),
        f"{stem}_graph.graphml",
        "application/xml",
        key="d_graphml",
        on_click="ignore",
    )
    dl[1].download_button(
        "Model (.npz)",
        your_data.model_bytes(model),
        f"{stem}_{algo.replace('+', 'plus')}_model.npz",
        "application/octet-stream",
        key="d_model",
        on_click="ignore",
    )
    dl[2].download_button(
        "Run configuration (JSON)",
        your_data.run_config(
            digest,
            name,
            rsel.features,
            rsel.label,
            rsel.scaling,
            algo,
            params,
            seed,
            res["learned"],
            report,
            learned_on=getattr(model, "learned_on_", None),
        ),
        f"{stem}_run.json",
        "application/json",
        key="d_config",
        on_click="ignore",
    )
    st.caption(
        "Labels: `line` is the row's line in the file (the header is line 1); rows dropped "
        "for missing values have no label. Text cells starting with = + - @ are prefixed with ' so that "
        "spreadsheets do not run them. The model file loads with `cae.load_model`."
    )

trace = res.get("trace")
if trace is not None and len(trace.rows) > 1:
    with st.expander("Clusters as the rows were learned"):
        st.plotly_chart(figures.cluster_trace_figure(trace), key="up_trace")
        st.caption(
            "After each chunk of the rows: the clusters holding at least 1 % of the rows won, and all clusters. "
            "A line that falls while the rows grow is an answer falling apart."
        )

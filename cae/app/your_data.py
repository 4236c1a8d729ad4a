"""What the *Your data* page computes: chunked learning with progress, PCA views, cluster and
contingency tables, and the downloads (labels, nodes, edges, GraphML, model file, run configuration).

No Streamlit here.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..at_scale import ClusterTrace, MergeCheck, SampleRuns
from ..data.csvio import Limits, range_warning, to_safe_csv
from .jobs import SeedJob

__all__ = [
    "learn_in_chunks",
    "LongStream",
    "long_stream",
    "LearnJob",
    "upload_limits",
    "MAX_ROWS",
    "BACKGROUND_ROWS",
    "RunAdvice",
    "REMEDIES",
    "advise",
    "pca_view",
    "cluster_table",
    "contingency_table",
    "labels_csv",
    "nodes_csv",
    "edges_csv",
    "graphml_bytes",
    "model_bytes",
    "run_config",
    "data_hash",
    "columns_left_out",
    "SAMPLE_NOTES",
]


#: what each file of ``sample_data/`` is for, shown under the page's sample chooser
SAMPLE_NOTES = {
    "iris_sorted_by_class.csv": "Iris as it is distributed: 50 setosa, then 50 versicolor, then 50 virginica. "
    "Learned in file order, CAE makes every row its own cluster; the page names the cause and tries random order "
    "(the lesson on class-sorted files).",
    "paper2d_sample.csv": "The paper's six 2-D distributions with 10 % uniform noise, rows shuffled.",
    "blobs3d_sample.csv": "Three-dimensional blobs, rows shuffled: the view is a PCA projection.",
}


#: the most rows *Your data* reads: 5,000,000 rows of a few features are ~40 MB per feature column as floats
#: (plus the upload's bytes, which Streamlit keeps in memory), read in about 2 s and learned by CAE in a few
#: seconds; a larger file is for ``cae learn`` (the page then opens its model with a sample of the rows)
MAX_ROWS = 5_000_000
#: from this many rows on, the page learns in the background (a progress bar; the page stays usable)
BACKGROUND_ROWS = 250_000


def upload_limits(max_upload_mb):
    """The reader's caps for an upload limit of ``max_upload_mb`` MB (Streamlit's ``server.maxUploadSize``,
    which a deployment lowers: see docs/app.md): that many bytes, :data:`MAX_ROWS` rows, 1,000 columns.

    >>> upload_limits(20)
    Limits(max_bytes=20971520, max_rows=5000000, max_columns=1000)
    """
    return Limits(max_bytes=int(max_upload_mb) * 1024 * 1024, max_rows=MAX_ROWS, max_columns=1_000)


class LearnJob(SeedJob):
    """Learning the rows of ``X`` chunk by chunk in a background thread, as :func:`learn_in_chunks` does in
    the foreground: ``learned`` counts the rows learned; :meth:`cancel` stops after the current chunk;
    :meth:`finish` (once the job has ended) runs ``model.end_batch()`` once for what was learned.

    Examples
    --------
    >>> from cae import CAE
    >>> X = np.random.default_rng(0).random((5000, 2))
    >>> job = LearnJob(CAE(), X, chunk=1000).start()
    >>> job.wait(60), job.learned, job.finish().n_samples_seen_ == CAE().learn_many(X).n_samples_seen_
    (True, 5000, True)
    """

    thread_name = "cae-learn-job"

    def __init__(self, model, X, chunk=20_000):
        super().__init__(-(-len(X) // chunk))
        self.model, self.X, self.chunk = model, X, int(chunk)
        self.learned = 0
        self.trace = ClusterTrace()
        self._ended = False

    def _run_seed(self, k):
        part = self.X[k * self.chunk : (k + 1) * self.chunk]
        self.model.learn_many(part)
        self.learned += len(part)
        self.trace.record(self.learned, self.model)

    @property
    def fraction(self):
        return self.learned / max(len(self.X), 1)

    def finish(self):
        """The model, with ``end_batch()`` run once over what was learned (call it after the job has ended)."""
        if not self._ended and self.learned:
            self.model.end_batch()
        self._ended = True
        return self.model


def learn_in_chunks(model, X, chunk=2000, progress=None, should_stop=None, trace=None):
    """Learn X in chunks; ``progress(fraction)`` after each, stop early when ``should_stop()``; ``trace`` (a
    :class:`~cae.at_scale.ClusterTrace`) notes the clusters after each chunk.

    What was learned is one batch of the stream: ``model.end_batch()`` runs at
    the end (as when one call of the reference's training function returns).
    Returns the number of rows learned.
    """
    n = len(X)
    done = 0
    while done < n:
        if should_stop is not None and should_stop():
            break
        model.learn_many(X[done : done + chunk])
        done = min(n, done + chunk)
        if trace is not None:
            trace.record(done, model)
        if progress is not None:
            progress(done / n)
    if done:
        model.end_batch()
    return done


# ---------------------------------------------------------------- a long stream: the samples' answer beside it
@dataclass
class LongStream:
    """CAE's answer on samples of a long run's rows, beside the answer of every row (:mod:`cae.at_scale`).

    ``runs`` holds the samples' network (``runs.model``) and ``check`` whether the network of every row joined
    clusters the samples keep apart (``check.sentence(how)`` says so in one sentence).
    """

    runs: SampleRuns
    check: MergeCheck


def long_stream(model, X, make_model, seed=0):
    """For a CAE or CAEA run over more than 50,000 rows ``X`` (in the order learned): CAE learned on 5 uniform
    samples of 20,000 of them, the one the others agree with most, and the merge check; None for shorter runs,
    other algorithms, or without ``make_model`` (a saved model labelling or continuing).

    Examples
    --------
    >>> from cae import CAE
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.04, (30_000, 2)) for c in (0.2, 0.8)])[rng.permutation(60_000)]
    >>> ls = long_stream(CAE().fit(X), X, CAE)
    >>> ls.check.merged, ls.runs.model.n_clusters_, long_stream(CAE().fit(X[:5000]), X[:5000], CAE)
    (False, 2, None)
    """
    from ..algorithms.cae import CAE
    from ..at_scale import UniformSample, check_merge, learn_on_samples, sample_size, uses_samples

    if make_model is None or not isinstance(model, CAE) or not uses_samples(len(X)) or not len(model.nodes_):
        return None
    sample = UniformSample(sample_size(X.shape[1]), seed).add(X).rows()
    runs = learn_on_samples(make_model, sample, seed=seed)
    runs.model.learned_on_ = runs.provenance(len(X), plain_clusters=int(model.n_clusters_))
    return LongStream(runs, check_merge(model, runs, sample, len(X)))


# ---------------------------------------------------------------- what went wrong, and what fixes it
#: the remedies :func:`advise` can propose, as the page's buttons say them
REMEDIES = {
    "shuffle": "Learn again in random order",
    "minmax": "Learn again with min–max scaling",
    "caea": "Learn again with CAEA (λ = 80, a_max = 40)",
    "caea+minmax": "Learn again with CAEA (λ = 80, a_max = 40) and min–max scaling",
}


@dataclass
class RunAdvice:
    """What looks wrong with a run, the causes found in the data as learned, and the remedies that work.

    ``remedies`` holds keys of :data:`REMEDIES` (the page turns them into buttons); a remedy is listed only
    when it was tried and fixed the run, or could not be tried (``tried`` says which). All text is plain
    (escape it before rendering it as Markdown).
    """

    problem: str
    causes: list = field(default_factory=list)
    remedies: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    tried: dict = field(default_factory=dict)  # remedy -> (n_nodes, n_clusters, fixed)

    def text(self):
        parts = [self.problem]
        if self.causes:
            parts.append("What the data show: " + " ".join(self.causes))
        else:
            parts.append("No cause found in the row order, duplicate rows or feature ranges.")
        parts += self.notes
        return "\n\n".join(parts)


def _runs(values):
    """(value, first, last) of each run of equal consecutive values."""
    values = np.asarray(values)
    cut = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.concatenate([[0], cut])
    ends = np.concatenate([cut, [len(values)]]) - 1
    return [(values[a], int(a), int(b)) for a, b in zip(starts, ends)]


def _went_wrong(model, n):
    """(wrong, no_threshold): no node left, no threshold ever set, or nearly every row its own node/cluster."""
    n_nodes = len(model.nodes_)
    n_clusters = int(model.n_clusters_) if n_nodes else 0
    threshold = getattr(model, "threshold_", None)
    no_threshold = threshold is not None and not np.isfinite(threshold)
    wrong = n_nodes == 0 or no_threshold or n_clusters >= max(5, 0.5 * n) or n_nodes >= max(10, 0.9 * n)
    return wrong, no_threshold


def _try(make_model, X):
    model = make_model()
    learn_in_chunks(model, X, chunk=max(500, len(X) // 50))
    wrong, _ = _went_wrong(model, len(X))
    n_nodes = len(model.nodes_)
    return n_nodes, int(model.n_clusters_) if n_nodes else 0, not wrong


def _problem(model, n, no_threshold):
    """What went wrong, in a sentence or two."""
    n_nodes = len(model.nodes_)
    n_clusters = int(model.n_clusters_) if n_nodes else 0
    if n_nodes == 0:
        problem = f"The run ended with no node at all ({n:,} rows learned): every node was removed as noise."
    elif n_clusters >= 0.5 * n or n_nodes >= 0.9 * n:
        problem = (
            f"Almost every row became a node of its own: {n_nodes:,} nodes and {n_clusters:,} clusters from {n:,} rows."
        )
    else:
        problem = f"{n_nodes:,} nodes and {n_clusters:,} clusters from {n:,} rows."
    if no_threshold:
        problem += " No similarity threshold V was ever set: the first nodes never stopped being diverse."
    return problem


def _sorted_by_class(y, n, label_names, label):
    """The rows sorted by class (the label column in a few blocks), said; or None."""
    if y is None or len(np.unique(y)) < 2:
        return None
    runs = _runs(y)
    k = len(np.unique(y))
    if not (len(runs) <= 2 * k and n >= 4 * k):
        return None
    shown = ", then ".join(
        f"{label_names[v] if label_names is not None and 0 <= v < len(label_names) else v} (rows {a + 1:,}–{b + 1:,})"
        for v, a, b in runs[:6]
    ) + (", …" if len(runs) > 6 else "")
    col = f" {label}" if label else ""
    return (
        f"The rows are sorted by class: the label column{col} comes in {len(runs)} blocks ({shown}). "
        "The first rows, from which CAE estimates its bandwidth, threshold and λ, then hold a single "
        "class, unlike the rest of the stream."
    )


def _sorted_by_feature(X, names):
    """The rows sorted by a feature (a column that only grows or only shrinks), said; or None."""
    for j in range(X.shape[1]):
        d = np.diff(X[:, j])
        if np.any(d != 0) and max((d >= 0).mean(), (d <= 0).mean()) >= 0.98:
            return (
                f"The rows are sorted by the column {names[j]} "
                f"({'increasing' if (d >= 0).mean() >= 0.98 else 'decreasing'}): the first rows are "
                "not like the rest of the stream."
            )
    return None


def _order_causes(X, y, label_names, label, names):
    """What is wrong with the rows' order: sorted by class or by a feature, duplicate rows in pairs."""
    n = len(X)
    causes = [c for c in (_sorted_by_class(y, n, label_names, label),) if c]
    if not causes:
        causes += [c for c in (_sorted_by_feature(X, names),) if c]
    twins = int(np.all(X[1:] == X[:-1], axis=1).sum()) if n > 1 else 0
    if twins >= max(2, 0.05 * n):
        causes.append(
            f"{twins:,} rows repeat the row just before them: the first nodes sit on top of each other, "
            "which pulls the threshold V towards 0."
        )
    return causes


def _range_cause(X, names, advice):
    """Feature ranges that differ by more than 100×, said; or None (with a note when scaling would change little)."""
    w = range_warning(X, names)
    if w:
        return "The " + w.replace("; consider min-max or z-score scaling.", ".")
    ranges = np.ptp(X, axis=0)
    pos = ranges[ranges > 0]
    if len(pos) >= 2:
        advice.notes.append(
            f"The feature ranges differ by at most {pos.max() / pos.min():.1f}×: scaling would change little."
        )
    return None


def _verdict(advice, can_try, n, kind, what, X, factory):
    """A remedy proposed: tried first when it can be (and proposed only when it fixes the run)."""
    if not can_try:
        advice.remedies.append(kind)
        return f"Remedy: {what} (not tried here: {n:,} rows)."
    nodes, clusters, fixed = advice.tried[kind] = _try(factory, X)
    if fixed:
        advice.remedies.append(kind)
        return f"Remedy: {what}. Tried: it gives {nodes:,} nodes and {clusters:,} clusters."
    return f"Tried {what}: it still gives {nodes:,} nodes and {clusters:,} clusters, so that alone does not fix it."


def _try_caea(advice, X, range_cause, verdict):
    """CAE never set its threshold and nothing else fixed it: CAEA (λ and a_max given) is tried."""
    from ..data.csvio import scale
    from ..registry import make_algorithm

    n, d = X.shape
    advice.causes.append(
        f"With {d} features and {n:,} rows, CAE's first nodes may never stop being diverse, and CAE waits for "
        "that to set its threshold. CAEA is given λ and a_max and does not wait."
    )
    Xc = scale(X, "minmax") if range_cause else X
    advice.causes.append(
        verdict(
            "caea+minmax" if range_cause else "caea",
            "CAEA (λ = 80, a_max = 40)" + (" with min–max scaling" if range_cause else ""),
            Xc,
            lambda: make_algorithm("CAEA", deletion_interval=80, max_edge_age=40),
        )
    )


def advise(
    model,
    X,
    y=None,
    label_names=None,
    feature_names=None,
    label=None,
    scaling="none",
    shuffled=False,
    make_model=None,
    try_rows=20_000,
):
    """Look at a finished run and, when it went wrong, say why and which remedy works.

    ``X`` (and ``y``) are the rows **in the order they were learned**. A run went wrong when no similarity
    threshold was ever set (CAE), when no node is left, or when almost every row became a cluster of its own
    (#clusters ≥ half the rows) or a node (≥ 90 %). The causes it can detect:

    * rows sorted by class (the label column comes in a few blocks) or by a feature (a column that only
      grows or only shrinks): the first rows, from which CAE estimates its bandwidth, threshold and λ, are
      not like the rest — remedy: present the rows in random order;
    * duplicate rows, each right after its twin: the first nodes sit on top of each other and the threshold
      V collapses towards 0 — remedy: random order;
    * feature ranges that differ by more than 100× (unscaled) — remedy: min–max scaling. When the ranges do
      not differ, it says that scaling would change little.

    With ``make_model`` (a function returning a fresh model like the one learned) and at most ``try_rows``
    rows, each remedy is **tried** (random order with seed 0, as the page's *Order seed* 0; min–max scaling)
    and proposed only when it fixes the run; the numbers it gave are in the text. When CAE never set its
    threshold and nothing else fixed it, CAEA (λ and a_max given, so it does not wait for the first nodes to
    stop being diverse) is tried too.

    Returns a :class:`RunAdvice`, or None when the run looks sound.

    Examples
    --------
    >>> from cae import CAE
    >>> from sklearn.datasets import load_iris
    >>> iris = load_iris()  # in file order: setosa, then versicolor, then virginica
    >>> advice = advise(CAE().fit(iris.data), iris.data, iris.target, list(iris.target_names), make_model=CAE)
    >>> advice.remedies, "rows are sorted by class" in advice.text(), advice.tried["shuffle"]
    (['shuffle'], True, (35, 23, True))
    """
    from ..data.csvio import scale

    n = len(X)
    wrong, no_threshold = _went_wrong(model, n)
    if not wrong:
        return None
    advice = RunAdvice(_problem(model, n, no_threshold))
    names = [str(f) for f in feature_names] if feature_names is not None else [f"x{i}" for i in range(X.shape[1])]
    order_causes = [] if shuffled else _order_causes(X, y, label_names, label, names)
    range_cause = _range_cause(X, names, advice) if scaling == "none" and X.shape[1] >= 2 else None
    can_try = make_model is not None and n <= try_rows

    def verdict(kind, what, Xr, factory=make_model):
        return _verdict(advice, can_try, n, kind, what, Xr, factory)

    if order_causes:
        advice.causes += order_causes
        shuffle_X = X[np.random.default_rng(0).permutation(n)]
        advice.causes.append(verdict("shuffle", "present the rows in random order, as the paper does", shuffle_X))
    if range_cause:
        advice.causes.append(range_cause)
        advice.causes.append(verdict("minmax", "min–max scaling", scale(X, "minmax")))
    if no_threshold and not advice.remedies and can_try:
        _try_caea(advice, X, range_cause, verdict)
    return advice


# ---------------------------------------------------------------- views
def columns_left_out(report):
    """Why each mostly numeric column with cells that are not numbers is out of the features.

    While those cells are read as text (the default), such a column is a text column and cannot be a
    feature. Returns one ``(column, line, text, more)`` per column: its first such cell's line (the header
    is line 1) and text as in the file (escape both names and text before showing them), and how many more
    there are. Empty once the cells are treated as missing (the column is then a feature).

    >>> from cae.data.csvio import read_csv
    >>> _, rep = read_csv(b"x,y\\n1,2\\n3,abc\\n5,6\\n")
    >>> columns_left_out(rep)
    [('y', 3, 'abc', 0)]
    >>> columns_left_out(read_csv(b"x,y\\n1,2\\n3,abc\\n5,6\\n", unparsable="missing")[1])
    []
    """
    if report.unparsable_as_missing:
        return []
    out = []
    for col, cells in report.unparsable_cells.items():
        line, text = min(cells)
        out.append((col, line, text, len(cells) - 1))
    return sorted(out, key=lambda c: c[1])


def pca_view(X, nodes, n_components=None):
    """Project data and nodes with one PCA fitted on the data.

    Returns ``(X_proj, nodes_proj, explained_variance_ratio)``.
    """
    from sklearn.decomposition import PCA

    k = min(X.shape[1], X.shape[0], n_components or min(X.shape[1], 10))
    pca = PCA(n_components=k, random_state=0).fit(X)
    P = pca.transform(nodes) if len(nodes) else np.zeros((0, k))
    return pca.transform(X), P, pca.explained_variance_ratio_


def cluster_table(model, X, labels, feature_names):
    """Per cluster: samples, nodes, and the centroid of its samples."""
    node_labels = np.asarray(model.node_labels_)
    rows = []
    for c in range(model.n_clusters_):
        mask = labels == c
        row = {"cluster": c, "samples": int(mask.sum()), "nodes": int((node_labels == c).sum())}
        cen = X[mask].mean(axis=0) if mask.any() else np.full(X.shape[1], np.nan)
        for f, v in zip(feature_names, cen):
            row[f"centroid {f}"] = float(v)
        rows.append(row)
    return pd.DataFrame(rows).sort_values("samples", ascending=False, kind="stable").reset_index(drop=True)


def contingency_table(y_true, y_pred, true_names=None):
    """Counts of true class (rows) by cluster (columns)."""
    t = pd.Series(y_true, name="true class")
    if true_names is not None:
        t = t.map(lambda v: true_names[v] if 0 <= v < len(true_names) else str(v))
    return pd.crosstab(t, pd.Series(y_pred, name="cluster"))


# ---------------------------------------------------------------- exports
def data_hash(data: bytes):
    return hashlib.sha256(data).hexdigest()


def labels_csv(lines, labels, label_values=None):
    """Labels per kept row: ``line`` (the row's line in the file), ``cluster``, and the file's label if any."""
    df = pd.DataFrame({"line": np.asarray(lines), "cluster": np.asarray(labels)})
    if label_values is not None:
        df["label"] = [str(v) for v in label_values]
    return to_safe_csv(df)


def nodes_csv(model, feature_names):
    """One row per node (per cloud for AutoCloud): id, position, cluster and the per-node quantities."""
    df = pd.DataFrame(np.asarray(model.nodes_), columns=[str(f) for f in feature_names])
    df.insert(0, "node_id", np.asarray(model.node_ids_))
    df["cluster"] = np.asarray(model.node_labels_)
    df["win_count"] = np.asarray(model.win_counts_)
    for name in ("sigmas_", "cloud_variances_"):
        if hasattr(model, name):
            df[name.rstrip("_").rstrip("s") if name == "sigmas_" else "variance"] = np.asarray(getattr(model, name))
    return to_safe_csv(df)


def edges_csv(model):
    ids = np.asarray(model.node_ids_)
    E = np.asarray(model.edges_).reshape(-1, 2)
    df = pd.DataFrame({"source_id": ids[E[:, 0]], "target_id": ids[E[:, 1]]})
    if hasattr(model, "edge_ages_"):
        df["age"] = np.asarray(model.edge_ages_)
    return to_safe_csv(df)


def graphml_bytes(model):
    import networkx as nx

    g = model.to_networkx()
    for _, a in g.nodes(data=True):  # GraphML has no tuple type
        pos = a.pop("pos")
        for k, v in enumerate(pos):
            a[f"x{k}"] = float(v)
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue()


def model_bytes(model):
    buf = io.BytesIO()
    model.save(buf)
    return buf.getvalue()


def run_config(
    data_sha256, file_name, features, label, scaling, algorithm, params, shuffle_seed, n_rows, report, learned_on=None
):
    """A JSON run configuration that reproduces the run from the same file (``learned_on``: how the samples'
    answer was learned, when it is the one shown: ``cae learn --sampled`` with the same numbers gives it)."""
    cfg = {
        "tool": "cae-explorer",
        "data_sha256": data_sha256,
        "file_name": file_name,
        "csv": {
            "delimiter": report.delimiter,
            "decimal": report.decimal,
            "header": report.header,
            "encoding": report.encoding,
        },
        "features": list(map(str, features)),
        "label": label,
        "scaling": scaling,
        "algorithm": algorithm,
        "parameters": params,
        "row_order": "file order" if shuffle_seed is None else {"shuffled_with_seed": shuffle_seed},
        "rows_learned": int(n_rows),
    }
    if learned_on is not None:
        cfg["learned_on"] = dict(learned_on)
    return json.dumps(cfg, indent=2, ensure_ascii=False).encode("utf-8")


def run_record(key, model, sel, order, mode, algo, params):
    """A run of *Your data* as the page keeps it: ``key`` says which data, columns, scaling and model it was for
    (another key: the results are out of date), ``mode`` is ``"learn"`` or ``"label"`` (a saved model labels the
    rows as it is), ``learned`` counts the rows learned so far (of ``n``), in the order ``order``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> r = run_record(("k",), None, SimpleNamespace(X=np.zeros((3, 2))), np.arange(3), "label", "CAE", {})
    >>> r["n"], r["learned"], r["mode"]
    (3, 0, 'label')
    """
    if mode not in ("learn", "label"):
        raise ValueError(f"mode is 'learn' or 'label', not {mode!r}")
    return {
        "key": key,
        "model": model,
        "learned": 0,
        "n": len(sel.X),
        "order": order,
        "sel": sel,
        "mode": mode,
        "algo": algo,
        "params": params,
    }

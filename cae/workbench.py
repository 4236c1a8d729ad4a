"""What the upload, continual-learning and compare pages compute (no Streamlit here).

Examples
--------
>>> import numpy as np
>>> from cae.datasets import make_paper2d, nonstationary_stream
>>> res = continual_run(nonstationary_stream(make_paper2d(200, seed=0), order=[0, 3, 4], seed=0))
>>> res.R_nmi.shape, round(res.ai_nmi, 2) == round(float(np.mean(np.diag(res.R_nmi))), 2)
((3, 3), True)
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .csvio import to_safe_csv
from .evaluation import ari, average_incremental, backward_transfer, continual_metrics, nmi
from .model import CAE
from .playground import Playground
from .registry import ALGORITHMS, make_algorithm

__all__ = ["ALGORITHMS", "make_algorithm", "learn_in_chunks", "pca_view", "cluster_table", "contingency_table",
           "labels_csv", "nodes_csv", "edges_csv", "graphml_bytes", "model_bytes", "run_config", "data_hash",
           "ContinualResult", "continual_run", "Lockstep"]


# ----------------------------------------------------------------- algorithms
# ALGORITHMS (name -> cae.registry.Algorithm: CAE, CAEA, SOINN+, ASOINN, TCA, AutoCloud) and
# make_algorithm come from cae.registry; every page builds its widgets from that registry.


def learn_in_chunks(model, X, chunk=2000, progress=None, should_stop=None):
    """Learn X in chunks; ``progress(fraction)`` after each, stop early when ``should_stop()``.

    What was learned is one batch of the stream: ``model.end_batch()`` runs at
    the end (as when one call of the reference's training function returns).
    Returns the number of rows learned.
    """
    n = len(X)
    done = 0
    while done < n:
        if should_stop is not None and should_stop():
            break
        model.learn_many(X[done:done + chunk])
        done = min(n, done + chunk)
        if progress is not None:
            progress(done / n)
    if done:
        model.end_batch()
    return done


# ---------------------------------------------------------------- views
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


def run_config(data_sha256, file_name, features, label, scaling, algorithm, params, shuffle_seed, n_rows, report):
    """A JSON run configuration that reproduces the run from the same file."""
    cfg = {
        "tool": "cae-explorer", "data_sha256": data_sha256, "file_name": file_name,
        "csv": {"delimiter": report.delimiter, "decimal": report.decimal, "header": report.header,
                "encoding": report.encoding},
        "features": list(map(str, features)), "label": label, "scaling": scaling, "algorithm": algorithm,
        "parameters": params, "row_order": "file order" if shuffle_seed is None else {"shuffled_with_seed": shuffle_seed},
        "rows_learned": int(n_rows),
    }
    return json.dumps(cfg, indent=2, ensure_ascii=False).encode("utf-8")


# ---------------------------------------------------------------- continual learning
@dataclass
class ContinualResult:
    """A class-incremental run: metrics after each stage.

    ``R_nmi[i, j]`` (i <= j) is the NMI on the data of stages 1..i after training
    through stage j (NaN below the diagonal); likewise ``R_ari``. ``per_stage_*[k, j]``
    is the score on stage k alone after stage j. ``single_class[i]`` says whether
    the data of stages 1..i hold one class. ``ai_nmi``/``bwt_nmi``/... follow the
    paper's text; :meth:`scores` gives either convention (see
    :func:`cae.evaluation.continual_metrics`).
    """

    stage_names: list
    R_nmi: np.ndarray
    R_ari: np.ndarray
    per_stage_nmi: np.ndarray
    per_stage_ari: np.ndarray
    n_nodes: list
    n_clusters: list
    snapshots: list = field(repr=False)
    single_class: list = field(default_factory=list)
    noise_scored: bool = False

    def scores(self, convention="paper"):
        """``{"ai_nmi", "bwt_nmi", "ai_ari", "bwt_ari"}`` under a convention ("paper" or "text")."""
        out = {}
        for m, R in (("nmi", self.R_nmi), ("ari", self.R_ari)):
            out[f"ai_{m}"], out[f"bwt_{m}"] = continual_metrics(R, self.single_class or None, convention)
        return out

    @property
    def ai_nmi(self):
        return average_incremental(self.R_nmi)

    @property
    def ai_ari(self):
        return average_incremental(self.R_ari)

    @property
    def bwt_nmi(self):
        return backward_transfer(self.R_nmi)

    @property
    def bwt_ari(self):
        return backward_transfer(self.R_ari)

    def table(self):
        rows = []
        for j, name in enumerate(self.stage_names):
            rows.append({"after stage": name, "NMI (stages so far)": self.R_nmi[j, j], "ARI (stages so far)": self.R_ari[j, j],
                         "#nodes": self.n_nodes[j], "#clusters": self.n_clusters[j]})
        return pd.DataFrame(rows)


def continual_run(stream, model=None, progress=None, score_noise=False):
    """Train stage by stage and score every stage-prefix after every stage (the paper's AI and BWT).

    Each stage is one batch (``model.end_batch()`` after it). Samples with the
    stream's noise label are learned but not scored unless ``score_noise``.
    """
    model = CAE() if model is None else model
    starts, ends = stream.stage_starts, stream.stage_ends
    C = len(starts)
    R_nmi = np.full((C, C), np.nan)
    R_ari = np.full((C, C), np.nan)
    ps_nmi = np.full((C, C), np.nan)
    ps_ari = np.full((C, C), np.nan)
    n_nodes, n_clusters, snaps = [], [], []
    scored = np.ones(len(stream), dtype=bool)
    if not score_noise and stream.noise_label is not None:
        scored = stream.y != stream.noise_label
    single = [len(np.unique(stream.y[: ends[i]][scored[: ends[i]]])) == 1 for i in range(C)]
    for j in range(C):
        model.learn_many(stream.X[starts[j]:ends[j]])
        model.end_batch()
        pred_all = model.predict(stream.X[: ends[j]]) if len(model.nodes_) else np.full(ends[j], -1)
        y_all = stream.y[: ends[j]]
        for i in range(j + 1):
            sl = np.flatnonzero(scored[: ends[i]])
            R_nmi[i, j] = nmi(y_all[sl], pred_all[sl])
            R_ari[i, j] = ari(y_all[sl], pred_all[sl])
            sk = starts[i] + np.flatnonzero(scored[starts[i]:ends[i]])
            ps_nmi[i, j] = nmi(y_all[sk], pred_all[sk])
            ps_ari[i, j] = ari(y_all[sk], pred_all[sk])
        n_nodes.append(len(model.nodes_))
        n_clusters.append(model.n_clusters_)
        snaps.append(model.snapshot())
        if progress is not None:
            progress((j + 1) / C)
    return ContinualResult(list(stream.stage_names), R_nmi, R_ari, ps_nmi, ps_ari, n_nodes, n_clusters, snaps,
                           single_class=single, noise_scored=bool(score_noise))


# ---------------------------------------------------------------- compare
class Lockstep:
    """Several algorithms on the same stream, stepped together.

    Parameters
    ----------
    stream : cae.datasets.Stream
    runs : dict label -> (algorithm name, params)
        Labels must be unique; the same algorithm may appear with different parameters.
    """

    def __init__(self, stream, runs):
        self.stream = stream
        self.runs = dict(runs)
        self.playgrounds = {}
        for label, (algo, params) in self.runs.items():
            if algo not in ALGORITHMS:
                raise ValueError(f"unknown algorithm {algo!r}")
            ALGORITHMS[algo].make(**params)  # invalid parameters fail here, not at the first step
            self.playgrounds[label] = Playground(
                stream, model_factory=lambda a=algo, p=dict(params): make_algorithm(a, **p))

    @property
    def t(self):
        return min(pg.t for pg in self.playgrounds.values())

    @property
    def finished(self):
        return all(pg.finished for pg in self.playgrounds.values())

    def step(self, n):
        for pg in self.playgrounds.values():
            pg.step(n)

    def reset(self):
        for pg in self.playgrounds.values():
            pg.reset()

    def metrics(self, max_points=5000, score_noise=False):
        """One row per run: counts and NMI/ARI (noise not scored unless ``score_noise``; see
        :meth:`cae.playground.Playground.live_metrics`)."""
        rows = []
        for label, pg in self.playgrounds.items():
            m = pg.live_metrics(max_points, score_noise=score_noise)
            model = pg.model
            fitted = pg.t > 0 and hasattr(model, "network_")
            rows.append({"algorithm": label, "samples seen": m["samples seen"],
                         "#nodes": m["nodes"] if ALGORITHMS[self.runs[label][0]].kind == "network" else np.nan,
                         "#clusters": m["clusters"], "NMI": m["NMI"], "ARI": m["ARI"],
                         "V": getattr(model, "threshold_", np.nan) if fitted else np.nan,
                         "λ": getattr(model, "deletion_interval_", None) if fitted else None})
        return pd.DataFrame(rows)

    def traces(self, name):
        """``{label: (t, values)}`` of one trace column for every run (NaN where a run has no such column)."""
        return {label: (pg.column("t"), pg.column(name)) for label, pg in self.playgrounds.items()}

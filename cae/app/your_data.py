"""What the *Your data* page computes: chunked learning with progress, PCA views, cluster and
contingency tables, and the downloads (labels, nodes, edges, GraphML, model file, run configuration).

No Streamlit here.
"""

from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pandas as pd

from ..data.csvio import to_safe_csv

__all__ = [
    "learn_in_chunks",
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
]


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
        model.learn_many(X[done : done + chunk])
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
    return json.dumps(cfg, indent=2, ensure_ascii=False).encode("utf-8")

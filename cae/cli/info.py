"""``cae info MODEL``: what a model file holds."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np


def describe(model: object) -> list[str]:
    """The lines ``cae info`` prints: algorithm, parameters, features, samples seen, nodes, clusters, scaling, and
    for CAE and CAEA the threshold V, λ (and n_active), a_max, how the network was learned and its clusters over
    the rows learned.

    Examples
    --------
    >>> from cae import CAE
    >>> X = np.random.default_rng(0).normal(0, 0.05, (2000, 2))
    >>> lines = describe(CAE().fit(X))
    >>> [line.split(":")[0] for line in lines[7:]]
    ['input scaling', 'similarity threshold V', 'deletion interval λ', 'edge-age limit a_max']
    >>> describe(CAE(deletion_interval=40, max_edge_age=30).fit(X))[10]
    'edge-age limit a_max: 30 (given: CAEA)'
    """
    m: Any = model
    names = getattr(m, "feature_names_in_", None)
    params = ", ".join(f"{k}={v}" for k, v in sorted(m.get_params().items())) or "none"
    lines = [
        f"algorithm: {m.algorithm}",
        f"parameters: {params}",
        f"features: {m.n_features_in_}" + (f" ({', '.join(map(str, names))})" if names is not None else ""),
        f"samples seen: {m.n_samples_seen_:,}",
        f"nodes: {len(m.nodes_):,}",
        f"edges: {len(m.edges_):,}",
        f"clusters: {m.n_clusters_:,}",
    ]
    scaling = getattr(m, "input_scaling_", None)
    lines.append("input scaling: " + ("none recorded" if scaling is None else scaling["how"]))
    threshold = getattr(m, "threshold_", None)
    if threshold is not None:
        lines.append(
            f"similarity threshold V: {threshold:.6g}"
            if np.isfinite(threshold)
            else "similarity threshold V: not set yet"
        )
    if hasattr(m, "deletion_interval_"):
        lines += _lambda_and_a_max(m)
    learned_on = getattr(m, "learned_on_", None)
    if learned_on is not None:
        lines.append(
            f"learned on: sample {learned_on['chosen'] + 1} of {learned_on['samples']} uniform samples of "
            f"{learned_on['sample_rows']:,} of {learned_on['rows']:,} rows (seed {learned_on['seed']}), the one the "
            f"others agree with most (mean NMI {learned_on['agreement']:.3f})"
            + (
                ""
                if learned_on.get("plain_clusters") is None
                else f"; learned on every row: {learned_on['plain_clusters']:,} clusters"
            )
        )
    trace = getattr(m, "cluster_trace_", None)
    if trace:
        from ..at_scale import ClusterTrace

        text = ClusterTrace.from_list(trace).text()
        lines.append(
            text.replace("clusters over the rows", "every row: clusters over the rows", 1) if learned_on else text
        )
    return lines


def _lambda_and_a_max(m: Any) -> list[str]:
    """λ (and n_active = λ/2, spec [ref]) and a_max: CAEA's given values, or CAE's estimates."""
    lam = m.deletion_interval_
    given = m.get_params().get("deletion_interval") is not None
    if lam is None:
        out = ["deletion interval λ: not estimated yet (the first nodes are still diverse)"]
    else:
        out = [
            f"deletion interval λ: {lam} ({'given: CAEA' if given else 'estimated by the diversity test'}; "
            f"n_active = λ/2 = {m.n_active_nodes_})"
        ]
    fixed = m.get_params().get("max_edge_age")
    if fixed is not None:
        out.append(f"edge-age limit a_max: {fixed:g} (given: CAEA)")
        return out
    limits = m.edge_age_limits() if len(m.nodes_) else np.zeros(0)
    finite = limits[np.isfinite(limits)]
    deleted = f"{m.n_deleted_edges_:,} edges deleted so far, mean age {m.mean_deleted_edge_age_:.3g}"
    if len(finite):
        out.append(
            f"edge-age limit a_max: estimated at each win from the winner's edges; were each node to win now, "
            f"median {np.median(finite):.3g} (range {finite.min():.3g}–{finite.max():.3g}) over the "
            f"{len(finite):,} nodes with enough edges; {deleted}"
        )
    else:
        out.append(
            f"edge-age limit a_max: estimated at each win from the winner's edges (none has enough yet); {deleted}"
        )
    return out


def run(args: argparse.Namespace) -> int:
    from ..algorithms import load_model

    for line in describe(load_model(args.model)):
        print(line)
    return 0

"""``cae info MODEL``: what a model file holds."""

from __future__ import annotations

import argparse


def describe(model: object) -> list[str]:
    """The lines ``cae info`` prints: algorithm, parameters, features, samples seen, nodes, clusters, scaling."""
    m: object = model
    names = getattr(m, "feature_names_in_", None)
    params = ", ".join(f"{k}={v}" for k, v in sorted(m.get_params().items())) or "none"  # type: ignore[attr-defined]
    lines = [
        f"algorithm: {m.algorithm}",  # type: ignore[attr-defined]
        f"parameters: {params}",
        f"features: {m.n_features_in_}" + (f" ({', '.join(map(str, names))})" if names is not None else ""),  # type: ignore[attr-defined]
        f"samples seen: {m.n_samples_seen_:,}",  # type: ignore[attr-defined]
        f"nodes: {len(m.nodes_):,}",  # type: ignore[attr-defined]
        f"edges: {len(m.edges_):,}",  # type: ignore[attr-defined]
        f"clusters: {m.n_clusters_:,}",  # type: ignore[attr-defined]
    ]
    scaling = getattr(m, "input_scaling_", None)
    lines.append("input scaling: " + ("none recorded" if scaling is None else scaling["how"]))
    threshold = getattr(m, "threshold_", None)
    if threshold is not None:
        lines.append(f"similarity threshold V: {threshold:.6g}")
    return lines


def run(args: argparse.Namespace) -> int:
    from ..algorithms import load_model

    for line in describe(load_model(args.model)):
        print(line)
    return 0

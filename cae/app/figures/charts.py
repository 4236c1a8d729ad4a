"""The other pages' charts: topology, projections, heatmaps, Compare's and Continual's series, the experiments' bars."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._draw import _f32, _segments
from .palette import PALETTE, cluster_colors, readable
from .traces import thin


def layout_positions(model, layout="spring", seed=0):
    """Node positions from a networkx layout ('spring' or 'kamada_kawai'), keyed by row."""
    import networkx as nx

    g = nx.Graph()
    K = len(model.nodes_)
    g.add_nodes_from(range(K))
    g.add_edges_from(map(tuple, np.asarray(model.edges_).tolist()))
    if K == 0:
        return np.zeros((0, 2))
    if layout == "kamada_kawai":
        # Kamada-Kawai needs finite distances: lay out each component, then place them on a grid
        pos = {}
        comps = sorted(nx.connected_components(g), key=lambda c: (-len(c), min(c)))
        cols = max(1, math.ceil(math.sqrt(len(comps))))
        for k, comp in enumerate(comps):
            sub = g.subgraph(comp)
            p = nx.kamada_kawai_layout(sub) if len(comp) > 1 else {next(iter(comp)): np.zeros(2)}
            scale = 0.45 * math.sqrt(len(comp) / K) if K else 1
            off = np.array([k % cols, -(k // cols)], dtype=float)
            for n, xy in p.items():
                pos[n] = off + scale * np.asarray(xy)
    elif layout == "spring":
        pos = nx.spring_layout(g, seed=seed, k=1.5 / math.sqrt(max(K, 1)))
    else:
        raise ValueError("layout must be 'spring' or 'kamada_kawai'")
    return np.array([pos[k] for k in range(K)])


def topology_figure(model, layout="spring", seed=0, height=480, positions=None):
    """The network laid out by networkx, coloured by cluster, sized by win count."""
    fig = go.Figure()
    if model is not None and hasattr(model, "network_") and len(model.nodes_):
        P = layout_positions(model, layout, seed) if positions is None else positions
        x, y = _segments(P, np.asarray(model.edges_))
        fig.add_trace(
            go.Scattergl(x=x, y=y, mode="lines", line=dict(color="#999", width=1), hoverinfo="skip", name="edges")
        )
        M = np.asarray(model.win_counts_)
        labels = np.asarray(model.node_labels_)
        hover = [f"node {n} · cluster {c} · M={m}" for n, c, m in zip(model.node_ids_, labels, M)]
        fig.add_trace(
            go.Scattergl(
                x=_f32(P[:, 0]),
                y=_f32(P[:, 1]),
                mode="markers",
                name="nodes",
                marker=dict(size=5 + 9 * np.sqrt(M / max(M.max(), 1)), color=cluster_colors(labels)),
                text=hover,
                hoverinfo="text",
            )
        )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10), showlegend=False, plot_bgcolor="white")
    readable(fig)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return fig


def diversity_heatmap(R, height=380):
    """The diversity matrix R (R_kl = 1 - CIM(y_k, y_l, sigma_init)) as a heatmap."""
    R = np.asarray(R)
    fig = go.Figure(go.Heatmap(z=R, colorscale="Blues", zmin=0, zmax=1, colorbar=dict(title=dict(text="R"))))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10))
    fig.update_yaxes(autorange="reversed", title_text="node")
    fig.update_xaxes(title_text="node")
    return readable(fig)


def compare_figure(series, titles, height=620, stage_starts=(), max_points=1500, stage_names=()):
    """Several runs' traces on shared axes: ``series`` is a list (one per row) of ``{label: (t, values)}``.

    A dashed line marks where each stage after the first starts, labelled at the top with its name from
    ``stage_names`` ("→ stream #2"), or "→ stage k" without names.
    """
    fig = make_subplots(rows=len(series), cols=1, shared_xaxes=True, vertical_spacing=0.07, subplot_titles=titles)
    for r, runs in enumerate(series, start=1):
        for k, (label, (t, v)) in enumerate(runs.items()):
            tt, vv = thin(np.asarray(t), np.asarray(v), max_points=max_points)
            fig.add_trace(
                go.Scattergl(
                    x=_f32(tt),
                    y=_f32(vv),
                    mode="lines",
                    name=label,
                    legendgroup=label,
                    showlegend=r == 1,
                    line=dict(color=PALETTE[k % len(PALETTE)]),
                ),
                row=r,
                col=1,
            )
    for k, s in enumerate(list(stage_starts)[1:], start=1):
        fig.add_vline(x=float(s), line=dict(color="rgba(0,0,0,0.4)", dash="dash", width=1))
        fig.add_annotation(
            x=float(s),
            y=1.0,
            xref="x",
            yref="paper",
            text=f"→ {stage_names[k]}" if k < len(stage_names) else f"→ stage {k + 1}",
            showarrow=False,
            xanchor="left",
            yanchor="top",
            font=dict(size=12),
            bgcolor="rgba(255,255,255,0.85)",  # readable over the traces
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        hovermode="x unified",
        hoverlabel=dict(namelength=-1),
        legend=dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top"),  # clear of the axis numbers
    )
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(title_text="samples seen", row=len(series), col=1)
    return readable(fig)


def projected_network_figure(
    nodes_2d, edges, node_labels, win_counts, data_2d=None, data_labels=None, axis_titles=("x", "y"), height=520
):
    """A network drawn in any 2-D view (e.g. a PCA projection): nodes by cluster, edges, data faded."""
    traces = []
    if data_2d is not None and len(data_2d):
        color = "rgba(120,120,120,0.3)" if data_labels is None else cluster_colors(data_labels)
        traces.append(
            dict(
                type="scattergl",
                x=_f32(data_2d[:, 0]),
                y=_f32(data_2d[:, 1]),
                mode="markers",
                name="data",
                marker=dict(size=3, color=color, opacity=0.35),
                hoverinfo="skip",
            )
        )
    if len(nodes_2d):
        x, y = _segments(np.asarray(nodes_2d), np.asarray(edges).reshape(-1, 2))
        traces.append(
            dict(
                type="scattergl",
                x=x,
                y=y,
                mode="lines",
                name="edges",
                line=dict(color="#555", width=1),
                hoverinfo="skip",
            )
        )
        M = np.asarray(win_counts)
        traces.append(
            dict(
                type="scattergl",
                x=_f32(nodes_2d[:, 0]),
                y=_f32(nodes_2d[:, 1]),
                mode="markers",
                name="nodes",
                marker=dict(
                    size=6 + 10 * np.sqrt(M / max(M.max(), 1)),
                    color=cluster_colors(node_labels),
                    line=dict(color="white", width=0.8),
                ),
                text=[f"cluster {c}" for c in node_labels],
                hoverinfo="text",
            )
        )
    fig = go.Figure(
        data=traces,
        layout=dict(
            height=height,
            margin=dict(l=10, r=10, t=10, b=10),
            plot_bgcolor="white",
            legend=dict(orientation="h", y=-0.08),
        ),
        _validate=False,
    )
    fig.update_xaxes(title_text=axis_titles[0], showgrid=True, gridcolor="#eee")
    fig.update_yaxes(title_text=axis_titles[1], showgrid=True, gridcolor="#eee")
    return readable(fig)


def matrix_heatmap(
    M, x_labels, y_labels, title="", zmin=None, zmax=None, colorscale="Blues", height=380, fmt=".2f", marked=None
):
    """A labelled heatmap with the values written in the cells (R matrices, contingency tables).

    ``marked``: a boolean mask of cells whose value gets a trailing ``*`` (a footnote the page explains).
    """
    M = np.asarray(M, dtype=float)
    mark = np.zeros(M.shape, bool) if marked is None else np.asarray(marked, bool)
    text = [
        ["" if not np.isfinite(v) else format(v, fmt) + ("*" if k else "") for v, k in zip(row, krow)]
        for row, krow in zip(M, mark)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=M,
            x=[str(v) for v in x_labels],
            y=[str(v) for v in y_labels],
            text=text,
            texttemplate="%{text}",
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            colorbar=dict(title=dict(text=title)),
        )
    )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=10, b=10))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return readable(fig)


def bars_with_std(df, group, metrics, reference=None, height=360):
    """Mean bars with a std error bar per group and metric; ``reference`` = {metric: (mean, std)} drawn beside."""
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=metrics)
    groups = list(dict.fromkeys(df[group]))
    for c, m in enumerate(metrics, start=1):
        mean = [df.loc[df[group] == g, m].mean() for g in groups]
        std = [df.loc[df[group] == g, m].std(ddof=1) if (df[group] == g).sum() > 1 else 0.0 for g in groups]
        fig.add_trace(
            go.Bar(
                x=[str(g) for g in groups],
                y=mean,
                error_y=dict(type="data", array=std),
                name="ours",
                marker_color=PALETTE[0],
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
        if reference and m in reference:
            fig.add_trace(
                go.Bar(
                    x=["paper"],
                    y=[reference[m][0]],
                    error_y=dict(type="data", array=[reference[m][1]]),
                    name="paper",
                    marker_color=PALETTE[1],
                    showlegend=c == 1,
                ),
                row=1,
                col=c,
            )
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10), barmode="group")
    return readable(fig)


def lambda_sweep_figure(df, height=380):
    """NMI and #clusters against a fixed lambda, with the estimated lambda marked."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("NMI", "#clusters"))
    fixed = df[~df["estimated"]].groupby("lambda")[["nmi", "n_clusters"]].agg(["mean", "std"])
    est = df[df["estimated"]]
    for c, m in enumerate(("nmi", "n_clusters"), start=1):
        fig.add_trace(
            go.Scatter(
                x=fixed.index.to_numpy(float),
                y=fixed[(m, "mean")],
                mode="lines+markers",
                error_y=dict(type="data", array=fixed[(m, "std")].fillna(0)),
                name="λ fixed",
                marker_color=PALETTE[0],
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
        fig.add_trace(
            go.Scatter(
                x=est["lambda"].to_numpy(float),
                y=est[m],
                mode="markers",
                name="λ estimated",
                marker=dict(symbol="star", size=14, color=PALETTE[3]),
                showlegend=c == 1,
            ),
            row=1,
            col=c,
        )
    fig.update_xaxes(type="log", title_text="λ")
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10))
    return readable(fig)


def runtime_figure(df, height=360):
    """Seconds per dataset, split into the diversity (lambda-estimation) phase and the rest; peak memory."""
    g = df.groupby("dataset", sort=False)[["seconds", "diversity_seconds", "peak_mb"]].mean()
    fig = make_subplots(rows=1, cols=2, subplot_titles=("wall time (s)", "peak memory (MB)"))
    fig.add_trace(
        go.Bar(x=g.index, y=g["diversity_seconds"], name="until λ is fixed (DPP diversity)", marker_color=PALETTE[1]),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=g.index, y=g["seconds"] - g["diversity_seconds"], name="the rest of the pass", marker_color=PALETTE[0]
        ),
        row=1,
        col=1,
    )
    fig.add_trace(go.Bar(x=g.index, y=g["peak_mb"], name="peak traced memory", marker_color=PALETTE[2]), row=1, col=2)
    fig.update_layout(barmode="stack", height=height, margin=dict(l=10, r=10, t=30, b=10))
    return readable(fig)


def cluster_trace_figure(trace, height=240):
    """The clusters over the rows learned (:class:`cae.at_scale.ClusterTrace`): the large clusters (≥ 1 % of the
    rows) and all clusters, rows on a log scale when they span more than a decade. A line that falls while the rows
    grow is an answer falling apart.

    >>> from cae.at_scale import ClusterTrace
    >>> fig = cluster_trace_figure(ClusterTrace([1000, 50_000, 1_000_000], [9, 7, 2], [6, 6, 2], [90, 200, 400]))
    >>> [t.name for t in fig.data], fig.layout.xaxis.type
    (['clusters with ≥ 1 % of the rows', 'all clusters (one-node ones too)'], 'log')
    """
    rows = np.asarray(trace.rows)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=rows, y=trace.large, mode="lines+markers", name="clusters with ≥ 1 % of the rows", line=dict(width=3)
        )
    )
    fig.add_trace(
        go.Scatter(
            x=rows,
            y=trace.clusters,
            mode="lines",
            name="all clusters (one-node ones too)",
            line=dict(width=2, dash="dot", color="#555555"),
        )
    )
    log = len(rows) > 1 and rows.max() > 10 * max(rows.min(), 1)
    fig.update_xaxes(title_text="rows learned", type="log" if log else "linear")
    fig.update_yaxes(title_text="clusters", rangemode="tozero")
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        plot_bgcolor="white",
    )
    fig.update_xaxes(gridcolor="#e5e5e5", linecolor="#444")
    fig.update_yaxes(gridcolor="#e5e5e5", linecolor="#444")
    return readable(fig)

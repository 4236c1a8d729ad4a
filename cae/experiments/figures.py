"""Figures of the paper reproduction: pure functions from result tables to Plotly figures.

No Streamlit here; the Experiments page and ``python -m cae.experiments paper`` both draw with
these, and every figure can be written as a standalone HTML file (:func:`standalone_html`).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..app.figures import MIN_FONT, readable
from ..registry import ALGORITHMS
from .against_paper import ALGORITHM_ORDER
from .stats import cliques

__all__ = [
    "lambda_validity_figure",
    "comparison_heatmap",
    "cd_diagram",
    "noise_figure",
    "standalone_html",
    "write_plotlyjs",
]


def standalone_html(fig, plotlyjs="inline"):
    """The figure as an HTML page that opens offline.

    ``plotlyjs="inline"`` puts plotly.js in the page (one self-contained file, about 4.8 MB);
    ``"directory"`` refers to a ``plotly.min.js`` beside the page (see :func:`write_plotlyjs`), which
    keeps a folder of many figures small.
    """
    import hashlib

    # the page's element id from the figure itself (plotly's default is random): the same figure, the same file
    div_id = "fig-" + hashlib.sha1(fig.to_json().encode("utf-8")).hexdigest()[:16]
    return fig.to_html(
        include_plotlyjs=True if plotlyjs == "inline" else "directory", full_html=True, div_id=div_id
    ).encode("utf-8")


def write_plotlyjs(folder):
    """Write ``plotly.min.js`` (the version plotly ships) into ``folder``, for pages made with
    ``standalone_html(fig, "directory")``."""
    from pathlib import Path

    from plotly.offline import get_plotlyjs

    path = Path(folder) / "plotly.min.js"
    js = get_plotlyjs()
    if not path.exists() or path.read_text(encoding="utf-8") != js:
        path.write_text(js, encoding="utf-8")
    return path


def lambda_validity_figure(df, environment="stationary", cols=4, height_per_row=230):
    """Per dataset: NMI (grey bars) and #clusters (blue line, right axis) against a fixed λ, and the λ
    CAE estimated itself (red star at its mean NMI), as in the paper's validity figures.

    ``df`` has the columns of the λ study: dataset, environment, lambda, estimated, nmi, n_clusters.
    """
    part = df[df["environment"] == environment] if "environment" in df else df
    names = list(dict.fromkeys(part["dataset"]))
    rows = max(1, math.ceil(len(names) / cols))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=names,
        horizontal_spacing=0.1,  # room for one plot's #clusters numbers and the next one's NMI numbers
        vertical_spacing=0.12,
        specs=[[{"secondary_y": True}] * cols for _ in range(rows)],
    )
    for k, name in enumerate(names):
        r, c = k // cols + 1, k % cols + 1
        d = part[part["dataset"] == name]
        fixed = d[~d["estimated"].astype(bool)].groupby("lambda").agg(nmi=("nmi", "mean"), nc=("n_clusters", "mean"))
        est = d[d["estimated"].astype(bool)]
        first = k == 0
        fig.add_trace(
            go.Bar(
                x=fixed.index,
                y=fixed["nmi"],
                marker_color="#b0b0b0",
                name="NMI (λ fixed)",
                showlegend=first,
                legendgroup="nmi",
                width=_bar_width(fixed.index),
            ),
            row=r,
            col=c,
            secondary_y=False,
        )
        fig.add_trace(
            go.Scatter(
                x=fixed.index,
                y=fixed["nc"],
                mode="lines+markers",
                line=dict(color="#1f77b4"),
                marker=dict(size=4),
                name="#clusters (λ fixed)",
                showlegend=first,
                legendgroup="nc",
            ),
            row=r,
            col=c,
            secondary_y=True,
        )
        if len(est):
            fig.add_trace(
                go.Scatter(
                    x=[est["lambda"].mean()],
                    y=[est["nmi"].mean()],
                    mode="markers",
                    marker=dict(symbol="star", size=14, color="#d62728", line=dict(color="black", width=0.5)),
                    name="λ estimated by CAE (mean NMI)",
                    showlegend=first,
                    legendgroup="est",
                    hovertext=f"estimated λ = {est['lambda'].mean():.0f} ± "
                    f"{est['lambda'].std(ddof=1) if len(est) > 1 else 0:.0f}, NMI "
                    f"{est['nmi'].mean():.3f}",
                ),
                row=r,
                col=c,
                secondary_y=False,
            )
        fig.update_yaxes(range=[0, 1], row=r, col=c, secondary_y=False, title_text="NMI" if c == 1 else None)
        fig.update_yaxes(
            row=r,
            col=c,
            secondary_y=True,
            showgrid=False,
            rangemode="tozero",
            # its own round numbers (a theme's "sync" ticks gave 128.8 beside the next plot's 0.8: "128.80.8")
            tickmode="auto",
            nticks=5,
            tickformat="~s",
            title_text="#clusters" if c == cols else None,
        )
        fig.update_xaxes(title_text="λ" if r == rows else None, row=r, col=c)
    fig.update_layout(
        height=height_per_row * rows + 120,
        plot_bgcolor="white",
        bargap=0.1,
        title=dict(text=f"Validity of the number of active nodes — {environment}"),
        legend=dict(orientation="h", y=-0.08),
        margin=dict(l=40, r=40, t=80, b=40),
    )
    return readable(fig)


def _bar_width(x):
    x = np.sort(np.asarray(list(x), dtype=float))
    return float(0.7 * np.min(np.diff(x))) if len(x) > 1 else 5.0


def comparison_heatmap(df, table, zcap=3.0):
    """Rows metric · algorithm, columns datasets (or stages): (ours − paper) / the paper's std, capped at ±zcap.

    The cell text is the mark; the hover shows both numbers. The 36 metric · algorithm names are the rows,
    written level at 14 px: as 36 columns of a projector's page their slanted names overlapped, and
    plotly.js left every other one out.
    """
    part = df[df["table"] == table].copy()
    part["column"] = part["metric"] + " · " + part["algorithm"]
    order = {a: i for i, a in enumerate(ALGORITHM_ORDER)}
    metrics = list(dict.fromkeys(part["metric"]))
    columns = sorted(
        set(part["column"]), key=lambda c: (metrics.index(c.split(" · ")[0]), order.get(c.split(" · ")[1], 99))
    )
    key = "stage" if part["dataset"].nunique() == 1 and part["stage"].astype(bool).any() else "dataset"
    rows = list(dict.fromkeys(part[key]))
    Z = np.full((len(rows), len(columns)), np.nan)
    text = np.full(Z.shape, "", dtype=object)
    hover = np.full(Z.shape, "", dtype=object)
    for r in part.itertuples(index=False):
        i, j = rows.index(getattr(r, key)), columns.index(r.column)
        Z[i, j] = np.clip(r.z, -zcap, zcap) if np.isfinite(r.z) else np.nan
        text[i, j] = r.mark
        hover[i, j] = (
            f"{getattr(r, key)} · {r.column}<br>ours {r.ours_mean:.4g} ({r.ours_std:.3g}), paper "
            f"{r.paper_mean:.4g} ({r.paper_std:.3g})<br>z = {r.z:+.2f}"
        )
    fig = go.Figure(
        go.Heatmap(
            z=Z.T,
            x=rows,
            y=columns,
            text=text.T,
            texttemplate="%{text}",
            hovertext=hover.T,
            hoverinfo="text",
            colorscale="RdBu_r",
            zmin=-zcap,
            zmax=zcap,
            colorbar=dict(title=dict(text="(ours − paper) / std")),
        )
    )
    fig.update_layout(
        height=max(320, 26 * len(columns) + 200),
        title=dict(text=f"Against the paper: {table}"),
        xaxis=dict(tickangle=-45, side="top"),
        margin=dict(l=10, r=10, t=60, b=10),
        plot_bgcolor="white",
    )
    fig.update_yaxes(autorange="reversed")
    return readable(fig)


def cd_diagram(result, title=""):
    """A critical-difference diagram: average ranks on an axis (1 = best, left), algorithms named
    beside their rank, thick bars joining the groups that do not differ significantly, and the CD."""
    avg, cd = result["avg_ranks"], result["cd"]
    k = result["k"]
    names = list(avg.index)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[1, k], y=[0, 0], mode="lines", line=dict(color="black", width=1.5), hoverinfo="skip", showlegend=False
        )
    )
    ticks = list(range(1, k + 1))
    fig.add_trace(
        go.Scatter(
            x=ticks,
            y=[0] * k,
            mode="markers+text",
            marker=dict(symbol="line-ns-open", size=10, color="black"),
            text=[str(t) for t in ticks],
            textposition="top center",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    half = math.ceil(len(names) / 2)
    labels = {name: f"{name} ({avg[name]:.2f})" for name in names}
    # the names sit in the margins, each made wide enough for its side's longest name (about 7.7 px a
    # character at 14 px, the smallest text a class reads): a fixed axis range cut "ASOINN(mean) (7.60)"
    widths = [len(labels[n]) for n in names]
    left_px = int(7.7 * max(widths[:half], default=0)) + 16
    right_px = int(7.7 * max(widths[half:], default=0)) + 16
    for i, name in enumerate(names):
        left = i < half
        level = -(0.35 + 0.3 * (i if left else len(names) - 1 - i))
        x_end = 0.6 if left else k + 0.4
        fig.add_trace(
            go.Scatter(
                x=[avg[name], avg[name], x_end],
                y=[0, level, level],
                mode="lines",
                line=dict(color="#444", width=1),
                hoverinfo="skip",
                showlegend=False,
            )
        )
        fig.add_annotation(
            x=x_end,
            y=level,
            text=labels[name],
            showarrow=False,
            xanchor="right" if left else "left",
            font=dict(size=MIN_FONT),
        )
    for g, group in enumerate(cliques(avg, cd)):
        y = -0.12 - 0.08 * g
        fig.add_trace(
            go.Scatter(
                x=[avg[group[0]] - 0.03, avg[group[-1]] + 0.03],
                y=[y, y],
                mode="lines",
                line=dict(color="#d62728", width=5),
                hovertext=", ".join(group),
                hoverinfo="text",
                showlegend=False,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=[1, 1 + cd],
            y=[0.45, 0.45],
            mode="lines+text",
            line=dict(color="black", width=3),
            text=["", f"CD = {cd:.2f}"],
            textposition="middle right",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    bottom = -(0.35 + 0.3 * half) - 0.2
    fig.update_layout(
        height=160 + 38 * half,
        title=dict(text=title or "Critical difference diagram"),
        xaxis=dict(range=[0.55, k + 0.45], visible=False),
        yaxis=dict(range=[bottom, 0.7], visible=False),
        plot_bgcolor="white",
        margin=dict(l=left_px, r=right_px, t=50, b=10),
    )
    fig.add_annotation(
        x=(1 + k) / 2,
        y=0.62,
        showarrow=False,
        font=dict(size=MIN_FONT, color="#555"),
        text=f"Friedman χ² = {result['chi2']:.1f}, p = {result['p']:.2g}; N = {result['n']} blocks",
    )
    return readable(fig)


#: one colour per algorithm of the noise study (the registry's; the paper's six: plotly's default sequence)
_ALGO_COLORS = {name: a.colour for name, a in ALGORITHMS.items()}


def noise_figure(df, metric="nmi", height=420):
    """The noise study: ``metric`` against the noise level, one line per algorithm with a ±1 std band;
    one panel per environment (non-stationary: after the last stream).

    ``df`` has the columns of ``results/noise.csv`` (algorithm, environment, noise, run, stage, metric).
    """
    envs = [e for e in ("stationary", "nonstationary") if e in set(df["environment"])]
    titles = {"stationary": "stationary", "nonstationary": "non-stationary, after the last stream"}
    fig = make_subplots(rows=1, cols=max(1, len(envs)), subplot_titles=[titles[e] for e in envs], shared_yaxes=True)
    order = {a: i for i, a in enumerate(ALGORITHM_ORDER)}
    algos = sorted(set(df["algorithm"]), key=lambda a: order.get(a, 99))
    for c, env in enumerate(envs, start=1):
        part = df[df["environment"] == env]
        last = part.groupby(["algorithm", "noise", "run"], sort=False).tail(1)  # the last stream of each run
        for a in algos:
            g = last[last["algorithm"] == a].groupby("noise")[metric]
            mean, std = g.mean(), g.std(ddof=1).fillna(0.0)
            if not len(mean):
                continue
            x = 100 * mean.index.to_numpy(dtype=float)
            color = _ALGO_COLORS.get(a, "#7f7f7f")
            lo = np.clip(mean - std, 0, 1) if metric in ("nmi", "ari") else mean - std
            hi = np.clip(mean + std, 0, 1) if metric in ("nmi", "ari") else mean + std
            fig.add_trace(
                go.Scatter(
                    x=np.concatenate([x, x[::-1]]),
                    y=np.concatenate([hi.to_numpy(), lo.to_numpy()[::-1]]),
                    mode="lines",
                    fill="toself",
                    fillcolor=color,
                    opacity=0.15,
                    line=dict(width=0),
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=a,
                ),
                row=1,
                col=c,
            )
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=mean.to_numpy(),
                    mode="lines+markers",
                    line=dict(color=color, width=2),
                    name=a,
                    legendgroup=a,
                    showlegend=c == 1,
                    customdata=np.column_stack([std.to_numpy(), g.size().to_numpy()]),
                    hovertemplate=f"{a}<br>noise %{{x:g}} %<br>{metric.upper()} %{{y:.3f}} (std %{{customdata[0]:.3f}}, "
                    "%{customdata[1]} runs)<extra></extra>",
                ),
                row=1,
                col=c,
            )
        levels = sorted(set(100 * part["noise"].astype(float)))
        fig.update_xaxes(title_text="uniform noise (% of the points)", tickvals=levels, row=1, col=c)
    fig.update_yaxes(title_text=metric.upper() if metric in ("nmi", "ari") else metric, row=1, col=1)
    if metric in ("nmi", "ari"):
        fig.update_yaxes(range=[0, 1.02])
    fig.update_layout(
        height=height,
        plot_bgcolor="white",
        title=dict(text=f"Noise robustness: {metric.upper()} against the share of uniform noise (±1 std)"),
        legend=dict(orientation="h", y=-0.2),
        margin=dict(l=50, r=20, t=80, b=40),
    )
    fig.update_xaxes(gridcolor="#eee")
    fig.update_yaxes(gridcolor="#eee")
    return readable(fig)

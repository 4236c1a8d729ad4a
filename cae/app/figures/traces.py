"""Internal quantities over samples seen (the Playground's traces), thinning, and a chart's data as a table."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._draw import _f32
from .palette import AXIS_TEXT, MIN_FONT, readable


def _values(a):
    """A trace's x / y / z as a NumPy array (plain lists, arrays or plotly.js typed-array specs)."""
    if a is None:
        return None
    if isinstance(a, dict) and "bdata" in a:
        import base64

        shape = a.get("shape")
        v = np.frombuffer(base64.b64decode(a["bdata"]), dtype=np.dtype(a["dtype"]).newbyteorder("<"))
        return v.reshape([int(n) for n in str(shape).split(",")]) if shape else v
    return np.asarray(a, dtype=object if isinstance(a, (list, tuple)) and a and isinstance(a[0], str) else None)


def figure_table(fig, x_name="x", y_name="y"):
    """A chart's data as a table: its text alternative, for a screen reader or for reading the numbers.

    A heatmap is its matrix (rows and columns named by its axes' labels). Any other figure gives one row per
    data point of every named trace: the panel (its subplot's title, when there are several), the series, x and
    y (``x_name``, ``y_name``); the gaps between line pieces (NaN) and unnamed traces are left out.

    >>> import plotly.graph_objects as go
    >>> fig = go.Figure([go.Scatter(x=[1, 2, None], y=[3.0, 4.0, None], name="V")])
    >>> figure_table(fig).to_dict("list")
    {'series': ['V', 'V'], 'x': [1.0, 2.0], 'y': [3.0, 4.0]}
    """
    import pandas as pd

    data = fig.data if hasattr(fig, "data") else fig["data"]
    for tr in data:
        if tr.type == "heatmap":
            z = np.asarray(_values(tr.z), dtype=float)
            rows = list(_values(tr.y)) if tr.y is not None else list(range(z.shape[0]))
            cols = list(_values(tr.x)) if tr.x is not None else list(range(z.shape[1]))
            return pd.DataFrame(z, index=pd.Index([str(r) for r in rows]), columns=[str(c) for c in cols])
    titles = {}
    grid = getattr(fig, "_grid_ref", None)
    if grid is not None:  # make_subplots: the subplot titles are the first annotations, one per subplot in order
        names = [a.text for a in fig.layout.annotations][: sum(len(row) for row in grid)]
        axes = [cell[0].trace_kwargs.get("yaxis", "y") for row in grid for cell in row if cell]
        titles = dict(zip(axes, names))
    out = []
    for tr in data:
        if not tr.name or tr.x is None or tr.y is None:
            continue
        x, y = _values(tr.x), _values(tr.y)
        n = min(len(x), len(y))
        for xv, yv in zip(x[:n], y[:n]):
            try:
                if yv is None or xv is None or np.isnan(float(yv)) or np.isnan(float(xv)):
                    continue
            except (TypeError, ValueError):
                pass
            row = {"series": tr.name, x_name: xv, y_name: yv}
            if titles:
                row = {"panel": titles.get(tr.yaxis or "y", ""), **row}
            out.append(row)
    table = pd.DataFrame(out, columns=(["panel"] if titles else []) + ["series", x_name, y_name])
    for c in (x_name, y_name):
        try:
            table[c] = table[c].astype(float)
        except (TypeError, ValueError):
            pass
    return table


def thin(t, *cols, max_points=1500):
    """Every k-th point so that at most ``max_points`` remain (the last one kept)."""
    n = len(t)
    if n <= max_points:
        return (t, *cols)
    idx = np.unique(np.append(np.linspace(0, n - 1, max_points).astype(int), n - 1))
    return (t[idx], *(c[idx] for c in cols))


_TRACE_TITLES = (
    "network size",
    "similarity threshold V",
    "λ and n_active",
    "diversity D = det(exp R) (initial phase)",
    "edge-age threshold a_max",
)


def _trace_lines(fig, trace, col, max_points):
    """Rows 1-3 and 5's lines: network size, V, λ and n_active, the mean age of deleted edges; the
    diversity D (row 4, log scale, with the 1e-6 line) and a_max (row 5) where they are defined."""
    t = trace[:, col["t"]]

    def line(row, name, key, color):
        tt, v = thin(t, trace[:, col[key]], max_points=max_points)
        fig.add_trace(go.Scattergl(x=_f32(tt), y=_f32(v), mode="lines", name=name, line=dict(color=color)), row, 1)

    line(1, "#nodes", "n_nodes", "#1f77b4")
    line(1, "#edges", "n_edges", "#7f7f7f")
    line(1, "#clusters", "n_clusters", "#2ca02c")
    line(2, "V", "threshold", "#d62728")
    line(3, "λ", "deletion_interval", "#9467bd")
    line(3, "n_active", "n_active_nodes", "#8c564b")
    _diversity(fig, t, trace[:, col["diversity"]], max_points)
    fig.update_yaxes(type="log", row=4, col=1)
    A = trace[:, col["a_max"]]
    ok = np.isfinite(A)
    if ok.any():
        tt, v = thin(t[ok], A[ok], max_points=max_points)
        a_max = go.Scattergl(x=_f32(tt), y=_f32(v), mode="markers", name="a_max", marker=dict(size=3, color="#ff7f0e"))
        fig.add_trace(a_max, row=5, col=1)
    line(5, "mean age of deleted edges", "mean_deleted_edge_age", "#1f77b4")


def _diversity(fig, t, D, max_points):
    """The diversity D where it was computed (the initial phase; log scale: zeros left out) and the 1e-6 line."""
    ok = np.isfinite(D)
    if not ok.any():
        return
    Dv = np.where(D[ok] > 0, D[ok], np.nan)
    tt, v = thin(t[ok], Dv, max_points=max_points)
    fig.add_trace(
        go.Scatter(x=_f32(tt), y=v, mode="lines+markers", name="D", marker=dict(size=4), line=dict(color="#17becf")),
        row=4,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=[float(tt[0]), float(max(tt[-1], tt[0] + 1))],
            y=[1e-6, 1e-6],
            mode="lines",
            name="1e-6",
            line=dict(color="#d62728", dash="dash"),
        ),
        row=4,
        col=1,
    )


def _event_ticks(fig, trace, col, events, max_points):
    """Ticks where the isolated nodes were swept (row 1, above the lines) and V was set up (row 2, on V)."""
    top = float(np.nanmax(trace[:, col["n_nodes"]]))
    for kind, row, y, name, color in (
        ("sweep", 1, top * 1.05, "isolated-node sweep", "#d62728"),
        ("setup", 2, None, "threshold set-up", "#2ca02c"),
    ):
        ts = np.asarray([e[0] for e in events if e[1] == kind], dtype=float)
        if not len(ts):
            continue
        if len(ts) > max_points:
            ts = ts[np.linspace(0, len(ts) - 1, max_points).astype(int)]
        if y is None:
            ys = trace[np.clip(ts.astype(int) - 1, 0, len(trace) - 1), col["threshold"]]
        else:
            ys = np.full(len(ts), y)
        marker = dict(symbol="line-ns-open", size=9, color=color)
        fig.add_trace(go.Scattergl(x=_f32(ts), y=_f32(ys), mode="markers", name=name, marker=marker), row=row, col=1)


def _vertical(x, color, width=1, dash=None):
    """A vertical line across every row at ``x``."""
    line = dict(color=color, width=width) if dash is None else dict(color=color, dash=dash, width=width)
    return dict(type="line", xref="x", yref="paper", x0=float(x), x1=float(x), y0=0, y1=1, line=line)


def _note(x, y, text, color=None):
    font = dict(size=MIN_FONT) if color is None else dict(size=MIN_FONT, color=color)
    return dict(x=float(x), y=y, xref="x", yref="paper", text=text, showarrow=False, xanchor="left", font=font)


def _markers(stage_starts, stage_names, events, t_now, x_max):
    """The vertical lines and their notes: each stream switch (named), each λ fixed, the step shown."""
    shapes, notes = [], []
    for k, s in enumerate(stage_starts):
        if k == 0 or s > x_max:
            continue
        shapes.append(_vertical(s, "rgba(0,0,0,0.45)", dash="dash"))
        notes.append(_note(s, 1.0, f"→ {stage_names[k]}"))
    for e in events:
        if e[1] == "lambda":
            shapes.append(_vertical(e[0], "rgba(44,160,44,0.6)", dash="dot"))
            notes.append(_note(e[0], 0.02, e[2], color="#2ca02c"))
    if t_now is not None:
        shapes.append(_vertical(t_now, "black"))
    return shapes, notes


def traces_figure(
    trace, columns, stage_starts=(), stage_names=(), events=(), t_now=None, height=900, max_points=1500, x_max=None
):
    """Internal quantities over samples seen, on one shared x-axis.

    Rows: #nodes/#edges/#clusters; the threshold V; lambda and n_active; the
    DPP diversity D (log scale, with the 1e-6 line); a_max at each step and the
    mean age of deleted edges. Vertical lines mark stream switches and
    threshold set-ups; ticks on the first row mark isolated-node sweeps.
    """
    col = {c: k for k, c in enumerate(columns)}
    trace = np.asarray(trace)
    fig = make_subplots(rows=5, cols=1, shared_xaxes=True, vertical_spacing=0.055, subplot_titles=_TRACE_TITLES)
    if len(trace):
        _trace_lines(fig, trace, col, max_points)
        _event_ticks(fig, trace, col, events, max_points)
    if x_max is None:
        x_max = max(float(trace[-1, col["t"]]) * 1.04 if len(trace) else 0.0, 20.0)
    shapes, notes = _markers(stage_starts, stage_names, events, t_now, x_max)
    fig.update_layout(shapes=list(fig.layout.shapes) + shapes, annotations=list(fig.layout.annotations) + notes)
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=30, b=10),
        uirevision="traces",
        # at the right, top-aligned: clear of the "samples seen" title and of every axis's numbers
        legend=dict(orientation="v", x=1.01, xanchor="left", y=1, yanchor="top"),
        hovermode="x unified",
        hoverlabel=dict(namelength=-1),  # names whole ("isolated-node sweep"), not cut at 15 characters
    )
    fig.update_xaxes(range=[0, x_max], automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(title_text="samples seen", row=5, col=1)
    return readable(fig)


#: The stage's traces beside the picture, by the kind of run: (title, trace column, drawn as) per row. CAE's own
#: quantities — its deletion interval λ, its similarity threshold V and its edge-deletion threshold a_max (estimated
#: at each step that deletes around s1: points) — and, for an algorithm without them, the network's size.
SIDE_TRACES = {
    "cae": (
        ("λ (deletion interval)", "deletion_interval", "lines"),
        ("V (similarity threshold)", "threshold", "lines"),
        ("a_max (edge-deletion threshold)", "a_max", "markers"),
    ),
    "size": (("#nodes", "n_nodes", "lines"), ("#clusters", "n_clusters", "lines")),
}


def side_traces_figure(trace, columns, t_now, t_end=None, height=230, font_size=14, max_points=600):
    """The quantities that decide the next step, over samples seen, beside the picture: λ, V and a_max for CAE (and
    CAEA), the network's size for the others (:data:`SIDE_TRACES`), one small row each on a shared axis up to
    ``t_end`` (default the last recorded step), with the step shown (``t_now``) as a vertical line and a dot on
    each row — so that scrubbing back moves them with the picture.

    >>> import numpy as np
    >>> cols = ("t", "n_nodes", "n_clusters")
    >>> trace = np.array([[1, 1, 1], [2, 2, 1], [3, 2, 2]], dtype=float)
    >>> fig = side_traces_figure(trace, cols, t_now=2)
    >>> [t.name for t in fig.data], fig.layout.shapes[0].x0
    (['#nodes', '#nodes at t', '#clusters', '#clusters at t'], 2.0)
    """
    col = {c: k for k, c in enumerate(columns)}
    rows = SIDE_TRACES["cae" if "threshold" in col else "size"]
    trace = np.asarray(trace, dtype=float).reshape(-1, len(columns))
    fig = make_subplots(
        rows=len(rows),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.16 if len(rows) > 2 else 0.22,
        subplot_titles=[r[0] for r in rows],
    )
    t = trace[:, col["t"]]
    now = int(np.searchsorted(t, t_now, side="right")) - 1 if len(t) else -1
    for k, (name, key, mode) in enumerate(rows, start=1):
        v = trace[:, col[key]]
        ok = np.isfinite(v)
        tt, vv = thin(t[ok], v[ok], max_points=max_points)
        line = dict(color="#1f4e79", width=2)
        marker = dict(size=3, color="#1f4e79")
        fig.add_trace(
            go.Scatter(
                x=_f32(tt), y=_f32(vv), mode=mode, name=name.split(" (")[0], line=line, marker=marker, hoverinfo="x+y"
            ),
            row=k,
            col=1,
        )
        at = v[now] if now >= 0 and np.isfinite(v[now]) else None
        fig.add_trace(
            go.Scatter(
                x=[float(t_now)] if at is not None else [],
                y=[float(at)] if at is not None else [],
                mode="markers",
                name=f"{name.split(' (')[0]} at t",
                marker=dict(size=9, color="black"),
                hoverinfo="x+y",
            ),
            row=k,
            col=1,
        )
    x_max = float(max(t_end if t_end is not None else (t[-1] if len(t) else 1.0), 1.0))
    fig.update_layout(
        shapes=[_vertical(t_now, "black")],
        height=height,
        margin=dict(l=4, r=8, t=26, b=4),
        showlegend=False,
        plot_bgcolor="white",
        uirevision="side-traces",
        hovermode="x",
    )
    ticks = dict(size=font_size, color=AXIS_TEXT)  # 9.7:1 on white (Streamlit's theme: 3.7:1)
    fig.update_xaxes(range=[0, x_max * 1.02], automargin=True, showgrid=False, tickfont=ticks)
    # two numbers a row where the text is large (a projector): three crowded a short row
    fig.update_yaxes(automargin=True, gridcolor="#eee", nticks=2 if font_size > MIN_FONT else 3, tickfont=ticks)
    fig.update_annotations(font=dict(size=font_size, color=AXIS_TEXT), x=0, xanchor="left")
    return fig

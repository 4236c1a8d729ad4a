"""Figure builders: pure functions from a model (and data) to Plotly figures, one module per view.

They import no Streamlit and are tested without a browser. Points are sent as float32, all edges of an age
band share one line trace, and long traces are thinned, so a play frame stays small.

- :mod:`.network` — the main view (:func:`network_figure`), drawn in layers (data, the model by its kind,
  focus, marks) with its options in one :class:`~cae.app.view_options.ViewOptions`;
- :mod:`.picture` — the same network as a static SVG picture (:func:`network_svg`), and a saved model's
  drawable parts (:func:`saved_network`);
- :mod:`.traces` — the internal quantities over samples seen (:func:`traces_figure`), :func:`thin`, a
  chart's data as a table (:func:`figure_table`);
- :mod:`.charts` — topology, projections, heatmaps, Compare's series, the experiments' bars;
- :mod:`.geometry` — vigilance regions as curves and the focus window;
- :mod:`.lineage` — Fuzzy ART's boxes and GNG's edges by age and insertions (their ``MODEL_LAYERS``);
- :mod:`.palette` — the cluster colours, the marks' colours, the smallest text size, :func:`readable`.

Every name the pages, the tests and the docs use is importable from here (``from cae.app import figures``).
"""

from __future__ import annotations

from . import lineage as _lineage  # noqa: F401  (registers the "boxes" and "gas" layers: Fuzzy ART, GNG)
from ._draw import edge_path
from .charts import (
    bars_with_std,
    cluster_trace_figure,
    compare_figure,
    diversity_heatmap,
    lambda_sweep_figure,
    layout_positions,
    matrix_heatmap,
    projected_network_figure,
    runtime_figure,
    topology_figure,
)
from .geometry import focus_window, region_outlines, vigilance_boundary
from .network import MODEL_LAYERS, model_kind, network_figure, network_spec
from .palette import (
    AGE_COLORSCALE,
    AGE_COLOURS,
    MARK_COLORS,
    MARK_DRAWN,
    MARK_PLACED,
    MARK_REMOVED,
    MARK_RESONATE,
    MARK_S1,
    MARK_S2,
    MARK_SAMPLE,
    MARKS_NOTE,
    MIN_FONT,
    N_AGE_BANDS,
    PALETTE,
    UPCOMING_NAME,
    cluster_colors,
    readable,
)
from .picture import network_svg, saved_network
from .traces import figure_table, side_traces_figure, thin, traces_figure

__all__ = [
    "cluster_colors",
    "cluster_trace_figure",
    "network_figure",
    "network_spec",
    "network_svg",
    "traces_figure",
    "side_traces_figure",
    "topology_figure",
    "diversity_heatmap",
    "vigilance_boundary",
    "layout_positions",
    "thin",
    "AGE_COLORSCALE",
    "AGE_COLOURS",
    "MARK_COLORS",
    "focus_window",
    "figure_table",
    "region_outlines",
    "readable",
    "MIN_FONT",
    "PALETTE",
    "N_AGE_BANDS",
    "UPCOMING_NAME",
    "MARKS_NOTE",
    "MARK_S1",
    "MARK_S2",
    "MARK_SAMPLE",
    "MARK_RESONATE",
    "MARK_REMOVED",
    "MARK_PLACED",
    "MARK_DRAWN",
    "MODEL_LAYERS",
    "model_kind",
    "edge_path",
    "saved_network",
    "compare_figure",
    "projected_network_figure",
    "matrix_heatmap",
    "bars_with_std",
    "lambda_sweep_figure",
    "runtime_figure",
]

"""Figure builders, tested without a browser."""

import numpy as np
import pytest

from cae import CAE
from cae.app import figures as viz
from cae.app.stepper import TRACE_COLUMNS, Stepper
from cae.data import make_paper2d, nonstationary_stream


@pytest.fixture(scope="module")
def pg():
    p = Stepper(nonstationary_stream(make_paper2d(400, seed=0), seed=0))
    p.step(1500)
    while p.record.case != 3:
        p.step(1)
    return p


SVG = "{http://www.w3.org/2000/svg}"


def _svg_edges(svg):
    """The picture's edges as ``[(x1, y1, x2, y2, colour)]``: each path of the edge group is one colour, a move and
    a line per edge."""
    import re
    import xml.etree.ElementTree as ET

    from cae.app.figures._draw import EDGE_WIDTH

    group = next(g for g in ET.fromstring(svg).findall(f"{SVG}g") if g.get("stroke-width") == str(EDGE_WIDTH))
    return [
        (*map(float, seg), path.get("stroke"))
        for path in group.findall(f"{SVG}path")
        for seg in re.findall(r"M(-?[\d.]+) (-?[\d.]+)L(-?[\d.]+) (-?[\d.]+)", path.get("d"))
    ]


def _svg_nodes(svg):
    """The picture's nodes as ``[(cx, cy, r, colour)]``, in the order drawn."""
    import xml.etree.ElementTree as ET

    group = next(g for g in ET.fromstring(svg).findall(f"{SVG}g") if g.get("stroke") == "white")
    return [(*(float(c.get(k)) for k in ("cx", "cy", "r")), g.get("fill")) for g in group for c in g]


def _named(fig, name):
    return [t for t in fig.data if t.name == name]


def test_network_figure_layers(pg):
    X = pg.stream.X
    fig = viz.network_figure(
        pg.model,
        X[: pg.t],
        X[pg.t - 100 : pg.t],
        X[pg.t - 1],
        pg.record,
        bounds=((0, 1), (0, 1)),
        show_vigilance=True,
        show_bandwidth=True,
        deleted=np.array([[0.5, 0.5]]),
    )
    nodes = _named(fig, "nodes")[0]
    K = len(pg.model.nodes_)
    assert len(nodes.x) == K and np.asarray(nodes.x).dtype == np.float32
    # the views' rule: the ten largest clusters by their win counts M in the palette, every other in grey
    assert list(nodes.marker.color) == viz.cluster_colors(
        pg.model.node_labels_, pg.model.win_counts_, pg.model.node_ids_
    )
    sizes = np.asarray(nodes.marker.size)
    M = np.asarray(pg.model.win_counts_)
    assert sizes[np.argmax(M)] == sizes.max()  # sized by win count
    edge_lines = [t for t in fig.data if (t.name or "").startswith("edges age")]
    n_segments = sum(len(t.x) // 3 for t in edge_lines)  # each edge: its two ends and a gap
    assert n_segments == len(pg.model.edges_)  # every edge once, a line trace per age band
    assert 1 < len(edge_lines) <= viz.N_AGE_BANDS and {t.type for t in edge_lines} == {"scattergl"}
    names = [t.name for t in fig.data]  # over the data (opaque: they hid the edges under them), under the nodes
    assert names.index("recent window") < min(names.index(t.name) for t in edge_lines)
    assert max(names.index(t.name) for t in edge_lines) < names.index("nodes")
    # the legend names each band drawn, in its colour (an entry with no points); the lines themselves have none
    legend = {t.name.removeprefix("edges, age "): t.line.color for t in fig.data if (t.name or "").startswith("edges,")}
    assert {t.name.removeprefix("edges age "): t.line.color for t in edge_lines}.items() <= legend.items()
    assert all(t.showlegend is False for t in edge_lines)
    assert len(_named(fig, "s1")) == 1 and len(_named(fig, "s2")) == 1
    assert len(_named(fig, "current sample")) == 1 and len(_named(fig, "removed this frame")) == 1
    assert list(fig.layout.xaxis.range) == pytest.approx([-0.03, 1.03])
    bw = _named(fig, "bandwidth σ")[0]
    assert int(np.isnan(np.asarray(bw.x, float)).sum()) == int(np.isfinite(pg.model.sigmas_).sum())


def test_vigilance_boundary_is_the_cim_level_set(pg):
    m = pg.model
    r = int(np.flatnonzero(m.node_ids_ == pg.record.s1_id)[0])
    c = np.asarray(m.nodes_)[r]
    sigma, V = m.prediction_sigma(), m.threshold_
    x, y = viz.vigilance_boundary(c, sigma, V)
    P = np.column_stack([x, y]).astype(float)
    cim = np.sqrt(1 - np.mean(np.exp(-((P - c) ** 2) / (2 * sigma**2)), axis=1))
    np.testing.assert_allclose(cim, V, atol=1e-4)
    assert viz.vigilance_boundary(c, sigma, float("nan")) is None


def test_traces_figure_rows_and_thinning(pg):
    tr = pg.trace_so_far
    fig = viz.traces_figure(
        tr, TRACE_COLUMNS, pg.stream.stage_starts, pg.stream.stage_names, pg.events, t_now=pg.t, max_points=300
    )
    names = {t.name for t in fig.data}
    assert {
        "#nodes",
        "#edges",
        "#clusters",
        "V",
        "λ",
        "n_active",
        "D",
        "1e-6",
        "a_max",
        "mean age of deleted edges",
    } <= names
    nodes = [t for t in fig.data if t.name == "#nodes"][0]
    assert len(nodes.x) <= 301 and nodes.x[-1] == pg.t
    assert fig.layout.yaxis4.type == "log"
    stage_lines = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert len(stage_lines) == int(np.sum(pg.stream.stage_starts[1:] <= fig.layout.xaxis.range[1]))
    sweeps = [t for t in fig.data if t.name == "isolated-node sweep"]
    assert len(sweeps) == 1 and len(sweeps[0].x) == sum(1 for e in pg.events if e[1] == "sweep")


def test_thin_keeps_last_point():
    t = np.arange(10000)
    tt, v = viz.thin(t, t * 2, max_points=100)
    assert len(tt) <= 101 and tt[-1] == 9999 and v[-1] == 19998


@pytest.mark.parametrize("layout", ["spring", "kamada_kawai"])
def test_topology_figure(pg, layout):
    fig = viz.topology_figure(pg.model, layout=layout)
    nodes = [t for t in fig.data if t.name == "nodes"][0]
    assert len(nodes.x) == len(pg.model.nodes_)
    assert np.all(np.isfinite(np.asarray(nodes.x, float)))


def test_diversity_heatmap():
    m = CAE()
    for x in np.random.default_rng(0).random((30, 2)):
        m.learn_one(x)
    R = m.diversity_matrix_
    assert R.shape[0] >= 10 and np.allclose(np.diag(R), 1)
    fig = viz.diversity_heatmap(R)
    assert np.asarray(fig.data[0].z).shape == R.shape


def test_empty_model_figure():
    fig = viz.network_figure(CAE(), seen=np.zeros((0, 2)))
    assert len(fig.data) == 0


def test_network_svg_draws_every_node_and_edge_in_the_views_colours():
    import xml.etree.ElementTree as ET

    from conftest import ROOT

    from cae.data import HOME_MODEL, home_stream

    model = viz.saved_network(ROOT / "sample_data" / HOME_MODEL)
    X = home_stream().X
    svg = viz.network_svg(model, seen=X, bounds=((0, 1), (0, 1)), max_points=2000, title="a <home> picture")
    root = ET.fromstring(svg)  # well-formed, the title escaped
    assert root.find(f"{SVG}title").text == "a <home> picture"
    edges, nodes = _svg_edges(svg), _svg_nodes(svg)
    data = root.find(f"{SVG}path").get("d").split("h0")[:-1]  # one dot per zero-length stroke, round-capped
    assert len(data) == 2000 and len(edges) == len(model.edges_) and len(nodes) == len(model.nodes_)
    assert root.find(f"{SVG}path").get("stroke-linecap") == "round"
    # equal aspect: the frame is the unit square with a 3 % margin, drawn square
    frame = root.findall(f"{SVG}rect")[1]
    fx, fy, fw, fh = (float(frame.get(k)) for k in ("x", "y", "width", "height"))
    assert fw == pytest.approx(fh, abs=0.1)

    def on_screen(p):
        return fx + (p[0] + 0.03) / 1.06 * fw, fy + fh - (p[1] + 0.03) / 1.06 * fh

    # every node where the model puts it, in its cluster's colour
    at = np.array([(x, y) for x, y, _, _ in nodes])
    colours = viz.cluster_colors(model.node_labels_, model.win_counts_, getattr(model, "node_ids_", None))
    for k, p in enumerate(model.nodes_):
        gap = np.abs(at - on_screen(p)).max(axis=1)
        assert gap.min() < 0.25 and nodes[int(np.argmin(gap))][3] == colours[k], k
    # every edge between its nodes (whole pixels); the youngest in the first band's colour, the oldest not; the
    # bands drawn under the plot, as the Plotly view's key
    key = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "age-key")
    stops = [line.get("stroke") for line in key.iter(f"{SVG}line")]
    assert stops == list(viz.AGE_COLOURS[: len(stops)]) and len(stops) >= 2
    colour_at = {}
    for x1, y1, x2, y2, c in edges:
        colour_at[(x1, y1, x2, y2)] = colour_at[(x2, y2, x1, y1)] = c

    def colour_of(e):
        (x1, y1), (x2, y2) = (on_screen(model.nodes_[k]) for k in e)
        near = [
            c for (a, b, u, v), c in colour_at.items() if max(abs(a - x1), abs(b - y1), abs(u - x2), abs(v - y2)) <= 1
        ]
        assert near, e
        return near[0]

    assert all(colour_of(e) for e in model.edges_)
    assert colour_of(model.edges_[int(np.argmin(model.edge_ages_))]) == stops[0]
    assert colour_of(model.edges_[int(np.argmax(model.edge_ages_))]) != stops[0]
    assert f"{len(model.nodes_):,} nodes · {len(model.edges_):,} edges · {model.n_clusters_:,} clusters" in svg


def test_network_svg_of_an_empty_or_edgeless_network():
    from types import SimpleNamespace

    empty = SimpleNamespace(
        nodes_=np.zeros((0, 2)), edges_=np.zeros((0, 2), int), node_labels_=np.zeros(0, int), win_counts_=np.zeros(0)
    )
    assert viz.network_svg(empty).count("<circle") == 0
    tca_like = SimpleNamespace(
        nodes_=np.array([[0.0, 0.0], [2.0, 1.0]]),
        edges_=np.array([[0, 1]]),
        node_labels_=np.array([0, 0]),
        win_counts_=np.array([1, 1]),
        n_clusters_=1,
    )
    svg = viz.network_svg(tca_like)  # edges without ages: one grey, no age scale
    assert 'stroke="#555"' in svg and "edge age" not in svg


def test_the_svg_and_the_plotly_view_colour_every_edge_alike_age_zero_included():
    from types import SimpleNamespace

    ages = np.array([0, 1, 3, 7, 20, 50])
    P = np.array([[k, (k % 2) * 1.0] for k in range(7)], dtype=float)
    net = SimpleNamespace(
        network_=None,
        nodes_=P,
        node_ids_=np.arange(7),
        edges_=np.array([[k, k + 1] for k in range(6)]),
        edge_ages_=ages,
        node_labels_=np.zeros(7, int),
        win_counts_=np.ones(7),
        n_clusters_=1,
    )
    fig = viz.network_figure(net)
    plotly_colour = {}
    for line in fig.data:
        if (line.name or "").startswith("edges age"):
            for start in np.asarray(line.x, float)[::3]:  # each edge's start, end, gap: the start's x is its number
                plotly_colour[int(start)] = line.line.color
    assert sorted(plotly_colour) == list(range(6))  # every edge drawn, the age-0 one too
    svg = viz.network_svg(net)
    strokes = [c for *_, c in sorted(_svg_edges(svg))]  # edge k starts at node k: the k-th from the left
    assert strokes == [plotly_colour[k] for k in range(6)]
    assert strokes[0] == strokes[1] != strokes[-1]  # ages 0 and 1 share the first band; 50 is in the last


# ------------------------------------------------------------------ the geometry a lesson depends on
MARK_NAMES = ("s1", "s2", "current sample", "would resonate (CIM ≤ V)", "removed this frame", "placed by hand")
DRAWING = "your drawing: the next samples come from here"


def _lab(colour):
    """CIELAB (D65) of a Plotly colour string."""
    from plotly.colors import hex_to_rgb, unlabel_rgb

    c = np.array(hex_to_rgb(colour) if colour.startswith("#") else unlabel_rgb(colour), float) / 255
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    M = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    X = M @ c / np.array([0.95047, 1.0, 1.08883])
    f = np.where(X > 0.008856, np.cbrt(X), 7.787 * X + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _full_view(pg, **kw):
    from cae.app.explanations import resonance

    X = pg.stream.X
    rows, _, _ = resonance(pg.model, X[pg.t - 1])
    from cae.app.regions import Region

    args = dict(
        bounds=((0, 1), (0, 1)),
        show_vigilance=True,
        deleted=np.array([[0.5, 0.5]]),
        highlight=rows[:3],
        drawn_regions=[Region.box((0.1, 0.3), (0.6, 0.9)), Region.polygon([0.5, 0.9, 0.7], [0.1, 0.1, 0.4])],
        placed=np.array([[0.2, 0.2], [0.8, 0.8]]),
    )
    args.update(kw)
    return viz.network_figure(pg.model, X[: pg.t], X[pg.t - 100 : pg.t], X[pg.t - 1], pg.record, **args)


def test_every_mark_is_drawn_after_the_nodes_on_their_webgl_layer(pg):
    """Plotly draws all WebGL traces over all SVG ones, WebGL traces in order: a mark must be WebGL and after."""
    fig = _full_view(pg, show_all_regions=True, show_bandwidth=True)
    names = [t.name for t in fig.data]
    nodes = names.index("nodes")
    assert fig.data[nodes].type == "scattergl"
    for name in (*MARK_NAMES, "vigilance region of s1 (CIM ≤ V)", DRAWING, f"{DRAWING} (halo)"):
        k = names.index(name)
        assert k > nodes and fig.data[k].type == "scattergl", name
    assert names.index(f"{DRAWING} (halo)") < names.index(DRAWING)  # the white halo under the black outline
    for k, t in enumerate(fig.data):  # every line under the nodes: regions, bandwidths (and the edges, SVG)
        if t.name in ("every node's vigilance region", "bandwidth σ"):
            assert k < nodes, t.name
    edges = [k for k, t in enumerate(fig.data) if (t.name or "").startswith("edges age")]
    assert edges and max(edges) < nodes  # the edges under the nodes (and over the data)
    assert names[-1] == "current sample"  # the sample on top of everything


def test_the_marks_use_colours_no_cluster_has(pg):
    for mark in viz.MARK_COLORS:
        assert min(np.linalg.norm(_lab(mark) - _lab(c)) for c in viz.PALETTE) > 40, mark
    fig = _full_view(pg)
    used = set(viz.cluster_colors(pg.model.node_labels_))
    for name in MARK_NAMES:
        t = _named(fig, name)[0]
        assert t.marker.color in viz.MARK_COLORS and t.marker.color not in used, name
    drawing = _named(fig, DRAWING)[0]
    assert drawing.line.color in viz.MARK_COLORS and drawing.line.color not in used
    assert _named(fig, "s1")[0].marker.symbol != _named(fig, "s2")[0].marker.symbol  # and shapes tell them apart
    assert _named(fig, "s1")[0].marker.color != _named(fig, "s2")[0].marker.color
    assert "no cluster has these colours" in fig.layout.legend.title.text  # the legend says so


def test_s1_and_s2_are_named_beside_them_in_annotations_not_webgl_text(pg):
    """The names are annotations (SVG text over every trace), and no WebGL trace writes text (plotly.js's
    WebGL text is the dearer way for a browser without a graphics processor)."""
    for focus in (False, True):
        fig = _full_view(pg, focus=focus)
        assert not [t.name for t in fig.data if t.type == "scattergl" and "text" in (t.mode or "")]
        notes = {a.text: a for a in fig.layout.annotations}
        for name in ("s1", "s2"):
            mark = _named(fig, name)[0]
            note = notes[name]
            assert (note.x, note.y) == (float(mark.x[0]), float(mark.y[0])) and (note.xref, note.yref) == ("x", "y")
            # in the mark's colour (s2's a darker magenta: text needs 4.5:1 on white, magenta has 3.1)
            assert note.font.color == {"s1": viz.MARK_S1, "s2": "#b000b0"}[name] and not note.showarrow
            assert note.name == name  # the annotation names its mark's trace


def test_focus_zooms_to_s1_s2_the_sample_and_the_region(pg):
    m, rec = pg.model, pg.record
    full = _full_view(pg)
    fig = _full_view(pg, focus=True)
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    P = np.asarray(m.nodes_)
    ids = list(m.node_ids_)
    inside = [P[ids.index(rec.s1_id)], P[ids.index(rec.s2_id)], pg.stream.X[pg.t - 1]]
    cx, cy = viz.vigilance_boundary(P[ids.index(rec.s1_id)], m.prediction_sigma(), m.threshold_)
    inside += list(np.column_stack([cx, cy]))
    for px, py in inside:
        assert x0 <= px <= x1 and y0 <= py <= y1
    width = x1 - x0
    full_width = full.layout.xaxis.range[1] - full.layout.xaxis.range[0]
    assert width < full_width / 4  # much narrower than the full view
    assert y1 - y0 == pytest.approx(width)  # square, so a circle looks round
    note = fig.layout.annotations[0].text
    assert note == f"focused on s1 · view {width:.2g} wide (the full view: 1)"
    assert fig.layout.uirevision != full.layout.uirevision  # the browser applies the new range
    # no s1 yet: the full view, no note
    early = viz.network_figure(m, current=pg.stream.X[0], record=None, bounds=((0, 1), (0, 1)), focus=True)
    assert list(early.layout.xaxis.range) == pytest.approx([-0.03, 1.03])
    assert [a.text for a in early.layout.annotations] == ["x"]  # the sample named, no note


def test_every_nodes_vigilance_region_is_its_cim_level_set(pg):
    m = pg.model
    fig = _full_view(pg, show_all_regions=True)
    regions = _named(fig, "every node's vigilance region")
    K = len(m.nodes_)
    x = np.concatenate([np.asarray(t.x, float) for t in regions])
    y = np.concatenate([np.asarray(t.y, float) for t in regions])
    assert int(np.isnan(x).sum()) == K  # one closed curve per node
    assert sum(bool(t.showlegend) for t in regions) == 1  # one legend entry
    colours = viz.cluster_colors(m.node_labels_)
    assert {t.line.color for t in regions} == set(colours)  # in the clusters' colours
    sigma, V = m.prediction_sigma(), m.threshold_
    # each curve: CIM = V to one node, and the curve's centre is that node
    P = np.asarray(m.nodes_)
    curves = np.split(np.column_stack([x, y]), np.flatnonzero(np.isnan(x)) + 1)[:-1]
    for c in curves:
        c = c[:-1]
        k = int(np.argmin(np.linalg.norm(P - c.mean(axis=0), axis=1)))
        cim = np.sqrt(1 - np.mean(np.exp(-((c - P[k]) ** 2) / (2 * sigma**2)), axis=1))
        np.testing.assert_allclose(cim, V, atol=1e-3)
    assert viz.region_outlines(P, sigma, float("nan")) is None
    from cae import CAE

    assert not _named(viz.network_figure(CAE(), show_all_regions=True), "every node's vigilance region")


def test_legends_stay_clear_of_the_axis_numbers(pg):
    fig = _full_view(pg)
    leg = fig.layout.legend
    assert leg.yanchor == "bottom" and leg.y >= 1  # above the plot (the x numbers are below it)
    for f in (
        viz.traces_figure(pg.trace_so_far, TRACE_COLUMNS, pg.stream.stage_starts, pg.stream.stage_names, pg.events),
        viz.compare_figure([{"a": (np.arange(5), np.arange(5))}], ("#nodes",)),
    ):
        assert f.layout.legend.x > 1 and f.layout.legend.xanchor == "left"  # at the right, clear of "samples seen"
        assert f.layout.hoverlabel.namelength == -1  # "isolated-node sweep" whole in the hover


def _two_nodes_one_edge():
    from types import SimpleNamespace

    return SimpleNamespace(
        nodes_=np.array([[0.0, 0.0], [1.0, 1.0]]),
        edges_=np.array([[0, 1]]),
        edge_ages_=np.array([3]),
        node_labels_=np.array([0, 0]),
        win_counts_=np.array([5, 2]),
    )


def test_the_svg_picture_and_the_slides_draw_nodes_last():
    """The static picture and the animation have no marks; their nodes are drawn over edges and data."""

    from cae.app.slides import animation_spec, record_frames

    net = _two_nodes_one_edge()
    svg = viz.network_svg(net, seen=np.array([[0.5, 0.5]]))
    assert svg.rindex("L") < svg.index("<circle ") and len(_svg_nodes(svg)) == 2  # the nodes, after the edge
    X = make_paper2d(100, seed=0).X[:300]
    spec = animation_spec(record_frames(X, t_start=0, t_end=300, n_frames=3), X)
    assert spec["data"][-1]["mode"] == "markers" and "customdata" in spec["data"][-1]  # the nodes, last


def test_experiment_figures_show_their_labels_whole():
    import pandas as pd

    from cae.experiments.figures import cd_diagram, lambda_validity_figure

    avg = pd.Series({"CAE": 1.5, "CAEA": 2.0, "SOINN+": 3.1, "ASOINN(mean)": 7.6, "AutoCloud": 8.0})
    fig = cd_diagram({"avg_ranks": avg, "cd": 2.0, "k": 9, "chi2": 10.0, "p": 0.01, "n": 12})
    labels = [a for a in fig.layout.annotations if "(" in a.text and "Friedman" not in a.text]
    right = [a for a in labels if a.xanchor == "left"]
    assert "ASOINN(mean) (7.60)" in [a.text for a in right]
    # the axis ends at the leader lines, so each name has the margin on its side to itself
    assert fig.layout.xaxis.range[1] <= 9 + 0.5 and fig.layout.margin.r >= 6.5 * len("ASOINN(mean) (7.60)")
    assert fig.layout.margin.l >= 6.5 * max(len(a.text) for a in labels if a.xanchor == "right")
    rows = [
        dict(dataset=d, environment="stationary", **{"lambda": lam, "estimated": False, "nmi": 0.5, "n_clusters": nc})
        for d in ("A", "B")
        for lam, nc in ((10, 3.0), (100, 128.8))
    ]
    lam_fig = lambda_validity_figure(pd.DataFrame(rows), cols=2)
    right_axes = [
        a for name, a in lam_fig.layout.to_plotly_json().items() if name.startswith("yaxis") and a.get("overlaying")
    ]
    assert right_axes and all(a["tickmode"] == "auto" for a in right_axes)  # round numbers, not synced 128.8
    assert lam_fig.layout.xaxis2.domain[0] - lam_fig.layout.xaxis.domain[1] >= 0.1  # room between plots


def test_the_drawing_is_outlined_closed_and_placed_samples_marked(pg):
    fig = _full_view(pg)
    drawing = _named(fig, DRAWING)[0]
    x, y = np.asarray(drawing.x, float), np.asarray(drawing.y, float)
    pieces = np.split(np.column_stack([x, y]), np.flatnonzero(np.isnan(x)) + 1)[:-1]
    box, tri = (p[~np.isnan(p[:, 0])] for p in pieces)
    np.testing.assert_allclose(box, [[0.1, 0.6], [0.3, 0.6], [0.3, 0.9], [0.1, 0.9], [0.1, 0.6]], atol=1e-6)
    np.testing.assert_allclose(tri[0], tri[-1])  # closed
    placed = _named(fig, "placed by hand")[0]
    np.testing.assert_allclose(np.column_stack([placed.x, placed.y]), [[0.2, 0.2], [0.8, 0.8]], atol=1e-6)
    assert DRAWING not in [t.name for t in _full_view(pg, drawn_regions=None).data]


def test_compare_figure_labels_each_stage_line():
    """Every stage line but the first stage's start is labelled with the stage's name (or its number)."""
    series = [{"a": (np.arange(5), np.arange(5))}]
    fig = viz.compare_figure(series, ("#nodes",), stage_starts=[0, 2, 4], stage_names=["one", "two", "three"])
    notes = [a.text for a in fig.layout.annotations]
    assert notes == ["#nodes", "→ two", "→ three"]
    assert [s.x0 for s in fig.layout.shapes] == [2, 4]
    fig = viz.compare_figure(series, ("#nodes",), stage_starts=[0, 2])
    assert [a.text for a in fig.layout.annotations] == ["#nodes", "→ stage 2"]


def test_before_the_first_step_the_view_draws_the_stream_to_come_and_what_to_press():
    X = nonstationary_stream(make_paper2d(100, seed=0), seed=0).X
    fig = viz.network_figure(None, bounds=((0, 1), (0, 1)), upcoming=X, note="press <b>Step 1</b>")
    come = _named(fig, viz.UPCOMING_NAME)[0]
    assert len(come.x) == len(X) and fig.data[0] is come  # under every other mark
    faint = _named(viz.network_figure(None, X, bounds=((0, 1), (0, 1))), "data seen")[0].marker.color
    assert _contrast_on_white(come.marker.color) < _contrast_on_white(faint)  # fainter than the data seen
    assert [a.text for a in fig.layout.annotations] == ["press <b>Step 1</b>"]


def _font_sizes(fig):
    """Every font size the figure sets for text a class reads (None: a default, which is 12 px or less)."""
    lay = fig.layout
    sizes = {"font": lay.font.size, "legend": lay.legend.font.size}
    if lay.legend.title.text:
        sizes["legend title"] = lay.legend.title.font.size
    for name in [k for k in lay if k.startswith(("xaxis", "yaxis"))]:
        sizes[f"{name} ticks"] = lay[name].tickfont.size
    for k, a in enumerate(lay.annotations or ()):
        sizes[f"annotation {k}"] = a.font.size
    for t in fig.data:
        if t.type == "heatmap":
            cb = t.colorbar
        else:
            marker = getattr(t, "marker", None)
            cb = marker.colorbar if marker is not None and marker.showscale else None
        if cb is not None:
            sizes[f"{t.type} colour bar"] = cb.tickfont.size
            sizes[f"{t.type} colour bar title"] = cb.title.font.size
    return sizes


def test_every_text_a_class_reads_is_at_least_14_px(pg):
    """Legends, axis numbers, colour bars and notes at 14 px or more (they were 10-12 px: unreadable from the
    back of a room on a 1280×720 projector)."""
    X = pg.stream.X
    R = np.random.default_rng(0).random((5, 5))
    figs = {
        "network": viz.network_figure(
            pg.model, X[: pg.t], X[pg.t - 100 : pg.t], X[pg.t - 1], pg.record, bounds=((0, 1), (0, 1)), focus=True
        ),
        "traces": viz.traces_figure(
            pg.trace_so_far, TRACE_COLUMNS, pg.stream.stage_starts, pg.stream.stage_names, pg.events
        ),
        "diversity": viz.diversity_heatmap(R),
        "matrix": viz.matrix_heatmap(R, list("abcde"), list("abcde"), title="R"),
        "topology": viz.topology_figure(pg.model),
    }
    for name, fig in figs.items():
        small = {k: v for k, v in _font_sizes(fig).items() if v is None or v < viz.MIN_FONT}
        assert small == {}, (name, small)
    assert viz.MIN_FONT >= 14
    assert figs["matrix"].data[0].textfont.size >= 14  # the numbers in the cells
    # and no colour bar where there was none (a lines chart's markers given one would draw it)
    assert not [t.name for t in figs["traces"].data if "colorbar" in t.to_plotly_json().get("marker", {})]


def test_the_experiments_figures_are_readable_too():
    """The Experiments page's figures: every text a class reads at 14 px or more, and the comparison heatmap's
    36 metric · algorithm names as its rows (as columns at 14 px, plotly.js left every other name out)."""
    import pandas as pd
    from conftest import ROOT

    from cae.experiments import against_paper
    from cae.experiments import figures as ex_figures

    df = pd.read_csv(ROOT / "results" / "paper_comparison.csv")
    table = "real-world stationary"
    heat = ex_figures.comparison_heatmap(df, table)
    part = df[df["table"] == table]
    assert len(heat.data[0].y) == part[["metric", "algorithm"]].drop_duplicates().shape[0] > len(heat.data[0].x)
    ours = against_paper.statistics(df, "ours")
    cd = ex_figures.cd_diagram(next(iter(ours.values())), "ours")
    for name, fig in {"heatmap": heat, "cd": cd}.items():
        small = {k: v for k, v in _font_sizes(fig).items() if v is None or v < viz.MIN_FONT}
        assert small == {}, (name, small)


# ------------------------------------------------------------------ the main view's layers and options
def test_the_main_view_draws_its_layers_in_order(pg):
    """Data under the model (regions, bandwidths, nodes), the marks over every node, the current sample last."""
    X = pg.stream.X
    fig = viz.network_figure(
        pg.model,
        X[: pg.t],
        X[pg.t - 100 : pg.t],
        X[pg.t - 1],
        pg.record,
        bounds=((0, 1), (0, 1)),
        show_vigilance=True,
        show_bandwidth=True,
        show_all_regions=True,
        focus=True,
        deleted=np.array([[0.5, 0.5]]),
        placed=X[:2],
    )
    names = [n for n in dict.fromkeys(t.name for t in fig.data if t.name) if not n.startswith("edges, age")]
    alone = ["cluster of one node"] if "cluster of one node" in names else []
    edges = [n for n in names if n.startswith("edges age")]
    assert names == [
        "data seen",
        "recent window",
        "every node's vigilance region",
        *edges,
        "bandwidth σ",
        "nodes",
        *alone,
        "vigilance region of s1 (CIM ≤ V)",
        "s2 (halo)",
        "s2",
        "s1 (halo)",
        "s1",
        "removed this frame (halo)",
        "removed this frame",
        "placed by hand (halo)",
        "placed by hand",
        "current sample",
    ]
    assert edges and not fig.layout.shapes
    assert fig.layout.annotations[0].text.startswith("focused on s1") and fig.layout.uirevision == "network-focus"


def test_view_options_are_one_value_from_the_page_to_the_figure(pg):
    """A ViewOptions value draws the same figure as its fields given one by one; a field changed on a copy."""
    from cae.app.figures.picture import saved_network  # noqa: F401 - the package's modules import alone
    from cae.app.player import figure_json
    from cae.app.view_options import ViewOptions

    X = pg.stream.X
    view = ViewOptions(show_vigilance=True, focus=True, height=420, current_name="next sample")
    args = (pg.model, X[: pg.t], None, X[pg.t - 1], pg.record)
    one = viz.network_figure(*args, view=view)
    assert figure_json(one) == figure_json(
        viz.network_figure(*args, show_vigilance=True, focus=True, height=420, current_name="next sample")
    )
    assert one.layout.height == 420 and _named(one, "next sample")
    assert viz.network_figure(*args, view=view, height=300).layout.height == 300 and view.height == 420
    with pytest.raises(TypeError, match="show_vigilence"):
        viz.network_figure(*args, show_vigilence=True)


def test_every_kind_of_model_has_its_layers_and_a_kind_can_add_one(pg, monkeypatch):
    """The registry's kinds each have their layers (MODEL_LAYERS); a layer added to a kind is drawn, over the
    data and under the marks; AutoCloud's clouds are drawn by the clouds' layers."""
    from cae.app.figures.network import MODEL_LAYERS, model_kind
    from cae.registry import ALGORITHMS

    assert {a.kind for a in ALGORITHMS.values()} <= set(MODEL_LAYERS)
    assert model_kind(pg.model) == "network"

    def ring_layer(scene, view, canvas):
        canvas.traces.append(dict(type="scattergl", x=scene.P[:1, 0], y=scene.P[:1, 1], name="a new layer"))

    monkeypatch.setitem(MODEL_LAYERS, "network", (*MODEL_LAYERS["network"], ring_layer))
    X = pg.stream.X
    names = [t.name for t in viz.network_figure(pg.model, X[:10], None, X[pg.t - 1], pg.record).data]
    assert names.index("data seen") < names.index("nodes") < names.index("a new layer") < names.index("s1")
    cloud = ALGORITHMS["AutoCloud"].make()
    for x in X[:300]:
        cloud.learn_one(x)
    assert model_kind(cloud) == "clouds"
    drawn = [t.name for t in viz.network_figure(cloud).data]
    assert drawn == ["cloud spread (√variance)", "cloud centres"]


def test_network_svg_marks_the_current_sample_on_top_of_the_nodes():

    net = _two_nodes_one_edge()
    assert "<polygon" not in viz.network_svg(net)
    svg = viz.network_svg(net, bounds=((0, 1), (0, 1)), current=np.array([0.5, 0.5]))
    assert svg.count("<polygon") == 1 and svg.rindex("<polygon") > svg.rindex("<circle")
    xs = [float(p.split(",")[0]) for p in svg.split('points="')[1].split('"')[0].split()]
    assert min(xs) < np.mean([n[0] for n in _svg_nodes(svg)]) < max(xs)


# ------------------------------------------------------------------ every mark the key names is visible
def _contrast_on_white(colour):
    from cae.app.colour_vision import simulate

    y = float(simulate(colour) @ np.array([0.2126, 0.7152, 0.0722]))
    return 1.05 / (y + 0.05)


def test_every_edge_is_drawn_in_a_legible_age_colour_wider_than_the_node_outlines(pg):
    """Each age band's colour keeps 3:1 on the white plot (Viridis' yellow end, 1.3:1, is never used), the edges are
    wider than the white rim that separates a node from them, and the nodes are small enough to leave them seen."""
    from plotly.colors import unlabel_rgb

    from cae.app.figures._draw import EDGE_WIDTH, _node_sizes

    fig = _full_view(pg)
    edges = [t for t in fig.data if (t.name or "").startswith("edges age")]
    assert edges and {s.line.width for s in edges} == {EDGE_WIDTH} and EDGE_WIDTH >= 2.5
    for s in edges:
        colour = (
            s.line.color
            if s.line.color.startswith("#")
            else "#" + "".join(f"{int(round(v)):02x}" for v in unlabel_rgb(s.line.color))
        )
        assert _contrast_on_white(colour) >= 3.0, (s.name, colour)
    nodes = _named(fig, "nodes")[0]
    assert nodes.marker.line.width < EDGE_WIDTH and max(_node_sizes(pg.model.win_counts_)) <= 12


def test_removed_marks_are_seen_and_named_with_their_symbol(pg):
    """ "Removed this frame": a filled mark in a colour no cluster has, on a white halo, with its entry in the key."""
    fig = viz.network_figure(pg.model, deleted=np.array([[0.5, 0.5]]), legend=False)
    mark, halo = _named(fig, "removed this frame")[0], _named(fig, "removed this frame (halo)")[0]
    assert mark.marker.symbol == "x" and mark.marker.color in viz.MARK_COLORS and mark.marker.color != "white"
    assert mark.marker.line.color == mark.marker.color and halo.marker.color == "white"
    assert halo.marker.line.width > mark.marker.line.width
    key = fig.layout.meta["key"]
    entry = key[key.index("removed this frame") - 400 : key.index("removed this frame")]
    assert "✖" in entry and f"color:{viz.MARK_REMOVED}" in entry and "text-shadow" in entry  # the mark, its halo


def test_the_key_names_every_mark_and_line_of_the_picture(pg):
    """With the legend off, nothing is lost: every named trace has its entry in the key (halos apart), the edges'
    age bands too, and no legend or colour bar takes the picture's room."""
    fig = _full_view(pg, legend=False, height=None)
    key = fig.layout.meta["key"]
    assert fig.layout.showlegend is False and fig.layout.height is None
    assert not [t for t in fig.data if t.marker and t.marker.showscale]  # no colour bar
    for name in {t.name for t in fig.data if t.name and not t.name.endswith("(halo)") and t.showlegend is not False}:
        assert name.split(" (")[0] in key, name
    edges = [t.name for t in fig.data if (t.name or "").startswith("edges age")]
    assert edges and "edge age, " in key and all(name.split()[-1] in key for name in edges)


def test_more_clusters_than_colours_stay_apart_for_colour_blind_students():
    """24 clusters at once: the ten largest take the palette, the rest one grey, and every pair of colours shown —
    with the marks' black and magenta — is at least 10 CIEDE2000 apart under protan-, deutan- and tritanopia (and
    normal vision); the key says how many are grey."""
    from cae.app import colour_vision as cv
    from cae.app.figures.palette import OTHER_CLUSTERS, others_note

    rng = np.random.default_rng(3)
    labels = rng.permutation(np.repeat(np.arange(24), rng.integers(1, 30, 24)))
    weights = rng.random(len(labels))
    colours = viz.cluster_colors(labels, weights)
    shown = sorted(set(colours)) + ["#000000", viz.MARK_S2]
    assert len(set(colours)) == 11 and OTHER_CLUSTERS in colours
    for deficiency in (None, "protanopia", "deuteranopia", "tritanopia"):
        assert cv.smallest_difference(shown, deficiency) >= 10, deficiency
    # the largest clusters (by weight) are the coloured ones
    size = {k: weights[labels == k].sum() for k in range(24)}
    largest = sorted(size, key=lambda k: (-size[k], k))[:10]
    assert {colours[list(labels).index(k)] for k in largest} == set(viz.PALETTE)
    assert others_note(labels) == "14 smaller clusters in grey"

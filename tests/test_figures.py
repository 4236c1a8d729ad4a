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
    assert list(nodes.marker.color) == viz.cluster_colors(pg.model.node_labels_)
    sizes = np.asarray(nodes.marker.size)
    M = np.asarray(pg.model.win_counts_)
    assert sizes[np.argmax(M)] == sizes.max()  # sized by win count
    edge_traces = [t for t in fig.data if t.mode == "lines" and (t.name or "").startswith("edges age")]
    n_segments = sum(int(np.isnan(np.asarray(t.x, float)).sum()) for t in edge_traces)
    assert n_segments == len(pg.model.edges_)  # every edge once, NaN-separated
    assert len(edge_traces) <= viz.N_AGE_BANDS
    assert any(getattr(t.marker, "showscale", False) for t in fig.data)  # the age colour bar
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
    ns = "{http://www.w3.org/2000/svg}"
    assert root.find(f"{ns}title").text == "a <home> picture"
    groups = root.findall(f"{ns}g")
    data, edges, nodes = (g.findall(f"{ns}circle") or g.findall(f"{ns}line") for g in groups)
    assert len(data) == 2000 and len(edges) == len(model.edges_) and len(nodes) == len(model.nodes_)
    assert [c.get("fill") for c in nodes] == viz.cluster_colors(model.node_labels_)
    # equal aspect in the unit square: a node at (x, y) is drawn at ox + x*s, top - y*s
    xs = np.array([float(c.get("cx")) for c in nodes])
    ys = np.array([float(c.get("cy")) for c in nodes])
    sx = np.polyfit(model.nodes_[:, 0], xs, 1)[0]
    sy = np.polyfit(model.nodes_[:, 1], ys, 1)[0]
    assert sx > 0 and sy == pytest.approx(-sx, rel=1e-3)
    # the oldest edge gets the last colour of the age scale, the youngest the first
    oldest, youngest = int(np.argmax(model.edge_ages_)), int(np.argmin(model.edge_ages_))
    stops = [s.get("stop-color") for s in root.iter(f"{ns}stop")]
    assert edges[youngest].get("stroke") == stops[0]
    assert edges[oldest].get("stroke") != stops[0]
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
    for tr in fig.data:
        if tr.mode == "lines" and tr.name.startswith("edges age"):
            xs = np.asarray(tr.x, dtype=float)
            for x0 in xs[::3]:  # each edge is start, end, NaN: the start's x is the edge number here
                plotly_colour[int(x0)] = tr.line.color
    assert sorted(plotly_colour) == list(range(6))  # every edge drawn, the age-0 one too
    svg = viz.network_svg(net)
    strokes = [chunk.split('stroke="')[1].split('"')[0] for chunk in svg.split("<line ")[1:]]
    assert strokes == [plotly_colour[k] for k in range(6)]
    assert strokes[0] == strokes[1] != strokes[-1]  # ages 0 and 1 share the first band; 50 is in the last

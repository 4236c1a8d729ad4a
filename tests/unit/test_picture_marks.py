"""What a room sees in the main picture, read from the figure: every name on its own mark (s1, s2, the sample x, GNG's
q, f and r) for every algorithm and at every size; the marks drawn in proportion to the picture's side; the data
seen and the axis numbers in contrasts a projector shows; a one-node cluster told from a data point. (The edge ages'
colours are tested with the cluster palette, in tests/unit/test_colour_vision.py; the rendered page, in
tests/browser/test_picture_browser.py.)"""

import numpy as np
import pytest

from cae.app import figures as viz
from cae.app.colour_vision import simulate
from cae.app.figures.labels import text_size
from cae.app.figures.network import plotted_side
from cae.app.stepper import Stepper
from cae.app.streams import make_stream
from cae.app.view_options import ViewOptions
from cae.registry import ALGORITHMS

LESSON = dict(source="paper2d-ns", n_per_class=1500, noise=0.1, seed=9)
#: the picture's side (px) at 1280×720, at 1400×900 and in the present mode at 1920×1080
SIDES = (469, 605, 933)


def _contrast(a, b="#ffffff"):
    """WCAG 2.1's contrast ratio of two colours."""
    la, lb = (float(simulate(c) @ np.array([0.2126, 0.7152, 0.0722])) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _named(fig, name):
    return next(t for t in fig.data if t.name == name)


@pytest.fixture(scope="module")
def lesson():
    """The issue's lesson link at t = 3,703: s2 lies to the top right of s1, the sample beside them."""
    pg = Stepper(make_stream(LESSON))
    pg.step(3703)
    return pg


def _view(pg, px, **kw):
    X = pg.stream.X
    view = ViewOptions(legend=False, height=None, px=px, **kw)
    return viz.network_figure(
        pg.model, X[: pg.t : 3], X[pg.t - 300 : pg.t], X[pg.t - 1], pg.record, bounds=((0, 1), (0, 1)), view=view
    )


def label_problems(fig, px):
    """Each name of the figure whose centre is not nearer its own mark than any other mark: ``[(name, nearest)]``.

    Read from the figure alone: the axes' ranges, the annotations' anchors and shifts (px), the marks' traces; a
    name's centre is where it is anchored (centred) moved by its shifts, at the plotted scale of a ``px`` picture."""
    lay = fig.layout
    (x0, x1), (y0, y1) = lay.xaxis.range, lay.yaxis.range
    k = plotted_side(ViewOptions(px=px)) / max(x1 - x0, y1 - y0)
    marks = []
    for t in fig.data:
        name = t.name or ""
        if name.endswith("(halo)") or "markers" not in (t.mode or "markers") or t.x is None:
            continue
        if name in ("nodes", "cloud centres", "data seen", "recent window", "cluster of one node"):
            continue  # the model and the data: the names are written beside the marks drawn over them
        for x, y in zip(np.asarray(t.x, float), np.asarray(t.y, float)):
            marks.append((name, (x - x0) * k, (y - y0) * k))
    problems = []
    for a in lay.annotations:
        if a.xref != "x" or not a.name:
            continue
        assert a.xanchor == "center" and a.yanchor == "middle"
        cx, cy = (a.x - x0) * k + a.xshift, (a.y - y0) * k + a.yshift
        nearest = min(marks, key=lambda m: np.hypot(m[1] - cx, m[2] - cy))
        own = min(np.hypot(m[1] - cx, m[2] - cy) for m in marks if m[0] == a.name)
        if nearest[0] != a.name or np.hypot(nearest[1] - cx, nearest[2] - cy) < own:
            problems.append((a.text, a.name, nearest[0]))
        # and the name sits beside its mark, not far from it: within its box's size plus the mark's ring
        w, h = text_size(a.text, a.font.size)
        assert own <= 24 * px / 605 + max(w, h), (a.text, own)
    return problems


@pytest.mark.parametrize("px", SIDES)
@pytest.mark.parametrize("focus", [False, True])
def test_s1_s2_and_the_sample_are_named_on_their_own_marks(lesson, px, focus):
    """At t = 3,703 "s1" sat beside the s2 diamond and "s2" under the sample's star."""
    fig = _view(lesson, px, focus=focus, show_vigilance=True)
    names = {a.text: a.name for a in fig.layout.annotations if a.name}
    assert names == {"s1": "s1", "s2": "s2", "x": "current sample"}
    assert label_problems(fig, px) == []


@pytest.mark.parametrize("algo", list(ALGORITHMS))
def test_every_algorithms_picture_names_its_marks_on_them(algo):
    """Every registered algorithm after 1,500 samples of the lesson's stream, at each size: every name it writes
    (s1, s2, x; GNG's q, f and r at an insertion step) nearest its own mark."""
    pg = Stepper(make_stream(LESSON), model_factory=ALGORITHMS[algo].make)
    pg.step(1500)
    if algo == "GNG":  # on to a step that inserts a node: q, f and r named too
        while not pg.record.inserted:
            pg.step(1)
    for px in SIDES:
        fig = _view(pg, px)
        assert {a.text for a in fig.layout.annotations} >= {"x"}
        if algo == "GNG":
            assert {"q", "f", "r (new)"} <= {a.text for a in fig.layout.annotations}
        assert label_problems(fig, px) == [], (algo, px)


def test_names_stay_on_their_marks_when_the_marks_crowd_together():
    """s1, s2 and the sample a few px apart, in every arrangement: each name still nearest its own mark."""
    from types import SimpleNamespace

    P = np.array([[0.5, 0.5], [0.52, 0.51], [0.3, 0.3], [0.7, 0.7]])
    net = SimpleNamespace(
        network_=None,
        nodes_=P,
        node_ids_=np.arange(4),
        edges_=np.array([[0, 1]]),
        edge_ages_=np.array([3]),
        node_labels_=np.array([0, 0, 1, 2]),
        win_counts_=np.ones(4),
        n_clusters_=3,
    )
    for angle in np.linspace(0, 2 * np.pi, 12, endpoint=False):
        for gap in (0.005, 0.02, 0.05):
            P[1] = P[0] + gap * np.array([np.cos(angle), np.sin(angle)])
            sample = P[0] + 0.6 * gap * np.array([np.cos(angle + 2), np.sin(angle + 2)])
            rec = SimpleNamespace(s1_id=0, s2_id=1, a_max=np.nan)
            for px in SIDES:
                fig = viz.network_figure(net, None, None, sample, rec, bounds=((0, 1), (0, 1)), px=px, legend=False)
                assert label_problems(fig, px) == [], (angle, gap, px)


@pytest.mark.parametrize("algo", ["CAE", "GNG", "Fuzzy ART"])
def test_the_marks_grow_with_the_picture(lesson, algo):
    """Nodes, edges, data points and marks in proportion to the picture's side: at 933 px each is at least as large
    relative to the square as at 605 px (the issue: 5.5-10 px nodes at every size, specks at 933)."""
    pg = lesson if algo == "CAE" else Stepper(make_stream(LESSON), model_factory=ALGORITHMS[algo].make)
    if algo != "CAE":
        pg.step(2000)

    def sizes(px):
        fig = _view(pg, px)
        out = {
            "node": float(np.max(_named(fig, "nodes").marker.size)),
            "data": float(_named(fig, "recent window").marker.size),
            "sample": float(_named(fig, "current sample").marker.size),
        }
        edges = [t for t in fig.data if (t.name or "").startswith("edges age")]
        if edges:
            out["edge"] = float(edges[0].line.width)
        if any(t.name == "s1" for t in fig.data):
            out["s1"] = float(_named(fig, "s1").marker.size)
        return out

    small, large = sizes(605), sizes(933)
    assert small.keys() == large.keys()
    for what in small:
        assert large[what] / 933 >= small[what] / 605 - 1e-9, (what, small[what], large[what])
    assert large["node"] >= 15  # no speck on a projector


def test_data_seen_and_axis_numbers_read_on_a_projector(lesson):
    """The recent window at 3:1 or more on the white plot (WCAG 2.1's bar for graphics), the data seen before it
    lighter but there (the issue: grey at 25 % opacity, gone on a projector), the stream to come fainter still; the axis
    numbers at 4.5:1 or more (Streamlit's theme wrote them at 3.7:1)."""
    fig = _view(lesson, 605)
    recent, seen = _named(fig, "recent window").marker, _named(fig, "data seen").marker
    assert "rgba" not in recent.color and "rgba" not in seen.color  # opaque: the contrast is the colour's
    assert _contrast(recent.color) >= 3.0
    assert 1.8 <= _contrast(seen.color) <= _contrast(recent.color) / 1.5
    upcoming = viz.network_figure(None, upcoming=lesson.stream.X[:100], bounds=((0, 1), (0, 1)))
    assert 1.4 <= _contrast(_named(upcoming, viz.UPCOMING_NAME).marker.color) < _contrast(seen.color)
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert _contrast(axis.tickfont.color) >= 4.5
    traces = viz.side_traces_figure(lesson.trace_so_far, lesson.columns, t_now=lesson.t)
    for axis in (traces.layout.xaxis, traces.layout.yaxis):
        assert _contrast(axis.tickfont.color) >= 4.5
    for a in fig.layout.annotations:  # the marks' names too: text at 4.5:1
        assert _contrast(a.font.color) >= 4.5, a.text


def test_a_one_node_cluster_is_not_a_data_point(lesson):
    """A node without an edge (a cluster of one) is ringed in its colour: a shape no data point has (it was a 5-px
    olive dot among the data)."""
    fig = _view(lesson, 605)
    m = lesson.model
    degree = np.bincount(np.asarray(m.edges_).reshape(-1), minlength=len(m.nodes_))
    alone = np.flatnonzero(degree == 0)
    assert len(alone)  # the lesson has some at t = 3,703
    ring = _named(fig, "cluster of one node")
    assert ring.marker.symbol == "circle-open" and len(ring.x) == len(alone)
    assert np.allclose(np.column_stack([ring.x, ring.y]), np.asarray(m.nodes_)[alone], atol=1e-6)
    nodes = _named(fig, "nodes")
    sizes = np.asarray(nodes.marker.size)[alone]
    assert np.all(np.asarray(ring.marker.size) > sizes) and np.all(sizes > _named(fig, "recent window").marker.size)
    colours = np.asarray(nodes.marker.color)[alone].tolist()
    assert list(ring.marker.color) == colours
    assert "cluster of one node" in fig.layout.meta["key"]  # named in the key, with its ring

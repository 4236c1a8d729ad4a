"""Regions drawn by hand and the samples drawn from them (cae.app.regions), and how a drawing feeds the
Playground's stream (cae.app.stepper: history forks, rewinding and rebuilding give the same samples)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cae import CAE
from cae.app.regions import (
    GRID,
    MAX_REGIONS,
    MAX_VERTICES,
    Region,
    click_position,
    region_from_selection,
    sample_regions,
)
from cae.app.stepper import DRAWN_LABEL, PLACED_LABEL, Drawing, Stepper, compose_stream
from cae.data import make_paper2d, nonstationary_stream

BOX = Region.box((0.1, 0.3), (0.6, 0.9))
TRIANGLE = Region.polygon([0.0, 1.0, 0.0], [0.0, 0.0, 1.0])
L_SHAPE = Region.polygon([0, 0.6, 0.6, 0.2, 0.2, 0], [0, 0, 0.2, 0.2, 1, 1])  # area 0.12 + 0.16 = 0.28


# ------------------------------------------------------------------ geometry
def test_box_and_polygon_by_hand():
    assert BOX.vertices == ((0.1, 0.6), (0.3, 0.6), (0.3, 0.9), (0.1, 0.9))
    assert BOX.area == pytest.approx(0.06) and BOX.bbox == ((0.1, 0.3), (0.6, 0.9))
    assert Region.box((0.3, 0.1), (0.9, 0.6)) == BOX  # either order
    assert Region.box((0.10004, 0.2999), (0.6, 0.9)) == BOX  # corners on the 1/1000 grid
    assert TRIANGLE.area == pytest.approx(0.5) and L_SHAPE.area == pytest.approx(0.28)
    inside = TRIANGLE.contains([[0.2, 0.2], [0.6, 0.6], [0.49, 0.49], [-0.1, 0.5], [0.5, -0.01]])
    assert inside.tolist() == [True, False, True, False, False]
    assert L_SHAPE.contains([[0.1, 0.9], [0.5, 0.1], [0.5, 0.5]]).tolist() == [True, True, False]


def test_a_lasso_that_crosses_itself_has_the_even_odd_inside():
    bow = Region.polygon([0, 1, 1, 0], [0, 1, 0, 1])  # a bow tie: two triangles meeting at (0.5, 0.5)
    assert bow.contains([[0.9, 0.5], [0.1, 0.5], [0.5, 0.9], [0.5, 0.1]]).tolist() == [True, True, False, False]
    assert bow.area == pytest.approx(0.5, abs=0.01)  # the two triangles, measured on a grid
    X = sample_regions([bow], range(2000), seed=1)
    assert bow.contains(X).all()


def test_a_lasso_is_simplified_closed_and_on_the_grid():
    t = np.linspace(0, 2 * np.pi, 400)
    path_x, path_y = 0.5 + 0.2 * np.cos(t), 0.5 + 0.1 * np.sin(t)  # closed: the last point is the first
    ellipse = Region.polygon(path_x, path_y)
    assert len(ellipse.vertices) == MAX_VERTICES and ellipse.kind == "polygon"
    assert ellipse.area == pytest.approx(math.pi * 0.2 * 0.1, rel=0.03)
    assert all(round(v * GRID) == v * GRID for xy in ellipse.vertices for v in xy)
    assert len(Region.polygon(path_x, path_y, max_vertices=8).vertices) == 8


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Region.box((0.2, 0.2), (0, 1)), "no area"),
        (lambda: Region.box((0, 1), (0.5, 0.5004)), "no area"),  # thinner than the grid
        (lambda: Region.polygon([0, 1, 2], [0, 1, 2]), "no area"),  # a line
        (lambda: Region.polygon([0, 1], [0, 1]), "three corners"),
        (lambda: Region.polygon([0, 1, 1, 0.02, 0.02, 0], [0, 0, 1, 1, 0.02, 0.02]), None),  # fine: an L
        (lambda: Region.polygon([0, 1, 1, 0.0, 0.0, 0], [0, 0, 0.01, 0.01, 1, 1]), "too thin"),
        (lambda: Region.polygon([0, np.nan, 1], [0, 1, 0]), "finite"),
        (lambda: Region.box((0, 2000), (0, 1)), "within"),
    ],
)
def test_bad_regions_are_refused_with_a_message(make, message):
    if message is None:
        make()
        return
    with pytest.raises(ValueError, match=message):
        make()


@given(
    st.lists(
        st.tuples(st.integers(-2000, 3000), st.integers(-2000, 3000)), min_size=3, max_size=MAX_VERTICES, unique=True
    )
)
@settings(max_examples=150, deadline=None)
def test_the_text_of_a_region_gives_it_back(corners):
    try:
        region = Region.polygon([x / GRID for x, _ in corners], [y / GRID for _, y in corners])
    except ValueError:
        return  # no area, too thin
    text = region.encode()
    assert text.startswith("p") and Region.decode(text) == region
    box = Region.box(sorted([corners[0][0] / GRID, corners[1][0] / GRID + 1]), [-1, 1])
    assert Region.decode(box.encode()) == box


@pytest.mark.parametrize(
    "text",
    ["", "b", "x1_2_3_4", "b1_2_3", "b1_2_3_4_5", "b1.5_2_3_4", "b1_2__4", "p1_2_3_4", "p0_0_1000_0_0",
     "b0_0_99999999_1", "p" + "_".join(["1", "2"] * 30), "b0_0_1000_1000\x00", "p-0_0_1000_0_0_1000",
     "b<script>_1_2_3", "b1e3_0_1_1", "pnan_0_1_1_0_1"],
)  # fmt: skip
def test_hostile_region_texts_are_a_value_error(text):
    with pytest.raises(ValueError):
        Region.decode(text)


@pytest.mark.parametrize(
    "event",
    [None, "box", {}, {"kind": "circle", "x": [0, 1], "y": [0, 1]}, {"kind": "box", "x": [0, 1]},
     {"kind": "box", "x": ["0", 1], "y": [0, 1]}, {"kind": "box", "x": [0, 1, 2], "y": [0, 1, 2]},
     {"kind": "box", "x": [0, float("nan")], "y": [0, 1]}, {"kind": "box", "x": [True, 1], "y": [0, 1]},
     {"kind": "lasso", "x": [0, 1, 0.5], "y": [0, 1]}, {"kind": "lasso", "x": [[0]], "y": [[0]]},
     {"kind": "lasso", "x": list(range(30000)), "y": list(range(30000))}, {"kind": "box", "x": [0, 0], "y": [0, 1]}],
)  # fmt: skip
def test_what_a_browser_sends_is_checked(event):
    with pytest.raises(ValueError):
        region_from_selection(event)


def test_a_selection_and_a_click_from_the_plot():
    assert region_from_selection({"kind": "box", "x": [0.3, 0.1], "y": [0.9, 0.6]}) == BOX
    lasso = region_from_selection({"kind": "lasso", "x": [0.1, 0.3, 0.2, 0.1], "y": [0.1, 0.1, 0.3, 0.1]})
    assert lasso.vertices == ((0.1, 0.1), (0.3, 0.1), (0.2, 0.3))
    assert click_position({"x": 0.123456, "y": -0.5}, (0, 0), (1, 1)).tolist() == [0.1235, 0.0]
    for bad in (None, {"x": "1", "y": 0}, {"x": 1}, {"x": math.inf, "y": 0}, [0.1, 0.2]):
        with pytest.raises(ValueError):
            click_position(bad, (0, 0), (1, 1))


# ------------------------------------------------------------------ sampling
def test_samples_lie_inside_and_depend_on_seed_and_position_only():
    X = sample_regions([L_SHAPE, BOX], range(5000), seed=7)
    assert X.shape == (5000, 2) and (L_SHAPE.contains(X) | BOX.contains(X)).all()
    again = sample_regions([L_SHAPE, BOX], np.arange(4990, 5000), seed=7)
    np.testing.assert_array_equal(again, X[4990:])  # any subset, any order of asking: the same values
    np.testing.assert_array_equal(sample_regions([L_SHAPE, BOX], [17, 3], seed=7), X[[17, 3]])
    assert not np.array_equal(sample_regions([L_SHAPE, BOX], range(10), seed=8), X[:10])
    shifted = sample_regions([L_SHAPE, BOX], range(1, 11), seed=7)
    assert not np.array_equal(shifted[:-1], X[:9])  # a sample belongs to its position


def test_uniform_in_a_polygon_and_in_a_union_with_overlap():
    X = sample_regions([L_SHAPE], range(40000), seed=0)
    arm = X[:, 1] > 0.2  # the upright arm holds 0.16 of the 0.28
    assert arm.mean() == pytest.approx(0.16 / 0.28, abs=0.01)
    left, right = Region.box((0, 0.6), (0, 1)), Region.box((0.4, 1), (0, 1))  # overlapping in 0.4–0.6
    X = sample_regions([left, right], range(50000), seed=2)
    counts = np.histogram(X[:, 0], bins=10, range=(0, 1))[0]
    assert counts.min() > 0.9 * 5000 and counts.max() < 1.1 * 5000  # the overlap not twice as dense


def test_sampling_refuses_nonsense():
    with pytest.raises(ValueError):
        sample_regions([], range(3), seed=0)
    with pytest.raises(ValueError):
        sample_regions([BOX], [-1], seed=0)
    with pytest.raises(ValueError):
        sample_regions([BOX], [1], seed=-1)
    assert sample_regions([BOX], [], seed=0).shape == (0, 2)


# ------------------------------------------------------------------ the stream
@pytest.fixture(scope="module")
def stream():
    return nonstationary_stream(make_paper2d(100, seed=0), seed=4)  # 660 samples, six stages


def _insert_one_by_one(stream, placed):
    """The rule placed samples followed before drawings existed: each inserted at its position in turn."""
    X, y, starts = stream.X, stream.y, np.asarray(stream.stage_starts)
    for pos, x in sorted(placed, key=lambda p: p[0]):
        starts = np.where(starts > pos, starts + 1, starts)
        X, y = np.insert(X, pos, x, axis=0), np.insert(y, pos, PLACED_LABEL)
    return X, y, starts


def test_placed_samples_build_the_same_stream_as_before(stream):
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = int(rng.integers(1, 6))
        positions = sorted(rng.choice(len(stream) + k, size=k, replace=False).tolist())
        placed = [(p, rng.random(2)) for p in positions]
        out = compose_stream(stream, placed, [])
        X, y, starts = _insert_one_by_one(stream, placed)
        np.testing.assert_array_equal(out.X, X)
        np.testing.assert_array_equal(out.y, y)
        np.testing.assert_array_equal(out.stage_starts, starts)
    # a sample placed at a stage's first position belongs to that stage (as before)
    s1 = int(stream.stage_starts[1])
    out = compose_stream(stream, [(s1, np.array([0.5, 0.5]))], [])
    assert out.stage_of(s1) == 1 and out.stage_of(s1 - 1) == 0


def test_a_drawing_feeds_the_next_samples_then_the_stream_resumes(stream):
    pg = Stepper(stream)
    pg.step(200)
    before = pg.model.snapshot()
    pg.draw([BOX, TRIANGLE], 150)
    assert pg.t == pg.t_max == 200 and len(pg.stream) == len(stream) + 150
    assert pg.drawing_at() == Drawing(200, 150, (BOX, TRIANGLE))
    drawn = pg.stream.X[200:350]
    assert (BOX.contains(drawn) | TRIANGLE.contains(drawn)).all() and (pg.stream.y[200:350] == DRAWN_LABEL).all()
    np.testing.assert_array_equal(drawn, sample_regions([BOX, TRIANGLE], range(200, 350), stream.seed))
    np.testing.assert_array_equal(pg.stream.X[350:], stream.X[200:])  # then the stream's own, where it left
    np.testing.assert_array_equal(pg.stream.X[:200], stream.X[:200])
    pg.step(100)
    assert pg.live_metrics()["stage"] == "your drawing"
    ref = before.snapshot()
    ref.learn_many(drawn[:100])
    np.testing.assert_array_equal(pg.model.nodes_, ref.nodes_)
    assert pg.drawing_at(349) is not None and pg.drawing_at(350) is None


def test_removing_a_region_forks_and_keeps_the_history(stream):
    pg = Stepper(stream)
    pg.step(100)
    pg.draw([BOX, TRIANGLE], 300)
    pg.step(120)  # 120 of the 300 drawn
    seen = pg.stream.X[:220].copy()
    nodes_at_160 = pg.inspect(160)[1].nodes_
    pg.draw([TRIANGLE], 180)  # BOX removed at t = 220: the 180 still to come from the triangle alone
    np.testing.assert_array_equal(pg.stream.X[:220], seen)  # the samples already learned stay
    assert pg.drawn == [Drawing(100, 120, (BOX, TRIANGLE)), Drawing(220, 180, (TRIANGLE,))]
    assert TRIANGLE.contains(pg.stream.X[220:400]).all() and len(pg.stream) == len(stream) + 300
    assert pg.t_max == 220
    np.testing.assert_array_equal(pg.inspect(160)[1].nodes_, nodes_at_160)  # rewinding: the same network
    pg.draw((), 0)  # the drawing removed: the stream's own samples come at once
    assert pg.drawn == [Drawing(100, 120, (BOX, TRIANGLE))] and pg.drawing_at() is None
    np.testing.assert_array_equal(pg.stream.X[220:], stream.X[100:])


def test_drawing_while_rewound_replaces_the_drawn_future_and_keeps_placed_samples(stream):
    pg = Stepper(stream)
    pg.step(50)
    pg.draw([BOX], 100)
    pg.step(200)
    placed = pg.place([0.9, 0.1])  # at t = 250, after the drawing
    assert placed.t == 251 and pg.placed[0][0] == 250
    pg.go_to(80)  # inside the drawing
    pg.draw([TRIANGLE], 10)
    assert pg.drawn == [Drawing(50, 30, (BOX,)), Drawing(80, 10, (TRIANGLE,))]
    assert pg.placed[0][0] == 250 - 70 + 10  # the 70 drawn samples after t gone, the 10 new ones before it
    np.testing.assert_array_equal(pg.stream.X[pg.placed[0][0]], [0.9, 0.1])
    assert len(pg.stream) == len(stream) + 30 + 10 + 1


def test_a_sample_placed_inside_a_drawing_splits_it(stream):
    pg = Stepper(stream)
    pg.step(10)
    pg.draw([BOX], 40)
    pg.step(15)
    pg.place([0.5, 0.5])
    assert pg.drawn == [Drawing(10, 15, (BOX,)), Drawing(26, 25, (BOX,))] and pg.placed[0][0] == 25
    assert pg.drawing_at() == Drawing(26, 25, (BOX,))  # the drawing goes on after it
    pg.go_to(25)
    assert pg.drawing_at() == Drawing(26, 25, (BOX,))  # the placed sample is skipped
    assert len(pg.stream) == len(stream) + 41


def test_a_run_rebuilt_from_its_edits_is_the_same_bit_for_bit(stream):
    pg = Stepper(stream)
    pg.step(60)
    pg.draw([L_SHAPE], 90)
    pg.step(30)
    pg.place([0.05, 0.95])
    pg.draw([L_SHAPE, BOX], 40)
    pg.step(200)
    again = Stepper(stream)
    again.with_placed(pg.placed, pg.drawn)
    again.step(pg.t)
    np.testing.assert_array_equal(again.stream.X, pg.stream.X)
    np.testing.assert_array_equal(again.stream.y, pg.stream.y)
    np.testing.assert_array_equal(again.model.nodes_, pg.model.nodes_)
    np.testing.assert_array_equal(again.model.edges_, pg.model.edges_)
    assert CAE().fit(pg.stream.X[: pg.t]).n_clusters_ == pg.model.n_clusters_


@pytest.mark.parametrize(
    "placed, drawn, message",
    [
        ([(5, [0.1, 0.1])], [(3, 4, (BOX,))], "overlaps"),
        ([], [(0, 10, (BOX,)), (5, 10, (BOX,))], "overlaps"),
        ([], [(10**6, 3, (BOX,))], "outside"),
        ([], [(0, 0, (BOX,))], "regions and 1 to"),
        ([], [(0, 3, ())], "regions and 1 to"),
        ([], [(0, 3, (BOX,) * (MAX_REGIONS + 1))], "regions and 1 to"),
        ([(0, [np.nan, 0])], [], "finite"),
    ],
)
def test_edits_that_do_not_fit_are_refused(stream, placed, drawn, message):
    pg = Stepper(stream)
    with pytest.raises(ValueError, match=message):
        pg.with_placed(placed, drawn)

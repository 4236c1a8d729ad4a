"""The drifting and recurring streams of cae.data (gradual drift, sudden switch, recurring, appear/disappear)."""

import math

import numpy as np
import pytest

from cae import CAE
from cae.app.stepper import Stepper
from cae.data import (
    DRIFT_STREAMS,
    Stream,
    appear_disappear_stream,
    gradual_drift_stream,
    make_drift_stream,
    recurring_stream,
    sudden_switch_stream,
)
from cae.evaluation import continual_run

KEYS = ["gradual", "switch", "recurring", "appear"]
# with the defaults (n=3000, 10 % noise): the exact stage starts, stage classes and class names
EXPECTED = {
    "gradual": ([0, 825, 1650, 2475], [[0, 1]] * 4, ["moving blob", "fixed blob", "noise"]),
    "switch": ([0, 1650], [[0], [1]], ["old region", "new region", "noise"]),
    "recurring": (
        [0, 825, 1650, 2475],
        [[0], [1], [2], [0]],
        ["A (left blob)", "B (right blob)", "C (upper band)", "noise"],
    ),
    "appear": ([0, 1650], [[0, 1], [0, 2]], ["stays", "leaves half way", "arrives half way", "noise"]),
}


def _stage(s, k):
    return slice(int(s.stage_starts[k]), int(s.stage_ends[k]))


def test_registry_lists_the_four_streams():
    assert list(DRIFT_STREAMS) == KEYS
    for key, (title, fn) in DRIFT_STREAMS.items():
        assert isinstance(title, str) and title and callable(fn)
        assert make_drift_stream(key, n=200, seed=3).fingerprint() == fn(n=200, seed=3).fingerprint()
    assert DRIFT_STREAMS["gradual"][1] is gradual_drift_stream and DRIFT_STREAMS["switch"][1] is sudden_switch_stream
    assert DRIFT_STREAMS["recurring"][1] is recurring_stream and DRIFT_STREAMS["appear"][1] is appear_disappear_stream


@pytest.mark.parametrize("key", KEYS)
def test_shapes_stages_and_labels(key):
    s = make_drift_stream(key)
    starts, classes, names = EXPECTED[key]
    assert isinstance(s, Stream) and len(s) == 3300 and s.X.shape == (3300, 2) and s.X.dtype == np.float64
    assert s.y.shape == (3300,) and s.y.dtype == np.int64
    assert np.all((s.X >= 0) & (s.X <= 1))
    assert s.stage_starts.tolist() == starts and s.stage_ends[-1] == len(s)
    assert s.stage_classes == classes and len(s.stage_names) == len(starts)
    assert s.class_names == names and s.noise_label == len(names) - 1
    assert s.dataset == f"drift-{key}" and s.seed == 0 and s.kind
    assert set(np.unique(s.y).tolist()) == set(range(len(names)))
    # exactly round(0.1 * 3000) noise samples, each stage with its share
    noise = s.y == s.noise_label
    assert noise.sum() == 300
    for k in range(len(starts)):
        ys = s.y[_stage(s, k)]
        assert sorted(set(ys[ys != s.noise_label].tolist())) == classes[k]
        assert (ys == s.noise_label).sum() == round(300 * len(ys) / 3300)
        assert s.stage_of(int(s.stage_starts[k])) == k
    # the noise is uniform over the square, the classes are not
    assert abs(s.X[noise].mean() - 0.5) < 0.05 and s.X[noise].std(axis=0).min() > 0.25


@pytest.mark.parametrize("key", KEYS)
def test_sizes_and_noise_fraction(key):
    for n, f in [(401, 0.0), (1000, 0.25), (777, 1.0)]:
        s = make_drift_stream(key, n=n, noise_fraction=f, seed=1)
        m = round(f * n)
        assert len(s) == n + m
        assert (s.y == s.noise_label).sum() == m if m else s.noise_label is None
        assert s.stage_starts[0] == 0 and np.all(np.diff(s.stage_starts) > 0)
        noise = s.noise_label if m else -1
        class_counts = [int(np.sum(s.y[_stage(s, k)] != noise)) for k in range(len(s.stage_starts))]
        assert sum(class_counts) == n
        assert max(class_counts) - min(class_counts) <= 1  # the stages are equal up to rounding


def test_the_gradual_drift_really_moves():
    s = gradual_drift_stream(seed=0)
    first, last = _stage(s, 0), _stage(s, 3)
    moving_first = s.X[first][s.y[first] == 0].mean(axis=0)
    moving_last = s.X[last][s.y[last] == 0].mean(axis=0)
    assert np.linalg.norm(moving_last - moving_first) > 0.5
    assert moving_first[0] < 0.25 and moving_last[0] > 0.75
    fixed_first = s.X[first][s.y[first] == 1].mean(axis=0)
    fixed_last = s.X[last][s.y[last] == 1].mean(axis=0)
    assert np.linalg.norm(fixed_last - fixed_first) < 0.02  # the other blob stays
    np.testing.assert_allclose(fixed_first, [0.5, 0.35], atol=0.01)
    # gradual, not stage by stage: the moving blob's mean over 20 successive windows only moves forward,
    # a little at a time, along the arc (angle from pi down to 0)
    P = s.X[s.y == 0]
    means = np.array([w.mean(axis=0) for w in np.array_split(P, 20)])
    angle = np.arctan2(means[:, 1] - 0.35, means[:, 0] - 0.5)
    assert np.all(np.diff(angle) < 0) and np.max(-np.diff(angle)) < 0.4
    # the blob keeps its radius from the arc's centre (0.35) all along
    np.testing.assert_allclose(np.linalg.norm(means - [0.5, 0.35], axis=1), 0.35, atol=0.02)


def test_gradual_drift_options():
    line = gradual_drift_stream(n=2000, noise_fraction=0.0, seed=2, n_stages=5, path="line", fixed_blob=False)
    assert line.stage_names == [f"drift {k}/5" for k in range(1, 6)] and line.stage_classes == [[0]] * 5
    assert line.class_names == ["moving blob", "noise"] and line.noise_label is None and set(line.y.tolist()) == {0}
    means = np.array([line.X[_stage(line, k)].mean(axis=0) for k in range(5)])
    assert np.all(np.diff(means[:, 0]) > 0.1) and np.allclose(means[:, 1], 0.75, atol=0.01)
    with_noise = gradual_drift_stream(n=400, fixed_blob=False)
    assert with_noise.noise_label == 1 and with_noise.class_names == ["moving blob", "noise"]


def test_switch_is_abrupt():
    s = sudden_switch_stream(n=2000, noise_fraction=0.1, seed=4, switch_at=0.3)
    assert s.stage_starts.tolist() == [0, 660] and s.stage_names == ["before the switch", "after the switch"]
    before, after = s.y[:660], s.y[660:]
    assert set(before.tolist()) == {0, 2} and set(after.tolist()) == {1, 2}
    assert (before == 0).sum() == 600 and (after == 1).sum() == 1400
    gap = np.linalg.norm(s.X[s.y == 1].mean(axis=0) - s.X[s.y == 0].mean(axis=0))
    assert gap > 0.5  # a new region


def test_recurring_class_keeps_its_label():
    s = recurring_stream(seed=5)
    assert s.stage_names == ["A", "B", "C (pause)", "A again"]
    a1, a2 = _stage(s, 0), _stage(s, 3)
    y1, y2 = s.y[a1], s.y[a2]
    assert set(y1[y1 != s.noise_label].tolist()) == set(y2[y2 != s.noise_label].tolist()) == {0}
    m1, m2 = s.X[a1][y1 == 0].mean(axis=0), s.X[a2][y2 == 0].mean(axis=0)
    assert np.linalg.norm(m1 - m2) < 0.01  # the same distribution comes back
    assert not np.any(np.isin(s.y[_stage(s, 1)], [0, 2])) and not np.any(np.isin(s.y[_stage(s, 2)], [0, 1]))


def test_appear_disappear():
    s = appear_disappear_stream(n=2000, seed=6)
    first, second = s.y[:1100], s.y[1100:]
    assert s.stage_starts.tolist() == [0, 1100]
    assert (first == 0).sum() == 500 and (first == 1).sum() == 500 and not np.any(first == 2)
    assert (second == 0).sum() == 500 and (second == 2).sum() == 500 and not np.any(second == 1)
    # the class that stays is the same blob in both halves
    m1 = s.X[:1100][first == 0].mean(axis=0)
    m2 = s.X[1100:][second == 0].mean(axis=0)
    assert np.linalg.norm(m1 - m2) < 0.01
    # within a half the two classes are interleaved, not one after the other
    assert np.flatnonzero(first == 1).min() < 50 and np.flatnonzero(first == 0).max() > 1050


@pytest.mark.parametrize("key", KEYS)
def test_reproducible_from_the_seed(key):
    a, b, c = make_drift_stream(key, seed=11), make_drift_stream(key, seed=11), make_drift_stream(key, seed=12)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()
    assert a.stage_starts.tolist() == c.stage_starts.tolist()
    assert make_drift_stream(key, seed=np.int64(11)).fingerprint() == a.fingerprint()


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize(
    "n, message",
    [
        (-1, "at least"),
        (0, "at least"),
        (1, "at least"),
        (2.5, "integer"),
        ("3000", "integer"),
        (True, "integer"),
        (None, "integer"),
    ],
)
def test_bad_n(key, n, message):
    with pytest.raises(ValueError, match=f"n must be .*{message}"):
        make_drift_stream(key, n=n)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("f", [-0.1, 1.01, math.nan, math.inf, "lots", "0.1", None, True])
def test_bad_noise_fraction(key, f):
    with pytest.raises(ValueError, match="noise_fraction must be"):
        make_drift_stream(key, noise_fraction=f)


def test_other_bad_arguments():
    with pytest.raises(
        ValueError, match="unknown drift stream 'spiral'; choose one of gradual, switch, recurring, appear"
    ):
        make_drift_stream("spiral")
    with pytest.raises(ValueError, match="unknown drift stream"):
        make_drift_stream(None)
    with pytest.raises(ValueError, match="seed"):
        make_drift_stream("switch", seed=-1)
    with pytest.raises(ValueError, match="seed"):
        recurring_stream(seed=1.5)
    for at in (0, 1, -0.2, math.nan, "half", "0.5"):
        with pytest.raises(ValueError, match="switch_at"):
            sudden_switch_stream(switch_at=at)
    with pytest.raises(ValueError, match="path"):
        gradual_drift_stream(path="zigzag")
    with pytest.raises(ValueError, match="n_stages"):
        gradual_drift_stream(n_stages=0)
    with pytest.raises(ValueError, match="n must be at least 8"):
        gradual_drift_stream(n=7)  # 4 stages x 2 classes
    with pytest.raises(TypeError):
        make_drift_stream("recurring", path="arc")  # an option the stream does not have
    assert len(gradual_drift_stream(n=8, noise_fraction=0)) == 8
    assert len(sudden_switch_stream(n=2, noise_fraction=0)) == 2


@pytest.mark.parametrize("key", KEYS)
def test_cae_learns_each_stream(key):
    s = make_drift_stream(key)
    model = CAE().fit(s.X)
    assert model.n_clusters_ >= 2 and len(model.nodes_) >= 2
    assert model.n_samples_seen_ == len(s)
    # stage by stage, as the continual-learning page runs it
    res = continual_run(s)
    C = len(s.stage_starts)
    assert res.R_nmi.shape == (C, C) and np.all(np.isfinite(np.diag(res.R_nmi)))
    assert res.n_clusters[-1] >= 2


def test_recurring_class_is_still_known():
    """What the stream is for: after the pause, A's samples land in A's old clusters."""
    s = recurring_stream(seed=0)
    a = _stage(s, 0)
    model = CAE().learn_many(s.X[: s.stage_starts[3]])  # A, B, C; not A again yet
    A = s.X[a][s.y[a] == 0]
    B = s.X[_stage(s, 1)][s.y[_stage(s, 1)] == 1]
    pa, pb = model.predict(A), model.predict(B)
    assert set(np.unique(pa).tolist()).isdisjoint(np.unique(pb).tolist())


def test_playground_steps_through_a_drift_stream():
    pg = Stepper(make_drift_stream("appear", n=600, seed=0))
    pg.run_to_end()
    m = pg.live_metrics()
    assert pg.finished and m["stage"] == "second half" and m["clusters"] >= 2 and np.isfinite(m["NMI"])

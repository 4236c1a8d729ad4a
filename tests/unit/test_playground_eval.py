import math

import numpy as np
import pytest

from cae import CAE
from cae.app.stepper import Stepper
from cae.data import make_paper2d, nonstationary_stream
from cae.evaluation import ari, average_incremental, backward_transfer, nmi


def test_nmi_ari_by_hand():
    t, p = [0, 0, 1, 1], [0, 0, 0, 1]
    HT = math.log(2)
    HP = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    HTgP = 0.75 * -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert nmi(t, p) == pytest.approx((HT - HTgP) / math.sqrt(HT * HP), rel=1e-12)  # 0.3457...
    assert nmi(t, p) == pytest.approx(0.3456, abs=1e-4)
    # contingency [[2, 0], [1, 1]]: index 1, expected 2*3/6 = 1, max (2+3)/2 -> ARI 0
    assert ari(t, p) == pytest.approx(0.0, abs=1e-12)
    assert ari([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0


def test_ai_bwt_by_hand():
    R = np.array([[0.9, 0.7, 0.6], [0.0, 0.8, 0.5], [0.0, 0.0, 0.7]])
    assert average_incremental(R) == pytest.approx((0.9 + 0.8 + 0.7) / 3)
    assert backward_transfer(R) == pytest.approx(((0.6 - 0.9) + (0.5 - 0.8)) / 2)
    assert backward_transfer([[0.5]]) == 0.0
    with pytest.raises(ValueError):
        average_incremental([[1, 2, 3]])


@pytest.fixture()
def pg():
    return Stepper(nonstationary_stream(make_paper2d(300, seed=1), seed=1), snapshot_every=100)


def test_rewind_equals_a_fresh_run(pg):
    pg.step(777)
    for t in (0, 1, 99, 100, 101, 350, 777):
        rec = pg.go_to(t)
        fresh = CAE().fit(pg.stream.X[:t]) if t else None
        if t:
            np.testing.assert_array_equal(pg.model.nodes_, fresh.nodes_)
            assert rec.t == t
        else:
            assert rec is None
        assert pg.t == t and pg.t_max == 777


def test_inspect_does_not_move_the_view(pg):
    pg.step(400)
    rec, model, x = pg.inspect(123)
    assert rec.t == 123 and pg.t == 400
    np.testing.assert_array_equal(x, pg.stream.X[122])
    assert rec.case == int(pg.trace[122, 1])


def test_find_step_and_events(pg):
    pg.step(1000)
    t = pg.find_step(0, event="lambda")
    assert pg.trace[t - 1, pg_col("lambda_fixed")] == 1
    t3 = pg.find_step(t, case=3)
    assert pg.trace[t3 - 1, pg_col("case")] == 3 and t3 > t
    kinds = {e[1] for e in pg.events}
    assert {"lambda", "setup", "sweep"} <= kinds


def pg_col(name):
    from cae.app.stepper import TRACE_COLUMNS

    return TRACE_COLUMNS.index(name)


def test_fork_changes_parameters_from_here(pg):
    pg.step(500)
    pg.go_to(300)
    pg.fork(max_edge_age=3)
    assert pg.t_max == 300
    pg.step(200)
    assert pg.t == 500
    amax = pg.trace[300:500, pg_col("a_max")]
    assert np.nanmax(amax) == 3  # fixed a_max from the fork on


def test_run_to_end_reports_progress_and_deleted_nodes(pg):
    seen = []
    pg.run_to_end(progress=seen.append, chunk=500)
    assert pg.finished and seen[-1] == 1.0 and seen == sorted(seen)
    pg.reset()
    lam = None
    while lam is None:
        pg.step(1)
        lam = pg.model.deletion_interval_
    # step over the next sweep that removes something and check the flash list
    for _ in range(100):
        before = set(pg.model.node_ids_.tolist())
        pg.step(lam)
        gone = before - set(pg.model.node_ids_.tolist())
        assert len(pg.deleted_in_frame) >= len(gone)
        if gone:
            break
    else:
        pytest.fail("no sweep removed a node")


def test_live_metrics(pg):
    pg.step(600)
    m = pg.live_metrics(max_points=200, score_noise=True)
    assert m["samples seen"] == 600 and m["metric sample"] == 200
    assert 0 <= m["NMI"] <= 1 and m["stage"] == "stream #2"
    # by default the noise is learned but not scored (the paper's protocol)
    idx = pg.seen(200)
    clean = idx[pg.stream.y[idx] != pg.stream.noise_label]
    m2 = pg.live_metrics(max_points=200)
    assert m2["metric sample"] == len(clean) < 200 and not m2["noise scored"]
    assert m2["NMI"] == pytest.approx(nmi(pg.stream.y[clean], pg.model.predict(pg.stream.X[clean])))


def test_fork_replaces_later_snapshots(pg):
    pg.step(500)
    pg.go_to(150)
    pg.fork(max_edge_age=2)
    pg.step(350)
    fresh = Stepper(pg.stream, snapshot_every=100)
    fresh.step(150)
    fresh.fork(max_edge_age=2)
    fresh.step(350)
    rec = pg.go_to(420)  # restores the snapshot at 400, which must be the forked run's
    rec2 = fresh.go_to(420)
    np.testing.assert_array_equal(pg.model.nodes_, fresh.model.nodes_)
    assert rec.case == rec2.case

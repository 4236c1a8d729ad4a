"""SOINN+: scikit-learn API, hand-checked steps, the reference transcription, save/load.

(ASOINN, once SoinnPlus.m's legacy mode, is Shen's fastSOINN.m now: tests/unit/test_asoinn.py.)"""

import io
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, model_file_parts, rewrite_model_file
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.soinn_reference import SoinnPlusReference, matlab_iqr, matlab_median, matlab_prctile
from sklearn.utils.estimator_checks import parametrize_with_checks

import cae
from cae import ModelFileError
from cae.algorithms import _soinn_kernel as kernel
from cae.algorithms.soinn_plus import SOINNPlus
from cae.data import make_paper2d, nonstationary_stream, stationary_stream

MAD = 1.4826022185056018  # -1/(sqrt(2) erfcinv(3/2)), MATLAB isoutlier's scaled-MAD factor


# ---------------------------------------------------------------- scikit-learn
@parametrize_with_checks([SOINNPlus()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_there_are_no_parameters():
    assert SOINNPlus().get_params() == {}


# ---------------------------------------------------------- MATLAB statistics
def test_order_statistics_are_matlabs():
    """prctile (100 (i - 0.5)/n), iqr and median (meanof) on hand values; the kernel's and the oracle's agree."""
    cases = {  # values -> (prctile 75, prctile 25)
        (1, 2, 3, 4): (3.5, 1.5),
        (1, 2, 3): (2.75, 1.25),
        (5,): (5.0, 5.0),
        (1, 10): (10.0, 1.0),
        (2, 2, 2, 9): (5.5, 2.0),
        (3, 1, 2, 2, 7, 7, 7, 1): (7.0, 1.5),
    }
    for vals, (p75, p25) in cases.items():
        buf = np.array(vals, dtype=np.int64)
        assert kernel.prctile(buf.copy(), len(buf), 75.0) == matlab_prctile(vals, 75) == p75
        assert kernel.prctile(buf.copy(), len(buf), 25.0) == matlab_prctile(vals, 25) == p25
        assert matlab_iqr(vals) == p75 - p25
    for vals, med in (((0.0, 2.0), 1.0), ((1.0, 2.0), 1.5), ((-1.0, 3.0), 1.0), ((3.0, 1.0, 2.0), 2.0), ((), None)):
        got = kernel.median(np.array(vals, dtype=float), len(vals))
        assert (math.isnan(got) and med is None) or got == matlab_median(vals) == med
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 100, 1000):
        v = rng.integers(0, 6, n)  # many ties
        for k in (0, n // 3, n - 1):
            assert kernel.kth_smallest(v.copy(), n, k) == np.sort(v)[k]


@settings(max_examples=200, deadline=None)
@given(
    values=st.one_of(
        st.lists(st.integers(1, 6), min_size=1, max_size=300),  # edge ages: few values, many ties
        st.lists(st.floats(0, 1e3, allow_nan=False, allow_subnormal=False), min_size=1, max_size=300),
    ),
    where=st.floats(0, 1),
)
def test_selection_finds_the_sorted_value_and_splits_the_buffer(values, where):
    """kth_smallest and kth_and_next are sorting's values (any selection gives them bit for bit), and leave
    every value right of position k at least as large (kth_and_next relies on it)."""
    v = np.array(values, dtype=np.int64 if isinstance(values[0], int) else np.float64)
    n = len(v)
    k = min(int(where * n), n - 1)
    ordered = np.sort(v)
    buf = v.copy()
    assert kernel.kth_smallest(buf, n, k) == ordered[k]
    np.testing.assert_array_equal(np.sort(buf), ordered)  # a permutation
    assert np.all(buf[k + 1 :] >= ordered[k]) and np.all(buf[:k] <= ordered[k])
    a, b = kernel.kth_and_next(v.copy(), n, k)
    assert (a, b) == (ordered[k], ordered[min(k + 1, n - 1)])
    assert kernel.median(v.astype(float), n) == matlab_median(v.astype(float))
    assert kernel.prctile(v.copy(), n, 75.0) == matlab_prctile(v, 75)


def test_selection_falls_back_to_sorting_on_a_stubborn_input():
    """Median-of-three quickselect on an 'organ pipe' (0, 1, ..., 499, 499, ..., 0) cuts off a few values a
    round; after 64 rounds the rest is heap-sorted (for these two k: counted un-jitted), with the same answer."""
    n = 1000
    v = np.minimum(np.arange(n), n - 1 - np.arange(n)).astype(float)
    for k in (n // 2, n - 1):
        buf = v.copy()
        assert kernel.kth_smallest(buf, n, k) == np.sort(v)[k]
        assert np.all(buf[k + 1 :] >= np.sort(v)[k])


# ----------------------------------------------------------- hand-checked steps
def test_hand_checked_soinn_plus_steps():
    """Three initial nodes, a matched sample that links the winners, a new node, a re-link [ref]."""
    m = SOINNPlus()
    for t, x in enumerate(([0.0, 0.0], [1.0, 0.0], [0.0, 1.0]), start=1):
        r = m.learn_one(x)
        assert (r.t, r.case_name, r.new_node_id, r.link, r.node_deletion_ran) == (t, "initial node", t - 1, None, False)
    # t = 4, x = (0.1, 0): D = 0.01 to node 0, 0.81 to node 1, 1.01 to node 2; every node is isolated,
    # so T = the smallest squared distance to another node = 1 for nodes 0 and 1.
    r = m.learn_one([0.1, 0.0])
    assert (r.case_name, r.s1_id, r.s2_id) == ("winner update", 0, 1)
    assert (r.dist1, r.dist2, r.threshold1, r.threshold2) == pytest.approx((0.01, 0.81, 1.0, 1.0), abs=1e-15)
    assert r.link is True and math.isnan(r.trust1)  # both running variances are 0: link unconditionally
    assert r.edge_created == (0, 1) and not r.link_statistics_updated  # a NEW edge: no statistics [ref]
    np.testing.assert_array_equal(m.edge_ages_, [2])  # created at 1, aged with s1's edges
    assert (r.component_edges, r.p75, r.iqr) == (1, 2.0, 0.0) and math.isnan(r.edge_deletion_threshold)
    np.testing.assert_allclose(m.nodes_[:2], [[0.05, 0.0], [1 + (0.1 - 1) / 100, 0.0]], rtol=0, atol=1e-15)
    assert list(m.win_counts_) == [2, 1, 1] and list(m.last_win_steps_) == [4, 2, 3]
    # node deletion: UT = (4-4)/2, (4-2)/1 over the linked nodes -> c = (0 + 2)/2 = 1, MAD = 1;
    # r = 0/(0 + 2), noise level 1/3; threshold (c + 2 (3 MAD 1.4826)/3) (1 - 0) (1 - 1/3)
    assert (r.n_isolated, r.unutility_median) == (1, 1.0)
    assert r.unutility_upper == pytest.approx(1 + 3 * MAD, rel=1e-15)
    assert r.node_deletion_threshold == pytest.approx((1 + 2 * MAD) * (2 / 3), rel=1e-15)
    assert r.nodes_deleted == []  # node 2's UT = 1 is below it
    # t = 5, x = (3, 3): nearest are node 2 (D = 13) and node 1 (D = 2.009^2 + 9); node 2 is isolated with
    # T = 0.05^2 + 1 to node 0, so D1 > T1: a new node
    r = m.learn_one([3.0, 3.0])
    assert (r.case_name, r.s1_id, r.s2_id, r.new_node_id, r.new_node_row) == ("new node", 2, 1, 3, 3)
    assert r.dist1 == pytest.approx(13.0) and r.threshold1 == pytest.approx(1.0025)
    assert r.threshold2 == pytest.approx((0.991 - 0.05) ** 2)  # node 1 has a neighbour: max squared distance
    assert r.edge_created is None and r.edge_reset is None
    # t = 6, x = (0.1, 0) again: the edge 0-1 exists, so linking it again is addEdge's "isNew" [ref]:
    # the running mean of sqrt(T) becomes (sqrt T1, sqrt T2), its M2 stays 0
    r = m.learn_one([0.1, 0.0])
    assert (r.case_name, r.s1_id, r.s2_id, r.edge_reset) == ("winner update", 0, 1, (0, 1))
    assert r.link_statistics_updated and r.n_links_created == 1 == m.n_links_created_
    np.testing.assert_allclose(m.link_threshold_mean_, [0.941, 0.941], rtol=1e-12)
    np.testing.assert_array_equal(m.link_threshold_m2_, [0.0, 0.0])
    np.testing.assert_array_equal(m.edge_ages_, [2])  # reset to 1, aged to 2
    np.testing.assert_allclose(m.nodes_[0], [0.05 + 0.05 / 3, 0.0], rtol=1e-15)  # w + (x - w)/M, M = 3
    assert "re-linked" in r.event


# -------------------------------------------------- against the reference code
def _streams():
    rng = np.random.default_rng(5)
    X10 = np.vstack([c + rng.normal(0, 0.05, (150, 10)) for c in rng.random((4, 10))])
    X10 = np.vstack([X10, rng.random((60, 10))])[rng.permutation(660)]
    from sklearn.datasets import load_iris

    iris = load_iris().data  # 0.1 grid with duplicate rows: thresholds of 0, ties
    return {
        "paper2d-stationary": stationary_stream(make_paper2d(n_per_class=200, seed=0), seed=0).X[:800],
        "paper2d-nonstationary": nonstationary_stream(make_paper2d(n_per_class=150, seed=1), seed=1).X,
        "mixture10d": X10,
        "iris-x3": np.vstack([iris[np.random.default_rng(s).permutation(150)] for s in range(3)]),
    }


STREAMS = _streams()
CASES = ["paper2d-stationary", "paper2d-nonstationary", "mixture10d", "iris-x3"]
SEEN = {"plus": {}}


@pytest.mark.parametrize("stream", CASES)
def test_every_step_matches_the_reference_transcription(stream):
    X = STREAMS[stream]
    model, ref = SOINNPlus(), SoinnPlusReference(X.shape[1])
    seen = SEEN["plus"]
    for i, x in enumerate(X):
        ref.inputSignal(x)
        rec = model.learn_one(x)
        last = ref.last
        assert rec.case == last["case"], i
        if rec.case:
            assert rec.link == last["eFlag"] and (rec.s1, rec.s2) == tuple(last["winner"]), i
            assert (rec.dist1, rec.dist2) == tuple(last["dists"]), i
            assert (rec.threshold1, rec.threshold2) == tuple(last["simThresholds"]), i
        assert rec.n_nodes == ref.nodes.shape[0] == len(model.nodes_), i
        assert ref.nodes.size == 0 or np.max(np.abs(model.nodes_ - ref.nodes)) <= 1e-12, i  # positions
        edges = {(int(a), int(b)): int(g) for (a, b), g in zip(model.edges_, model.edge_ages_)}
        assert edges == ref.edges(), i
        assert rec.n_edges == len(edges)
        assert np.array_equal(model.win_counts_, ref.winningTimes), i
        assert np.array_equal(model.last_win_steps_, ref.winTS), i
        assert np.array_equal(model.creation_steps_, ref.nodeTS), i
        assert (model.n_links_created_, model.n_deleted_edges_, model.node_deletion_counter_) == (
            ref.linkCreated,
            ref.edgeDeleted,
            ref.nodeDeleted,
        ), i
        for ours, theirs in (
            (model.link_threshold_mean_, ref.runThMean),
            (model.link_threshold_m2_, ref.runThVariance),
            (
                [model.mean_deleted_edge_age_, model.mean_deleted_node_unutility_, model.mean_deleted_node_idle_time_],
                [ref.edgeAvgLtDel, ref.nodeDelTh, ref.nodeAvgIdleDel],
            ),
        ):
            assert np.allclose(ours, theirs, rtol=1e-12, atol=0), i
        assert len(rec.edges_deleted) == last["deleted_edges"] and len(rec.nodes_deleted) == last["deleted_nodes"]
        for key, hit in (
            ("link refused", rec.link is False),
            ("edge reset", rec.edge_reset is not None),
            ("edge deleted", bool(rec.edges_deleted)),
            ("node deleted by edge deletion", rec.n_nodes_deleted_by_edges > 0),
            ("node deleted by node deletion", len(rec.nodes_deleted) > rec.n_nodes_deleted_by_edges),
            ("network emptied", rec.n_nodes == 0),
            ("duplicate node", rec.threshold1 == 0.0),
        ):
            seen[key] = seen.get(key, 0) + int(hit)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))
    # learn_one records every step (tracked); learn_many takes the untracked shortcuts: same state
    assert_same_model(type(model)(**model.get_params()).learn_many(X), model)


def test_the_reference_streams_exercised_every_path():
    """Runs after the parametrised comparison: each path of the step was compared at least once."""
    if not SEEN["plus"]:
        pytest.skip("run with the comparison tests")
    for key in (
        "link refused",
        "edge reset",
        "edge deleted",
        "node deleted by edge deletion",
        "node deleted by node deletion",
        "duplicate node",
    ):
        assert SEEN["plus"][key] > 0, key


# ------------------------------------------------------------------ save/load
def _state(m):
    return m.network_.to_arrays()


def assert_same_model(a, b):
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for k in sa:
        np.testing.assert_array_equal(sa[k], sb[k], err_msg=k)


@pytest.mark.parametrize("make", [SOINNPlus], ids=["SOINN+"])
def test_save_load_resumes_bit_identically(tmp_path, make):
    X = STREAMS["paper2d-stationary"]
    whole = make().fit(X)
    for cut in (2, 3, 7, 350, 700):
        first = make().fit(X[:cut])
        path = tmp_path / f"m{cut}.npz"
        first.save(path)
        resumed = type(first).load(path)
        assert resumed.get_params() == first.get_params()
        assert_same_model(first, resumed)
        resumed.partial_fit(X[cut:])
        assert_same_model(whole, resumed)
        np.testing.assert_array_equal(whole.predict(X), resumed.predict(X))
    assert type(cae.load_model(path)) is type(whole)


def test_tampered_model_files_are_refused():
    X = STREAMS["paper2d-stationary"][:600]
    plus = model_file_parts(SOINNPlus().fit(X))
    meta_plus = json.loads(str(np.load(io.BytesIO(plus["meta_json.npy"]))[()]))

    def state(parts, name):
        return np.load(io.BytesIO(parts[f"state_{name}.npy"])).copy()

    def tampered(parts, name, fn):
        arr = state(parts, name)
        fn(arr)
        return rewrite_model_file(parts, arrays={name: arr})

    for parts, cls, name, fn, msg in (
        (plus, SOINNPlus, "M", lambda a: a.__setitem__(0, 0), "win count"),
        (plus, SOINNPlus, "fscal", lambda a: a.__setitem__(kernel.F_VAR1, -1.0), "running statistic"),
        (plus, SOINNPlus, "fscal", lambda a: a.__setitem__(kernel.F_EDGE_AVG, np.nan), "running statistic"),
        (plus, SOINNPlus, "win_ts", lambda a: a.__setitem__(0, 10**6), "last-win"),
        (plus, SOINNPlus, "ids", lambda a: a.__setitem__(1, a[0]), "ids"),
        (plus, SOINNPlus, "iscal", lambda a: a.__setitem__(kernel.I_MODE, 1), "SOINN\\+ mode"),
        (plus, SOINNPlus, "iscal", lambda a: a.__setitem__(kernel.I_EDGEDEL, -3), "negative counter"),
        (plus, SOINNPlus, "age", lambda a: a.__setitem__((0, 0), 0), "inconsistent"),
        (plus, SOINNPlus, "Y", lambda a: a.__setitem__((0, 0), np.inf), "not finite"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            cls.load(tampered(parts, name, fn))
    with pytest.raises(ModelFileError, match="holds a SOINN\\+ model"):  # a SOINN+ file is no ASOINN
        cae.algorithms.ASOINN.load(rewrite_model_file(plus, meta=meta_plus))


# --------------------------------------------------- utilities of the shell
def test_to_networkx_learn_traced_and_snapshot():
    import networkx as nx

    X = STREAMS["paper2d-nonstationary"]
    m = SOINNPlus().fit(X)
    g = m.to_networkx()
    assert g.number_of_nodes() == len(m.nodes_) and g.number_of_edges() == len(m.edges_)
    r = 3
    attrs = g.nodes[int(m.node_ids_[r])]
    assert attrs["pos"] == tuple(m.nodes_[r]) and attrs["win_count"] == m.win_counts_[r]
    assert attrs["last_win"] == m.last_win_steps_[r] and attrs["cluster"] == m.node_labels_[r]
    (i, j), age = m.edges_[0], m.edge_ages_[0]
    assert g.edges[int(m.node_ids_[i]), int(m.node_ids_[j])]["age"] == age
    assert nx.number_connected_components(g) == m.n_clusters_

    for make in (SOINNPlus,):
        traced = make()
        trace = traced.learn_traced(X)
        plain = make().learn_many(X)
        assert_same_model(traced, plain)
        cols = traced.trace_columns
        for c in ("t", "case", "n_nodes", "n_edges", "n_clusters", "n_deleted", "n_swept"):
            assert c in cols
        assert list(trace.columns) == list(cols) and len(trace) == len(X)
        assert trace["t"].tolist() == list(range(1, len(X) + 1))
        assert int(trace["n_nodes"].iloc[-1]) == len(plain.nodes_)
        assert int(trace["n_clusters"].iloc[-1]) == plain.n_clusters_
        assert int(trace["n_deleted"].sum()) == plain.n_deleted_edges_
        np.testing.assert_array_equal(traced.last_trace_row(), trace.iloc[-1].to_numpy())

    snap = m.snapshot()
    assert_same_model(snap, m)
    before = _state(m)
    snap.learn_many(X[:300])
    for k, v in before.items():
        np.testing.assert_array_equal(_state(m)[k], v)  # the original is untouched
    assert_same_model(snap, SOINNPlus().fit(X).learn_many(X[:300]))


def test_records_agree_with_the_fitted_state():
    X = STREAMS["paper2d-stationary"]
    m = SOINNPlus()
    for x in X:
        before = set(m.node_ids_.tolist()) if hasattr(m, "network_") else set()
        r = m.learn_one(x)
        after = set(m.node_ids_.tolist())
        assert after == (before | ({r.new_node_id} if r.new_node_id >= 0 else set())) - set(r.nodes_deleted)
        assert all(age > r.edge_deletion_threshold for _, _, age in r.edges_deleted)
        assert r.n_clusters == m.n_clusters_ and r.n_edges == len(m.edges_)
        assert r.event.startswith(("node created", "winner updated"))
        if r.case == 2 and r.node_deletion_ran and not math.isnan(r.node_deletion_threshold):
            assert r.unutility_upper >= r.unutility_median


# ------------------------------------------------------- the untracked shortcuts
def test_untracked_runs_end_in_the_tracked_state():
    """learn_many does not record its steps, so the edge and node deletions skip the statistics that provably
    cannot delete anything (the component walk, the percentiles, the median, the MAD); learn_traced records
    every one of them. The two agree every 100 steps of the benchmark's stream (the shortcuts fire most once
    many edges and nodes have been deleted), and after every step of a shorter one, to the last bit."""
    X = stationary_stream(make_paper2d(seed=0), seed=0).X[:20000]
    tracked, untracked = SOINNPlus(), SOINNPlus()
    for i in range(0, len(X), 100):
        tracked.learn_traced(X[i : i + 100])
        untracked.learn_many(X[i : i + 100])
        a, b = _state(tracked), _state(untracked)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"after step {i + 100}: {key}")
    tracked, untracked = SOINNPlus(), SOINNPlus()
    for i, x in enumerate(X[:2000]):
        tracked.learn_one(x)
        untracked.learn_many(x[None, :])
        a, b = _state(tracked), _state(untracked)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"step {i}: {key}")


def test_the_untracked_shortcuts_are_taken_and_change_nothing(tmp_path):
    """Counted un-jitted: an untracked run walks s1's component, takes percentiles and medians less often than
    a tracked one (each still runs when it may delete something), and ends in the same state."""
    X = stationary_stream(make_paper2d(n_per_class=500, seed=3), seed=3).X[:1500]
    np.save(tmp_path / "X.npy", X)
    code = (
        "import json\n"
        "import numpy as np\n"
        "import cae.algorithms._soinn_kernel as k\n"
        "from cae.algorithms.soinn_plus import SOINNPlus\n"
        "assert not k.HAVE_NUMBA\n"
        "count = {}\n"
        "def counted(name, f):\n"
        "    def g(*args):\n"
        "        count[name] = count.get(name, 0) + 1\n"
        "        return f(*args)\n"
        "    return g\n"
        "for name in ('component_edge_ages', 'prctile', 'median'):\n"
        "    setattr(k, name, counted(name, getattr(k, name)))\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        "out = {}\n"
        "for how in ('untracked', 'tracked'):\n"
        "    count.clear()\n"
        "    m = SOINNPlus()\n"
        "    m.learn_many(X) if how == 'untracked' else m.learn_traced(X)\n"
        f"    m.save({str(tmp_path)!r} + '/' + how + '.npz')\n"
        "    out[how] = dict(count)\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, CAE_DISABLE_NUMBA="1"),
        cwd=ROOT,
    )
    counts = json.loads(run.stdout)
    for name in ("component_edge_ages", "prctile", "median"):
        assert 0 < counts["untracked"][name] < counts["tracked"][name], (name, counts)
    compiled = SOINNPlus().learn_many(X)
    assert_same_model(SOINNPlus.load(tmp_path / "untracked.npz"), compiled)
    assert_same_model(SOINNPlus.load(tmp_path / "tracked.npz"), compiled)


# ------------------------------------------------------------ without numba
def test_unjitted_kernel_gives_identical_results(tmp_path):
    X = STREAMS["paper2d-stationary"][:250]
    np.save(tmp_path / "X.npy", X)
    code = (
        "import numpy as np\n"
        "import cae.algorithms._soinn_kernel as k\n"
        "from cae.algorithms.soinn_plus import SOINNPlus\n"
        "assert not k.HAVE_NUMBA\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        f"SOINNPlus().fit(X).save({str(tmp_path / 'plus.npz')!r})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, CAE_DISABLE_NUMBA="1"), cwd=ROOT)
    assert kernel.HAVE_NUMBA
    assert_same_model(SOINNPlus().fit(X), SOINNPlus.load(tmp_path / "plus.npz"))

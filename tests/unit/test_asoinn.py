"""ASOINN (Shen's fastSOINN.m): scikit-learn API, hand-worked steps, the reference transcription after
every sample, the final denoising pass, save/load, old model files."""

import io
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import FIXTURES, ROOT, model_file_parts, rewrite_model_file
from oracles.fast_soinn_reference import FastSoinnReference, fast_soinn
from sklearn.utils.estimator_checks import parametrize_with_checks

import cae
from cae import ModelFileError
from cae.algorithms import _asoinn_kernel as kernel
from cae.algorithms.asoinn import ASOINN
from cae.data import make_paper2d, nonstationary_stream, stationary_stream


# ---------------------------------------------------------------- scikit-learn
def _expected_failures(estimator):
    if estimator.deletion_interval >= 50:
        return {
            "check_clustering": (
                "asks for ARI > 0.4 after one pass over 50 samples; with λ = 300 the only denoising is the final "
                "pass, after which many samples still sit on nodes of their own (a statement about λ, not the "
                "API: ASOINN(10, 5) passes the same check)"
            )
        }
    return {}


@parametrize_with_checks(
    [ASOINN(deletion_interval=10, max_edge_age=5), ASOINN()], expected_failed_checks=_expected_failures
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_parameters_are_checked():
    X = np.random.default_rng(0).random((20, 2))
    for kw in (
        {"deletion_interval": 0},
        {"deletion_interval": 2.5},
        {"deletion_interval": True},
        {"deletion_interval": "9"},
    ):
        with pytest.raises(ValueError, match="deletion_interval"):
            ASOINN(**kw).fit(X)
    for amax in (-1, math.nan, math.inf, None, False):
        with pytest.raises(ValueError, match="max_edge_age"):
            ASOINN(max_edge_age=amax).fit(X)
    for c in (-0.5, math.nan, "1"):
        with pytest.raises(ValueError, match="denoise_factor"):
            ASOINN(denoise_factor=c).fit(X)
    assert ASOINN(deletion_interval=7.0, max_edge_age=0, denoise_factor=0).fit(X).n_samples_seen_ == 20
    assert ASOINN().get_params() == {
        "deletion_interval": 300,
        "max_edge_age": 50,
        "denoise_factor": 1.0,
    }


# ----------------------------------------------------------- hand-worked steps
def test_two_node_start_stored_thresholds_and_periodic_denoising():
    m = ASOINN(deletion_interval=6, max_edge_age=2)
    r = m.learn_one([0.0, 0.0])
    assert (r.case_name, r.new_node_id, r.n_nodes) == ("initial node", 0, 1)
    r = m.learn_one([1.0, 0.0])  # the second sample: both thresholds are their distance
    assert (r.case_name, r.new_node_id) == ("initial node", 1)
    np.testing.assert_array_equal(m.thresholds_, [1.0, 1.0])
    # t = 3, x = (0.1, 0): D1 = 0.1 <= T(0) = 1, D2 = 0.9 <= T(1) = 1: the winners are linked (age 1,
    # then aged with s1's edges: 2), only the winner moves, by 1/M with M = 2
    r = m.learn_one([0.1, 0.0])
    assert (r.case_name, r.s1_id, r.s2_id, r.edge_created) == ("winner update", 0, 1, (0, 1))
    assert (r.dist1, r.dist2, r.threshold1, r.threshold2) == pytest.approx((0.1, 0.9, 1.0, 1.0), abs=1e-15)
    np.testing.assert_allclose(m.nodes_, [[0.05, 0.0], [1.0, 0.0]], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(m.edge_ages_, [2])
    # both thresholds reset to their longest edge, measured after the move
    np.testing.assert_allclose(m.thresholds_, [0.95, 0.95], rtol=1e-15)
    # t = 4, x = (3, 3): sqrt(13) > T(1) = 0.95: a new node, threshold 1e6; s1 and s2 are reset anyway
    r = m.learn_one([3.0, 3.0])
    assert (r.case_name, r.s1_id, r.s2_id, r.new_node_id) == ("new node", 1, 0, 2)
    np.testing.assert_allclose(m.thresholds_, [0.95, 0.95, 1e6], rtol=1e-15)
    # t = 5, x = (3, 3.5): s1 = node 2 (0.5 <= 1e6), s2 = node 1 (sqrt(4 + 12.25) > 0.95): a new node;
    # node 2 has no edge, so its threshold becomes its distance to s2: sqrt(13)
    r = m.learn_one([3.0, 3.5])
    assert (r.case_name, r.s1_id, r.s2_id, r.new_node_id) == ("new node", 2, 1, 3)
    assert r.threshold1 == 1e6 and r.new_threshold1 == pytest.approx(math.sqrt(13), rel=1e-15)
    # t = 6, x = (3, 3.2): s1 = node 2 (0.2 <= sqrt 13), s2 = node 3 (0.3 <= 1e6): linked; node 2 moves to
    # (3, 3.1); both thresholds are the new edge's length 0.4. Then t = 6 = λ: the denoising. M = [2, 1, 2,
    # 1], mean 1.5; every node has one neighbour; nodes 1 and 3 (M = 1 < 1.5) go, with their edges
    r = m.learn_one([3.0, 3.2])
    assert (r.case_name, r.s1_id, r.s2_id, r.edge_created) == ("winner update", 2, 3, (2, 3))
    assert (r.new_threshold1, r.new_threshold2) == pytest.approx((0.4, 0.4), rel=1e-12)
    assert r.denoised and r.mean_win_count == 1.5 and r.nodes_deleted == [1, 3]
    np.testing.assert_array_equal(r.deleted_positions, [[1.0, 0.0], [3.0, 3.5]])
    assert list(m.node_ids_) == [0, 2] and len(m.edges_) == 0 and r.n_clusters == 2
    np.testing.assert_allclose(m.nodes_, [[0.05, 0.0], [3.0, 3.1]], rtol=0, atol=1e-15)
    # t = 7, x = (0.06, 0): node 0 has lost its edge, but its STORED threshold (0.95) still holds: within
    # it; node 2 is far beyond 0.4: a new node; node 0, now without edges, is reset to its distance to s2
    r = m.learn_one([0.06, 0.0])
    assert (r.case_name, r.s1_id, r.s2_id, r.threshold1) == ("new node", 0, 2, pytest.approx(0.95))
    assert r.new_threshold1 == r.new_threshold2 == pytest.approx(math.hypot(2.95, 3.1), rel=1e-15)


def test_edge_removal_never_removes_a_node():
    """a_max = 1: a new edge (age 2 after the aging) is removed in the step that makes it; both nodes stay."""
    m = ASOINN(deletion_interval=100, max_edge_age=1)
    for x in ([0.0, 0.0], [1.0, 0.0]):
        m.learn_one(x)
    r = m.learn_one([0.1, 0.0])
    assert r.edge_created == (0, 1) and r.edges_deleted == [(0, 1, 2)]
    assert r.nodes_deleted == [] and r.n_nodes == 2 and r.n_edges == 0 and m.n_deleted_edges_ == 1
    # without edges, both thresholds are the winners' distance, after the move
    np.testing.assert_allclose(m.thresholds_, [0.95, 0.95], rtol=1e-15)
    assert "1 edge(s) deleted" in r.event


def test_one_node_left_the_runner_up_is_the_winner():
    """λ = 3: the denoising at t = 3 leaves node 0 alone; then s2 is s1 at the sentinel distance 1e6 [ref]."""
    m = ASOINN(deletion_interval=3, max_edge_age=10)
    for x in ([0.0, 0.0], [1.0, 0.0]):
        m.learn_one(x)
    r = m.learn_one([0.1, 0.0])  # linked; M = [2, 1], mean 1.5: node 1 (one neighbour, M = 1) goes
    assert r.nodes_deleted == [1] and list(m.node_ids_) == [0]
    r = m.learn_one([0.5, 0.0])
    assert (r.s1_id, r.s2_id, r.dist2) == (0, 0, 1e6) and r.case_name == "new node"
    # the threshold reset of s1 (= s2, no edge): its distance to itself
    np.testing.assert_array_equal(m.thresholds_, [0.0, 1e6])


def test_a_denoising_that_empties_the_network_starts_it_again():
    """c = 2 can delete every node [fix]: the next two samples start the network as the first two did."""
    m = ASOINN(deletion_interval=3, max_edge_age=10, denoise_factor=2)
    for x in ([0.0, 0.0], [1.0, 0.0]):
        m.learn_one(x)
    r = m.learn_one([0.1, 0.0])  # M = [2, 1], c · mean = 3: both (one neighbour each) go
    assert r.nodes_deleted == [0, 1] and r.n_nodes == 0
    assert m.predict(np.zeros((2, 2))).tolist() == [-1, -1]
    assert m.learn_one([5.0, 5.0]).case_name == "initial node"
    r = m.learn_one([5.0, 6.0])
    assert r.case_name == "initial node" and not r.denoised  # t = 6 = 2λ, but a start step never denoises
    np.testing.assert_array_equal(m.thresholds_, [1.0, 1.0])


def test_the_final_denoising_pass():
    """end_batch runs the denoising once after the last sample, unless that sample's periodic pass ran."""
    X = stationary_stream(make_paper2d(n_per_class=40, seed=2), seed=2).X[:250]
    a = ASOINN(50, 10).learn_many(X)
    passes = a.n_denoising_passes_
    assert passes == 250 // 50
    a.end_batch()  # t = 250 is a multiple of λ: the pass of the last sample already ran
    assert a.n_denoising_passes_ == passes
    b = ASOINN(50, 10).learn_many(X[:249])
    ref = FastSoinnReference(2, 10, 50, 1.0)
    for x in X[:249]:
        ref.input(x)
    deleted = ref.denoise()
    b.end_batch()
    assert b.n_denoising_passes_ == 249 // 50 + 1 and len(b.nodes_) == ref.node.shape[0] and deleted
    np.testing.assert_array_equal(b.nodes_, ref.node)
    b.end_batch()  # nothing learned since: no second pass
    assert b.n_denoising_passes_ == 249 // 50 + 1
    # fit = learn_many + end_batch; learn_many leaves it out; denoise() runs a pass whenever asked
    np.testing.assert_array_equal(ASOINN(50, 10).fit(X[:249]).nodes_, b.nodes_)
    c = ASOINN(50, 10).learn_many(X[:249])
    assert c.n_denoising_passes_ == 249 // 50 and len(c.nodes_) > len(b.nodes_)
    assert c.denoise() == deleted_ids(ASOINN(50, 10).learn_many(X[:249]), b)


def deleted_ids(before, after):
    return sorted(set(before.node_ids_.tolist()) - set(after.node_ids_.tolist()))


# -------------------------------------------------- against the reference code
def _streams():
    rng = np.random.default_rng(5)
    X10 = np.vstack([c + rng.normal(0, 0.05, (150, 10)) for c in rng.random((4, 10))])
    X10 = np.vstack([X10, rng.random((60, 10))])[rng.permutation(660)]
    from sklearn.datasets import load_iris

    iris = load_iris().data  # 0.1 grid with duplicate rows: distances and thresholds of 0, ties
    one = np.concatenate([rng.normal(0.2, 0.02, 150), rng.normal(0.7, 0.02, 150)])[rng.permutation(300)]
    return {
        "paper2d-stationary": stationary_stream(make_paper2d(n_per_class=200, seed=0), seed=0).X[:800],
        "paper2d-nonstationary": nonstationary_stream(make_paper2d(n_per_class=150, seed=1), seed=1).X,
        "mixture10d": X10,
        "iris-x3": np.vstack([iris[np.random.default_rng(s).permutation(150)] for s in range(3)]),
        "one-feature": one[:, None],
    }


STREAMS = _streams()
CASES = [  # stream, λ, a_max, c
    ("paper2d-stationary", 50, 10, 1.0),
    ("paper2d-nonstationary", 100, 5, 1.0),
    ("paper2d-stationary", 7, 1, 0.5),
    ("mixture10d", 30, 3, 1.0),
    ("iris-x3", 4, 0, 1.0),
    ("iris-x3", 3, 20, 2.0),  # c > 1 empties the network again and again
    ("one-feature", 20, 6, 1.0),  # [fix] per-node distances with one feature
]
SEEN = {}


@pytest.mark.parametrize("stream,lam,amax,c", CASES)
def test_every_step_matches_the_reference_transcription(stream, lam, amax, c):
    X = STREAMS[stream]
    model = ASOINN(deletion_interval=lam, max_edge_age=amax, denoise_factor=c)
    ref = FastSoinnReference(X.shape[1], amax, lam, c)
    for i, x in enumerate(X):
        ref.input(x)
        rec = model.learn_one(x)
        last = ref.last
        assert rec.case == last["case"], i
        assert rec.n_nodes == ref.n_nodes() == len(model.nodes_), i
        if ref.first is not None:  # the two-node start waits for its second sample
            np.testing.assert_array_equal(model.nodes_, ref.first[None, :])
            continue
        if rec.case:
            assert (rec.s1, rec.s2) == last["winner"] and (rec.dist1, rec.dist2) == last["value"], i
            assert (rec.threshold1, rec.threshold2) == last["threshold_used"], i
            assert (rec.new_threshold1, rec.new_threshold2) == last["threshold_set"], i
            assert rec.denoised == last["denoised"], i
        assert np.array_equal(model.nodes_, ref.node), i  # bit for bit
        assert np.array_equal(model.win_counts_, ref.M), i
        assert np.array_equal(model.thresholds_, ref.threshold), i
        edges = {(int(a), int(b)): int(g) for (a, b), g in zip(model.edges_, model.edge_ages_)}
        assert edges == ref.edges() and rec.n_edges == len(edges), i
        assert [a for _, _, a in rec.edges_deleted] == [a for _, a in last["deleted_edges"]], i
        assert len(rec.nodes_deleted) == len(last["deleted_nodes"]), i
        for key, hit in (
            ("edge reset", rec.edge_reset is not None),
            ("edge deleted", bool(rec.edges_deleted)),
            ("node deleted", bool(rec.nodes_deleted)),
            ("runner-up is the winner", rec.case and rec.s1 == rec.s2),
            ("network emptied", rec.n_nodes == 0),
            ("new-node threshold read", rec.case and 1e6 in (rec.threshold1, rec.threshold2)),
            ("zero threshold (duplicates)", rec.case and 0.0 in (rec.threshold1, rec.threshold2)),
        ):
            SEEN[key] = SEEN.get(key, 0) + int(hit)
    # the final pass: the reference's block once more, unless the last sample ran it
    if not ref.last.get("denoised"):
        ref.denoise()
    model.end_batch()
    np.testing.assert_array_equal(model.nodes_, ref.node)
    assert {(int(a), int(b)) for a, b in model.edges_} == set(ref.edges())
    # learn_one records every step (tracked); learn_many takes the untracked path: the same state
    assert_same_model(ASOINN(lam, amax, c).fit(X), model)


def test_the_reference_streams_exercised_every_path():
    """Runs after the parametrised comparison: each path of the step was compared at least once."""
    if not SEEN:
        pytest.skip("run with the comparison tests")
    for key in (
        "edge reset",
        "edge deleted",
        "node deleted",
        "runner-up is the winner",
        "network emptied",
        "new-node threshold read",
        "zero threshold (duplicates)",
    ):
        assert SEEN[key] > 0, key


def test_the_whole_function():
    """``fastSOINN(data, ...)`` in one call = learn_many on the same rows (no final pass)."""
    X = STREAMS["paper2d-nonstationary"]
    node, connection = fast_soinn(X, 10, 200, 1.0)
    m = ASOINN(200, 10).learn_many(X)
    np.testing.assert_array_equal(m.nodes_, node)
    A = np.zeros_like(connection)
    for i, j in m.edges_:
        A[i, j] = A[j, i] = 1
    np.testing.assert_array_equal(A, connection)


# ------------------------------------------------------------------ save/load
def assert_same_model(a, b):
    sa, sb = a.network_.to_arrays(), b.network_.to_arrays()
    assert sa.keys() == sb.keys()
    for k in sa:
        np.testing.assert_array_equal(sa[k], sb[k], err_msg=k)


def test_save_load_resumes_bit_identically(tmp_path):
    X = STREAMS["paper2d-stationary"]
    whole = ASOINN(50, 10).learn_many(X)
    for cut in (1, 2, 3, 7, 350, 700):
        first = ASOINN(50, 10).learn_many(X[:cut])
        path = tmp_path / f"m{cut}.npz"
        first.save(path)
        resumed = ASOINN.load(path)
        assert resumed.get_params() == first.get_params()
        assert_same_model(first, resumed)
        resumed.learn_many(X[cut:])
        assert_same_model(whole, resumed)
        np.testing.assert_array_equal(whole.predict(X), resumed.predict(X))
    assert type(cae.load_model(path)) is ASOINN
    # the flag of the final pass travels too: a saved, settled model does not denoise again
    done = ASOINN(50, 10).fit(X[:333])
    done.save(tmp_path / "done.npz")
    again = ASOINN.load(tmp_path / "done.npz").end_batch()
    assert again.n_denoising_passes_ == done.n_denoising_passes_


def test_old_asoinn_model_files_are_refused_with_a_clear_message():
    """A file of the former ASOINN (SoinnPlus.m's legacy mode, written by that code) is not a crash."""
    with pytest.raises(ModelFileError, match="earlier CAE Explorer.*legacy mode.*train the model again"):
        ASOINN.load(FIXTURES / "asoinn_soinnplus_legacy.npz")
    with pytest.raises(ModelFileError, match="earlier CAE Explorer"):
        cae.load_model(FIXTURES / "asoinn_soinnplus_legacy.npz")


def test_tampered_model_files_are_refused():
    X = STREAMS["paper2d-stationary"][:600]
    parts = model_file_parts(ASOINN(50, 10).fit(X))
    meta = json.loads(str(np.load(io.BytesIO(parts["meta_json.npy"]))[()]))

    def tampered(name, fn):
        arr = np.load(io.BytesIO(parts[f"state_{name}.npy"])).copy()
        fn(arr)
        return rewrite_model_file(parts, arrays={name: arr})

    for name, fn, msg in (
        ("M", lambda a: a.__setitem__(0, 0), "win count"),
        ("th", lambda a: a.__setitem__(0, -1.0), "threshold"),
        ("th", lambda a: a.__setitem__(0, np.nan), "threshold"),
        ("ids", lambda a: a.__setitem__(1, a[0]), "ids"),
        ("iscal", lambda a: a.__setitem__(kernel.I_LAMBDA, 7), "disagree"),
        ("fscal", lambda a: a.__setitem__(kernel.F_C, 0.5), "disagree"),
        ("iscal", lambda a: a.__setitem__(kernel.I_STARTING, 1), "two-node start"),
        ("iscal", lambda a: a.__setitem__(kernel.I_SETTLED, 3), "flag"),
        ("iscal", lambda a: a.__setitem__(kernel.I_NODEDEL, -1), "negative counter"),
        ("M", lambda a: a.__setitem__(0, 10**6), "more nodes or wins"),
        ("age", lambda a: a.__setitem__((0, 0), 0), "inconsistent"),
        ("Y", lambda a: a.__setitem__((0, 0), np.inf), "not finite"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            ASOINN.load(tampered(name, fn))
    with pytest.raises(ModelFileError, match="invalid parameters"):
        ASOINN.load(rewrite_model_file(parts, meta={**meta, "params": {**meta["params"], "denoise_factor": -1}}))


# --------------------------------------------------- utilities of the shell
def test_to_networkx_learn_traced_and_snapshot():
    import networkx as nx

    X = STREAMS["paper2d-nonstationary"]
    m = ASOINN(100, 10).fit(X)
    g = m.to_networkx()
    assert g.number_of_nodes() == len(m.nodes_) and g.number_of_edges() == len(m.edges_)
    attrs = g.nodes[int(m.node_ids_[2])]
    assert attrs["win_count"] == m.win_counts_[2] and attrs["threshold"] == m.thresholds_[2]
    assert nx.number_connected_components(g) == m.n_clusters_
    traced = ASOINN(40, 8)
    trace = traced.learn_traced(X)
    plain = ASOINN(40, 8).learn_many(X)
    assert_same_model(traced, plain)
    assert list(trace.columns) == list(kernel.TRACE_COLUMNS) and len(trace) == len(X)
    assert int(trace["n_deleted"].sum()) == plain.n_deleted_edges_
    assert int(trace["n_swept"].sum()) == plain.n_deleted_nodes_
    assert int(trace["denoised"].sum()) == plain.n_denoising_passes_ == len(X) // 40
    snap = m.snapshot()
    assert_same_model(snap, m)
    snap.learn_many(X[:300])
    assert_same_model(m, ASOINN(100, 10).fit(X))  # the original is untouched


# ------------------------------------------------------------ without numba
def test_unjitted_kernel_gives_identical_results(tmp_path):
    X = STREAMS["paper2d-stationary"][:300]
    np.save(tmp_path / "X.npy", X)
    code = (
        "import numpy as np\n"
        "import cae.algorithms._asoinn_kernel as k\n"
        "from cae.algorithms.asoinn import ASOINN\n"
        "assert not k.HAVE_NUMBA\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        f"ASOINN(20, 3).fit(X).save({str(tmp_path / 'm.npz')!r})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, CAE_DISABLE_NUMBA="1"), cwd=ROOT)
    assert kernel.HAVE_NUMBA
    assert_same_model(ASOINN(20, 3).fit(X), ASOINN.load(tmp_path / "m.npz"))

"""GNG (Fritzke 1995, as DemoGNG's js/vbnn.js runs it): scikit-learn API, hand-worked steps, the reference
transcription after every sample, invariants with Hypothesis, save/load, the shell's utilities."""

import io
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, model_file_parts, rewrite_model_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.gng_reference import DemoGNG, ReferenceFailure
from sklearn.utils.estimator_checks import parametrize_with_checks

import cae
from cae import ModelFileError
from cae.algorithms import _gng_kernel as kernel
from cae.algorithms.gng import GNG
from cae.data import make_paper2d, nonstationary_stream, stationary_stream

DEFAULTS = GNG().get_params()


# ---------------------------------------------------------------- scikit-learn
def _expected_failures(estimator):
    return {
        "check_clustering": (
            "asks for ARI > 0.4 after one pass over 50 samples of 3 blobs; GNG starts from two nodes linked at the "
            "first signal and adds a node every λ samples between linked nodes, so after 50 samples its network is "
            "still one connected component: one cluster (a statement about one short pass, not the API)"
        )
    }


@parametrize_with_checks([GNG(insertion_interval=10, max_edge_age=5), GNG()], expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_parameters_are_checked():
    X = np.random.default_rng(0).random((20, 2))
    for name, bad in (
        ("epsilon_b", -0.1),
        ("epsilon_b", 1.5),
        ("epsilon_n", math.nan),
        ("max_edge_age", -1),
        ("max_edge_age", 2.5),
        ("insertion_interval", 0),
        ("insertion_interval", True),
        ("alpha", 2.0),
        ("error_decay", -0.001),
        ("max_nodes", 1),
        ("max_nodes", "10"),
    ):
        with pytest.raises(ValueError, match=name):
            GNG(**{name: bad}).fit(X)
    assert GNG(insertion_interval=7.0, max_edge_age=0, max_nodes=2).fit(X).n_samples_seen_ == 20


# ------------------------------------------------------------- hand-worked steps
def test_the_first_steps_by_hand():
    """Two start nodes on the first two samples; then s1, s2, the error, the new edge (age 0), the moves."""
    m = GNG(epsilon_b=0.5, epsilon_n=0.25, error_decay=0.1)
    r1 = m.learn_one([0.0, 0.0])
    r2 = m.learn_one([1.0, 0.0])
    assert (r1.case_name, r1.new_node_id, r2.new_node_id, r2.n_nodes, r2.n_edges) == ("start node", 0, 1, 2, 0)
    assert r1.event == "start node placed on the sample" and r2.s1_id == -1
    r3 = m.learn_one([0.25, 0.0])
    assert (r3.case_name, r3.s1_id, r3.s2_id, r3.dist1, r3.dist2) == ("adaptation", 0, 1, 0.0625, 0.5625)
    assert r3.edge_created == (0, 1) and r3.edges_aged == [(0, 1, 0)]
    np.testing.assert_array_equal(r3.s1_move, [0.125, 0.0])  # ε_b (x - w_s1)
    assert [i for i, _ in r3.neighbour_moves] == [1]
    np.testing.assert_array_equal(r3.neighbour_moves[0][1], [-0.1875, 0.0])  # ε_n (x - w_n)
    np.testing.assert_array_equal(m.nodes_, [[0.125, 0.0], [0.8125, 0.0]])
    assert r3.error_s1 == 0.0625 and list(r3.errors) == [0.0625, 0.0]  # (1 - β) 0 + dist1
    r4 = m.learn_one([0.75, 0.0])  # s1 = node 1; every error decays by 1 - β before s1's grows
    assert (r4.s1_id, r4.s2_id, r4.edge_reset) == (1, 0, (1, 0)) and r4.edges_aged == [(1, 0, 0)]
    assert list(r4.errors) == [0.0625 * 0.9, 0.0625**2] and "reset to age 0" in r4.event


def test_an_insertion_by_hand():
    """Every λ samples, before the adaptation: r halfway between q and f, errors times α, r-q and r-f replace q-f."""
    m = GNG(insertion_interval=2, epsilon_b=0.0, epsilon_n=0.0, error_decay=0.0, alpha=0.25)
    for x in ([0.0], [1.0], [0.0], [0.9]):  # two start nodes, then two adaptations: E = (0, e)
        rec = m.learn_one(x)
    e = (1.0 - 0.9) ** 2
    # the 2nd signal was due an insertion, but every error was 0 then: [fix] none (the reference fails)
    assert not rec.inserted and list(m.errors_) == [0.0, e]
    rec = m.learn_one([0.0])  # the 3rd signal: no insertion; the 4th inserts
    rec = m.learn_one([0.0])
    assert rec.inserted and (rec.q_id, rec.f_id, rec.new_node_id, rec.new_node_row) == (1, 0, 2, 2)
    assert rec.case_name == "insertion" and rec.event.startswith("node 2 inserted between q=1 and f=0")
    np.testing.assert_array_equal(m.nodes_, [[0.0], [1.0], [0.5]])
    assert (rec.error_q, rec.error_f, rec.error_r) == (e * 0.25, 0.0, e * 0.25)
    assert {tuple(e) for e in m.edges_.tolist()} == {(0, 2), (1, 2)}  # q-f replaced by r-q, r-f


def test_insertion_stops_at_max_nodes_and_needs_a_positive_error():
    X = np.random.default_rng(1).random((400, 2))
    m = GNG(insertion_interval=5, max_nodes=9).fit(X)
    assert len(m.nodes_) == 9 and m.n_insertions_ == 7
    # [fix] one point over and over: every error is 0 when an insertion is due; the reference fails there
    same = np.full((30, 2), 0.3)
    m = GNG(insertion_interval=1).fit(same)
    assert len(m.nodes_) == 2 and m.n_insertions_ == 0
    ref = DemoGNG(same[:2], **_ref_params(DEFAULTS | {"insertion_interval": 1}))
    with pytest.raises(ReferenceFailure):
        ref.signal(same[2])


# -------------------------------------------------- against the reference code
def _ref_params(p):
    return {
        "eps_b": p["epsilon_b"],
        "eps_n": p["epsilon_n"],
        "age_max": p["max_edge_age"],
        "lam": p["insertion_interval"],
        "alpha": p["alpha"],
        "beta": p["error_decay"],
        "n_max": p["max_nodes"],
    }


def _streams():
    rng = np.random.default_rng(5)
    drift = np.linspace(0.1, 0.9, 1500)[:, None] * np.array([1.0, 0.6]) + rng.normal(0, 0.04, (1500, 2))
    X3 = np.vstack([c + rng.normal(0, 0.05, (200, 3)) for c in rng.random((3, 3))])[rng.permutation(600)]
    from sklearn.datasets import load_iris

    iris = load_iris().data  # a 0.1 grid with duplicate rows: distance ties
    return {
        "paper2d": stationary_stream(make_paper2d(n_per_class=200, seed=0), seed=0).X[:1000],
        "paper2d-nonstationary": nonstationary_stream(make_paper2d(n_per_class=150, seed=1), seed=1).X,
        "uniform": rng.random((1200, 2)),
        "drifting": drift,
        "mixture3d": X3,
        "dyadic-grid": rng.integers(0, 8, (800, 2)) / 8.0,  # positions stay exact: distance ties
        "iris-x3": np.vstack([iris[np.random.default_rng(s).permutation(150)] for s in range(3)]),
    }


STREAMS = _streams()
SMALL = {"insertion_interval": 10, "max_edge_age": 2, "max_nodes": 30}
CASES = [  # stream, parameters
    ("paper2d", {}),
    ("paper2d", SMALL),
    ("paper2d-nonstationary", {"insertion_interval": 50, "max_edge_age": 20, "epsilon_b": 0.05}),
    ("uniform", SMALL),
    ("uniform", {"insertion_interval": 3, "max_edge_age": 0, "alpha": 0.3, "error_decay": 0.05, "max_nodes": 15}),
    ("drifting", {"insertion_interval": 25, "max_edge_age": 5}),
    ("drifting", {"insertion_interval": 7, "max_edge_age": 1, "max_nodes": 40, "epsilon_n": 0.05}),
    ("mixture3d", SMALL),
    ("iris-x3", {"insertion_interval": 15, "max_edge_age": 4}),
    ("uniform", {"error_decay": 1.0, "insertion_interval": 5, "max_edge_age": 6}),  # errors 0 but s1's: f ties
    ("drifting", {"max_nodes": 4, "max_edge_age": 0, "insertion_interval": 2}),  # 3 nodes: orphans stay
    ("dyadic-grid", {"epsilon_b": 1.0, "epsilon_n": 0.5, "insertion_interval": 4, "max_edge_age": 1}),  # exact ties
]
SEEN: dict[str, int] = {}


def _state(m):
    """ids, positions, errors and neighbour lists ((id, age) in their order), rows in order."""
    net = m.network_
    K = net.K
    ids = [int(i) for i in net.ids[:K]]
    nbrs = [[(ids[net.nbr[k, p]], int(net.age[k, p])) for p in range(net.deg[k])] for k in range(K)]
    return ids, [list(map(float, r)) for r in net.Y[:K]], [float(e) for e in net.err[:K]], nbrs


@pytest.mark.parametrize("stream,params", CASES, ids=[f"{s}-{i}" for i, (s, _) in enumerate(CASES)])
def test_every_step_matches_the_reference_transcription(stream, params):
    X = STREAMS[stream]
    p = DEFAULTS | params
    model = GNG(**p)
    ref = None
    for i, x in enumerate(X):
        rec = model.learn_one(x)
        if i < 2:
            assert rec.case == kernel.CASE_START
            if i == 1:
                ref = DemoGNG(X[:2], **_ref_params(p))
            continue
        before = len(ref.nodes)
        inserted = ref.signal(x)
        assert rec.inserted == inserted, i
        bmu, bmu2, d1, d2 = ref.last
        assert (rec.s1_id, rec.s2_id, rec.dist1, rec.dist2) == (bmu.num, bmu2.num, d1, d2), i
        assert _state(model) == ref.state(), i  # positions, errors, edges, ages: bit for bit, lists in order
        assert rec.n_nodes == len(ref.nodes) and rec.n_edges == len(ref.edges), i
        assert all(a > p["max_edge_age"] for _, _, a in rec.edges_deleted), i
        ids = model.node_ids_.tolist()
        deg = np.bincount(np.asarray(model.edges_).ravel(), minlength=len(ids))
        kept = [nb for _, nb, _ in rec.edges_deleted if nb in ids and deg[ids.index(nb)] == 0]
        for key, hit in (
            ("insertion", inserted),
            ("insertion stopped at max_nodes", ref.signalsPresented % p["insertion_interval"] == 0 and not inserted),
            ("edge removed", bool(rec.edges_deleted)),
            ("two edges removed at once", len(rec.edges_deleted) > 1),
            ("node removed", bool(rec.nodes_deleted)),
            ("orphan kept (3 nodes)", bool(kept)),
            ("distance tie", rec.dist1 == rec.dist2),
            ("f chosen among equal errors", inserted and ref.f_ties > 1),
            ("q without neighbours: r isolated", inserted and rec.f_id < 0),
        ):
            SEEN[key] = SEEN.get(key, 0) + int(bool(hit))
        assert before <= len(ref.nodes) + len(rec.nodes_deleted)
    # learn_one tracks every step; learn_many takes the untracked path: the same state
    assert_same_model(GNG(**p).fit(X), model)


def test_the_reference_streams_exercised_every_path():
    """Runs after the parametrised comparison: each path of the step was compared at least once."""
    if not SEEN:
        pytest.skip("run with the comparison tests")
    for key in (
        "insertion",
        "insertion stopped at max_nodes",
        "edge removed",
        "two edges removed at once",
        "node removed",
        "orphan kept (3 nodes)",
        "distance tie",
        "f chosen among equal errors",
        "q without neighbours: r isolated",
    ):
        assert SEEN[key] > 0, (key, SEEN)


def test_tie_rules_follow_the_reference():
    """Equal distances: the LATER node is s1 (the reference's ``<=``); equal errors among q's neighbours: the
    neighbour whose edge to q is the most recent is f (``>=`` over q's edges in the order they were made)."""
    m = GNG(epsilon_b=0.0, epsilon_n=0.0, error_decay=0.0, insertion_interval=3)
    for x in ([0.0], [2.0]):
        m.learn_one(x)
    rec = m.learn_one([1.0])  # equidistant from both start nodes
    assert (rec.s1_id, rec.s2_id) == (1, 0)
    rec = m.learn_one([3.0])  # node 1 wins again
    ref_X = np.array([[0.0], [2.0], [1.0], [3.0], [0.5], [1.5]])
    m2 = GNG(epsilon_b=0.0, epsilon_n=0.0, error_decay=0.0, insertion_interval=3)
    ref = DemoGNG(ref_X[:2], **_ref_params(m2.get_params()))
    for i, x in enumerate(ref_X):
        m2.learn_one(x)
        if i >= 2:
            ref.signal(x)
            assert _state(m2) == ref.state(), i


# ----------------------------------------------------------------- invariants
@st.composite
def streams(draw):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(3, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["uniform", "blobs", "grid"]))
    if kind == "uniform":
        X = rng.random((n, d))
    elif kind == "blobs":
        X = rng.random((3, d))[rng.integers(0, 3, n)] + rng.normal(0, 0.03, (n, d))
    else:
        X = rng.integers(0, 4, (n, d)) / 3.0
    params = {
        "insertion_interval": draw(st.integers(1, 30)),
        "max_edge_age": draw(st.integers(0, 10)),
        "max_nodes": draw(st.integers(2, 40)),
        "epsilon_b": draw(st.sampled_from([0.0, 0.05, 0.2, 1.0])),
        "epsilon_n": draw(st.sampled_from([0.0, 0.006, 0.1])),
        "alpha": draw(st.sampled_from([0.0, 0.5, 1.0])),
        "error_decay": draw(st.sampled_from([0.0, 0.005, 1.0])),
    }
    return X, params


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=streams())
def test_invariants_after_every_step(data):
    """Edge ages <= a_max, at most max_nodes nodes, errors >= 0 and finite; s1 and s2 always linked; a node
    loses its last edge only to be removed (unless 3 nodes or fewer are left, as in the reference)."""
    X, p = data
    m = GNG(**p)
    isolated_before: set[int] = set()
    for x in X:
        rec = m.learn_one(x)
        ids = m.node_ids_.tolist()
        K = len(ids)
        assert K <= max(p["max_nodes"], 2) and rec.n_nodes == K
        assert np.all(m.errors_ >= 0) and np.all(np.isfinite(m.errors_))
        ages = np.asarray(m.edge_ages_)
        assert np.all(ages >= 0) and np.all(ages <= p["max_edge_age"])
        deg = np.bincount(np.asarray(m.edges_).ravel(), minlength=K)
        isolated = {ids[k] for k in range(K) if deg[k] == 0}
        if rec.case != kernel.CASE_START:
            assert rec.s1_id not in isolated and rec.s2_id not in isolated
            new = isolated - isolated_before - ({rec.new_node_id} if rec.inserted and rec.f_id < 0 else set())
            assert not new or K <= 3, (new, K)
            assert set(rec.nodes_deleted) <= {i for _, i, _ in rec.edges_deleted}
        isolated_before = isolated


# ------------------------------------------------------------------ save/load
def assert_same_model(a, b):
    sa, sb = a.network_.to_arrays(), b.network_.to_arrays()
    assert sa.keys() == sb.keys()
    for k in sa:
        np.testing.assert_array_equal(sa[k], sb[k], err_msg=k)


def test_save_load_resumes_bit_identically(tmp_path):
    X = STREAMS["paper2d"]
    p = SMALL
    whole = GNG(**p).learn_many(X)
    for cut in (1, 2, 3, 10, 11, 500, 999):
        first = GNG(**p).learn_many(X[:cut])
        path = tmp_path / f"m{cut}.npz"
        first.save(path)
        resumed = GNG.load(path)
        assert resumed.get_params() == first.get_params()
        assert_same_model(first, resumed)
        resumed.learn_many(X[cut:])
        assert_same_model(whole, resumed)
        np.testing.assert_array_equal(whole.predict(X), resumed.predict(X))
    assert type(cae.load_model(path)) is GNG


def test_tampered_model_files_are_refused():
    parts = model_file_parts(GNG(**SMALL).fit(STREAMS["paper2d"][:300]))
    meta = json.loads(str(np.load(io.BytesIO(parts["meta_json.npy"]))[()]))

    def tampered(name, fn):
        arr = np.load(io.BytesIO(parts[f"state_{name}.npy"])).copy()
        fn(arr)
        return rewrite_model_file(parts, arrays={name: arr})

    for name, fn, msg in (
        ("err", lambda a: a.__setitem__(0, -1.0), "error"),
        ("err", lambda a: a.__setitem__(0, np.nan), "error"),
        ("wins", lambda a: a.__setitem__(0, 10**6), "wins"),
        ("ids", lambda a: a.__setitem__(1, a[0]), "ids"),
        ("iscal", lambda a: a.__setitem__(kernel.I_LAMBDA, 7), "disagree"),
        ("fscal", lambda a: a.__setitem__(kernel.F_BETA, 0.5), "disagree"),
        ("iscal", lambda a: a.__setitem__(kernel.I_INSERTED, 0), "insertions"),
        ("age", lambda a: a.__setitem__((0, 0), -1), "inconsistent"),
        ("Y", lambda a: a.__setitem__((0, 0), np.inf), "not finite"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            GNG.load(tampered(name, fn))
    with pytest.raises(ModelFileError, match="invalid parameters"):
        GNG.load(rewrite_model_file(parts, meta={**meta, "params": {**meta["params"], "alpha": 2.0}}))


# --------------------------------------------------- utilities of the shell
def test_to_networkx_learn_traced_and_snapshot():
    import networkx as nx

    X = STREAMS["paper2d-nonstationary"]
    m = GNG(**SMALL).fit(X)
    g = m.to_networkx()
    assert g.number_of_nodes() == len(m.nodes_) and g.number_of_edges() == len(m.edges_)
    attrs = g.nodes[int(m.node_ids_[2])]
    assert attrs["error"] == m.errors_[2] and attrs["win_count"] == m.win_counts_[2]
    assert nx.number_connected_components(g) == m.n_clusters_
    traced = GNG(**SMALL)
    trace = traced.learn_traced(X)
    plain = GNG(**SMALL).learn_many(X)
    assert_same_model(traced, plain)
    assert list(trace.columns) == list(kernel.TRACE_COLUMNS) and len(trace) == len(X)
    assert int(trace["inserted"].sum()) == plain.n_insertions_ == int(trace["n_insertions"].iloc[-1])
    assert int(trace["n_deleted"].sum()) > 0 and int(trace["n_swept"].sum()) > 0
    snap = m.snapshot()
    assert_same_model(snap, m)
    snap.learn_many(X[:300])
    assert_same_model(m, GNG(**SMALL).fit(X))  # the original is untouched


# ------------------------------------------------------------ without numba
def test_unjitted_kernel_gives_identical_results(tmp_path):
    X = STREAMS["paper2d"][:400]
    np.save(tmp_path / "X.npy", X)
    code = (
        "import numpy as np\n"
        "import cae._jit as j\n"
        "from cae.algorithms.gng import GNG\n"
        "assert not j.HAVE_NUMBA\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        f"GNG(insertion_interval=10, max_edge_age=2).fit(X).save({str(tmp_path / 'm.npz')!r})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, CAE_DISABLE_NUMBA="1"), cwd=ROOT)
    assert_same_model(GNG(insertion_interval=10, max_edge_age=2).fit(X), GNG.load(tmp_path / "m.npz"))


# ------------------------------------------------------------------ the app
def test_compare_runs_gng_beside_cae():
    """The Compare page lists GNG (from the registry), shows its parameters, and steps it beside CAE."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    picker = at.multiselect(key="w_cmp_algos")
    assert "GNG" in picker.options
    picker.set_value(["CAE", "GNG"]).run()
    assert not at.exception, at.exception
    assert at.number_input(key="w_cmp_GNG_insertion_interval").value == 100
    assert at.number_input(key="w_cmp_GNG_max_edge_age").value == 50
    at.number_input(key="w_cmp_stepn").set_value(600).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception, at.exception
    ls = at.session_state.cmp
    runs = {ls.runs[label][0]: pg for label, pg in ls.playgrounds.items()}
    assert set(runs) == {"CAE", "GNG"} and ls.t == 600
    gng = runs["GNG"].model
    assert isinstance(gng, GNG) and gng.n_samples_seen_ == 600 and gng.n_insertions_ == 5
    assert len(gng.nodes_) == 7 and not any("GNG" in e.value for e in at.error)

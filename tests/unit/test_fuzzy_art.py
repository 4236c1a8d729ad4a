"""Fuzzy ART: every step against artlib's FuzzyART (an independent implementation), hand-checked steps,
invariants with Hypothesis, the acceptance boxes, the model file."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, model_file_parts, rewrite_model_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

import cae
from cae import ModelFileError
from cae.algorithms import _fuzzy_art_kernel as kernel
from cae.algorithms.fuzzy_art import FuzzyART, FuzzyARTState
from cae.data import load_builtin, make_paper2d, nonstationary_stream, stationary_stream
from cae.data.csvio import scale

artlib = pytest.importorskip("artlib", reason="artlib is a test-only dependency: pip install 'cae-explorer[test]'")
from artlib.common.utils import complement_code  # noqa: E402


# ------------------------------------------------------------- against artlib
def paper_stream(n):
    return stationary_stream(make_paper2d(n_per_class=max(1, n // 6), seed=3), seed=3).X[:n]


def paper_nonstationary(n):
    return nonstationary_stream(make_paper2d(n_per_class=max(1, n // 6), seed=5), seed=5).X[:n]


def uniform_stream(n):
    return np.random.default_rng(11).random((n, 3))


def iris_stream(n):
    X = scale(load_builtin("iris").X, "minmax")
    return X[np.random.default_rng(2).permutation(len(X))][:n]


STREAMS = {"paper2d": paper_stream, "paper2d-ns": paper_nonstationary, "uniform3d": uniform_stream, "iris": iris_stream}


def artlib_model(X, rho, alpha, beta):
    """artlib's FuzzyART ready to step: its own complement coding of X (already in [0, 1])."""
    ref = artlib.FuzzyART(rho=rho, alpha=alpha, beta=beta)
    I = complement_code(X)
    ref.validate_data(I)  # [0, 1], complement coded; sets its dimensions
    ref.W = []
    ref.is_fitted_ = True
    return ref, I


def artlib_search(ref, i):
    """The search artlib's step_fit makes for the complement-coded sample i: the order (decreasing T, lower
    index on ties) with T and M of each category, from artlib's own category_choice and match_criterion."""
    if not ref.W:
        return [], [], []
    T = np.array([ref.category_choice(i, w, ref.params)[0] for w in ref.W])
    M = [ref.match_criterion(i, w, ref.params)[0] for w in ref.W]
    order = [int(j) for j in np.lexsort((np.arange(len(T)), -T))]
    return order, [float(T[j]) for j in order], [float(M[j]) for j in order]


def assert_like_artlib(X, rho, alpha=0.001, beta=1.0):
    """After every step: the same category codes the sample, the same weights and counts (to the last bit),
    the same search (order, T, M) and the resets are the categories tested before the winner."""
    ref, I = artlib_model(X, rho, alpha, beta)
    model = FuzzyART(vigilance=rho, choice=alpha, learning_rate=beta)
    kinds = set()
    for k, (x, i) in enumerate(zip(X, I)):
        order, T, M = artlib_search(ref, i)
        c = ref.step_fit(i)
        rec = model.learn_one(x)
        assert rec.s1_id == c, f"step {k}"
        assert (rec.order, rec.choices, rec.matches) == (order, T, M), f"step {k}"
        tested = order[: order.index(c) + 1] if c < len(order) else order
        assert rec.reset_ids == [j for j in tested if j != c]
        assert all(m < rho for m in rec.matches[: len(rec.reset_ids)])
        np.testing.assert_array_equal(model.weights_, np.array(ref.W), err_msg=f"step {k}")
        np.testing.assert_array_equal(model.win_counts_, ref.weight_sample_counter_)
        kinds.add((rec.case_name, bool(rec.reset_ids)))
    np.testing.assert_array_equal(model.predict(X), ref.predict(I))
    return kinds


@pytest.mark.parametrize("stream", list(STREAMS))
@pytest.mark.parametrize("rho", [0.5, 0.75, 0.9])
def test_fast_learning_is_artlibs_after_every_step(stream, rho):
    kinds = assert_like_artlib(STREAMS[stream](400), rho)
    # every kind of step happened: a new category after resets, resonance at once and after resets
    assert {("new category", True), ("resonance", False), ("resonance", True)} <= kinds


@pytest.mark.parametrize("stream", list(STREAMS))
@pytest.mark.parametrize(("rho", "beta"), [(0.6, 0.5), (0.8, 0.1), (0.9, 0.7)])
def test_slow_learning_is_artlibs_after_every_step(stream, rho, beta):
    assert_like_artlib(STREAMS[stream](300), rho, beta=beta)


@pytest.mark.parametrize("alpha", [1e-6, 0.5, 5.0])
def test_other_choice_parameters_are_artlibs(alpha):
    """A large α favours large boxes: the search order changes, and so do the resets."""
    kinds = assert_like_artlib(paper_stream(400), 0.9, alpha=alpha)
    assert ("resonance", True) in kinds


def test_ties_go_to_the_older_category():
    """Two categories with the same T: the lower row is tested first (artlib's lexsort), in the search
    and in predict."""
    model = FuzzyART(vigilance=0.9)
    model.learn_many([[0.25, 0.5], [0.75, 0.5]])  # two point boxes, symmetric about x = 0.5
    rec = model.learn_one([0.5, 0.5])
    assert rec.order == [0, 1] and rec.choices[0] == rec.choices[1]
    assert rec.reset_ids == [0, 1] and rec.new_node_id == 2  # 0.25 + 0 > 2 (1 - 0.9)
    model = FuzzyART(vigilance=0.5).learn_many([[0.25, 0.5], [0.75, 0.5]])
    assert model.n_categories_ == 1  # at ρ = 0.5 the second sample joined the first
    assert assert_like_artlib(np.array([[0.25, 0.5], [0.75, 0.5], [0.5, 0.5]]), 0.9)


# ---------------------------------------------------------- hand-checked steps
def test_hand_checked_steps():
    """ρ = 0.8, d = 2: a category accepts x when its stretched box has sides summing to at most 0.4."""
    model = FuzzyART(vigilance=0.8, choice=0.001)
    r1 = model.learn_one([0.25, 0.25])
    assert (r1.case_name, r1.new_node_id, r1.s1_id, r1.order, r1.reset_ids) == ("new category", 0, 0, [], [])
    assert r1.event == "new category 0 (the first sample)" and np.isnan(r1.match)
    np.testing.assert_array_equal(model.weights_, [[0.25, 0.25, 0.75, 0.75]])  # w = I = (x, 1 - x)
    r2 = model.learn_one([0.5, 0.375])  # stretched box 0.25 x 0.125: sides 0.375 <= 0.4
    # |I ∧ w| = min(.5,.25) + min(.375,.25) + min(.5,.75) + min(.625,.75) = 1.625; |w| = 2
    assert r2.case_name == "resonance" and r2.resonance_id == 0 and r2.reset_ids == []
    assert r2.match == 1.625 / 2 and r2.choice == 1.625 / 2.001
    assert r2.event == "resonance with category 0: |I ∧ w|/|I| = 0.812 ≥ ρ = 0.8"
    np.testing.assert_array_equal(model.box_lower_, [[0.25, 0.25]])
    np.testing.assert_array_equal(model.box_upper_, [[0.5, 0.375]])
    np.testing.assert_array_equal(model.nodes_, [[0.375, 0.3125]])  # the box's centre
    r3 = model.learn_one([0.75, 0.25])  # stretched: 0.5 x 0.125 = 0.625 > 0.4: reset, new category
    assert r3.case_name == "new category" and r3.reset_ids == [0] and r3.matches == [0.6875]
    assert r3.search_lines() == [
        "category 0: T = 0.8456, |I ∧ w|/|I| = 0.6875 < ρ = 0.8 → reset",  # 1.375 / (0.001 + 1.625)
        "no category resonated → new category 1, w = I = (x, 1 − x)",
    ]
    assert (r3.n_nodes, r3.n_clusters, r3.n_edges, r3.edges_deleted, r3.nodes_deleted) == (2, 2, 0, [], [])
    np.testing.assert_array_equal(model.win_counts_, [2, 1])
    np.testing.assert_array_equal(model.node_labels_, [0, 1])
    assert model.edges_.shape == (0, 2) and model.n_clusters_ == 2


def test_slow_learning_moves_the_box_part_way():
    model = FuzzyART(vigilance=0.5, learning_rate=0.5)
    model.learn_many([[0.25, 0.25], [0.75, 0.75]])
    np.testing.assert_array_equal(model.box_lower_, [[0.25, 0.25]])
    np.testing.assert_array_equal(model.box_upper_, [[0.5, 0.5]])  # half way to 0.75


# ------------------------------------------------------------------ invariants
@st.composite
def unit_streams(draw):
    d = draw(st.integers(1, 4))
    n = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["uniform", "blobs", "grid", "edges"]))
    if kind == "uniform":
        X = rng.random((n, d))
    elif kind == "blobs":
        X = np.clip(rng.random((3, d))[rng.integers(0, 3, n)] + rng.normal(0, 0.05, (n, d)), 0, 1)
    elif kind == "grid":
        X = rng.integers(0, 4, (n, d)) / 3.0
    else:  # the corners and faces of the unit cube
        X = rng.integers(0, 2, (n, d)).astype(float)
    params = dict(
        vigilance=draw(st.sampled_from([0.0, 0.3, 0.7, 0.9, 1.0])),
        choice=draw(st.sampled_from([1e-6, 0.001, 1.0])),
        learning_rate=draw(st.sampled_from([1.0, 0.5, 0.05])),
    )
    return X, params


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=unit_streams())
def test_invariants(data):
    """Weights in [0, 1]; lower corner <= upper corner (to within the rounding of 1 - x: the upper corner
    of the box of x = 1/3 is 1 - (1 - 1/3) = 0.33333333333333337, an ulp above x);
    the category count never falls; every sample is coded by a category that passes the vigilance test, or
    by a new one after every category failed it; the counts add up to the samples seen."""
    X, params = data
    model = FuzzyART(**params)
    rho = params["vigilance"]
    exact = params["learning_rate"] == 1.0
    K = 0
    for x in X:
        rec = model.learn_one(x)
        W = model.weights_
        assert np.all((W >= 0) & (W <= 1))
        gap = model.box_lower_ - model.box_upper_
        assert np.all(gap <= 1e-15)
        assert model.n_categories_ in (K, K + 1)
        K = model.n_categories_
        if rec.case_name == "resonance":
            assert rec.match >= rho and all(m < rho for m in rec.matches[: len(rec.reset_ids)])
            assert rec.choices[len(rec.reset_ids)] == rec.choice and rec.new_node_id == -1
        else:
            assert all(m < rho for m in rec.matches) and rec.reset_ids == rec.order and rec.new_node_id == K - 1
        if exact:  # fast learning: the box holds every sample it coded
            j = rec.s1_id
            assert np.all(model.box_lower_[j] <= x) and np.all(x <= model.box_upper_[j] + 1e-15)
    assert int(model.win_counts_.sum()) == model.n_samples_seen_ == len(X)


# ------------------------------------------------------------ acceptance boxes
def test_acceptance_says_what_learn_one_will_do():
    X = paper_stream(600)
    model = FuzzyART(vigilance=0.85).learn_many(X[:300])
    d = X.shape[1]
    for x in X[300:]:
        acc = model.acceptance(x)
        rec = model.snapshot().learn_one(x)
        assert acc.winner == (rec.resonance_id if rec.case_name == "resonance" else -1)
        assert acc.reset == rec.reset_ids and acc.order.tolist() == rec.order
        np.testing.assert_array_equal(acc.matches[acc.order], rec.matches)
        assert np.all(acc.lower <= x) and np.all(x <= acc.upper)  # R_j ⊕ x holds x
        sides = (acc.upper - acc.lower).sum(axis=1)  # |R_j ⊕ x| = d - |I ∧ w_j| = d (1 - M_j)
        np.testing.assert_allclose(sides, d * (1 - acc.matches), atol=1e-12)
        assert np.array_equal(acc.accepts, acc.matches >= 0.85)
        # the acceptance region: within box_slack_ (L1) of the box
        outside = np.maximum(model.box_lower_ - x, 0) + np.maximum(x - model.box_upper_, 0)
        np.testing.assert_allclose(outside.sum(axis=1) - model.box_slack_, -d * (acc.matches - 0.85), atol=1e-12)
        model.learn_one(x)
    assert np.all(model.box_slack_ >= -1e-12)


def test_acceptance_is_pure_and_checks_its_sample():
    model = FuzzyART().fit(paper_stream(200))
    before = model.weights_.copy()
    model.acceptance([0.5, 0.5])
    np.testing.assert_array_equal(model.weights_, before)
    assert model.n_samples_seen_ == 200
    with pytest.raises(ValueError, match="min-max scale"):
        model.acceptance([0.5, 1.5])
    with pytest.raises(ValueError, match="x has 1 features, but FuzzyART is expecting 2"):
        model.acceptance([0.5])


# ------------------------------------------------------------- inputs, params
def test_values_outside_the_unit_interval_are_refused_with_the_remedy():
    for bad in ([[0.5, -0.01]], [[1.0000001, 0.5]]):
        with pytest.raises(ValueError, match=r"needs every value in \[0, 1\].*min-max scale the data first"):
            FuzzyART().fit(bad)
    model = FuzzyART().fit([[0.0, 1.0], [1.0, 0.0]])  # the ends are fine
    with pytest.raises(ValueError, match="min-max scale"):
        model.learn_one([2.0, 0.5])
    with pytest.raises(ValueError, match="min-max scale"):
        model.predict([[0.5, -3.0]])
    assert model.n_samples_seen_ == 2


def test_a_refused_sample_changes_nothing():
    """The range is checked before a model starts or is reset: a fresh model stays unfitted, a fitted one keeps
    its categories."""
    fresh = FuzzyART()
    for learn in (fresh.learn_one, lambda x: fresh.partial_fit([x]), lambda x: fresh.learn_traced([x])):
        with pytest.raises(ValueError, match="min-max scale"):
            learn([2.0, 0.5])
        assert not hasattr(fresh, "network_")
    fresh.learn_one([0.5, 0.5, 0.5])  # its width is still free
    model = FuzzyART().fit(paper_stream(100))
    W = model.weights_.copy()
    with pytest.raises(ValueError, match="min-max scale"):
        model.fit([[0.5, 1.5]])
    np.testing.assert_array_equal(model.weights_, W)
    assert model.n_samples_seen_ == 100


def test_bad_parameters():
    for kw, msg in (
        ({"vigilance": 1.01}, r"vigilance \(ρ\) must be a finite number >= 0 and <= 1"),
        ({"vigilance": -0.1}, "vigilance"),
        ({"choice": 0.0}, r"choice \(α\) must be a finite number > 0"),
        ({"learning_rate": 0.0}, r"learning_rate \(β\) must be a finite number > 0 and <= 1"),
        ({"learning_rate": 1.5}, "learning_rate"),
        ({"vigilance": np.nan}, "vigilance"),
    ):
        with pytest.raises(ValueError, match=msg):
            FuzzyART(**kw).fit([[0.5, 0.5]])


# ------------------------------------------------------------------ model file
@pytest.mark.parametrize("cut", [1, 2, 50, 333])
@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_save_load_resumes_bit_identically(tmp_path, cut, beta):
    X = paper_stream(800)
    whole = FuzzyART(vigilance=0.85, learning_rate=beta).fit(X)
    first = FuzzyART(vigilance=0.85, learning_rate=beta).fit(X[:cut])
    first.save(tmp_path / "m.npz")
    resumed = cae.load_model(tmp_path / "m.npz")
    assert type(resumed) is FuzzyART and resumed.get_params() == first.get_params()
    resumed.partial_fit(X[cut:])
    np.testing.assert_array_equal(resumed.weights_, whole.weights_)
    np.testing.assert_array_equal(resumed.win_counts_, whole.win_counts_)
    np.testing.assert_array_equal(resumed.predict(X), whole.predict(X))
    assert resumed.n_samples_seen_ == whole.n_samples_seen_ == len(X)


def test_capacity_growth_changes_nothing():
    X = np.ascontiguousarray(uniform_stream(2000))
    small, big = FuzzyARTState(3, vigilance=0.95, cap=2), FuzzyARTState(3, vigilance=0.95, cap=4096)
    small.run(X)
    big.run(X)
    K = small.K
    assert K > 64 and small.capacity >= K
    np.testing.assert_array_equal(small.wl[:K], big.wl[:K])
    np.testing.assert_array_equal(small.wc[:K], big.wc[:K])


def test_bad_model_files():
    parts = model_file_parts(FuzzyART(vigilance=0.8).fit(paper_stream(300)))
    meta = json.loads(str(np.load(io.BytesIO(parts["meta_json.npy"]))[()]))
    assert meta["algorithm"] == "Fuzzy ART"
    assert meta["params"] == {"vigilance": 0.8, "choice": 0.001, "learning_rate": 1.0}
    for change, msg in (
        ({"params": {**meta["params"], "vigilance": 2.0}}, "invalid parameters"),
        ({"params": {**meta["params"], "vigilance": 0.7}}, "ρ, α or β differ"),
        ({"algorithm": "CAE"}, "holds a CAE model"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            FuzzyART.load(rewrite_model_file(parts, meta={**meta, **change}))
    state = {n[len("state_") : -4]: np.load(io.BytesIO(b)) for n, b in parts.items() if n.startswith("state_")}
    assert state["n"].shape[0] >= 3

    def tampered(name, fn):
        arr = state[name].copy()
        fn(arr)
        return rewrite_model_file(parts, arrays={name: arr})

    for name, fn, msg in (
        ("wl", lambda a: a.__setitem__((0, 0), 1.5), r"weight outside \[0, 1\]"),
        ("wc", lambda a: a.__setitem__((1, 1), -0.1), r"weight outside \[0, 1\]"),
        ("wl", lambda a: a.__setitem__((0, 0), np.nan), "not finite"),
        ("wl", lambda a: a.__setitem__((0, 0), 1.0), "lower corner lies above"),
        ("n", lambda a: a.__setitem__(0, 0), "sample counts"),
        ("n", lambda a: a.__setitem__(0, a[0] + 1), "sample counts"),
        ("ids", lambda a: a.__setitem__(1, 7), "category ids"),
        ("iscal", lambda a: a.__setitem__(kernel.I_E, 2), "edge"),
        ("iscal", lambda a: a.__setitem__(kernel.I_T, 1), "samples seen"),
        ("fscal", lambda a: a.__setitem__(kernel.F_BETA, 0.5), "ρ, α or β differ"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            FuzzyART.load(tampered(name, fn))


def test_network_view_to_networkx_and_snapshot():
    model = FuzzyART(vigilance=0.8).fit(paper_stream(400))
    g = model.to_networkx()
    assert g.number_of_nodes() == model.n_categories_ and g.number_of_edges() == 0
    np.testing.assert_array_equal([g.nodes[j]["pos"] for j in range(model.n_categories_)], model.nodes_)
    twin = model.snapshot()
    model.learn_one([0.99, 0.01])
    assert twin.n_samples_seen_ == 400 and model.n_samples_seen_ == 401
    tr = FuzzyART(vigilance=0.8).learn_traced(paper_stream(400))
    np.testing.assert_array_equal(tr["n_nodes"].to_numpy(), np.maximum.accumulate(tr["n_nodes"].to_numpy()))
    assert set(tr["case"]) == {kernel.CASE_NEW, kernel.CASE_RESONANCE} and tr["n_reset"].max() > 0


# ------------------------------------------------------------ without numba
def test_unjitted_kernel_gives_identical_results(tmp_path):
    X = paper_stream(600)
    out = tmp_path / "plain.npz"
    np.save(tmp_path / "X.npy", X)
    code = (
        "import numpy as np\n"
        "from cae._jit import HAVE_NUMBA\n"
        "from cae.algorithms.fuzzy_art import FuzzyART\n"
        "assert not HAVE_NUMBA\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        f"FuzzyART(vigilance=0.85, learning_rate=0.4).fit(X).save({str(out)!r})\n"
    )
    env = dict(os.environ, CAE_DISABLE_NUMBA="1")
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    jitted = FuzzyART(vigilance=0.85, learning_rate=0.4).fit(X)
    np.testing.assert_array_equal(FuzzyART.load(out).weights_, jitted.weights_)


# ---------------------------------------------------------------- scikit-learn
#: scikit-learn's checks that feed values outside [0, 1] (normal or shifted data), which Fuzzy ART refuses by
#: design with its "min-max scale the data first" ValueError; every other check passes
OUTSIDE_THE_UNIT_INTERVAL = "feeds values outside [0, 1], which complement coding cannot take (a ValueError)"
EXPECTED_FAILURES = dict.fromkeys(
    [
        "check_n_features_in_after_fitting",
        "check_positive_only_tag_during_fit",
        "check_estimators_dtypes",
        "check_pipeline_consistency",
        "check_estimators_pickle",
        "check_f_contiguous_array_estimator",
        "check_clustering",
        "check_estimators_partial_fit_n_features",
        "check_methods_sample_order_invariance",
        "check_methods_subset_invariance",
        "check_fit2d_1sample",
        "check_fit2d_1feature",
        "check_dict_unchanged",
        "check_fit_idempotent",
        "check_fit_check_is_fitted",
        "check_n_features_in",
        "check_fit2d_predict1d",
        "check_estimators_overwrite_params",
        "check_dont_overwrite_parameters",
        "check_estimators_fit_returns_self",
        "check_readonly_memmap_input",
    ],
    OUTSIDE_THE_UNIT_INTERVAL,
)


@parametrize_with_checks([FuzzyART()], expected_failed_checks=lambda e: EXPECTED_FAILURES)
def test_sklearn_compatible(estimator, check):
    check(estimator)

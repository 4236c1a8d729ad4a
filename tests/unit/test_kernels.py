"""The small building blocks the kernels' steps are made of, against NumPy: they write into the caller's
scratch arrays instead of allocating (so that numba compiles them without reference counting), and give
exactly what the allocating NumPy calls they replace gave."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cae import _graph
from cae.algorithms import _cae_kernel, _soinn_kernel


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400), st.integers(0, 2**31), st.sampled_from(["random", "ascending", "descending"]))
def test_recency_order_is_the_stable_argsort_of_the_stamps(K, seed, layout):
    rng = np.random.default_rng(seed)
    stamp = rng.permutation(10 * K + 5)[:K].astype(np.int64)  # unique, as the kernel keeps them
    if layout != "random":
        stamp = np.sort(stamp) if layout == "ascending" else np.sort(stamp)[::-1].copy()
    order = np.full(K + 64, -7, dtype=np.int64)
    _cae_kernel.recency_order(stamp, K, order)
    np.testing.assert_array_equal(order[:K], np.argsort(-stamp, kind="mergesort"))


def test_recency_order_needs_no_more_than_64_entries_of_stack_on_large_inputs():
    for K in (5000, 100_000):
        stamp = np.arange(K, dtype=np.int64)  # sorted: the worst case for a plain quicksort
        order = np.zeros(K + 64, dtype=np.int64)
        _cae_kernel.recency_order(stamp, K, order)
        np.testing.assert_array_equal(order[:K], np.arange(K)[::-1])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), max_size=60), st.integers(0, 5))
def test_sorts_in_place_give_numpys_order(values, pad):
    v = np.array([9.0] * pad + values + [-9.0] * pad)
    heap = v.copy()
    _soinn_kernel.heap_sort(heap, pad, pad + len(values))
    expected = v.copy()
    expected[pad : pad + len(values)] = np.sort(expected[pad : pad + len(values)])
    np.testing.assert_array_equal(heap, expected)
    ins = np.array(values + [5.0] * pad)
    _cae_kernel.insertion_sort(ins, len(values))
    np.testing.assert_array_equal(ins[: len(values)], np.sort(values))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**31))
def test_graph_helpers_with_scratch_match_the_allocating_ones(K, seed):
    rng = np.random.default_rng(seed)
    maxdeg = 6
    nbr = np.zeros((K, maxdeg), dtype=np.int64)
    age = np.zeros((K, maxdeg), dtype=np.int64)
    deg = np.zeros(K, dtype=np.int64)
    for _ in range(K):
        a, b = rng.integers(0, K, 2)
        if a != b and _graph.find_slot(nbr, deg, a, b) < 0 and deg[a] < maxdeg and deg[b] < maxdeg:
            _graph.connect(nbr, age, deg, a, b, 1)
    labels, scratch = np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64)
    n = _graph.components_into(nbr, deg, K, labels, scratch)
    expected = np.zeros(K, dtype=np.int64)
    assert n == _graph.components(nbr, deg, K, expected)
    np.testing.assert_array_equal(labels, expected)
    delete = rng.random(K) < 0.3
    newrow = np.zeros(K, dtype=np.int64)
    _graph.plan_compaction(delete, K, newrow)
    A = rng.random((K, 3))
    B = A.copy()
    _graph.compact_rows_2d(A, newrow, K)
    _graph.compact_rows(B, newrow, K)
    np.testing.assert_array_equal(A, B)


def test_silverman_with_scratch_is_the_formula():
    rng = np.random.default_rng(3)
    Y = rng.random((30, 5))
    rows = rng.permutation(30)[:12]
    m, d = len(rows), Y.shape[1]
    Z = Y[rows]
    s = np.std(Z, axis=0, ddof=1)
    expected = np.median((4 / (2 + d)) ** (1 / (4 + d)) * s * m ** (-1 / (4 + d)))
    got = _cae_kernel.silverman(Y, rows, m, d, np.empty(d))
    assert abs(got - expected) <= 1e-15 * expected


@pytest.mark.parametrize("d", [1, 3, 7, 8, 9, 16, 17, 64])
@pytest.mark.parametrize("m", [1, 2, 13])
def test_column_stds_side_by_side_are_one_column_at_a_time(d, m):
    """The columns' standard deviations, summed several columns side by side in groups (the last one
    partial), are to the last bit those of one column at a time, each sum in row order (NaN for one row)."""
    import math

    rng = np.random.default_rng(d * 100 + m)
    Y = np.asfortranarray(rng.random((40, d)) * 10.0 ** rng.integers(-3, 4, d))
    rows = rng.permutation(40)[:m].astype(np.int64)
    s = np.empty(d)
    for j in range(0, d, 8):
        _cae_kernel.column_stds(Y, rows, m, j, min(8, d - j), s)
    for j in range(d):
        mean = 0.0
        for r in rows:
            mean += Y[r, j]
        mean /= m
        ssq = 0.0
        for r in rows:
            ssq += (Y[r, j] - mean) ** 2
        expected = math.sqrt(ssq / (m - 1)) if m > 1 else math.nan
        assert s[j] == expected or (math.isnan(expected) and math.isnan(s[j])), (j, s[j], expected)


# ------------------------------------------------------------ CAE's winner search and its scratch
def _letter_like(n, d, seed):
    """Points on a grid of 16 values per feature (as Letter's): many exact ties between CIMs."""
    rng = np.random.default_rng(seed)
    centres = rng.integers(0, 16, (12, d))
    return np.clip(centres[rng.integers(0, 12, n)] + rng.integers(-2, 3, (n, d)), 0, 15) / 15.0


@pytest.mark.parametrize("lam", [60, 10])
def test_the_recency_list_kept_step_by_step_is_the_order_of_the_stamps(lam):
    """CAE keeps its recency list in scratch from step to step (new nodes and winners to the front, the
    sweep's survivors renumbered); at every step it is what sorting the stamps gives. With λ = 10 the
    threshold is set up (and the list built) before the 10th sample, whose σ_init borrows the list's
    scratch: the list must be sorted again afterwards (it once was not, and Case I took the wrong nodes)."""
    from cae import CAE

    X = _letter_like(1500, 4, 1)
    model = CAE(deletion_interval=lam)  # frequent sweeps
    checked = 0
    for i, x in enumerate(X):
        model.learn_one(x)
        net = model.network_
        if i == 700:
            model.network_ = net = net.copy()  # a copy starts with a fresh scratch: sorted again when needed
        if net.order[-1] == 1:
            K = net.K
            np.testing.assert_array_equal(net.order[:K], np.argsort(-net.stamp[:K], kind="mergesort"))
            checked += 1
    assert checked > 600 and model.n_samples_seen_ == len(X)


def _full_search(X, i, Y, K, sigma):
    """The plain winner search: every node's CIM by cim, the first row of the smallest, then of the rest."""
    full = np.array([_cae_kernel.cim(X, i, Y, k, sigma) for k in range(K)])
    if K == 0:
        return -1, np.inf, -1, np.inf
    s1 = int(np.argmin(full))
    rest = full.copy()
    rest[s1] = np.inf
    s2 = int(np.argmin(rest)) if K > 1 else -1
    return s1, full[s1], s2, (rest[s2] if K > 1 else np.inf)


def _adversarial(kind, K, d, seed):
    """Nodes and samples made to tie: Letter-like grid points, duplicated nodes, samples on nodes, or
    nodes spread over several scales (some CIMs all but 1, some 0)."""
    rng = np.random.default_rng(seed)
    if kind == "grid":
        pts = _letter_like(K + 12, d, seed)
    elif kind == "duplicates":
        pts = _letter_like(K + 12, d, seed)
        pts[: K // 2] = pts[K // 2 : 2 * (K // 2)]  # every node of the first half twice
        pts[K:] = pts[rng.integers(0, K, 12)]  # samples exactly on nodes: CIM 0, ties between the copies
    else:
        pts = rng.random((K + 12, d)) * rng.choice([1e-3, 1.0, 30.0], (K + 12, 1))
    return np.asfortranarray(pts[:K]), np.ascontiguousarray(pts[K:])


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([1, 2, 3, 16, 64]),
    st.integers(1, 120),
    st.integers(0, 2**31),
    st.sampled_from(["grid", "duplicates", "scales"]),
    st.sampled_from([1e-3, 0.05, 0.2, 1.0, 40.0]),
)
def test_the_bounded_winner_search_is_the_full_search(d, K, seed, kind, sigma):
    """The winner search that skips nodes by its bound finds the s1 and s2 (and their CIMs, to the last
    bit, first row on ties) that computing every node's CIM finds, in 1, 2, 3, 16 and 64 dimensions, with
    exact ties, duplicated nodes, samples on nodes and scales from all-far to all-near; for labelling
    (s1 alone) as well. Skipping is real: on the grid most nodes' CIMs are never computed."""
    Y, X = _adversarial(kind, K, d, seed)
    lb = np.zeros(K)
    computed = 0
    for i in range(len(X)):
        full = _full_search(X, i, Y, K, sigma)
        got = _cae_kernel.bounded_winners(X, i, Y, K, sigma, lb, True, 1.0)
        assert got[:4] == full, (i, got, full)
        assert _cae_kernel.winners(X, i, Y, K, sigma, lb, lb.copy(), True, True) == full
        assert _cae_kernel.winners(X, i, Y, K, sigma, lb, lb.copy(), True, False) == full
        one = _cae_kernel.bounded_winners(X, i, Y, K, sigma, lb, False, 1.0)
        assert one[:2] == full[:2]
        computed += one[4]
    if kind == "grid" and K >= 60 and d >= 16 and sigma == 0.05:
        assert computed < 0.25 * K * len(X)


def test_a_bound_loosened_by_a_tenth_loses_the_runner_up():
    """The test above has teeth: the bound times 1.1 is no longer below every CIM and skips the true s2.
    Two nodes whose every feature lies at a knot of the piecewise-linear bound (z = 1/4), where it equals
    1 - exp(-z): the runner-up's bound is then its CIM**2 itself, and a tenth more rejects it."""
    d, sigma = 16, math.sqrt(0.5)  # 2 sigma**2 = 1: z = (x - y)**2
    Y = np.asfortranarray([[0.5] * d, [0.5] * (d - 1) + [1.0]])
    X = np.zeros((1, d))
    full = _full_search(X, 0, Y, 2, sigma)
    assert _cae_kernel.bounded_winners(X, 0, Y, 2, sigma, np.zeros(2), True, 1.0)[:4] == full
    loose = _cae_kernel.bounded_winners(X, 0, Y, 2, sigma, np.zeros(2), True, 1.1)
    assert loose[:4] != full and loose[2] == -1  # s2 skipped


def test_a_loosened_bound_changes_winners_on_letter_like_data():
    """And on data like Letter's (a grid of 16 values per feature, a network of 300 nodes), a tenth
    looser bound already picks other winners for some samples, while the bound itself never does."""
    pts = _letter_like(700, 16, 11)
    Y, X = np.asfortranarray(pts[:300]), np.ascontiguousarray(pts[300:])
    lb = np.zeros(300)
    wrong = {1.0: 0, 1.1: 0}
    for i in range(len(X)):
        full = _full_search(X, i, Y, 300, 0.1)
        for loosen in wrong:
            wrong[loosen] += _cae_kernel.bounded_winners(X, i, Y, 300, 0.1, lb, True, loosen)[:4] != full
    assert wrong[1.0] == 0 and wrong[1.1] > 0


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**31))
def test_the_bound_is_below_every_cim(d, seed):
    """cim_bounds gives at most d CIM**2 for every node, from all-near to all-far (and at the knots)."""
    rng = np.random.default_rng(seed)
    Y = np.asfortranarray(rng.random((40, d)) * rng.choice([1e-4, 1.0, 100.0], (40, 1)))
    X = rng.random((3, d))
    sigma = float(rng.choice([1e-3, 0.1, 1.0, 50.0]))
    lb = np.zeros(40)
    _cae_kernel.cim_bounds(X, 1, Y, 40, sigma, lb, 1.0)
    exact = np.array([_cae_kernel.cim(X, 1, Y, k, sigma) ** 2 * d for k in range(40)])
    assert np.all(lb <= exact * (1 + 1e-12) + 1e-13 * d)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 20), st.integers(2, 300), st.integers(0, 2**31), st.booleans())
def test_screening_changes_nothing(d, K, seed, grid):
    """The winner search with and without the vectorised screening: the same winners and CIMs to the
    last bit, on points with exact ties too."""
    rng = np.random.default_rng(seed)
    pts = _letter_like(K + 20, d, seed) if grid else rng.random((K + 20, d))
    Y = np.asfortranarray(pts[:K])
    X = np.ascontiguousarray(pts[K:])
    sigma = float(rng.uniform(0.05, 0.8))
    buf = (np.zeros(K), np.zeros(K))
    for i in range(len(X)):
        for second in (True, False):
            a = _cae_kernel.winners(X, i, Y, K, sigma, *buf, second, True)
            b = _cae_kernel.winners(X, i, Y, K, sigma, *buf, second, False)
            full = np.array([_cae_kernel.cim(X, i, Y, k, sigma) for k in range(K)])
            s1 = int(np.argmin(full))
            assert a[0] == b[0] == s1 and a[1] == b[1] == full[s1]
            if second:
                rest = full.copy()
                rest[s1] = np.inf
                assert a[2] == b[2] == int(np.argmin(rest)) and a[3] == b[3] == rest.min()


def test_a_model_learned_with_and_without_screening_is_the_same(monkeypatch):
    from cae import CAE
    from cae.algorithms._cae_network import CAENetwork

    X = _letter_like(3000, 16, 4)
    screened = CAE().fit(X)
    monkeypatch.setattr(CAENetwork, "screening", property(lambda self: False))
    plain = CAE().fit(X)
    np.testing.assert_array_equal(screened.nodes_, plain.nodes_)
    np.testing.assert_array_equal(screened.edges_, plain.edges_)
    np.testing.assert_array_equal(screened.labels_, plain.labels_)
    assert screened.threshold_ == plain.threshold_


def test_parallel_labelling_is_the_one_thread_labelling(monkeypatch):
    from cae import CAE, _jit

    X = _letter_like(4000, 16, 5)
    model = CAE().fit(X[:2000])
    monkeypatch.setattr(_cae_kernel, "PARALLEL_WORK", 0)  # on every core, however small the work
    both = model.predict(X)
    monkeypatch.setenv("CAE_THREADS", "1")
    assert _jit.threads() == 1
    np.testing.assert_array_equal(model.predict(X), both)
    if _jit.compiled():
        net = model.network_
        out = np.zeros(len(X), dtype=np.int64)
        _cae_kernel.nearest_nodes_parallel(X, net.Y, net.K, model.prediction_sigma(), out, True)
        np.testing.assert_array_equal(model.nearest_nodes(X), out)


def test_node_positions_are_feature_major_in_memory_and_row_major_in_the_file(tmp_path):
    from cae import CAE

    X = _letter_like(1200, 5, 6)
    model = CAE().fit(X[:200])
    assert model.network_.Y.flags.f_contiguous
    model.partial_fit(X[200:])  # the arrays grew
    assert model.network_.Y.flags.f_contiguous and model.network_.copy().Y.flags.f_contiguous
    assert model.network_.to_arrays()["Y"].flags.c_contiguous
    model.save(tmp_path / "m.npz")
    loaded = CAE.load(tmp_path / "m.npz")
    assert loaded.network_.Y.flags.f_contiguous
    np.testing.assert_array_equal(loaded.nodes_, model.nodes_)


def test_unjitted_high_dimensional_runs_are_the_compiled_run(tmp_path):
    """Plain Python (numba absent) learns and labels a 16-D stream with ties exactly as the compiled
    kernels do, which skip nodes by the piecewise-linear bound there: both without it (plain Python's
    default, the distance bound) and with it forced on, the bound then running as plain Python."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    from cae import CAE, _jit

    X = _letter_like(500, 16, 7)
    np.save(tmp_path / "X.npy", X)
    code = (
        "import sys, numpy as np, cae, cae.algorithms._cae_kernel as k\n"
        "from cae.algorithms._cae_network import CAENetwork\n"
        "assert not k.HAVE_NUMBA\n"
        "if sys.argv[1] == 'on':\n"
        "    CAENetwork.screening = property(lambda self: True)\n"
        "    calls, bounded = [], k.bounded_winners\n"
        "    k.bounded_winners = lambda *a: calls.append(1) or bounded(*a)\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        "m = cae.CAE().fit(X)\n"
        "assert sys.argv[1] == 'off' or len(calls) > 300  # the bound ran\n"
        f"np.save({str(tmp_path)!r} + '/pred_' + sys.argv[1] + '.npy', m.predict(X))\n"
        f"m.save({str(tmp_path)!r} + '/plain_' + sys.argv[1] + '.npz')\n"
    )
    env = dict(os.environ, CAE_DISABLE_NUMBA="1")
    compiled = CAE().fit(X)
    assert _jit.compiled() and compiled.network_.screening
    for screening in ("off", "on"):
        subprocess.run([sys.executable, "-c", code, screening], check=True, env=env, cwd=ROOT)
        plain = CAE.load(tmp_path / f"plain_{screening}.npz")
        for name in ("nodes_", "edges_", "sigmas_", "win_counts_"):
            np.testing.assert_array_equal(getattr(plain, name), getattr(compiled, name))
        assert plain.threshold_ == compiled.threshold_
        np.testing.assert_array_equal(np.load(tmp_path / f"pred_{screening}.npy"), compiled.predict(X))

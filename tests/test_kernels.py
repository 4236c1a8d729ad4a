"""The small building blocks the kernels' steps are made of, against NumPy: they write into the caller's
scratch arrays instead of allocating (so that numba compiles them without reference counting), and give
exactly what the allocating NumPy calls they replace gave."""

import numpy as np
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

"""The one implementation of CAE's per-sample step.

Everything the algorithm does to a network happens in :func:`step`, which
reads like the algorithm's outline in ``docs/cae-algorithm.md``:
the initial phase (:func:`initial_phase`: a new node, the diversity D that
fixes lambda, the threshold set-up); the learning phase (:func:`winner_search`,
then Case I :func:`case_one_new_node`, or Cases II/III :func:`winner_learns`,
:func:`age_winner_edges`, :func:`neighbours_learn` and :func:`link_winners`,
:func:`delete_old_edges`); and the isolated-node sweep
(:func:`sweep_isolated_nodes`). Each of those functions cites the spec step
it implements and the [ref] points it follows.

It is written in plain loops over NumPy arrays so that numba can compile it;
where numba is absent (or ``NUMBA_DISABLE_JIT=1``) the very same functions run
as ordinary Python and give bit-identical results, only slower. There is no
second "fast path": :class:`cae.CAE` calls :func:`run`, which loops over rows
and calls :func:`step`, both for ``fit`` and for ``learn_one``.

State lives in preallocated arrays (see :mod:`cae.algorithms._cae_network`),
which :func:`run` bundles into three named tuples: :data:`Net` (the network),
:data:`Rec` (what the step did) and :data:`Buf` (scratch). Nothing a step
calls creates an array (sorting, the LU of the diversity, the sweep's mask
use the scratch in :data:`Buf`), so numba compiles all of it without
reference counting (``@jit(allocates=False)``) and the calls between the
named steps cost nothing. The scalars are
kept in two small arrays ``iscal`` (integers) and ``fscal`` (floats) indexed
by the constants below. Each step also writes what it did into the record
scratch buffers ``ri``/``rf`` and a few id lists, which
:meth:`cae.CAE.learn_one` turns into a :class:`cae.CAEStepRecord`.

Floating-point conventions follow the authors' reference: CIM is
``sqrt(1 - mean_j exp(-(x_j - y_j)**2 / (2 sigma**2)))``; the winner's update
is ``y + (x - y) / M``; a neighbour's is ``y + (x - y) / (10 M)``.
"""

import math
from collections import namedtuple

import numpy as np

from .._graph import (
    compact_graph,
    compact_rows,
    compact_rows_2d,
    components_into,
    connect,
    find_slot,
    plan_compaction,  # noqa: F401
    remove_slot,
)
from .._jit import HAVE_NUMBA, jit, prange  # noqa: F401

N_INIT = 10  # samples used for sigma_init [ref]
DIVERSITY_THRESHOLD = 1.0e-6
MIN_NODES_FOR_LAMBDA = 10  # D < 1e-6 only counts once K >= 10 [ref]

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of nodes
I_T = 1  # samples seen (cumulative)
I_NACTIVE = 2  # n_active (0 = not set, i.e. infinity)
I_LAMBDA = 3  # deletion interval lambda (0 = infinity)
I_VSET = 4  # 1 once the threshold V has been set
I_NDEL = 5  # number of deleted edges
I_NEXTID = 6  # next stable node id
I_NFIRST = 7  # number of buffered first samples (<= N_INIT)
I_NR = 8  # nodes in the diversity state (see DIV_LU_MAX)
I_MAXDEG = 9  # an upper bound on every node's degree (never decreases)
I_E = 10  # number of edges
I_FIXED_LAMBDA = 11  # 1 when lambda was given by the user (CAEA)
I_SIG_STALE = 12  # 1 when the cached mean bandwidth must be recomputed
I_SWEEP_PER_BATCH = 13  # 1 when the sweep counts the samples of the current batch (CAE_train.m's call) [ref]
I_BATCH_T = 14  # samples since the last end of a batch (the reference's index within one call)
N_ISCAL = 15

# ---- float scalars (fscal) ---------------------------------------------------
F_V = 0  # similarity threshold V (NaN until set)
F_SIGINIT = 1  # sigma_init (NaN until the 10th sample)
F_MEANDEL = 2  # mean age of deleted edges
F_FIXED_AMAX = 3  # user-given a_max (NaN = estimate)
F_MEANSIG = 4  # cached mean bandwidth over nodes that have one
F_DET = 5  # the last diversity D
N_FSCAL = 6

# The diversity D = det(exp(R)) is computed by LU with partial pivoting on the
# whole matrix while K <= DIV_LU_MAX (every realistic lambda is estimated
# there, exactly as the reference computes it). Streams whose D stays above
# 1e-6 longer (raw data whose threshold is never set) would cost O(K^3) per
# sample; past DIV_LU_MAX the state matrix holds (exp R)^-1 instead and D is
# updated by the bordering identity det(A_K) = det(A_{K-1}) (c - b' A^-1 b) in
# O(K^2). Continuing past K >= 10 implies D >= 1e-6 > 0, so A is invertible.
DIV_LU_MAX = 128

# ---- record scratch (ri / rf) ------------------------------------------------
RI_CASE = 0
RI_S1 = 1
RI_S2 = 2
RI_NEWROW = 3  # row of the created node, -1 if none
RI_NEWID = 4
RI_LAMFIXED = 5  # 1 when lambda was estimated at this step
RI_SETUP = 6  # 1 when the threshold set-up ran at this step
RI_EDGE = 7  # 0 no s1-s2 edge change, 1 created, 2 age reset
RI_NAGED = 8
RI_NDELETED = 9
RI_NSWEPT = 10
RI_NMOVED = 11
RI_S1ID = 12
RI_S2ID = 13
RI_NCLUSTERS = 14  # -1 unless tracking
RI_NALPHA = 15
N_RI = 16

RF_V1 = 0
RF_V2 = 1
RF_THRESHOLD = 2
RF_AMAX = 3
RF_D = 4
RF_MEDIAN = 5
RF_Q1 = 6
RF_Q3 = 7
RF_ATHR = 8
RF_RATIO = 9
RF_NEWSIGMA = 10
RF_SIGMA = 11  # mean bandwidth used for the winner search
RF_SIGMA0 = 12  # sigma0 of a threshold set-up
RF_MEANDEL_BEFORE = 13
N_RF = 14

# status codes returned by run()
DONE = -1


# ------------------------------------------------------------------ CIM and the winner search
@jit(allocates=False)
def cim(A, i, B, k, sigma):
    """CIM between rows ``A[i]`` and ``B[k]`` with bandwidth ``sigma``.

    sqrt(1 - mean_j exp(-(a_j - b_j)**2 / (2 sigma**2))), summed over j in
    order. Rows are addressed by index (not sliced) so the compiled loop makes
    no array views.
    """
    d = A.shape[1]
    two_s2 = 2.0 * (sigma * sigma)
    acc = 0.0
    for j in range(d):
        diff = A[i, j] - B[k, j]
        acc += math.exp(-(diff * diff) / two_s2)
    v = 1.0 - acc / d
    if v < 0.0:  # rounding can give -1e-17
        v = 0.0
    return math.sqrt(v)


# The bound that spares most CIMs: f(z) = 1 - exp(-z) is concave with f(0) = 0, so it lies above its
# interpolant at the knots 0, 1/4, 1 and 4 (held constant at f(4) beyond), a concave piecewise-linear
# function, i.e. the smallest of its pieces: g(z) = min(B1 z, A2 + B2 z, A3 + B3 z, F4) <= f(z) for z >= 0.
# Summed over the features with z_j = (x_j - y_j)**2 / (2 sigma**2), sum_j g(z_j) <= d CIM**2: a lower bound
# on every node's CIM from a few multiplications and minima per feature, no exp, which LLVM vectorises over
# the nodes; on Letter's learned network it leaves some 1 % of the nodes (where |x - y|**2 alone leaves 95 %).
_F1 = 1.0 - math.exp(-0.25)
_F2 = 1.0 - math.exp(-1.0)
_F4 = 1.0 - math.exp(-4.0)
_B1 = _F1 / 0.25
_B2 = (_F2 - _F1) / 0.75
_A2 = _F1 - _B2 * 0.25
_B3 = (_F4 - _F2) / 3.0
_A3 = _F2 - _B3
#: how far above the threshold (in CIM**2; relative, absolute) a node's bound must be to skip it, with room
#: to spare: the bound's rounding (its constants, the scaled squares, the sum of d terms: below (d + 8)
#: 1.2e-16 relative), the rounding of cim's own sum and mean (below (d + 4) 2.3e-16 absolute, d <= 4096),
#: and the square root, which must then separate the two CIMs by more than an ulp.
BOUND_REL = 1.0e-9
BOUND_ABS = 1.0e-12


@jit(allocates=False, fastmath=("reassoc", "contract"))
def cim_bounds(X, xi, Y, K, sigma, lb, loosen):
    """``lb[k]`` <= d CIM(x, y_k)**2 for every node (see the comment above), one feature at a time: the
    inner loop runs over the nodes along one feature of the feature-major ``Y``, which LLVM vectorises
    (with fused multiply-adds: the bound's margin holds in any order of its operations, 1.5x faster).
    ``loosen`` multiplies the bound (1.0; the tests prove that 1.1 changes winners)."""
    inv = 1.0 / (2.0 * (sigma * sigma))
    b1, b2, b3 = _B1 * inv * loosen, _B2 * inv * loosen, _B3 * inv * loosen
    a2, a3, cap = _A2 * loosen, _A3 * loosen, _F4 * loosen
    for k in range(K):
        lb[k] = 0.0
    for j in range(X.shape[1]):
        xj = X[xi, j]
        for k in range(K):
            diff = xj - Y[k, j]
            t = diff * diff
            lb[k] += min(min(b1 * t, a2 + b2 * t), min(a3 + b3 * t, cap))


@jit(allocates=False)
def bound_limit(T, d):
    """The bound above which a node's CIM is surely above ``T`` (a CIM some node has): see BOUND_REL."""
    return d * ((T * T) * (1.0 + BOUND_REL) + BOUND_ABS)


@jit(allocates=False)
def two_smallest(v, K):
    """The rows of the smallest and second-smallest ``v[:K]`` (-1 when there are fewer)."""
    i1 = -1
    i2 = -1
    for k in range(K):
        if i1 < 0 or v[k] < v[i1]:
            i2 = i1
            i1 = k
        elif i2 < 0 or v[k] < v[i2]:
            i2 = k
    return i1, i2


@jit(allocates=False)
def bounded_winners(X, xi, Y, K, sigma, lb, need_second, loosen):
    """:func:`winners` by the bound of :func:`cim_bounds`: the CIMs of the two nodes of smallest bound
    give a threshold T that s1 (and s2) cannot exceed; then, in row order, only the nodes whose bound
    does not prove their CIM above T get their CIM computed by :func:`cim`, and T falls to the
    running second-best (best) CIM. A skipped node's CIM is above the final s2's, so the answer is that
    of the full search to the last bit, first row on ties. A fifth value: the number of CIMs computed."""
    d = X.shape[1]
    cim_bounds(X, xi, Y, K, sigma, lb, loosen)
    i1, i2 = two_smallest(lb, K)
    if not need_second:
        i2 = -1
    c1 = cim(X, xi, Y, i1, sigma) if i1 >= 0 else math.inf
    c2 = cim(X, xi, Y, i2, sigma) if i2 >= 0 else math.inf
    T = (c1 if c1 >= c2 else c2) if need_second else c1  # a NaN CIM (never a winner) bounds nothing: T NaN
    if need_second and c1 != c1:
        T = c1
    limit = bound_limit(T, d)
    n_cim = (i1 >= 0) + (i2 >= 0)
    s1 = -1
    s2 = -1
    v1 = math.inf
    v2 = math.inf
    for k in range(K):
        if lb[k] > limit:
            continue
        if k == i1:
            c = c1
        elif k == i2:
            c = c2
        else:
            n_cim += 1
            c = cim(X, xi, Y, k, sigma)
        if c < v1:
            v2 = v1
            s2 = s1
            v1 = c
            s1 = k
        elif c < v2:
            v2 = c
            s2 = k
        w = v2 if need_second else v1
        if w < T:
            T = w
            limit = bound_limit(T, d)
    return s1, v1, s2, v2, n_cim


@jit(allocates=False)
def squared_distances(X, xi, Y, K, dist2):
    """``dist2[k] = |x - y_k|**2``, one feature at a time (vectorised over the nodes)."""
    for k in range(K):
        dist2[k] = 0.0
    for j in range(X.shape[1]):
        xj = X[xi, j]
        for k in range(K):
            diff = xj - Y[k, j]
            dist2[k] += diff * diff


@jit(allocates=False)
def cim_cut(X, xi, Y, K, sigma, dist2, need_second):
    """A squared distance beyond which a node's CIM is provably above the second-best CIM (the best one
    without ``need_second``); infinite when no distance proves it.

    The bound: with z_j = (x_j - y_j)**2 / (2 sigma**2) and Z = sum_j z_j,
    convexity of exp(-z) gives sum_j exp(-z_j) <= (d - 1) + exp(-Z), so
    CIM**2 >= (1 - exp(-Z)) / d. It is seeded with the CIMs of the two
    Euclidean-nearest nodes and keeps a safety margin far above rounding.
    """
    d = X.shape[1]
    b1 = math.inf  # the two smallest distances (any order on ties: they only seed the bound)
    for k in range(K):
        b1 = min(b1, dist2[k])
    i1 = 0
    for k in range(K):
        if dist2[k] == b1:
            i1 = k
            break
    b2 = math.inf
    i2 = -1
    for k in range(K):
        if k != i1 and dist2[k] < b2:
            b2 = dist2[k]
            i2 = k
    if K < 2:
        return math.inf
    v2p = cim(X, xi, Y, i1, sigma)  # s1's CIM is <= v2p
    if need_second:
        v2p = max(v2p, cim(X, xi, Y, i2, sigma))  # some two nodes have CIM <= v2p, so s2's CIM is <= v2p
    q = 1.0 - d * (v2p * v2p * (1.0 + 1e-6) + 1e-12)
    if q <= 0.0:
        return math.inf
    return 2.0 * (sigma * sigma) * (-math.log(q)) * (1.0 + 1e-9)


@jit(allocates=False)
def winners(X, xi, Y, K, sigma, dist2, v, need_second, screening):
    """The nearest and second-nearest nodes to ``X[xi]`` by CIM.

    Returns ``(s1, v1, s2, v2)``, the first (lowest) row on exact ties, as an
    argmin of :func:`cim` over all K nodes would, to the last bit. Nodes are
    skipped only when provably worse than the second-best (with ``need_second``
    False, the best: s2 is then meaningless): with ``screening``, by the
    vectorised bound of :func:`bounded_winners`; without (plain Python, where
    that pass costs more than it saves), by distance (:func:`cim_cut`). ``v``:
    scratch, unused.
    """
    if screening:
        s1, v1, s2, v2, _ = bounded_winners(X, xi, Y, K, sigma, dist2, need_second, 1.0)
        return s1, v1, s2, v2
    squared_distances(X, xi, Y, K, dist2)
    cut = cim_cut(X, xi, Y, K, sigma, dist2, need_second)
    s1 = -1
    s2 = -1
    v1 = math.inf
    v2 = math.inf
    for k in range(K):
        if dist2[k] > cut:
            continue
        c = cim(X, xi, Y, k, sigma)
        if c < v1:
            v2 = v1
            s2 = s1
            v1 = c
            s1 = k
        elif c < v2:
            v2 = c
            s2 = k
    return s1, v1, s2, v2


@jit
def search_counts(X, Y, K, sigma, need_second, out):
    """For the benchmark: over the rows of X, ``out[0]`` += the CIMs :func:`bounded_winners` computes and
    ``out[1]`` += the nodes the distance bound (:func:`cim_cut`) alone would skip."""
    lb = np.empty(K)
    for i in range(X.shape[0]):
        out[0] += bounded_winners(X, i, Y, K, sigma, lb, need_second, 1.0)[4]
        squared_distances(X, i, Y, K, lb)
        cut = cim_cut(X, i, Y, K, sigma, lb, need_second)
        for k in range(K):
            if lb[k] > cut:
                out[1] += 1


@jit(allocates=False)
def silverman(Y, rows, m, d, s):
    """Silverman bandwidth of the ``m`` points ``Y[rows[:m]]`` (``s``: scratch for d numbers).

    s_j = std (ddof=1) of column j, exact zeros become 1e-6;
    Sigma_j = (4/(2+d))**(1/(4+d)) * s_j * m**(-1/(4+d)); returns median_j.
    """
    a = (4.0 / (2.0 + d)) ** (1.0 / (4.0 + d))
    b = float(m) ** (-1.0 / (4.0 + d))
    for j in range(0, d, 8):
        column_stds(Y, rows, m, j, min(8, d - j), s)
    for j in range(d):
        sd = s[j]
        if sd == 0.0:
            sd = 1.0e-6
        s[j] = a * sd * b
    insertion_sort(s, d)
    return median_sorted(s, d)


@jit(allocates=False)
def column_stds(Y, rows, m, j0, n, s):
    """``s[j]`` = std (ddof=1; NaN for one point) of column j of ``Y[rows[:m]]`` for the n <= 8 columns
    from j0: each column's sums in row order, eight columns side by side (eight independent additions
    at a time instead of one: the same bits, several times faster; a group of fewer repeats its last
    column rather than branch)."""
    c0, c1, c2, c3 = j0, j0 + min(1, n - 1), j0 + min(2, n - 1), j0 + min(3, n - 1)
    c4, c5, c6, c7 = j0 + min(4, n - 1), j0 + min(5, n - 1), j0 + min(6, n - 1), j0 + min(7, n - 1)
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    for i in range(m):
        r = rows[i]
        a0 += Y[r, c0]
        a1 += Y[r, c1]
        a2 += Y[r, c2]
        a3 += Y[r, c3]
        a4 += Y[r, c4]
        a5 += Y[r, c5]
        a6 += Y[r, c6]
        a7 += Y[r, c7]
    a0, a1, a2, a3, a4, a5, a6, a7 = a0 / m, a1 / m, a2 / m, a3 / m, a4 / m, a5 / m, a6 / m, a7 / m
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = 0.0
    for i in range(m):
        r = rows[i]
        e0, e1, e2, e3 = Y[r, c0] - a0, Y[r, c1] - a1, Y[r, c2] - a2, Y[r, c3] - a3
        e4, e5, e6, e7 = Y[r, c4] - a4, Y[r, c5] - a5, Y[r, c6] - a6, Y[r, c7] - a7
        b0 += e0 * e0
        b1 += e1 * e1
        b2 += e2 * e2
        b3 += e3 * e3
        b4 += e4 * e4
        b5 += e5 * e5
        b6 += e6 * e6
        b7 += e7 * e7
    ssqs = (b0, b1, b2, b3, b4, b5, b6, b7)
    for q in range(n):
        s[j0 + q] = math.sqrt(ssqs[q] / (m - 1)) if m > 1 else math.nan


@jit(allocates=False)
def insertion_sort(v, n):
    """Sort ``v[:n]`` ascending in place (a few numbers: the features, a node's edges)."""
    for p in range(1, n):
        x = v[p]
        q = p
        while q > 0 and v[q - 1] > x:
            v[q] = v[q - 1]
            q -= 1
        v[q] = x


@jit(allocates=False)
def recency_order(stamp, K, order):
    """``order[:K]``: the node rows, most recently created-or-won first.

    The stamps are unique (one node is created or wins at each step), so this
    is the one order any sort gives: a quicksort on the stamps, descending,
    with insertion sort for short runs and an explicit stack of ranges kept in
    the tail of ``order`` (the smaller side first: at most 2 log2 K entries).
    """
    for k in range(K):
        order[k] = k
    top = order.shape[0] - 1  # the stack grows down from the end of order (its last slot is recency_list's)
    lo, hi = 0, K - 1
    while True:
        while hi - lo > 16:
            mid = (lo + hi) // 2  # median of three as the pivot, moved to hi
            if stamp[order[mid]] > stamp[order[lo]]:
                order[mid], order[lo] = order[lo], order[mid]
            if stamp[order[hi]] > stamp[order[lo]]:
                order[hi], order[lo] = order[lo], order[hi]
            if stamp[order[mid]] > stamp[order[hi]]:
                order[mid], order[hi] = order[hi], order[mid]
            pivot = stamp[order[hi]]
            i = lo
            for j in range(lo, hi):
                if stamp[order[j]] > pivot:
                    order[i], order[j] = order[j], order[i]
                    i += 1
            order[i], order[hi] = order[hi], order[i]
            if i - lo < hi - i:  # recurse into the smaller side, push the larger
                order[top - 1], order[top - 2] = i + 1, hi
                hi = i - 1
            else:
                order[top - 1], order[top - 2] = lo, i - 1
                lo = i + 1
            top -= 2
        for p in range(lo + 1, hi + 1):  # insertion sort of a short range
            x = order[p]
            q = p
            while q > lo and stamp[order[q - 1]] < stamp[x]:
                order[q] = order[q - 1]
                q -= 1
            order[q] = x
        if top == order.shape[0] - 1:
            return
        lo, hi = order[top + 1], order[top]
        top += 2


@jit(allocates=False)
def recency_list(net, buf):
    """Make ``buf.order[:K]`` the recency list (node rows, most recently created-or-won first).

    Sorted from the stamps when needed (:func:`recency_order`), then kept up
    to date step by step (:func:`move_to_front`, the sweep) for as long as the
    scratch array lives; its last slot says whether it is up to date.
    """
    order = buf.order
    if order[order.shape[0] - 1] != 1:
        recency_order(net.stamp, net.iscal[I_K], order)
        order[order.shape[0] - 1] = 1


@jit(allocates=False)
def move_to_front(buf, n, row):
    """``row`` to the front of the recency list ``buf.order[:n]`` (a new node: row == n, not in it yet)."""
    order = buf.order
    if order[order.shape[0] - 1] != 1:
        return
    p = 0
    while p < n and order[p] != row:
        p += 1
    for q in range(p, 0, -1):
        order[q] = order[q - 1]
    order[0] = row


@jit(allocates=False)
def mean_sigma(sig, K):
    """Mean bandwidth over the nodes that have one (NaN if none)."""
    acc = 0.0
    n = 0
    for k in range(K):
        if not math.isnan(sig[k]):
            acc += sig[k]
            n += 1
    if n == 0:
        return math.nan
    return acc / n


@jit(allocates=False)
def pivot_row(A, k, n):
    """The row (>= k) with the largest |A[i, k]|, the first one on ties, and that magnitude."""
    p = k
    best = abs(A[k, k])
    for i in range(k + 1, n):
        if abs(A[i, k]) > best:
            best = abs(A[i, k])
            p = i
    return p, best


@jit(allocates=False)
def swap_rows(A, k, p, n):
    for j in range(n):
        tmp = A[k, j]
        A[k, j] = A[p, j]
        A[p, j] = tmp


@jit(allocates=False)
def det_lu(A, n):
    """Determinant of ``A[:n, :n]`` by LU with partial pivoting (A is overwritten)."""
    det = 1.0
    for k in range(n):
        p, best = pivot_row(A, k, n)
        if best == 0.0:
            return 0.0
        if p != k:
            swap_rows(A, k, p, n)
            det = -det
        piv = A[k, k]
        det *= piv
        for i in range(k + 1, n):
            f = A[i, k] / piv
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
    return det


@jit(allocates=False)
def median_sorted(v, n):
    h = n // 2
    if n % 2 == 1:
        return v[h]
    return (v[h - 1] + v[h]) / 2.0


@jit(allocates=False)
def invert(A, n, out):
    """``out[:n, :n] = inverse(A[:n, :n])`` by Gauss-Jordan with partial pivoting (A is overwritten)."""
    for i in range(n):
        for j in range(n):
            out[i, j] = 1.0 if i == j else 0.0
    for k in range(n):
        p, _ = pivot_row(A, k, n)
        if p != k:
            swap_rows(A, k, p, n)
            swap_rows(out, k, p, n)
        piv = A[k, k]
        for j in range(n):
            A[k, j] /= piv
            out[k, j] /= piv
        for i in range(n):
            if i != k:
                f = A[i, k]
                if f != 0.0:
                    for j in range(n):
                        A[i, j] -= f * A[k, j]
                        out[i, j] -= f * out[k, j]


@jit(allocates=False)
def diversity(Y, K, s0, S, A, iscal, fscal):
    """D = det(exp(R)) over the first K nodes, R_kl = 1 - CIM(y_k, y_l, sigma_init).

    ``S`` is the diversity state: R itself while K <= DIV_LU_MAX, then
    (exp R)^-1 (see DIV_LU_MAX). ``A``: scratch for the LU (K x K, K <= DIV_LU_MAX).
    """
    nr = iscal[I_NR]
    if K <= DIV_LU_MAX:
        for k in range(nr, K):
            for l in range(k + 1):
                r = 1.0 - cim(Y, k, Y, l, s0)
                S[k, l] = r
                S[l, k] = r
        iscal[I_NR] = K
        for k in range(K):
            for l in range(K):
                A[k, l] = math.exp(S[k, l])
        D = det_lu(A, K)
        if K == DIV_LU_MAX and D >= DIVERSITY_THRESHOLD:  # from here on S holds the inverse
            for k in range(K):
                for l in range(K):
                    A[k, l] = math.exp(S[k, l])
            invert(A, K, S)
        fscal[F_DET] = D
        return D
    # bordering: one new node (row m = K - 1) against the m before it; its row and column of S
    # hold b and z = S b until the end
    m = K - 1
    for l in range(m):
        S[m, l] = math.exp(1.0 - cim(Y, m, Y, l, s0))  # b
    c = math.exp(1.0)
    for i in range(m):
        acc = 0.0
        for l in range(m):
            acc += S[i, l] * S[m, l]
        S[i, m] = acc  # z
    bz = 0.0
    for i in range(m):
        bz += S[m, i] * S[i, m]
    schur = c - bz
    D = fscal[F_DET] * schur
    fscal[F_DET] = D
    iscal[I_NR] = K
    if D >= DIVERSITY_THRESHOLD:  # lambda not fixed yet: extend the inverse
        for i in range(m):
            for l in range(m):
                S[i, l] += S[i, m] * S[l, m] / schur
        for i in range(m):
            S[m, i] = -S[i, m] / schur
            S[i, m] = -S[i, m] / schur
        S[m, m] = 1.0 / schur
    return D


# ------------------------------------------------------------------ the arrays a step works on
#: The network: what the model file keeps (see :class:`cae.algorithms._cae_network.CAENetwork`).
Net = namedtuple("Net", "Y M sig ids stamp deg nbr age R first iscal fscal")
#: What one step did, for :meth:`cae.CAE.learn_one`: the scalars ``ri``/``rf`` and the id lists.
Rec = namedtuple(
    "Rec",
    "ri rf aged_ids aged_ages alpha_ids alpha_ages del_ids del_ages moved_ids moved_before moved_after "
    "swept_ids swept_pos",
)
#: Scratch space: component labels (and compaction plans), squared distances (or bounds), spare, sorted ages, the
#: recency list (see recency_list), the component search's stack, a node mask, d numbers (Silverman), the LU
#: of the diversity; and whether the winner search screens (see winners).
Buf = namedtuple("Buf", "labels dist2 acc sortbuf order stack mask svec lu screening")


# ------------------------------------------------------------------ the initial phase
@jit(allocates=False)
def keep_first_samples(X, xi, net, buf):
    """Buffer the first 10 samples; at the 10th, sigma_init is their Silverman bandwidth.

    spec: The initial phase, 2 -- "sigma_init is the Silverman bandwidth of the
    first 10 samples of the stream [ref]" (a streaming implementation waits for
    the 10th sample). Runs at every step, in either phase, until 10 are kept.
    """
    iscal, first = net.iscal, net.first
    nf = iscal[I_NFIRST]
    if nf >= N_INIT:
        return
    for j in range(X.shape[1]):
        first[nf, j] = X[xi, j]
    iscal[I_NFIRST] = nf + 1
    if nf + 1 == N_INIT:
        rows = buf.order  # borrowed for the row numbers 0..9: the recency list kept there is gone
        for i in range(N_INIT):
            rows[i] = i
        rows[rows.shape[0] - 1] = 0  # so the next recency_list sorts the stamps again
        net.fscal[F_SIGINIT] = silverman(first, rows, N_INIT, X.shape[1], buf.svec)


@jit(allocates=False)
def in_initial_phase(net):
    """V has never been set, or the sweep left fewer than n_active nodes (spec: The initial phase)."""
    return net.iscal[I_VSET] == 0 or net.iscal[I_K] < net.iscal[I_NACTIVE]


@jit(allocates=False)
def add_node(X, xi, net, rec, buf, t):
    """x becomes a new node (M = 1, no bandwidth, no edges) at the end of the rows and the front of the
    recency list (its stamp is t). Returns its row. spec: The initial phase, 1; The learning phase, 2."""
    iscal = net.iscal
    K = iscal[I_K]
    for j in range(X.shape[1]):
        net.Y[K, j] = X[xi, j]
    net.M[K] = 1
    net.sig[K] = math.nan
    net.ids[K] = iscal[I_NEXTID]
    iscal[I_NEXTID] += 1
    net.stamp[K] = t
    move_to_front(buf, K, K)
    net.deg[K] = 0
    iscal[I_K] = K + 1
    iscal[I_SIG_STALE] = 1
    rec.ri[RI_NEWROW] = K
    rec.ri[RI_NEWID] = net.ids[K]
    return K


@jit(allocates=False)
def estimate_lambda(net, rec, buf):
    """The diversity D = det(exp(R)) over the nodes so far; D < 1e-6 with K >= 10 fixes n_active = K, lambda = 2K.

    spec: The initial phase, 2. Only while V has never been set, lambda is to be
    estimated (not CAEA's) and sigma_init is known. A negative D counts as below
    1e-6 [ref]; so does D < 1e-6 only once K >= 10 [ref].
    """
    iscal, fscal = net.iscal, net.fscal
    s0 = fscal[F_SIGINIT]
    if iscal[I_VSET] != 0 or iscal[I_FIXED_LAMBDA] != 0 or iscal[I_NACTIVE] != 0 or math.isnan(s0):
        return
    K = iscal[I_K]
    D = diversity(net.Y, K, s0, net.R, buf.lu, iscal, fscal)
    rec.rf[RF_D] = D
    if not (D >= DIVERSITY_THRESHOLD) and K >= MIN_NODES_FOR_LAMBDA:
        iscal[I_NACTIVE] = K
        iscal[I_LAMBDA] = 2 * K
        rec.ri[RI_LAMFIXED] = 1


@jit(allocates=False)
def threshold_setup(net, rec, buf):
    """sigma0 = Silverman bandwidth of the active node set, every node's sigma = sigma0, and
    V = the mean over the active nodes of the smallest CIM to any other node (bandwidth sigma0).

    spec: The initial phase, 3 -- runs when K reaches n_active: the first time,
    and again whenever the network regrows to n_active after a sweep (lambda is
    never re-estimated [ref]).
    """
    Y, sig, iscal = net.Y, net.sig, net.iscal
    K = iscal[I_K]
    recency_list(net, buf)
    order = buf.order
    m = min(K, iscal[I_NACTIVE])
    sigma0 = silverman(Y, order, m, Y.shape[1], buf.svec)
    for k in range(K):
        sig[k] = sigma0
    iscal[I_SIG_STALE] = 1
    acc = 0.0
    for a in range(m):
        # the smallest CIM from y_k to another node: the runner-up of a winner search from y_k, whose
        # own CIM (exactly 0) is the smallest
        acc += winners(Y, order[a], Y, K, sigma0, buf.dist2, buf.acc, True, buf.screening)[3]
    net.fscal[F_V] = acc / m
    iscal[I_VSET] = 1
    rec.rf[RF_SIGMA0] = sigma0
    rec.ri[RI_SETUP] = 1


@jit(allocates=False)
def initial_phase(X, xi, net, rec, buf, t):
    """spec: The initial phase, 1-3: a new node; the diversity D (lambda); the threshold set-up at K = n_active."""
    rec.ri[RI_CASE] = 0
    add_node(X, xi, net, rec, buf, t)
    estimate_lambda(net, rec, buf)
    n_active = net.iscal[I_NACTIVE]
    if n_active > 0 and net.iscal[I_K] == n_active:
        threshold_setup(net, rec, buf)


# ------------------------------------------------------------------ the learning phase
@jit(allocates=False)
def winner_search(X, xi, net, rec, buf):
    """s1 and s2, the nodes of smallest CIM to x with the mean bandwidth (first index on ties).

    spec: The learning phase, 1; the bandwidth is the mean of the nodes' sigma
    over the nodes that have one [ref] (cached until a node or a sigma changes).
    Returns ``(s1, v1, s2, v2)`` and writes them into the record.
    """
    iscal, fscal, ri, rf = net.iscal, net.fscal, rec.ri, rec.rf
    K = iscal[I_K]
    if iscal[I_SIG_STALE] != 0:
        fscal[F_MEANSIG] = mean_sigma(net.sig, K)
        iscal[I_SIG_STALE] = 0
    sigma = fscal[F_MEANSIG]
    rf[RF_SIGMA] = sigma
    s1, v1, s2, v2 = winners(X, xi, net.Y, K, sigma, buf.dist2, buf.acc, True, buf.screening)
    ri[RI_S1] = s1
    ri[RI_S2] = s2
    ri[RI_S1ID] = net.ids[s1]
    ri[RI_S2ID] = net.ids[s2]
    rf[RF_V1] = v1
    rf[RF_V2] = v2
    return s1, v1, s2, v2


@jit(allocates=False)
def case_one_new_node(X, xi, net, rec, buf, t):
    """Case I (V < V1): x becomes a new node whose sigma is the Silverman bandwidth of the active
    node set taken after it joined the front of the recency list. spec: The learning phase, 2."""
    rec.ri[RI_CASE] = 1
    row = add_node(X, xi, net, rec, buf, t)
    K = net.iscal[I_K]
    recency_list(net, buf)
    order = buf.order
    net.sig[row] = silverman(net.Y, order, min(K, net.iscal[I_NACTIVE]), X.shape[1], buf.svec)
    rec.rf[RF_NEWSIGMA] = net.sig[row]


@jit(allocates=False)
def winner_learns(X, xi, net, rec, buf, s1, t):
    """M_s1 += 1; y_s1 += (x - y_s1) / M_s1; s1 goes to the front of the recency list.

    spec: The learning phase, 3.1 (Cases II and III). Records s1's move.
    """
    Y, M, moved_before, moved_after = net.Y, net.M, rec.moved_before, rec.moved_after
    d = X.shape[1]
    rec.moved_ids[0] = net.ids[s1]
    for j in range(d):
        moved_before[0, j] = Y[s1, j]
    M[s1] += 1
    for j in range(d):
        Y[s1, j] += (X[xi, j] - Y[s1, j]) / M[s1]
    net.stamp[s1] = t
    move_to_front(buf, net.iscal[I_K], s1)
    for j in range(d):
        moved_after[0, j] = Y[s1, j]
    rec.ri[RI_NMOVED] = 1


@jit(allocates=False)
def age_winner_edges(net, rec, s1):
    """Every existing edge of s1 ages by 1 (on both sides). spec: The learning phase, 3.2."""
    nbr, age, deg = net.nbr, net.age, net.deg
    na = deg[s1]
    for p in range(na):
        b = nbr[s1, p]
        age[s1, p] += 1
        q = find_slot(nbr, deg, b, s1)
        age[b, q] += 1
        rec.aged_ids[p] = net.ids[b]
        rec.aged_ages[p] = age[s1, p]
    rec.ri[RI_NAGED] = na


@jit(allocates=False)
def neighbours_learn(X, xi, net, rec, s1):
    """Case III: every node that already is a neighbour of s1 moves, y_k += (x - y_k) / (10 M_k).

    spec: The learning phase, 3.3, first half -- before the edge s1-s2 is made [ref].
    """
    Y, M, nbr, ri = net.Y, net.M, net.nbr, rec.ri
    moved_before, moved_after = rec.moved_before, rec.moved_after
    nmoved = ri[RI_NMOVED]
    for p in range(net.deg[s1]):
        b = nbr[s1, p]
        rec.moved_ids[nmoved] = net.ids[b]
        for j in range(X.shape[1]):
            moved_before[nmoved, j] = Y[b, j]
        nmoved += 1
        for j in range(X.shape[1]):
            Y[b, j] += (X[xi, j] - Y[b, j]) / (10.0 * M[b])
            moved_after[nmoved - 1, j] = Y[b, j]
    ri[RI_NMOVED] = nmoved


@jit(allocates=False)
def link_winners(net, rec, s1, s2):
    """Case III: the edge s1-s2 is created, or its age reset, with age 1.

    spec: The learning phase, 3.3, second half -- after the neighbours moved, so
    s2 moves only if it already was a neighbour [ref].
    """
    nbr, age, deg, iscal = net.nbr, net.age, net.deg, net.iscal
    p = find_slot(nbr, deg, s1, s2)
    if p >= 0:
        age[s1, p] = 1
        q = find_slot(nbr, deg, s2, s1)
        age[s2, q] = 1
        rec.ri[RI_EDGE] = 2
    else:
        iscal[I_MAXDEG] = max(iscal[I_MAXDEG], connect(nbr, age, deg, s1, s2, 1))
        iscal[I_E] += 1
        rec.ri[RI_EDGE] = 1


@jit(allocates=False)
def sorted_ages(net, s1, srt):
    """The ages of s1's edges, ascending, into ``srt`` (insertion sort: a node has few edges)."""
    n = net.deg[s1]
    for p in range(n):
        srt[p] = float(net.age[s1, p])
    insertion_sort(srt, n)


@jit(allocates=False)
def edge_age_limit(net, rec, buf, s1):
    """a_max for the edges of s1: from Tukey's hinges of their ages, or CAEA's fixed value.

    spec: The learning phase, 3.4 -- med = median(alpha); q1, q3 = medians of
    the ages strictly below and strictly above med [ref: Tukey's hinges, not
    percentiles]; a_thr = q3 + (q3 - q1); r = n_del / (n_del + |alpha|);
    a_max = mean_del r + a_thr (1 - r). Infinite (nothing deleted) when either
    set of ages is empty, unless a_max is fixed (CAEA).
    """
    rf, fixed = rec.rf, net.fscal[F_FIXED_AMAX]
    n = net.deg[s1]
    srt = buf.sortbuf
    sorted_ages(net, s1, srt)
    med = median_sorted(srt, n)
    rf[RF_MEDIAN] = med
    nlo = 0
    while nlo < n and srt[nlo] < med:
        nlo += 1
    hi0 = n
    while hi0 > 0 and srt[hi0 - 1] > med:
        hi0 -= 1
    nhi = n - hi0
    if nlo == 0 or nhi == 0:
        if not math.isnan(fixed):
            rf[RF_AMAX] = fixed
            return fixed
        return math.inf
    q1 = median_sorted(srt, nlo)
    q3 = median_sorted(srt[hi0:n], nhi)
    a_thr = q3 + (q3 - q1)
    ndel = net.iscal[I_NDEL]
    ratio = ndel / (ndel + n)
    rf[RF_Q1] = q1
    rf[RF_Q3] = q3
    rf[RF_ATHR] = a_thr
    rf[RF_RATIO] = ratio
    if math.isnan(fixed):
        a_max = net.fscal[F_MEANDEL] * ratio + a_thr * (1.0 - ratio)
    else:
        a_max = fixed
    rf[RF_AMAX] = a_max
    return a_max


@jit(allocates=False)
def delete_edges_older_than(net, rec, s1, a_max):
    """Every edge of s1 with age > a_max goes; n_del and the mean deleted age take them in.

    spec: The learning phase, 3.4, last sentence: mean_del <- (n_del mean_del +
    sum of the deleted ages) / (n_del + number deleted).
    """
    nbr, age, deg, iscal, fscal = net.nbr, net.age, net.deg, net.iscal, net.fscal
    total = 0
    nd = 0
    p = 0
    while p < deg[s1]:
        if age[s1, p] > a_max:
            b = nbr[s1, p]
            rec.del_ids[nd] = net.ids[b]
            rec.del_ages[nd] = age[s1, p]
            total += age[s1, p]
            nd += 1
            q = find_slot(nbr, deg, b, s1)
            remove_slot(nbr, age, deg, b, q)
            remove_slot(nbr, age, deg, s1, p)
        else:
            p += 1
    if nd > 0:
        ndel = iscal[I_NDEL]
        numer = ndel * fscal[F_MEANDEL] + total
        iscal[I_NDEL] = ndel + nd
        fscal[F_MEANDEL] = numer / (ndel + nd)
        iscal[I_E] -= nd
    rec.ri[RI_NDELETED] = nd


@jit(allocates=False)
def delete_old_edges(net, rec, buf, s1):
    """Edge deletion around s1 by the age statistics (Cases II and III). spec: The learning phase, 3.4."""
    n = net.deg[s1]
    rec.ri[RI_NALPHA] = n
    for p in range(n):
        rec.alpha_ids[p] = net.ids[net.nbr[s1, p]]
        rec.alpha_ages[p] = net.age[s1, p]
    if n == 0:
        return
    a_max = edge_age_limit(net, rec, buf, s1)
    if a_max < math.inf:
        delete_edges_older_than(net, rec, s1, a_max)


# ------------------------------------------------------------------ after every sample
@jit(allocates=False)
def sweep_due(net, t):
    """t is a multiple of lambda and K > 1 (spec: After every sample); with the per-batch count, the
    number of samples of the current batch instead of t, as ``CAE_train.m`` counts within one call [ref]."""
    lam = net.iscal[I_LAMBDA]
    n = net.iscal[I_BATCH_T] if net.iscal[I_SWEEP_PER_BATCH] else t
    return lam > 0 and n % lam == 0 and net.iscal[I_K] > 1


@jit(allocates=False)
def sweep_isolated_nodes(net, rec, buf):
    """Every node without an edge is deleted; survivors keep their order (rows and recency).

    spec: After every sample -- the isolated-node deletion, the noise filter. It
    can bring K below n_active, which sends the next samples to the initial phase.
    """
    Y, deg, iscal = net.Y, net.deg, net.iscal
    K = iscal[I_K]
    nsw = 0
    for k in range(K):
        if deg[k] == 0:
            rec.swept_ids[nsw] = net.ids[k]
            for j in range(Y.shape[1]):
                rec.swept_pos[nsw, j] = Y[k, j]
            nsw += 1
    if nsw > 0:
        isolated = buf.mask
        for k in range(K):
            isolated[k] = deg[k] == 0
        labels = buf.labels
        K = plan_compaction(isolated, K, labels)
        n_old = iscal[I_K]
        compact_rows_2d(Y, labels, n_old)
        keep_recency_list(buf, labels, n_old)
        compact_rows(net.M, labels, n_old)
        compact_rows(net.sig, labels, n_old)
        compact_rows(net.ids, labels, n_old)
        compact_rows(net.stamp, labels, n_old)
        compact_graph(net.nbr, net.age, deg, labels, n_old)
        iscal[I_K] = K
        iscal[I_SIG_STALE] = 1
    rec.ri[RI_NSWEPT] = nsw


@jit(allocates=False)
def keep_recency_list(buf, newrow, n_old):
    """The recency list after a deletion: the survivors, in their order, renumbered (``newrow``)."""
    order = buf.order
    if order[order.shape[0] - 1] != 1:
        return
    n = 0
    for a in range(n_old):
        r = newrow[order[a]]
        if r >= 0:
            order[n] = r
            n += 1


# ------------------------------------------------------------------ one sample
@jit(allocates=False)
def begin_step(net, rec):
    """t <- t + 1 and a clean record; returns t."""
    ri, rf = rec.ri, rec.rf
    t = net.iscal[I_T] + 1
    net.iscal[I_T] = t
    net.iscal[I_BATCH_T] += 1
    for i in range(ri.shape[0]):
        ri[i] = 0
    for i in range(rf.shape[0]):
        rf[i] = math.nan
    ri[RI_S1] = -1
    ri[RI_S2] = -1
    ri[RI_NEWROW] = -1
    ri[RI_NEWID] = -1
    ri[RI_S1ID] = -1
    ri[RI_S2ID] = -1
    ri[RI_NCLUSTERS] = -1
    rf[RF_MEANDEL_BEFORE] = net.fscal[F_MEANDEL]
    return t


@jit(allocates=False)
def finish_record(net, rec, buf, track):
    """V after the step, and (when tracking) the number of clusters."""
    rec.rf[RF_THRESHOLD] = net.fscal[F_V]
    if track:
        rec.ri[RI_NCLUSTERS] = components_into(net.nbr, net.deg, net.iscal[I_K], buf.labels, buf.stack)


@jit(allocates=False)
def step(X, xi, net, rec, buf, track):
    """Learn the sample ``X[xi]``: the spec's outline, one named step each.

    ``net``, ``rec`` and ``buf`` are the :data:`Net`, :data:`Rec` and
    :data:`Buf` tuples of arrays; everything is updated in place.
    """
    t = begin_step(net, rec)
    keep_first_samples(X, xi, net, buf)  # sigma_init from the first 10 samples [ref]
    if in_initial_phase(net):  # V never set, or K < n_active
        initial_phase(X, xi, net, rec, buf, t)
    else:  # the learning phase
        s1, v1, s2, v2 = winner_search(X, xi, net, rec, buf)  # 1. s1, s2 by CIM with the mean sigma
        V = net.fscal[F_V]
        if V < v1:  # 2. Case I: a new node
            case_one_new_node(X, xi, net, rec, buf, t)
        else:  # 3. Case II (V1 <= V < V2) and Case III (V2 <= V)
            case3 = v2 <= V
            rec.ri[RI_CASE] = 3 if case3 else 2
            winner_learns(X, xi, net, rec, buf, s1, t)  # 3.1
            age_winner_edges(net, rec, s1)  # 3.2
            if case3:  # 3.3: the neighbours move, then s1-s2 is linked [ref]
                neighbours_learn(X, xi, net, rec, s1)
                link_winners(net, rec, s1, s2)
            delete_old_edges(net, rec, buf, s1)  # 3.4: Tukey's hinges, a_max [ref]
    if sweep_due(net, t):  # after every sample: every lambda samples
        sweep_isolated_nodes(net, rec, buf)
    finish_record(net, rec, buf, track)
    return 0


@jit
def run(
    X,
    start,
    Y,
    M,
    sig,
    ids,
    stamp,
    deg,
    nbr,
    age,
    R,
    first,
    iscal,
    fscal,
    ri,
    rf,
    aged_ids,
    aged_ages,
    alpha_ids,
    alpha_ages,
    del_ids,
    del_ages,
    moved_ids,
    moved_before,
    moved_after,
    swept_ids,
    swept_pos,
    labels,
    dist2,
    acc,
    sortbuf,
    order,
    stack,
    mask,
    svec,
    lu,
    screening,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room
    (nodes, degree, or diversity matrix); the caller grows the arrays and
    calls again from there. When ``trace`` has rows, row ``i`` receives the
    summary of step ``i`` (columns ``TRACE_COLUMNS``; needs ``track``).
    """
    net = Net(Y, M, sig, ids, stamp, deg, nbr, age, R, first, iscal, fscal)
    rec = Rec(
        ri,
        rf,
        aged_ids,
        aged_ages,
        alpha_ids,
        alpha_ages,
        del_ids,
        del_ages,
        moved_ids,
        moved_before,
        moved_after,
        swept_ids,
        swept_pos,
    )
    buf = Buf(labels, dist2, acc, sortbuf, order, stack, mask, svec, lu, screening)
    cap = Y.shape[0]
    maxdeg = nbr.shape[1]
    for i in range(start, X.shape[0]):
        K = iscal[I_K]
        if K + 1 > cap or iscal[I_MAXDEG] + 1 > maxdeg:
            return i
        if iscal[I_VSET] == 0 and K + 1 > R.shape[0] and iscal[I_FIXED_LAMBDA] == 0:
            return i
        step(X, i, net, rec, buf, track)
        if trace.shape[0] > 0:
            write_trace(trace, i, iscal, fscal, ri, rf)
    return DONE


TRACE_COLUMNS = (
    "t",
    "case",
    "n_nodes",
    "n_edges",
    "n_clusters",
    "threshold",
    "deletion_interval",
    "n_active_nodes",
    "diversity",
    "a_max",
    "mean_deleted_edge_age",
    "n_swept",
    "threshold_setup",
    "lambda_fixed",
    "s1",
    "s2",
    "v1",
    "v2",
    "n_deleted",
)


@jit(allocates=False)
def write_trace(trace, i, iscal, fscal, ri, rf):
    trace[i, 0] = iscal[I_T]
    trace[i, 1] = ri[RI_CASE]
    trace[i, 2] = iscal[I_K]
    trace[i, 3] = iscal[I_E]
    trace[i, 4] = ri[RI_NCLUSTERS]
    trace[i, 5] = fscal[F_V]
    trace[i, 6] = iscal[I_LAMBDA] if iscal[I_LAMBDA] > 0 else math.nan
    trace[i, 7] = iscal[I_NACTIVE] if iscal[I_NACTIVE] > 0 else math.nan
    trace[i, 8] = rf[RF_D]
    trace[i, 9] = rf[RF_AMAX]
    trace[i, 10] = fscal[F_MEANDEL]
    trace[i, 11] = ri[RI_NSWEPT]
    trace[i, 12] = ri[RI_SETUP]
    trace[i, 13] = ri[RI_LAMFIXED]
    trace[i, 14] = ri[RI_S1]
    trace[i, 15] = ri[RI_S2]
    trace[i, 16] = rf[RF_V1]
    trace[i, 17] = rf[RF_V2]
    trace[i, 18] = ri[RI_NDELETED]


@jit(allocates=False)
def nearest_node_rows(X, lo, hi, Y, K, sigma, dist2, acc, out, screening):
    """``out[i]``: the row of the nearest node by CIM (first on ties) for every row i in [lo, hi) of X."""
    for i in range(lo, hi):
        out[i] = winners(X, i, Y, K, sigma, dist2, acc, False, screening)[0]


@jit
def nearest_nodes(X, Y, K, sigma, out, screening):
    """Row of the nearest node (by CIM, first on ties) for every row of X, in one thread."""
    nearest_node_rows(X, 0, X.shape[0], Y, K, sigma, np.empty(K), np.empty(K), out, screening)


PREDICT_CHUNK = 256  # rows per task of the parallel labelling
PARALLEL_WORK = 2**25  # rows x nodes x features below which CAE.nearest_nodes labels on one thread


@jit(parallel=True)
def nearest_nodes_parallel(X, Y, K, sigma, out, screening):
    """:func:`nearest_nodes` on several threads, in chunks of rows (the same answer)."""
    n = X.shape[0]
    n_chunks = (n + PREDICT_CHUNK - 1) // PREDICT_CHUNK
    for c in prange(n_chunks):
        lo = c * PREDICT_CHUNK
        hi = min(n, lo + PREDICT_CHUNK)
        nearest_node_rows(X, lo, hi, Y, K, sigma, np.empty(K), np.empty(K), out, screening)

"""The one implementation of SOINN+'s per-sample step (``SoinnPlus.m`` with its SOINN+ handlers).

:class:`cae.algorithms.soinn_plus.SOINNPlus` runs this kernel: unutility-based node deletion after every
sample and component-statistics edge deletion (the reference's ``'node', 1, 'edge', 1``). The class's
legacy mode (``'node', 0, 'edge', 0``) was this project's ASOINN until that turned out to be Shen's
``fastSOINN.m`` (``docs/baselines/asoinn.md``); it is retired, and its scalar slots (``I_MODE``,
``I_LAMBDA``, ``F_AMAX``) stay at their SOINN+ values so that SOINN+ model files keep their layout.
What the step does, and every place it differs from the reference, is in docs/baselines/soinn_plus.md.
:func:`step` is the reference's ``inputSignal``, with a function for each of the methods it calls
(:func:`find_winners`, :func:`edge_flag`, :func:`add_edge`, :func:`increment_edge_ages`,
:func:`delete_old_edges_plus`, :func:`delete_noise_nodes_plus`, :func:`update_winner_and_adjacent`);
:func:`run` bundles the arrays into the named tuples :data:`Net`, :data:`Rec` and :data:`Buf`.

Conventions: plain loops over preallocated arrays (numba-compiled through
:func:`cae._jit.jit`, or plain Python, bit-identically); nodes in rows
``[:K]`` in creation order (deleting nodes compacts them, keeping the order,
as MATLAB's row deletion does); undirected edges in the neighbour lists of
:mod:`cae._graph`, whose ``age`` is the reference's adjacency value (1 when
created or reset, +1 every time the winner's edges age). Distances are
SQUARED Euclidean distances, summed over features in order.
"""

import math
from collections import namedtuple

from .._graph import (
    compact_graph,
    compact_rows,
    compact_rows_2d,
    components_into,
    connect,
    disconnect,
    find_slot,  # noqa: F401
    plan_compaction,
)
from .._jit import HAVE_NUMBA, jit  # noqa: F401

# ---- constants of the reference ----------------------------------------------
N_INIT = 3  # while K < 3 a sample becomes a node unconditionally (and the step ends there)
PARAM_EDGE = 2.0  # paramEdge: edge threshold = p75 + 2 * iqr
PARAM_C = 2.0  # paramC: linking threshold = mean + 2 * std
PARAM_ALPHA = 2.0  # paramAlpha: node threshold = median + 2 * (upper - median) / 3
OUTLIER_FACTOR = 3.0  # isoutlier's default ThresholdFactor
#: isoutlier's scaled-MAD factor -1/(sqrt(2) * erfcinv(3/2)), with erfcinv(1.5) = -0.4769362762044699
MAD_FACTOR = -1.0 / (math.sqrt(2.0) * -0.4769362762044699)

MODE_PLUS = 0  # the only mode (the legacy mode, 1, is retired)

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of nodes
I_T = 1  # samples seen (signalNum, cumulative)
I_E = 2  # number of edges
I_MAXDEG = 3  # an upper bound on every node's degree (never decreases)
I_NEXTID = 4  # next stable node id
I_MODE = 5  # MODE_PLUS (kept for the model file's layout)
I_LAMBDA = 6  # deleteNodePeriod: 1 in SOINN+ (kept for the model file's layout)
I_LINKS = 7  # linkCreated (see the [ref] on addEdge)
I_EDGEDEL = 8  # edgeDeleted
I_NODEDEL = 9  # nodeDeleted (see the [ref] on deleteNodes)
N_ISCAL = 10

# ---- float scalars (fscal) ---------------------------------------------------
F_AMAX = 0  # maxEdgeAge of the retired legacy mode: NaN (kept for the model file's layout)
F_MEAN1 = 1  # runThMean, the winner's component
F_MEAN2 = 2  # runThMean, the second winner's component
F_VAR1 = 3  # runThVariance (a Welford sum of squared deviations), winner
F_VAR2 = 4  # runThVariance, second winner
F_EDGE_AVG = 5  # edgeAvgLtDel: mean age of the deleted edges
F_NODE_TH = 6  # nodeDelTh: mean unutility of the deleted nodes
F_NODE_IDLE = 7  # nodeAvgIdleDel: mean idle time of the deleted nodes
N_FSCAL = 8

# ---- record scratch (ri / rf) ------------------------------------------------
RI_CASE = 0  # 0 initial node (K < 3), 1 new node, 2 winner updated
RI_S1 = 1  # rows of the winners as the sample arrived (-1 if none)
RI_S2 = 2
RI_S1ID = 3
RI_S2ID = 4
RI_NEWROW = 5
RI_NEWID = 6
RI_LINK = 7  # eFlag: 1 / 0, -1 when not computed (K < 3)
RI_EDGE = 8  # 0 no edge change, 1 s1-s2 created, 2 s1-s2 existed (age reset to 1)
RI_STATS = 9  # 1 when the linking statistics were updated at this step
RI_NDELETED = 10  # edges deleted
RI_NSWEPT = 11  # nodes deleted (by the edge deletion first, then by the node deletion)
RI_NSWEPT_EDGE = 12  # of which deleted by the edge deletion (neighbours left without edges)
RI_NCLUSTERS = 13  # -1 unless tracking
RI_NCOMP = 14  # edges in s1's connected component (SOINN+ edge deletion), -1 if not computed
RI_NISO = 15  # isolated nodes seen by the node deletion, -1 if it did not run
RI_NODE_DEL = 16  # 1 when the node deletion ran at this step
N_RI = 17

RF_D1 = 0  # squared distance of x to s1
RF_D2 = 1
RF_TH1 = 2  # s1's similarity threshold (a squared distance)
RF_TH2 = 3
RF_TRUST1 = 4  # trustworthiness of s1 (NaN when linking was unconditional)
RF_TRUST2 = 5
RF_LINKV1 = 6  # sqrt(T1) * (1 - trust1)
RF_LINKV2 = 7
RF_LINKTH1 = 8  # runThMean1 + 2 sqrt(runThVariance1 / linkCreated)
RF_LINKTH2 = 9
RF_P75 = 10  # 75th percentile of the component's edge ages
RF_IQR = 11
RF_EDGE_RATIO = 12
RF_EDGE_DEL_TH = 13  # the edge-deletion threshold
RF_UT_CENTER = 14  # median unutility of the non-isolated nodes
RF_UT_UPPER = 15  # isoutlier's upper bound
RF_NODE_RATIO = 16
RF_NOISE_LV = 17
RF_NODE_DEL_TH = 18  # the node-deletion threshold
N_RF = 19

# status codes returned by run()
DONE = -1


# ------------------------------------------------------------ order statistics
@jit(allocates=False)
def kth_smallest(buf, n, k):
    """The k-th smallest (0-based) of ``buf[:n]``; reorders ``buf[:n]`` in place.

    Quickselect with a median-of-three pivot, each round a three-way split (ages
    repeat a lot) made of up to two branch-free passes: the values below the
    pivot to the front, then, if the k-th is not among them, the values equal to
    it. A swap at every position and a counter that grows by ``v < pivot``
    leave the processor no branch to mispredict, which makes the selection
    about four times as fast as one that branches on each comparison. Falls back
    to sorting the remaining range after 64 rounds, so it is O(n) in practice
    and never worse than O(n log n). Which value is the k-th does not depend on
    how it is found: any selection gives the same value, bit for bit.
    """
    lo = 0
    hi = n - 1
    rounds = 0
    while hi > lo:
        if rounds > 64:
            heap_sort(buf, lo, hi + 1)
            return buf[k]
        rounds += 1
        mid = (lo + hi) >> 1
        a = buf[lo]
        b = buf[mid]
        c = buf[hi]
        if a < b:
            if b < c:
                pv = b
            elif a < c:
                pv = c
            else:
                pv = a
        else:
            if a < c:
                pv = a
            elif b < c:
                pv = c
            else:
                pv = b
        j = lo  # buf[lo:j] < pv <= buf[j:i]
        for i in range(lo, hi + 1):
            v = buf[i]
            buf[i] = buf[j]
            buf[j] = v
            j += v < pv
        if k < j:
            hi = j - 1
            continue
        for i in range(j, hi + 1):  # buf[lt:j] == pv < buf[j:i], lt the old j (pv is one of the values)
            v = buf[i]
            buf[i] = buf[j]
            buf[j] = v
            j += v == pv
        if k < j:
            return pv
        lo = j
    return buf[k]


@jit(allocates=False)
def heap_sort(v, lo, hi):
    """Sort ``v[lo:hi]`` ascending in place (no scratch; the same sorted values as any sort)."""
    n = hi - lo
    for start in range(n // 2 - 1, -1, -1):
        _sift(v, lo, start, n)
    for end in range(n - 1, 0, -1):
        v[lo], v[lo + end] = v[lo + end], v[lo]
        _sift(v, lo, 0, end)


@jit(allocates=False)
def _sift(v, lo, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and v[lo + child + 1] > v[lo + child]:
            child += 1
        if v[lo + child] > v[lo + root]:
            v[lo + child], v[lo + root] = v[lo + root], v[lo + child]
            root = child
        else:
            return


@jit(allocates=False)
def kth_and_next(buf, n, k):
    """The k-th and (k+1)-th smallest (0-based) of ``buf[:n]`` (the same value twice when k = n - 1).

    After the selection of the k-th, every value right of position k is at
    least as large, so the (k+1)-th is their minimum.
    """
    a = kth_smallest(buf, n, k)
    if k + 1 >= n:
        return a, a
    b = buf[k + 1]
    for i in range(k + 2, n):
        if buf[i] < b:
            b = buf[i]
    return a, b


@jit(allocates=False)
def prctile(buf, n, p):
    """MATLAB's ``prctile(x, p)`` of ``buf[:n]`` (n >= 1; reorders the buffer).

    The sorted values sit at percentiles 100 (i - 0.5) / n; in between, linear
    interpolation with the reference's formula ``(0.5 + r) x(k+1) + (0.5 - r) x(k)``;
    outside, the smallest or largest value; a value hit exactly, or two equal
    neighbours, is copied rather than interpolated.
    """
    r = (p / 100.0) * n
    k = math.floor(r + 0.5)
    r = r - k
    if k < 1:  # below the first value: x(1) (k = 0, and k + 1 = 1 gives the same value)
        return float(kth_smallest(buf, n, 0))
    if k >= n:  # above the last value: x(n)
        return float(kth_smallest(buf, n, n - 1))
    a, b = kth_and_next(buf, n, int(k) - 1)
    xk = float(a)
    xk1 = float(b)
    if r == -0.5 or xk == xk1:
        return xk
    return (0.5 + r) * xk1 + (0.5 - r) * xk


@jit(allocates=False)
def meanof(a, b):
    """MATLAB median's mean of the two middle values: a + (b - a)/2, or (a + b)/2 across signs."""
    sa = 1 if a > 0.0 else (-1 if a < 0.0 else 0)
    sb = 1 if b > 0.0 else (-1 if b < 0.0 else 0)
    if sa != sb or math.isinf(a) or math.isinf(b):
        return (a + b) / 2.0
    return a + (b - a) / 2.0


@jit(allocates=False)
def median(buf, n):
    """MATLAB's ``median`` of ``buf[:n]`` (NaN for n = 0; reorders the buffer)."""
    if n == 0:
        return math.nan
    h = n // 2
    if n % 2 == 1:
        return float(kth_smallest(buf, n, h))
    a, b = kth_and_next(buf, n, h - 1)
    return meanof(float(a), float(b))


# ------------------------------------------------------------------ distances
@jit(allocates=False)
def winners(X, xi, Y, K, dist2):
    """s1, s2 by squared distance to ``X[xi]`` (MATLAB ``min``: first index on ties). K >= 2."""
    d = X.shape[1]
    for k in range(K):
        dist2[k] = 0.0
    for j in range(d):  # feature-major: the loop over nodes vectorises; each sum runs j = 0 .. d-1
        xj = X[xi, j]
        for k in range(K):
            diff = Y[k, j] - xj
            dist2[k] += diff * diff
    s1 = 0
    b1 = dist2[0]
    for k in range(1, K):
        if dist2[k] < b1:
            b1 = dist2[k]
            s1 = k
    s2 = -1
    b2 = math.inf
    for k in range(K):
        if k != s1 and (s2 < 0 or dist2[k] < b2):
            b2 = dist2[k]
            s2 = k
    return s1, s2


@jit(allocates=False)
def sq_dist_rows(Y, a, b):
    acc = 0.0
    for j in range(Y.shape[1]):
        diff = Y[b, j] - Y[a, j]
        acc += diff * diff
    return acc


@jit(allocates=False)
def similarity_threshold(Y, K, k, deg, nbr):
    """calculateSimiralityThreshold: max squared distance to a neighbour; for an
    isolated node the second-smallest squared distance to all nodes (itself
    included, at 0), i.e. the smallest to any other node (0 for a duplicate)."""
    if deg[k] > 0:
        best = sq_dist_rows(Y, k, nbr[k, 0])
        for p in range(1, deg[k]):
            v = sq_dist_rows(Y, k, nbr[k, p])
            if v > best:
                best = v
        return best
    best = math.inf
    for m in range(K):
        if m != k:
            v = sq_dist_rows(Y, k, m)
            if v < best:
                best = v
    return best


# ------------------------------------------------------------------ the arrays a step works on
#: The network: what the model file keeps.
Net = namedtuple("Net", "Y M win_ts born ids deg nbr age iscal fscal")
#: What one step did: the scalars ``ri``/``rf``, the deleted edges (neighbour id, age) and nodes.
Rec = namedtuple("Rec", "ri rf del_ids del_rec_ages swept_ids swept_pos")
#: Scratch space.
Buf = namedtuple("Buf", "del_rows del_ages dmask newrow dist2 ubuf ebuf stack mark labels")


# ---------------------------------------------------------------- graph edits
@jit(allocates=False)
def add_node(X, xi, net, rec, t):
    """addNode: x becomes a node with winningTimes 1 and both time stamps t."""
    iscal = net.iscal
    K = iscal[I_K]
    for j in range(X.shape[1]):
        net.Y[K, j] = X[xi, j]
    net.M[K] = 1
    net.win_ts[K] = t
    net.born[K] = t
    net.ids[K] = iscal[I_NEXTID]
    iscal[I_NEXTID] += 1
    net.deg[K] = 0
    iscal[I_K] = K + 1
    rec.ri[RI_NEWROW] = K
    rec.ri[RI_NEWID] = net.ids[K]
    return K


@jit(allocates=False)
def delete_marked(net, rec, buf):
    """Delete the rows with ``buf.dmask`` set (compacting, order kept) and record them."""
    Y, ids, iscal, ri, dmask, newrow = net.Y, net.ids, net.iscal, rec.ri, buf.dmask, buf.newrow
    K = iscal[I_K]
    nsw = ri[RI_NSWEPT]
    for k in range(K):
        if dmask[k]:
            rec.swept_ids[nsw] = ids[k]
            for j in range(Y.shape[1]):
                rec.swept_pos[nsw, j] = Y[k, j]
            nsw += 1
    ri[RI_NSWEPT] = nsw
    n_new = plan_compaction(dmask, K, newrow)
    compact_rows_2d(Y, newrow, K)
    compact_rows(net.M, newrow, K)
    compact_rows(net.win_ts, newrow, K)
    compact_rows(net.born, newrow, K)
    compact_rows(ids, newrow, K)
    dropped = compact_graph(net.nbr, net.age, net.deg, newrow, K)
    iscal[I_E] -= dropped // 2
    iscal[I_K] = n_new
    return n_new


@jit(allocates=False)
def component_edge_ages(nbr, deg, age, s, stack, mark, ebuf):
    """Ages of every edge of s's connected component into ``ebuf`` (each once); returns their count."""
    mark[s] = 1
    stack[0] = s
    n_nodes = 1
    head = 0
    while head < n_nodes:
        u = stack[head]
        head += 1
        for p in range(deg[u]):
            v = nbr[u, p]
            if mark[v] == 0:
                mark[v] = 1
                stack[n_nodes] = v
                n_nodes += 1
    ne = 0
    for i in range(n_nodes):
        u = stack[i]
        mark[u] = 0
        for p in range(deg[u]):
            if nbr[u, p] > u:
                ebuf[ne] = age[u, p]
                ne += 1
    return ne


@jit(allocates=False)
def queue_deletion(del_rows, del_ages, nd, row, a):
    """Insert (row, age) into the first ``nd`` entries, kept in ascending row (MATLAB ``find``) order."""
    q = nd
    while q > 0 and del_rows[q - 1] > row:
        del_rows[q] = del_rows[q - 1]
        del_ages[q] = del_ages[q - 1]
        q -= 1
    del_rows[q] = row
    del_ages[q] = a


@jit(allocates=False)
def remove_winner_edges(net, rec, buf, s1, nd):
    """Delete s1's edges to ``buf.del_rows[:nd]``; delete the neighbours left without edges.

    Returns s1's row after the deletion. ``nodeDeleted`` grows by the SUM of
    the deleted rows' 1-based indices [ref].
    """
    deg, iscal, dmask, ri = net.deg, net.iscal, buf.dmask, rec.ri
    K = iscal[I_K]
    for k in range(K):
        dmask[k] = False
    n_nodes = 0
    idx_sum = 0
    below = 0
    for i in range(nd):
        b = buf.del_rows[i]
        rec.del_ids[i] = net.ids[b]
        rec.del_rec_ages[i] = buf.del_ages[i]
        disconnect(net.nbr, net.age, deg, s1, b)
        if deg[b] == 0:
            dmask[b] = True
            n_nodes += 1
            idx_sum += b + 1
            if b < s1:
                below += 1
    iscal[I_E] -= nd
    ri[RI_NDELETED] = nd
    if n_nodes > 0:
        delete_marked(net, rec, buf)
        iscal[I_NODEDEL] += idx_sum
        ri[RI_NSWEPT_EDGE] = n_nodes
    return s1 - below


# ------------------------------------------------------------- the handlers
@jit(allocates=False)
def delete_old_edges_plus(net, rec, buf, s1, track):
    """deleteOldEdges_Plus: s1's edges older than a threshold from its component's ages."""
    deg, nbr, age, iscal, fscal, ri, rf = net.deg, net.nbr, net.age, net.iscal, net.fscal, rec.ri, rec.rf
    if deg[s1] == 0:
        # the component has no edge: prctile and iqr of nothing are NaN, nothing is deleted
        ri[RI_NCOMP] = 0
        return s1
    ed = iscal[I_EDGEDEL]
    oldest = 0
    for p in range(deg[s1]):
        if age[s1, p] > oldest:
            oldest = age[s1, p]
    if not track:
        # Exact shortcuts (no effect on results): nothing is deleted unless an edge of s1 is older than
        # del_th = edgeAvgLtDel r + cur (1 - r), r = ed / (ed + ne), and in floating point too
        # del_th >= edgeAvgLtDel r: cur = p75 + 2 iqr > 0 (the percentiles of integer ages are exact
        # multiples of 1/4, so p75 >= p25 >= 1), 1 - r >= 0, and rounding is monotone. The ne edges of
        # s1's component are at most all E edges, so r >= ed / (ed + E) and del_th >= edgeAvgLtDel
        # ed / (ed + E) before the walk; after it, with ne known, del_th >= edgeAvgLtDel r. When s1's
        # oldest edge is not older than the bound, the walk or the percentiles are not needed (they
        # feed only the step record).
        if oldest <= fscal[F_EDGE_AVG] * (ed / (ed + iscal[I_E])):
            return s1
    ebuf = buf.ebuf
    ne = component_edge_ages(nbr, deg, age, s1, buf.stack, buf.mark, ebuf)
    ri[RI_NCOMP] = ne
    ratio = ed / (ed + ne)
    if not track and oldest <= fscal[F_EDGE_AVG] * ratio:
        return s1
    p75 = prctile(ebuf, ne, 75.0)
    p25 = prctile(ebuf, ne, 25.0)
    iqr = p75 - p25
    rf[RF_P75] = p75
    rf[RF_IQR] = iqr
    th = PARAM_EDGE * iqr
    if th == 0.0:
        return s1
    cur = p75 + th
    del_th = fscal[F_EDGE_AVG] * ratio + cur * (1.0 - ratio)
    rf[RF_EDGE_RATIO] = ratio
    rf[RF_EDGE_DEL_TH] = del_th
    nd = 0
    total = 0
    for p in range(deg[s1]):
        if age[s1, p] > del_th:
            queue_deletion(buf.del_rows, buf.del_ages, nd, nbr[s1, p], age[s1, p])
            total += age[s1, p]
            nd += 1
    if nd == 0:
        return s1
    fscal[F_EDGE_AVG] = (ed * fscal[F_EDGE_AVG] + total) / (ed + nd)
    iscal[I_EDGEDEL] = ed + nd
    return remove_winner_edges(net, rec, buf, s1, nd)


@jit(allocates=False)
def unutility_threshold(net, rec, buf, t, track):
    """deleteNoiseNodes_Plus's threshold on the unutility UT = (t - winTS) / winningTimes: the
    median of the non-isolated nodes' UT plus 2/3 of isoutlier's reach above it, blended with the
    deleted nodes' mean UT and scaled by (1 - the noise level). Returns ``(go, threshold)``; ``go`` is
    False when no node can go (the threshold is then computed only when tracking)."""
    deg, win_ts, M, iscal, fscal, ri, rf, ubuf = (
        net.deg,
        net.win_ts,
        net.M,
        net.iscal,
        net.fscal,
        rec.ri,
        rec.rf,
        buf.ubuf,
    )
    K = iscal[I_K]
    n_iso = 0
    n_data = 0
    top = -1.0  # the largest UT of an isolated node
    for k in range(K):
        if deg[k] < 1:
            n_iso += 1
            u = (t - win_ts[k]) / M[k]
            if u > top:
                top = u
        else:
            ubuf[n_data] = (t - win_ts[k]) / M[k]
            n_data += 1
    ri[RI_NODE_DEL] = 1
    ri[RI_NISO] = n_iso
    if n_iso == 0 and not track:
        return False, math.nan  # nothing can be deleted, and the state does not depend on the threshold
    nd = iscal[I_NODEDEL]
    ratio = nd / (nd + n_data) if nd + n_data > 0 else math.nan
    noise_lv = n_iso / K
    # Exact shortcuts (no effect on results): the threshold below is at least
    # nodeDelTh r + c (1 - r)(1 - noise) in floating point too (c + 2 (u - c)/3 >= c,
    # and rounding is monotone), and that is at least nodeDelTh r (c >= 0, as every
    # UT is; 0 <= r, noise <= 1). So when no isolated node's UT exceeds nodeDelTh r,
    # nothing is deleted and neither the median nor the MAD is needed; when none
    # exceeds the bound with the median, the MAD is not needed.
    if not track and n_data > 0 and top <= fscal[F_NODE_TH] * ratio:
        return False, math.nan
    center = median(ubuf, n_data)  # NaN when every node is isolated
    if not track and n_data > 0:
        if top <= fscal[F_NODE_TH] * ratio + center * (1.0 - ratio) * (1.0 - noise_lv):
            return False, math.nan
    for i in range(n_data):
        ubuf[i] = abs(ubuf[i] - center)
    amad = MAD_FACTOR * median(ubuf, n_data)
    upper = center + OUTLIER_FACTOR * amad
    th = PARAM_ALPHA * ((upper - center) / 3.0)
    cur = center + th
    del_th = fscal[F_NODE_TH] * ratio + cur * (1.0 - ratio) * (1.0 - noise_lv)
    rf[RF_UT_CENTER] = center
    rf[RF_UT_UPPER] = upper
    rf[RF_NODE_RATIO] = ratio
    rf[RF_NOISE_LV] = noise_lv
    rf[RF_NODE_DEL_TH] = del_th
    return n_iso > 0, del_th


@jit(allocates=False)
def delete_noise_nodes_plus(net, rec, buf, t, track):
    """deleteNoiseNodes_Plus: isolated nodes whose unutility exceeds a threshold."""
    go, del_th = unutility_threshold(net, rec, buf, t, track)
    if not go:
        return
    deg, win_ts, M, iscal, fscal, dmask = net.deg, net.win_ts, net.M, net.iscal, net.fscal, buf.dmask
    nd = iscal[I_NODEDEL]
    cnt = 0
    sum_it = 0
    sum_ut = 0.0
    for k in range(iscal[I_K]):
        it = t - win_ts[k]
        ut = it / M[k]
        hit = deg[k] < 1 and ut > del_th
        dmask[k] = hit
        if hit:
            cnt += 1
            sum_it += it
            sum_ut += ut
    if cnt == 0:
        return
    fscal[F_NODE_IDLE] = (nd * fscal[F_NODE_IDLE] + sum_it) / (nd + cnt)
    fscal[F_NODE_TH] = (nd * fscal[F_NODE_TH] + sum_ut) / (nd + cnt)
    delete_marked(net, rec, buf)
    iscal[I_NODEDEL] = nd + cnt


# ------------------------------------------------------------------ the step's parts
@jit(allocates=False)
def find_winners(X, xi, net, rec, buf):
    """findNearestNodes(2, signal) and calculateSimiralityThresholds(winner).

    Returns ``(s1, s2, d1, d2, T1, T2)``: the winners, their squared distances to x and their thresholds.
    """
    ri, rf = rec.ri, rec.rf
    K = net.iscal[I_K]
    s1, s2 = winners(X, xi, net.Y, K, buf.dist2)
    th1 = similarity_threshold(net.Y, K, s1, net.deg, net.nbr)
    th2 = similarity_threshold(net.Y, K, s2, net.deg, net.nbr)
    ri[RI_S1] = s1
    ri[RI_S2] = s2
    ri[RI_S1ID] = net.ids[s1]
    ri[RI_S2ID] = net.ids[s2]
    d1 = buf.dist2[s1]
    d2 = buf.dist2[s2]
    rf[RF_D1] = d1
    rf[RF_D2] = d2
    rf[RF_TH1] = th1
    rf[RF_TH2] = th2
    return s1, s2, d1, d2, th1, th2


@jit(allocates=False)
def edge_flag(net, rec, s1, s2, th1, th2):
    """eFlag: link the winners? Unconditionally while a running variance is 0; else when
    sqrt(T_i) (1 - trust_i) < runThMean_i + paramC sqrt(runThVariance_i / linkCreated) for either
    winner, trust_i = winningTimes_i / the largest winningTimes of a node with an edge (the
    trust-based SOINN+ rule, in both modes)."""
    fscal, rf, M, deg = net.fscal, rec.rf, net.M, net.deg
    link = True
    if fscal[F_VAR1] != 0.0 and fscal[F_VAR2] != 0.0:
        max_m = 0
        for k in range(net.iscal[I_K]):
            if deg[k] >= 1 and M[k] > max_m:
                max_m = M[k]
        if max_m > 0:  # [fix] no node has an edge: the reference's max([]) fails; link
            n = net.iscal[I_LINKS]
            c1 = PARAM_C * math.sqrt(fscal[F_VAR1] / n)
            c2 = PARAM_C * math.sqrt(fscal[F_VAR2] / n)
            trust1 = M[s1] / max_m
            trust2 = M[s2] / max_m
            lv1 = math.sqrt(th1) * (1.0 - trust1)
            lv2 = math.sqrt(th2) * (1.0 - trust2)
            lt1 = fscal[F_MEAN1] + c1
            lt2 = fscal[F_MEAN2] + c2
            link = lv1 < lt1 or lv2 < lt2
            rf[RF_TRUST1] = trust1
            rf[RF_TRUST2] = trust2
            rf[RF_LINKV1] = lv1
            rf[RF_LINKV2] = lv2
            rf[RF_LINKTH1] = lt1
            rf[RF_LINKTH2] = lt2
    rec.ri[RI_LINK] = 1 if link else 0
    return link


@jit(allocates=False)
def add_edge(net, rec, s1, s2, th1, th2):
    """addEdge, and the running mean/variance of sqrt(T) when its ``isNew`` is true -- which it is
    when the edge ALREADY existed [ref]: only then are linkCreated and the statistics updated."""
    nbr, deg, age, iscal, fscal, ri = net.nbr, net.deg, net.age, net.iscal, net.fscal, rec.ri
    p = find_slot(nbr, deg, s1, s2)
    if p < 0:
        iscal[I_MAXDEG] = max(iscal[I_MAXDEG], connect(nbr, age, deg, s1, s2, 1))
        iscal[I_E] += 1
        ri[RI_EDGE] = 1
        return
    age[s1, p] = 1
    age[s2, find_slot(nbr, deg, s2, s1)] = 1
    ri[RI_EDGE] = 2
    n = iscal[I_LINKS] + 1
    iscal[I_LINKS] = n
    r1 = math.sqrt(th1)
    r2 = math.sqrt(th2)
    pre1 = fscal[F_MEAN1]
    pre2 = fscal[F_MEAN2]
    fscal[F_MEAN1] = pre1 + (r1 - pre1) / n
    fscal[F_MEAN2] = pre2 + (r2 - pre2) / n
    fscal[F_VAR1] = fscal[F_VAR1] + (r1 - pre1) * (r1 - fscal[F_MEAN1])
    fscal[F_VAR2] = fscal[F_VAR2] + (r2 - pre2) * (r2 - fscal[F_MEAN2])
    ri[RI_STATS] = 1


@jit(allocates=False)
def increment_edge_ages(net, s1):
    """incrementEdgeAges: every edge of s1 (the one just made or reset included) ages by 1."""
    nbr, age, deg = net.nbr, net.age, net.deg
    for p in range(deg[s1]):
        b = nbr[s1, p]
        age[s1, p] += 1
        age[b, find_slot(nbr, deg, b, s1)] += 1


@jit(allocates=False)
def update_winner_and_adjacent(X, xi, net, s1, t):
    """updateWinner (by 1/winningTimes, after its increment; winTS = t), then updateAdjacentNodes
    (each neighbour by 1/(100 winningTimes_neighbour))."""
    Y, M = net.Y, net.M
    d = X.shape[1]
    M[s1] += 1
    for j in range(d):
        Y[s1, j] = Y[s1, j] + (X[xi, j] - Y[s1, j]) / M[s1]
    net.win_ts[s1] = t
    for p in range(net.deg[s1]):
        b = net.nbr[s1, p]
        scale = 100.0 * M[b]
        for j in range(d):
            Y[b, j] = Y[b, j] + (X[xi, j] - Y[b, j]) / scale


@jit(allocates=False)
def begin_step(net, rec):
    """signalNum <- signalNum + 1 and a clean record; returns it."""
    ri, rf = rec.ri, rec.rf
    t = net.iscal[I_T] + 1
    net.iscal[I_T] = t
    for i in range(ri.shape[0]):
        ri[i] = 0
    for i in range(rf.shape[0]):
        rf[i] = math.nan
    ri[RI_S1] = -1
    ri[RI_S2] = -1
    ri[RI_S1ID] = -1
    ri[RI_S2ID] = -1
    ri[RI_NEWROW] = -1
    ri[RI_NEWID] = -1
    ri[RI_LINK] = -1
    ri[RI_NCLUSTERS] = -1
    ri[RI_NCOMP] = -1
    ri[RI_NISO] = -1
    return t


# ------------------------------------------------------------------ the step
@jit(allocates=False)
def step(X, xi, net, rec, buf, track):
    """Learn the sample ``X[xi]``: ``inputSignal``, one named method each.

    ``net``, ``rec`` and ``buf`` are the :data:`Net`, :data:`Rec` and
    :data:`Buf` tuples of arrays, updated in place.
    """
    t = begin_step(net, rec)
    if net.iscal[I_K] < N_INIT:  # initialisation: a node, unconditionally, and nothing else
        rec.ri[RI_CASE] = 0
        add_node(X, xi, net, rec, t)
    else:
        s1, s2, d1, d2, th1, th2 = find_winners(X, xi, net, rec, buf)
        link = edge_flag(net, rec, s1, s2, th1, th2)
        if d1 > th1 or d2 > th2:  # any(dists > simThresholds): a new node
            rec.ri[RI_CASE] = 1
            add_node(X, xi, net, rec, t)
        else:
            rec.ri[RI_CASE] = 2
            if link:
                add_edge(net, rec, s1, s2, th1, th2)
            increment_edge_ages(net, s1)
            s1 = delete_old_edges_plus(net, rec, buf, s1, track)  # deleteEdgeHandler
            update_winner_and_adjacent(X, xi, net, s1, t)
        # deleteNoiseHandler every deleteNodePeriod = 1 samples
        delete_noise_nodes_plus(net, rec, buf, t, track)
    if track:
        rec.ri[RI_NCLUSTERS] = components_into(net.nbr, net.deg, net.iscal[I_K], buf.labels, buf.stack)
    return 0


@jit
def run(
    X,
    start,
    Y,
    M,
    win_ts,
    born,
    ids,
    deg,
    nbr,
    age,
    iscal,
    fscal,
    ri,
    rf,
    del_rows,
    del_ages,
    del_ids,
    del_rec_ages,
    swept_ids,
    swept_pos,
    dmask,
    newrow,
    dist2,
    ubuf,
    ebuf,
    stack,
    mark,
    labels,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room (a
    node or a degree slot); the caller grows the arrays and calls again from
    there. When ``trace`` has rows, row ``i`` receives the summary of step
    ``i`` (columns ``TRACE_COLUMNS``; needs ``track``).
    """
    net = Net(Y, M, win_ts, born, ids, deg, nbr, age, iscal, fscal)
    rec = Rec(ri, rf, del_ids, del_rec_ages, swept_ids, swept_pos)
    buf = Buf(del_rows, del_ages, dmask, newrow, dist2, ubuf, ebuf, stack, mark, labels)
    cap = Y.shape[0]
    maxdeg = nbr.shape[1]
    for i in range(start, X.shape[0]):
        if iscal[I_K] + 1 > cap or iscal[I_MAXDEG] + 1 > maxdeg:
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
    "n_deleted",
    "n_swept",
    "s1",
    "s2",
    "dist1",
    "dist2",
    "threshold1",
    "threshold2",
    "link",
    "trust1",
    "trust2",
    "link_value1",
    "link_value2",
    "link_threshold1",
    "link_threshold2",
    "n_links_created",
    "component_edges",
    "p75",
    "iqr",
    "edge_deletion_threshold",
    "mean_deleted_edge_age",
    "n_isolated",
    "unutility_median",
    "unutility_upper",
    "noise_level",
    "node_deletion_threshold",
    "mean_deleted_node_unutility",
)


@jit(allocates=False)
def write_trace(trace, i, iscal, fscal, ri, rf):
    trace[i, 0] = iscal[I_T]
    trace[i, 1] = ri[RI_CASE]
    trace[i, 2] = iscal[I_K]
    trace[i, 3] = iscal[I_E]
    trace[i, 4] = ri[RI_NCLUSTERS]
    trace[i, 5] = ri[RI_NDELETED]
    trace[i, 6] = ri[RI_NSWEPT]
    trace[i, 7] = ri[RI_S1]
    trace[i, 8] = ri[RI_S2]
    trace[i, 9] = rf[RF_D1]
    trace[i, 10] = rf[RF_D2]
    trace[i, 11] = rf[RF_TH1]
    trace[i, 12] = rf[RF_TH2]
    trace[i, 13] = ri[RI_LINK] if ri[RI_LINK] >= 0 else math.nan
    trace[i, 14] = rf[RF_TRUST1]
    trace[i, 15] = rf[RF_TRUST2]
    trace[i, 16] = rf[RF_LINKV1]
    trace[i, 17] = rf[RF_LINKV2]
    trace[i, 18] = rf[RF_LINKTH1]
    trace[i, 19] = rf[RF_LINKTH2]
    trace[i, 20] = iscal[I_LINKS]
    trace[i, 21] = ri[RI_NCOMP] if ri[RI_NCOMP] >= 0 else math.nan
    trace[i, 22] = rf[RF_P75]
    trace[i, 23] = rf[RF_IQR]
    trace[i, 24] = rf[RF_EDGE_DEL_TH]
    trace[i, 25] = fscal[F_EDGE_AVG]
    trace[i, 26] = ri[RI_NISO] if ri[RI_NISO] >= 0 else math.nan
    trace[i, 27] = rf[RF_UT_CENTER]
    trace[i, 28] = rf[RF_UT_UPPER]
    trace[i, 29] = rf[RF_NOISE_LV]
    trace[i, 30] = rf[RF_NODE_DEL_TH]
    trace[i, 31] = fscal[F_NODE_TH]


@jit(allocates=False)
def nearest_nodes(X, Y, K, out):
    """Row of the nearest node (squared Euclidean distance, first on ties) for every row of X."""
    d = X.shape[1]
    for i in range(X.shape[0]):
        best = math.inf
        s = 0
        for k in range(K):
            acc = 0.0
            for j in range(d):
                diff = Y[k, j] - X[i, j]
                acc += diff * diff
            if acc < best:
                best = acc
                s = k
        out[i] = s

"""The one implementation of TCA's per-sample step (see :mod:`cae.algorithms.tca` for the algorithm).

Plain loops over preallocated arrays, compiled by :func:`cae._jit.jit` (or run
as ordinary Python, bit-identically). :class:`cae.algorithms.tca.TCA` calls
:func:`run` for every way of learning (``fit``, ``partial_fit``, ``learn_one``,
``learn_many``, ``learn_traced``) and :func:`end_of_call` from ``end_batch``.

:func:`step` is one pass of the loop of the reference's ``TCA.m``, each of
its phases a function named after the reference's own comments:
:func:`similarity_measurement` (``nodeCIM``, ``NstateCIM``),
:func:`add_node_alone` ("No clusters around input"), :func:`resonance_process`
(``while ~resonance``: :func:`vigilance_cim`, :func:`match_success` and
:func:`create_edge`, :func:`add_node_like_neighbours` when every node failed),
:func:`reconstruct` ("Topology Reconstruction": :func:`delete_isolated_nodes`,
:func:`delete_nodes_by_errcim`, :func:`delete_intersections`) and
:func:`update_cim_sig` ("Updates cimSig if there is no node inserted for a
certain period"). :func:`run` bundles the arrays into the named tuples
:data:`Net`, :data:`Rec`, :data:`Deleted` and :data:`Buf`.

State (rows ``[:K]`` live, in creation order): positions ``Y``, the
reference's ``CountNode`` (``C``, float: a node created after every candidate
failed gets the mean count of its neighbours), bandwidths ``sig``
(``adaptiveSig``), ``dil`` (``diligence``), ``err`` (``ErrCIM``), ``newedged``
(``NewEdgedNode``), stable ``ids`` and the neighbour lists ``deg``/``nbr``/
``age`` of :mod:`cae._graph` (TCA's edges have no age: every slot holds 1).
Scalars: ``iscal`` and ``fscal`` below. Two of them are exact caches that the
model file keeps and loading checks: ``F_SIGSUM`` is the sum of ``sig[:K]``
accumulated in row order (so the mean bandwidth is ``F_SIGSUM / K``, the very
value MATLAB's ``mean`` gives), and ``I_DILSUM``/``I_DILZEROS`` are the sum of
the diligences and the number of zeros among them.
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
    find_slot,
    plan_compaction,
)
from .._jit import HAVE_NUMBA, jit  # noqa: F401  (HAVE_NUMBA: which of the two ran)

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of nodes
I_T = 1  # samples seen (cumulative over calls)
I_E = 2  # number of edges
I_MAXDEG = 3  # an upper bound on every degree (never decreases)
I_NEXTID = 4  # next stable node id
I_LAMBDA = 5  # lambda, the topology construction cycle
I_DILSUM = 6  # sum of dil[:K]
I_DILZEROS = 7  # number of zeros in dil[:K]
N_ISCAL = 8

# ---- float scalars (fscal) ---------------------------------------------------
F_SIGINIT = 0  # sigma_init
F_SIGSUM = 1  # sum of sig[:K] in row order
N_FSCAL = 2

# ---- record scratch (ri / rf) ------------------------------------------------
RI_CASE = 0  # 1 new node (no node near), 2 resonance, 3 new node (every candidate failed)
RI_S1 = 1  # row of the resonating node (-1 if none)
RI_S2 = 2  # row of the node after it in CIM order (-1 if none was looked at)
RI_S1ID = 3
RI_S2ID = 4
RI_NEWROW = 5  # row of the created node, -1 if none
RI_NEWID = 6
RI_NCLOSE = 7  # NstateCIM: nodes with CIM(x, w, mean sigma) <= mean sigma
RI_NCAND = 8  # candidates tried
RI_EDGE = 9  # 0 no edge set, 1 s1-s2 created, 2 s1-s2 was already there
RI_RECON = 10  # 1 when the topology reconstruction ran at this step
RI_NDEL_ISO = 11  # nodes deleted as isolated
RI_NDEL_ERR = 12  # nodes deleted by ErrCIM
RI_NEDGES_DEL = 13  # edges deleted (with ErrCIM-deleted nodes or as intersecting)
RI_NEDGES_X = 14  # of which deleted as intersecting
RI_ADAPT = 15  # 1 when the bandwidths were adapted (and the diligences reset)
RI_NSIGCHG = 16  # bandwidths changed by the adaptation
RI_NKNN = 17  # neighbours averaged for a case-3 node
RI_NCLUSTERS = 18  # -1 unless tracking
RI_DILRESET = 19  # 1 when the diligences were reset (case 3 or adaptation)
N_RI = 20

RF_MEANSIG = 0  # mean sigma used for this sample (NaN for the first node)
RF_CIM_S1 = 1  # CIM(x, w_s1, mean sigma): s1's sort key
RF_RES_CIM = 2  # CIM(x, w_s1', sigma_s1): the vigilance test that resonated
RF_CIM_S2 = 3  # CIM(x, w_s2, sigma_s2): the edge test
RF_NEWSIG = 4  # the new node's sigma
RF_NEWCOUNT = 5  # the new node's count
RF_ERRTHR = 6  # 2 mean sigma of the ErrCIM deletion
RF_XSIGMA = 7  # the mean sigma of the intersection test
RF_MEANDIL = 8  # mean diligence after the step (before a reset)
RF_CND = 9  # cnd of the adaptation test
N_RF = 10

DONE = -1

NODE_ISOLATED = 1  # reasons a node was deleted
NODE_ERRCIM = 2
EDGE_NODE_DELETED = 1  # reasons an edge was deleted
EDGE_INTERSECTION = 2


# ------------------------------------------------------------------ similarity
@jit(allocates=False)
def cim(A, i, B, k, sigma):
    """CIM(A[i], B[k]) with bandwidth sigma: sqrt(1 - mean_j exp(-(a_j - b_j)^2 / (2 sigma^2)))."""
    d = A.shape[1]
    two_s2 = 2.0 * (sigma * sigma)
    acc = 0.0
    for j in range(d):
        diff = A[i, j] - B[k, j]
        acc += math.exp(-(diff * diff) / two_s2)
    v = 1.0 - acc / d
    if v > 0.0:
        return math.sqrt(v)
    return 0.0


@jit(allocates=False)
def cim_vec(x, w, sigma):
    """CIM between two 1-D arrays."""
    d = x.shape[0]
    two_s2 = 2.0 * (sigma * sigma)
    acc = 0.0
    for j in range(d):
        diff = x[j] - w[j]
        acc += math.exp(-(diff * diff) / two_s2)
    v = 1.0 - acc / d
    if v > 0.0:
        return math.sqrt(v)
    return 0.0


@jit(allocates=False)
def sq_dists(X, xi, Y, K, dist2):
    """Squared Euclidean distances from X[xi] to the K nodes (features in order)."""
    for k in range(K):
        dist2[k] = 0.0
    for j in range(X.shape[1]):
        xj = X[xi, j]
        for k in range(K):
            diff = xj - Y[k, j]
            dist2[k] += diff * diff


@jit(allocates=False)
def cim_cut(d, sigma, threshold):
    """A squared distance beyond which CIM(., ., sigma) is certainly above ``threshold``.

    sum_j exp(-z_j) <= (d - 1) + exp(-sum_j z_j) (convexity), so CIM^2 >=
    (1 - exp(-dist^2 / (2 sigma^2))) / d; the margins are far above rounding.
    Infinite when no distance guarantees it.
    """
    q = 1.0 - d * (threshold * threshold * (1.0 + 1e-6) + 1e-12)
    if q <= 0.0:
        return math.inf
    return 2.0 * (sigma * sigma) * (-math.log(q)) * (1.0 + 1e-9)


@jit(allocates=False)
def row_sum(v, K):
    """v[0] + v[1] + ... in row order (MATLAB's sum of a short row)."""
    s = 0.0
    for k in range(K):
        s += v[k]
    return s


# ------------------------------------------------------------------ ordering
@jit(allocates=False)
def _before(key, a, b):
    """(key[a], a) < (key[b], b): ascending CIM, ties by row (MATLAB's stable sort)."""
    return key[a] < key[b] or (key[a] == key[b] and a < b)


@jit(allocates=False)
def _sift_down(heap, n, pos, key):
    while True:
        child = 2 * pos + 1
        if child >= n:
            return
        right = child + 1
        if right < n and _before(key, heap[right], heap[child]):
            child = right
        if _before(key, heap[child], heap[pos]):
            tmp = heap[pos]
            heap[pos] = heap[child]
            heap[child] = tmp
            pos = child
        else:
            return


@jit(allocates=False)
def _heap_pop(heap, n, key):
    top = heap[0]
    n -= 1
    heap[0] = heap[n]
    _sift_down(heap, n, 0, key)
    return top


@jit(allocates=False)
def sorted_neighbours(nbr, deg, a, out):
    """a's neighbours in ascending row order (MATLAB ``find`` on a row of the adjacency matrix)."""
    n = deg[a]
    for p in range(n):
        v = nbr[a, p]
        q = p
        while q > 0 and out[q - 1] > v:
            out[q] = out[q - 1]
            q -= 1
        out[q] = v
    return n


# ------------------------------------------------------------------ the arrays a step works on
#: The network: what the model file keeps (see :class:`cae.algorithms.tca.TCANetwork`).
Net = namedtuple("Net", "Y C sig dil err newedged ids deg nbr age iscal fscal")
#: What one step did: the scalars ``ri``/``rf``, a case-3 node's neighbours, the winner's move, the bandwidths
#: the adaptation changed.
Rec = namedtuple("Rec", "ri rf knn_ids moved sig_ids sig_before sig_after")
#: What a reconstruction deleted: nodes (id, reason, position) and edges (ids, reason).
Deleted = namedtuple("Deleted", "node_ids node_reason node_pos edge_a edge_b edge_reason")
#: Scratch space.
Buf = namedtuple("Buf", "cims dist2 heap wbuf mask newrow labels grp cstart sortbuf nb1 nb2")


# ------------------------------------------------------------------ nodes
@jit(allocates=False)
def recount_diligence(dil, K, iscal):
    s = 0
    z = 0
    for k in range(K):
        s += dil[k]
        if dil[k] == 0:
            z += 1
    iscal[I_DILSUM] = s
    iscal[I_DILZEROS] = z


@jit(allocates=False)
def append_node(X, xi, net, ri, count, sigma):
    """The reference's "Add Node": weight = input, CountNode = count, adaptiveSig = sigma, diligence 1,
    ErrCIM 1, not newly edged, no edges. Returns its row."""
    iscal = net.iscal
    K = iscal[I_K]
    for j in range(X.shape[1]):
        net.Y[K, j] = X[xi, j]
    net.C[K] = count
    net.sig[K] = sigma
    net.dil[K] = 1
    net.err[K] = 1.0
    net.newedged[K] = 0
    net.deg[K] = 0
    net.ids[K] = iscal[I_NEXTID]
    iscal[I_NEXTID] += 1
    iscal[I_K] = K + 1
    iscal[I_DILSUM] += 1
    net.fscal[F_SIGSUM] += sigma  # the row-order sum, extended by one term
    ri[RI_NEWROW] = K
    ri[RI_NEWID] = net.ids[K]
    return K


@jit(allocates=False)
def delete_nodes(net, mask, newrow):
    """Delete the rows where ``mask`` is set (survivors keep their order); returns the edges lost."""
    iscal = net.iscal
    K = iscal[I_K]
    n = plan_compaction(mask, K, newrow)
    compact_rows_2d(net.Y, newrow, K)
    compact_rows(net.C, newrow, K)
    compact_rows(net.sig, newrow, K)
    compact_rows(net.dil, newrow, K)
    compact_rows(net.err, newrow, K)
    compact_rows(net.newedged, newrow, K)
    compact_rows(net.ids, newrow, K)
    lost = compact_graph(net.nbr, net.age, net.deg, newrow, K) // 2
    iscal[I_K] = n
    iscal[I_E] -= lost
    return lost


# ------------------------------------------------------------------ reconstruction
@jit(allocates=False)
def intersects(Y, a, b, c, e):
    """The reference's ``findIntersection`` on features 1 and 2: segment a-b strictly crosses c-e."""
    F1 = Y[b, 0] - Y[e, 0]
    F2 = Y[b, 1] - Y[e, 1]
    M11 = Y[b, 0] - Y[a, 0]
    M21 = Y[b, 1] - Y[a, 1]
    M12 = Y[c, 0] - Y[e, 0]
    M22 = Y[c, 1] - Y[e, 1]
    deter = M11 * M22 - M12 * M21
    if deter == 0.0:  # lambda and gamma are +-Inf or NaN in MATLAB: no crossing
        return False
    lam = -(F2 * M12 - F1 * M22) / deter
    gam = (F2 * M11 - F1 * M21) / deter
    return 0.0 < lam and lam < 1.0 and 0.0 < gam and gam < 1.0


@jit(allocates=False)
def delete_intersections(net, sigma, nb1, nb2, dels, ri):
    """The reference's ``DeleteIntersection``: for each newly edged node dn (ascending), every edge
    t2-e among dn's neighbours' edges that crosses an edge dn-b: the one of larger CIM goes."""
    Y, ids, deg, nbr, age, newedged, iscal = net.Y, net.ids, net.deg, net.nbr, net.age, net.newedged, net.iscal
    K = iscal[I_K]
    nx = 0
    for dn in range(K):
        if newedged[dn] != 1:
            continue
        n1 = sorted_neighbours(nbr, deg, dn, nb1)  # as they are at the start of dn's turn
        for m in range(n1):
            b = nb1[m]
            for h in range(n1):
                t2 = nb1[h]
                n2 = sorted_neighbours(nbr, deg, t2, nb2)  # as they are now
                for k in range(n2):
                    e = nb2[k]
                    if intersects(Y, dn, b, t2, e):
                        cim1 = cim(Y, dn, Y, b, sigma)
                        cim2 = cim(Y, t2, Y, e, sigma)
                        if cim2 >= cim1:
                            u, v = t2, e
                        else:
                            u, v = dn, b
                        if disconnect(nbr, age, deg, u, v):
                            iscal[I_E] -= 1
                            r = ri[RI_NEDGES_DEL]
                            dels.edge_a[r] = ids[u]
                            dels.edge_b[r] = ids[v]
                            dels.edge_reason[r] = EDGE_INTERSECTION
                            ri[RI_NEDGES_DEL] = r + 1
                            nx += 1
    for k in range(K):
        newedged[k] = 0
    ri[RI_NEDGES_X] += nx


@jit(allocates=False)
def record_deleted_nodes(net, mask, reason, ri, dels):
    """Write the nodes about to be deleted (``mask``) into the record, and, for ErrCIM deletions,
    their edges (each once)."""
    nd = ri[RI_NDEL_ISO] + ri[RI_NDEL_ERR]
    ne = ri[RI_NEDGES_DEL]
    for k in range(net.iscal[I_K]):
        if not mask[k]:
            continue
        dels.node_ids[nd] = net.ids[k]
        dels.node_reason[nd] = reason
        for j in range(net.Y.shape[1]):
            dels.node_pos[nd, j] = net.Y[k, j]
        nd += 1
        if reason == NODE_ERRCIM:
            for p in range(net.deg[k]):
                v = net.nbr[k, p]
                if not mask[v] or k < v:
                    dels.edge_a[ne] = net.ids[k]
                    dels.edge_b[ne] = net.ids[v]
                    dels.edge_reason[ne] = EDGE_NODE_DELETED
                    ne += 1


@jit(allocates=False)
def delete_isolated_nodes(net, ri, dels, mask, newrow):
    """The reference's "Delete Node based on number of neighbors": nodes without edges go, unless
    every node would."""
    K = net.iscal[I_K]
    n_iso = 0
    for k in range(K):
        mask[k] = net.deg[k] == 0
        if mask[k]:
            n_iso += 1
    if n_iso > 0 and n_iso != K:
        record_deleted_nodes(net, mask, NODE_ISOLATED, ri, dels)
        delete_nodes(net, mask, newrow)
        ri[RI_NDEL_ISO] += n_iso
        net.fscal[F_SIGSUM] = row_sum(net.sig, net.iscal[I_K])


@jit(allocates=False)
def delete_nodes_by_errcim(net, ri, rf, dels, mask, newrow):
    """The reference's "Delete Node based on ErrCIM": nodes whose ErrCIM exceeds twice the mean
    bandwidth go (with their edges), unless every node would."""
    K = net.iscal[I_K]
    thr = net.fscal[F_SIGSUM] / K * 2.0
    rf[RF_ERRTHR] = thr
    n_err = 0
    for k in range(K):
        mask[k] = net.err[k] > thr
        if mask[k]:
            n_err += 1
    if n_err > 0 and n_err != K:
        record_deleted_nodes(net, mask, NODE_ERRCIM, ri, dels)
        lost = delete_nodes(net, mask, newrow)
        ri[RI_NDEL_ERR] += n_err
        ri[RI_NEDGES_DEL] += lost
        net.fscal[F_SIGSUM] = row_sum(net.sig, net.iscal[I_K])


@jit(allocates=False)
def reconstruct(net, ri, rf, dels, mask, newrow, nb1, nb2):
    """The reference's "Topology Reconstruction": isolated nodes, then ErrCIM > 2 mean sigma, then
    crossing edges (features 1 and 2; a 1-feature stream has no plane [fix]).

    The record counters in ``ri`` are added to (a step starts them at 0).
    """
    delete_isolated_nodes(net, ri, dels, mask, newrow)
    delete_nodes_by_errcim(net, ri, rf, dels, mask, newrow)
    K = net.iscal[I_K]
    sigma = net.fscal[F_SIGSUM] / K
    rf[RF_XSIGMA] = sigma
    if net.Y.shape[1] >= 2:
        delete_intersections(net, sigma, nb1, nb2, dels, ri)
    else:
        for k in range(K):
            net.newedged[k] = 0
    recount_diligence(net.dil, K, net.iscal)


# ------------------------------------------------------------------ bandwidths
@jit(allocates=False)
def _members_mean_sigma(sig, grp, lo, hi, dil, meand, upper):
    """Mean sigma over the component's members (rows grp[lo:hi]) on one side of the mean diligence."""
    s = 0.0
    n = 0
    for q in range(lo, hi):
        k = grp[q]
        if (dil[k] >= meand) == upper:
            s += sig[k]
            n += 1
    return s / n


@jit(allocates=False)
def group_by_component(net, K, labels, grp, start):
    """The rows grouped by connected component, ascending within each (MATLAB ``find(LebelCluster ==
    k)``): component c holds ``grp[start[c]:start[c + 1]]`` (the last one up to K). Returns their count."""
    nc = components_into(net.nbr, net.deg, K, labels, grp)  # grp: the stack, before it holds the groups
    for c in range(nc + 1):
        start[c] = 0
    for k in range(K):
        start[labels[k] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    for k in range(K):
        c = labels[k]
        grp[start[c]] = k
        start[c] += 1
    for c in range(nc - 1, 0, -1):
        start[c] = start[c - 1]
    start[0] = 0
    return nc


@jit(allocates=False)
def median_diligence(dil, grp, lo, hi, sortbuf):
    """Median of the diligences of rows grp[lo:hi] (insertion sort)."""
    n = hi - lo
    for q in range(lo, hi):
        v = float(dil[grp[q]])
        p = q - lo
        while p > 0 and sortbuf[p - 1] > v:
            sortbuf[p] = sortbuf[p - 1]
            p -= 1
        sortbuf[p] = v
    h = n // 2
    return sortbuf[h] if n % 2 == 1 else (sortbuf[h - 1] + sortbuf[h]) / 2.0


@jit(allocates=False)
def adapt_bandwidths(net, rec, buf, K):
    """The reference's bandwidth update, component by component (rows ascending in each): where the
    diligences are not uniform (|0.5 - median / (median + mean)| beyond 0.05), the dense side's
    bandwidths move one way and the sparse side's the other, by 0.1 |uniformDegree| times their
    side's mean (recomputed after each change [ref]), clamped to [sigma_init / 2, 3 sigma_init / 2]."""
    sig, dil, grp, start = net.sig, net.dil, buf.grp, buf.cstart
    s_init = net.fscal[F_SIGINIT]
    nc = group_by_component(net, K, buf.labels, grp, start)
    lo_clamp = s_init * 0.5
    hi_clamp = s_init * 1.5
    nchg = 0
    for c in range(nc):
        lo = start[c]
        hi = start[c + 1] if c + 1 < nc else K
        total = 0
        for q in range(lo, hi):
            total += dil[grp[q]]
        meand = total / (hi - lo)
        med = median_diligence(dil, grp, lo, hi, buf.sortbuf)
        den = med + meand
        if den == 0.0:  # 0/0: uniformDegree is NaN and neither branch runs
            continue
        ud = med / den
        rate = abs(ud) * 0.1
        if 0.5 - ud > 0.05:
            up_sign = -1.0  # dense nodes narrow, sparse nodes widen
        elif 0.5 - ud <= -0.05:
            up_sign = 1.0
        else:
            continue
        for side in range(2):
            upper = side == 0
            sign = up_sign if upper else -up_sign
            for q in range(lo, hi):
                k = grp[q]
                if (dil[k] >= meand) != upper:
                    continue
                before = sig[k]
                mu = _members_mean_sigma(sig, grp, lo, hi, dil, meand, upper)  # with the values changed so far
                if sign < 0.0:
                    sig[k] = sig[k] - rate * mu
                    if sig[k] <= lo_clamp:
                        sig[k] = lo_clamp
                else:
                    sig[k] = sig[k] + rate * mu
                    if sig[k] >= hi_clamp:
                        sig[k] = hi_clamp
                if sig[k] != before:
                    rec.sig_ids[nchg] = net.ids[k]
                    rec.sig_before[nchg] = before
                    rec.sig_after[nchg] = sig[k]
                    nchg += 1
    rec.ri[RI_NSIGCHG] = nchg


@jit(allocates=False)
def update_cim_sig(net, rec, buf):
    """The reference's "Updates cimSig if there is no node inserted for a certain period": when
    mean(diligence) > 10 cnd (cnd = min(diligence), or 1 if a diligence is 0) and K > 1, adapt the
    bandwidths, then reset every diligence."""
    iscal, dil, rf = net.iscal, net.dil, rec.rf
    K = iscal[I_K]
    meandil = iscal[I_DILSUM] / K
    rf[RF_MEANDIL] = meandil
    if not (K > 1 and meandil > 10.0):  # mean > 10 cnd needs mean > 10, as cnd >= 1
        return
    if iscal[I_DILZEROS] > 0:
        cnd = 1
    else:
        cnd = dil[0]
        for k in range(1, K):
            if dil[k] < cnd:
                cnd = dil[k]
    rf[RF_CND] = cnd
    if meandil > cnd * 10.0:
        adapt_bandwidths(net, rec, buf, K)
        net.fscal[F_SIGSUM] = row_sum(net.sig, K)
        for k in range(K):
            dil[k] = 0
        iscal[I_DILSUM] = 0
        iscal[I_DILZEROS] = K
        rec.ri[RI_ADAPT] = 1
        rec.ri[RI_DILRESET] = 1


# ------------------------------------------------------------------ the resonance process
@jit(allocates=False)
def similarity_measurement(X, xi, net, rec, buf, sbar):
    """The reference's ``nodeCIM = CIM(input, weight, mean(adaptiveSig))``, its sort and ``NstateCIM``.

    Only nodes that can be within mean sigma get their CIM (the rest are -1,
    computed if the walk goes that far; see :func:`cim_cut`). Returns
    ``(nclose, first, second)``: NstateCIM and the first two rows in CIM order
    among those computed (ascending CIM, ties by row).
    """
    K = net.iscal[I_K]
    cims, dist2 = buf.cims, buf.dist2
    sq_dists(X, xi, net.Y, K, dist2)
    cut = cim_cut(X.shape[1], sbar, sbar)
    first = -1
    second = -1
    c1 = math.inf
    c2 = math.inf
    nclose = 0
    for k in range(K):
        if dist2[k] > cut:
            cims[k] = -1.0  # certainly > mean sigma; computed only if the walk goes that far
            continue
        c = cim(X, xi, net.Y, k, sbar)
        cims[k] = c
        if c <= sbar:
            nclose += 1
        if c < c1:
            second = first
            c2 = c1
            first = k
            c1 = c
        elif c < c2:
            second = k
            c2 = c
    rec.ri[RI_NCLOSE] = nclose
    return nclose, first, second


@jit(allocates=False)
def vigilance_cim(X, xi, net, wbuf, s1):
    """The reference's ``bestWeight`` (s1 moved towards x by 1/(CountNode + 1)), into ``wbuf``, and
    ``bestCIM = CIM(input, bestWeight, adaptiveSig(s1))``, returned."""
    cc = net.C[s1]
    a = cc / (cc + 1.0)
    b = 1.0 / (cc + 1.0)
    for j in range(X.shape[1]):
        wbuf[j] = a * net.Y[s1, j] + b * X[xi, j]
    return cim_vec(X[xi], wbuf, net.sig[s1])


@jit(allocates=False)
def match_success(net, rec, buf, s1, res):
    """The reference's "Match Success": weight(s1) = bestWeight, CountNode and diligence + 1, and
    ErrCIM = min(ErrCIM, CIM(w', w')) -- which is exactly 0, the winner having moved first [ref]."""
    ri, rf, iscal, Y, wbuf, moved = rec.ri, rec.rf, net.iscal, net.Y, buf.wbuf, rec.moved
    ri[RI_CASE] = 2
    ri[RI_S1] = s1
    ri[RI_S1ID] = net.ids[s1]
    rf[RF_CIM_S1] = buf.cims[s1]
    rf[RF_RES_CIM] = res
    for j in range(Y.shape[1]):
        moved[0, j] = Y[s1, j]
        Y[s1, j] = wbuf[j]
        moved[1, j] = wbuf[j]
    net.C[s1] = net.C[s1] + 1.0
    if net.dil[s1] == 0:
        iscal[I_DILZEROS] -= 1
    net.dil[s1] += 1
    iscal[I_DILSUM] += 1
    if net.err[s1] > 0.0:
        net.err[s1] = 0.0


@jit(allocates=False)
def create_edge(X, xi, net, rec, s1, s2, sbar):
    """The reference's "Create an edge between s1 and s2 nodes": when s2 (the next node in CIM order)
    passes its own vigilance test, CIM(x, w_s2, sigma_s2) <= mean sigma, the edge s1-s2 is set and s1
    is marked newly edged."""
    ri = rec.ri
    ri[RI_S2] = s2
    ri[RI_S2ID] = net.ids[s2]
    c2t = cim(X, xi, net.Y, s2, net.sig[s2])
    rec.rf[RF_CIM_S2] = c2t
    if not c2t <= sbar:
        return
    nbr, deg, iscal = net.nbr, net.deg, net.iscal
    if find_slot(nbr, deg, s1, s2) >= 0:
        ri[RI_EDGE] = 2
    else:
        iscal[I_MAXDEG] = max(iscal[I_MAXDEG], connect(nbr, net.age, deg, s1, s2, 1))
        iscal[I_E] += 1
        ri[RI_EDGE] = 1
    net.newedged[s1] = 1


@jit(allocates=False)
def add_node_like_neighbours(X, xi, net, rec, buf):
    """The reference's "Match Fail" at the last node: a new node whose CountNode and adaptiveSig are
    the means over its 3 nearest nodes (Euclidean, ties by row); every diligence is then reset, the new
    node's too (``diligence(1, :) = zeros(size(numNodes))`` is a scalar 0 [ref])."""
    K = net.iscal[I_K]
    knn_ids, dist2 = rec.knn_ids, buf.dist2
    rec.ri[RI_CASE] = 3
    nk = 3 if K >= 3 else K
    rec.ri[RI_NKNN] = nk
    for r in range(nk):  # selection: nearest first, ties by row
        best = -1
        for k in range(K):
            taken = False
            for q in range(r):
                if knn_ids[q] == k:
                    taken = True
            if not taken and (best < 0 or dist2[k] < dist2[best]):
                best = k
        knn_ids[r] = best
    csum = 0.0
    ssum = 0.0
    for r in range(nk):
        csum += net.C[knn_ids[r]]
        ssum += net.sig[knn_ids[r]]
    count = csum / nk
    sigma = ssum / nk
    for r in range(nk):
        knn_ids[r] = net.ids[knn_ids[r]]
    append_node(X, xi, net, rec.ri, count, sigma)
    rec.rf[RF_NEWSIG] = sigma
    rec.rf[RF_NEWCOUNT] = count
    for k in range(K + 1):
        net.dil[k] = 0
    net.iscal[I_DILSUM] = 0
    net.iscal[I_DILZEROS] = K + 1
    rec.ri[RI_DILRESET] = 1


@jit(allocates=False)
def next_in_cim_order(X, xi, net, buf, first, nheap, sbar):
    """The reference's ``currentSortedIndex + 1``: the next node in CIM order after a failed vigilance
    test. The rest of the order is a heap, built (with every missing CIM) at the first failure.
    Returns ``(row, heap size)``."""
    K = net.iscal[I_K]
    cims, heap = buf.cims, buf.heap
    if nheap < 0:
        for k in range(K):  # now every CIM is needed
            if cims[k] < 0.0:
                cims[k] = cim(X, xi, net.Y, k, sbar)
        nheap = 0
        for k in range(K):
            if k != first:
                heap[nheap] = k
                nheap += 1
        for p in range(nheap // 2 - 1, -1, -1):
            _sift_down(heap, nheap, p, cims)
    cand = _heap_pop(heap, nheap, cims)
    return cand, nheap - 1


@jit(allocates=False)
def resonance_process(X, xi, net, rec, buf, sbar, nclose, first, second):
    """The reference's ``while ~resonance``: walk the nodes in CIM order until one passes the vigilance
    test (match success, then the edge to the next node in the order when NstateCIM >= 2), or every
    node has failed (a new node like its neighbours)."""
    K = net.iscal[I_K]
    cand = first
    pos = 1  # 1-based position of cand in the order
    nheap = -1  # the heap of the rest of the order is built on the first failure
    while True:
        rec.ri[RI_NCAND] = pos
        res = vigilance_cim(X, xi, net, buf.wbuf, cand)
        if res <= sbar:  # resonance
            match_success(net, rec, buf, cand, res)
            if nclose >= 2:
                s2 = -1
                if nheap < 0:
                    s2 = second
                elif nheap > 0:
                    s2 = buf.heap[0]
                # else: cand was the last node in the order; the reference indexes past the end [fix]
                if s2 >= 0:
                    create_edge(X, xi, net, rec, cand, s2, sbar)
            return
        if pos == K:  # every node failed
            add_node_like_neighbours(X, xi, net, rec, buf)
            return
        cand, nheap = next_in_cim_order(X, xi, net, buf, first, nheap, sbar)
        pos += 1


# ------------------------------------------------------------------ one sample
@jit(allocates=False)
def begin_step(net, rec):
    """t <- t + 1 and a clean record; returns t."""
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
    ri[RI_NCLUSTERS] = -1
    return t


@jit(allocates=False)
def add_node_alone(X, xi, net, rec, sigma):
    """The reference's "Add Node" when no node is around x (NstateCIM == 0), or when there is no node
    at all (the first node, with initSig): count 1, the given bandwidth."""
    rec.ri[RI_CASE] = 1
    append_node(X, xi, net, rec.ri, 1.0, sigma)
    rec.rf[RF_NEWSIG] = sigma
    rec.rf[RF_NEWCOUNT] = 1.0


@jit(allocates=False)
def step(X, xi, net, rec, dels, buf, track):
    """Learn the sample ``X[xi]``: one pass of ``TCA.m``'s loop, one named phase each.

    ``net``, ``rec``, ``dels`` and ``buf`` are the :data:`Net`, :data:`Rec`,
    :data:`Deleted` and :data:`Buf` tuples of arrays, updated in place.
    """
    t = begin_step(net, rec)
    if net.iscal[I_K] == 0:  # "If there is no node in the space": initSig
        net.fscal[F_SIGSUM] = 0.0
        add_node_alone(X, xi, net, rec, net.fscal[F_SIGINIT])
    else:
        sbar = net.fscal[F_SIGSUM] / net.iscal[I_K]  # mean(adaptiveSig)
        rec.rf[RF_MEANSIG] = sbar
        nclose, first, second = similarity_measurement(X, xi, net, rec, buf, sbar)
        if nclose == 0:  # "No clusters around input"
            add_node_alone(X, xi, net, rec, sbar)
        else:
            resonance_process(X, xi, net, rec, buf, sbar, nclose, first, second)
    if t % net.iscal[I_LAMBDA] == 0:  # "Topology Reconstruction" every Lambda samples (t is cumulative)
        rec.ri[RI_RECON] = 1
        reconstruct(net, rec.ri, rec.rf, dels, buf.mask, buf.newrow, buf.nb1, buf.nb2)
    update_cim_sig(net, rec, buf)
    if track:
        rec.ri[RI_NCLUSTERS] = components_into(net.nbr, net.deg, net.iscal[I_K], buf.labels, buf.heap)
    return 0


@jit
def run(
    X,
    start,
    Y,
    C,
    sig,
    dil,
    err,
    newedged,
    ids,
    deg,
    nbr,
    age,
    iscal,
    fscal,
    ri,
    rf,
    cims,
    dist2,
    heap,
    wbuf,
    mask,
    newrow,
    labels,
    grp,
    cstart,
    sortbuf,
    nb1,
    nb2,
    knn_ids,
    moved,
    rec_node_ids,
    rec_node_reason,
    rec_node_pos,
    rec_edge_a,
    rec_edge_b,
    rec_edge_reason,
    rec_sig_ids,
    rec_sig_before,
    rec_sig_after,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room (a
    node or a neighbour slot); the caller grows the arrays and calls again
    from there. When ``trace`` has rows, row ``i`` receives the summary of
    step ``i`` (columns ``TRACE_COLUMNS``).
    """
    net = Net(Y, C, sig, dil, err, newedged, ids, deg, nbr, age, iscal, fscal)
    rec = Rec(ri, rf, knn_ids, moved, rec_sig_ids, rec_sig_before, rec_sig_after)
    dels = Deleted(rec_node_ids, rec_node_reason, rec_node_pos, rec_edge_a, rec_edge_b, rec_edge_reason)
    buf = Buf(cims, dist2, heap, wbuf, mask, newrow, labels, grp, cstart, sortbuf, nb1, nb2)
    cap = Y.shape[0]
    maxdeg = nbr.shape[1]
    for i in range(start, X.shape[0]):
        if iscal[I_K] + 1 > cap or iscal[I_MAXDEG] + 1 > maxdeg:
            return i
        step(X, i, net, rec, dels, buf, track)
        if trace.shape[0] > 0:
            write_trace(trace, i, iscal, fscal, ri, rf)
    return DONE


@jit
def end_of_call(
    Y,
    C,
    sig,
    dil,
    err,
    newedged,
    ids,
    deg,
    nbr,
    age,
    iscal,
    fscal,
    ri,
    rf,
    mask,
    newrow,
    nb1,
    nb2,
    rec_node_ids,
    rec_node_reason,
    rec_node_pos,
    rec_edge_a,
    rec_edge_b,
    rec_edge_reason,
):
    """What the reference does when one call of ``TCA.m`` returns: the three deletions."""
    for i in range(ri.shape[0]):
        ri[i] = 0
    for i in range(rf.shape[0]):
        rf[i] = math.nan
    if iscal[I_K] > 0:
        net = Net(Y, C, sig, dil, err, newedged, ids, deg, nbr, age, iscal, fscal)
        dels = Deleted(rec_node_ids, rec_node_reason, rec_node_pos, rec_edge_a, rec_edge_b, rec_edge_reason)
        reconstruct(net, ri, rf, dels, mask, newrow, nb1, nb2)


TRACE_COLUMNS = (
    "t",
    "case",
    "n_nodes",
    "n_edges",
    "n_clusters",
    "n_deleted",
    "n_swept",
    "mean_sigma",
    "n_close",
    "n_candidates",
    "s1",
    "s2",
    "cim_s1",
    "resonance_cim",
    "cim_s2",
    "edge",
    "reconstruction",
    "n_deleted_isolated",
    "n_deleted_errcim",
    "n_deleted_intersection",
    "mean_diligence",
    "sigma_adapted",
    "n_sigma_changed",
)


@jit(allocates=False)
def write_trace(trace, i, iscal, fscal, ri, rf):
    trace[i, 0] = iscal[I_T]
    trace[i, 1] = ri[RI_CASE]
    trace[i, 2] = iscal[I_K]
    trace[i, 3] = iscal[I_E]
    trace[i, 4] = ri[RI_NCLUSTERS]
    trace[i, 5] = ri[RI_NEDGES_DEL]
    trace[i, 6] = ri[RI_NDEL_ISO] + ri[RI_NDEL_ERR]
    trace[i, 7] = rf[RF_MEANSIG]
    trace[i, 8] = ri[RI_NCLOSE]
    trace[i, 9] = ri[RI_NCAND]
    trace[i, 10] = ri[RI_S1]
    trace[i, 11] = ri[RI_S2]
    trace[i, 12] = rf[RF_CIM_S1]
    trace[i, 13] = rf[RF_RES_CIM]
    trace[i, 14] = rf[RF_CIM_S2]
    trace[i, 15] = ri[RI_EDGE]
    trace[i, 16] = ri[RI_RECON]
    trace[i, 17] = ri[RI_NDEL_ISO]
    trace[i, 18] = ri[RI_NDEL_ERR]
    trace[i, 19] = ri[RI_NEDGES_X]
    trace[i, 20] = rf[RF_MEANDIL]
    trace[i, 21] = ri[RI_ADAPT]
    trace[i, 22] = ri[RI_NSIGCHG]


# ------------------------------------------------------------------ prediction
@jit(allocates=False)
def nearest_nodes(X, Y, K, sigma, out, dist2):
    """Row of the nearest node by CIM(x, w, sigma) for every row of X (the first on ties).

    Exactly the argmin over all K nodes; nodes whose CIM is provably larger
    than that of the Euclidean-nearest node are skipped (see :func:`cim_cut`).
    """
    d = X.shape[1]
    for i in range(X.shape[0]):
        sq_dists(X, i, Y, K, dist2)
        i1 = 0
        for k in range(1, K):
            if dist2[k] < dist2[i1]:
                i1 = k
        cut = cim_cut(d, sigma, cim(X, i, Y, i1, sigma))
        best = -1
        bv = math.inf
        for k in range(K):
            if dist2[k] > cut:
                continue
            c = cim(X, i, Y, k, sigma)
            if c < bv:
                bv = c
                best = k
        out[i] = best

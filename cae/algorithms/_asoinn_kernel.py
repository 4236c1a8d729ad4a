"""The one implementation of ASOINN's per-sample step: Shen's ``fastSOINN.m``, streamed.

:class:`cae.algorithms.asoinn.ASOINN` runs this kernel. What one step does, and every place where it
follows a quirk of the reference or fixes it, is in ``docs/baselines/asoinn.md`` (and, briefly, in the
module docstring of :mod:`cae.algorithms.asoinn`).

Conventions: plain loops over preallocated arrays (numba-compiled through :func:`cae._jit.jit`, or
plain Python, bit-identically); nodes in rows ``[:K]`` in creation order (deleting nodes compacts
them, keeping the order, as MATLAB's row deletion does); undirected edges in the neighbour lists of
:mod:`cae._graph`, whose ``age`` is the reference's ``age`` matrix value (1 when an edge is made or
re-linked, +1 each time the winner's edges age). Distances are EUCLIDEAN (the square root of the sum of
squares over the features in order), as the reference computes them; a node's similarity threshold
``th`` is STORED and only changes when the node is the winner or the runner-up.

:func:`step` is one pass of the reference's loop, a named function for each of its parts
(:func:`two_node_start`, :func:`find_winners`, :func:`link_winners`, :func:`age_winner_edges`,
:func:`remove_old_edges`, :func:`winner_moves`, :func:`reset_thresholds`, :func:`denoise`); :func:`run`
bundles the arrays into the named tuples :data:`Net`, :data:`Rec` and :data:`Buf`.
"""

import math
from collections import namedtuple

from .._graph import compact_graph, compact_rows, components, connect, disconnect, find_slot, plan_compaction
from .._jit import HAVE_NUMBA, jit  # noqa: F401

# ---- constants of the reference ----------------------------------------------
SENTINEL = 1000000.0  # a new node's threshold, and the distance the winner is given to find the runner-up

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of nodes
I_T = 1  # samples seen (the reference's i, cumulative over calls)
I_E = 2  # number of edges
I_MAXDEG = 3  # an upper bound on every node's degree (never decreases)
I_NEXTID = 4  # next stable node id
I_LAMBDA = 5  # λ, the denoising cycle
I_STARTING = 6  # 1 while the two-node start waits for its second sample
I_EDGEDEL = 7  # edges deleted so far (by age)
I_NODEDEL = 8  # nodes deleted so far (by denoising)
I_PASSES = 9  # denoising passes run so far (periodic and final)
I_SETTLED = 10  # 1 when no sample has been learned since the last denoising pass
N_ISCAL = 11

# ---- float scalars (fscal) ---------------------------------------------------
F_AMAX = 0  # a_max (the reference's agemax)
F_C = 1  # c, the denoising factor for nodes with one neighbour
N_FSCAL = 2

# ---- record scratch (ri / rf) ------------------------------------------------
RI_CASE = 0  # 0 initial node (the two-node start), 1 new node, 2 winner update
RI_S1 = 1  # rows of the winner and the runner-up (-1 in case 0; equal when only one node exists)
RI_S2 = 2
RI_S1ID = 3
RI_S2ID = 4
RI_NEWROW = 5
RI_NEWID = 6
RI_EDGE = 7  # 0 no edge change, 1 s1-s2 created, 2 s1-s2 existed (age reset to 1)
RI_NDELETED = 8  # edges deleted (by age)
RI_NSWEPT = 9  # nodes deleted (by the denoising)
RI_NCLUSTERS = 10  # -1 unless tracking
RI_DENOISED = 11  # 1 when a denoising pass ran at this step
N_RI = 12

RF_D1 = 0  # Euclidean distance of x to s1
RF_D2 = 1  # to s2 (SENTINEL when s2 is s1)
RF_TH1 = 2  # s1's stored threshold, as the novelty test read it
RF_TH2 = 3
RF_NEWTH1 = 4  # s1's threshold after the step's reset
RF_NEWTH2 = 5
RF_MEANM = 6  # mean win count at the denoising (NaN if none ran)
N_RF = 7

# status codes returned by run()
DONE = -1


# ------------------------------------------------------------------ distances
@jit
def node_distance(Y, a, b):
    """``norm(node(a,:) - node(b,:))``: the square root of the sum of squares over the features in order."""
    acc = 0.0
    for j in range(Y.shape[1]):
        diff = Y[a, j] - Y[b, j]
        acc += diff * diff
    return math.sqrt(acc)


@jit
def winners(X, xi, Y, K, dist):
    """s1 and s2 as the reference finds them (K >= 1).

    ``dist[:K]`` receives every node's Euclidean distance to ``X[xi]``; s1 is the first row of the
    smallest; then s1's distance counts as SENTINEL and s2 is the first row of the smallest again
    (so s2 is s1 when s1 is the only node, or when every other node is SENTINEL or more away).
    """
    d = X.shape[1]
    for k in range(K):
        acc = 0.0
        for j in range(d):
            diff = X[xi, j] - Y[k, j]
            acc += diff * diff
        dist[k] = math.sqrt(acc)
    s1 = 0
    for k in range(1, K):
        if dist[k] < dist[s1]:
            s1 = k
    s2 = 0
    b2 = SENTINEL if s1 == 0 else dist[0]
    for k in range(1, K):
        v = SENTINEL if k == s1 else dist[k]
        if v < b2:
            b2 = v
            s2 = k
    return s1, s2, b2


@jit
def threshold_of(Y, deg, nbr, who, s1, s2):
    """The reset threshold of ``who``: its longest edge, or ``norm(node(s1) - node(s2))`` without edges."""
    if deg[who] == 0:
        return node_distance(Y, s1, s2)
    best = node_distance(Y, who, nbr[who, 0])
    for p in range(1, deg[who]):
        v = node_distance(Y, who, nbr[who, p])
        if v > best:
            best = v
    return best


# ------------------------------------------------------------------ the arrays a step works on
#: The network: what the model file keeps.
Net = namedtuple("Net", "Y M th ids deg nbr age iscal fscal")
#: What one step did: the scalars ``ri``/``rf``, the deleted edges (neighbour id, age) and nodes.
Rec = namedtuple("Rec", "ri rf del_ids del_ages swept_ids swept_pos")
#: Scratch space.
Buf = namedtuple("Buf", "dist dmask newrow labels")


# ---------------------------------------------------------------- graph edits
@jit
def add_node(X, xi, net, rec, threshold):
    """x becomes a node: M = 1 and the given threshold (1e6, the reference's new-node value)."""
    K = net.iscal[I_K]
    for j in range(X.shape[1]):
        net.Y[K, j] = X[xi, j]
    net.M[K] = 1
    net.th[K] = threshold
    net.ids[K] = net.iscal[I_NEXTID]
    net.iscal[I_NEXTID] += 1
    net.deg[K] = 0
    net.iscal[I_K] = K + 1
    rec.ri[RI_NEWROW] = K
    rec.ri[RI_NEWID] = net.ids[K]
    return K


@jit
def denoise(Y, M, th, ids, deg, nbr, age, iscal, fscal, dmask, newrow, swept_ids, swept_pos):
    """One denoising pass (the reference's ``if mod(i, lambda) == 0`` block); returns (deleted, mean M).

    With meanM the mean win count, the nodes with one neighbour and M < c·meanM and the nodes with no
    neighbour and M < meanM are deleted, all at once (degrees counted before any deletion); their
    edges go with them; the other nodes keep their rows' order. The ids and positions of the deleted
    nodes go to ``swept_ids``/``swept_pos``. (Called from :func:`step` and, for the pass at the end of
    a batch, from Python: hence the arrays one by one.)
    """
    K = iscal[I_K]
    iscal[I_PASSES] += 1
    iscal[I_SETTLED] = 1
    if K == 0:
        return 0, math.nan
    total = 0
    for k in range(K):
        total += M[k]
    mean_m = total / K
    bound1 = fscal[F_C] * mean_m
    n = 0
    for k in range(K):
        m = float(M[k])
        if (deg[k] == 1 and m < bound1) or (deg[k] == 0 and m < mean_m):
            dmask[k] = True
            swept_ids[n] = ids[k]
            for j in range(Y.shape[1]):
                swept_pos[n, j] = Y[k, j]
            n += 1
        else:
            dmask[k] = False
    if n == 0:
        return 0, mean_m
    n_new = plan_compaction(dmask, K, newrow)
    compact_rows(Y, newrow, K)
    compact_rows(M, newrow, K)
    compact_rows(th, newrow, K)
    compact_rows(ids, newrow, K)
    dropped = compact_graph(nbr, age, deg, newrow, K)
    iscal[I_E] -= dropped // 2
    iscal[I_K] = n_new
    iscal[I_NODEDEL] += n
    return n, mean_m


# ------------------------------------------------------------------ the named steps
@jit
def begin_step(net, rec):
    """i <- i + 1 and a clean record; returns i."""
    ri, rf = rec.ri, rec.rf
    t = net.iscal[I_T] + 1
    net.iscal[I_T] = t
    net.iscal[I_SETTLED] = 0
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


@jit
def two_node_start(X, xi, net, rec):
    """The reference's first two rows: the first sample waits as a node (new-node threshold), the second
    sets both thresholds to their distance [ref]; again after a denoising emptied the network [fix]."""
    rec.ri[RI_CASE] = 0
    add_node(X, xi, net, rec, SENTINEL)
    if net.iscal[I_STARTING] == 0:
        net.iscal[I_STARTING] = 1
        return
    tem = node_distance(net.Y, 0, 1)
    net.th[0] = tem
    net.th[1] = tem
    net.iscal[I_STARTING] = 0


@jit
def find_winners(X, xi, net, rec, buf):
    """s1, s2 and their distances (:func:`winners`), recorded with the stored thresholds they face."""
    s1, s2, d2 = winners(X, xi, net.Y, net.iscal[I_K], buf.dist)
    d1 = buf.dist[s1]
    ri, rf = rec.ri, rec.rf
    ri[RI_S1] = s1
    ri[RI_S2] = s2
    ri[RI_S1ID] = net.ids[s1]
    ri[RI_S2ID] = net.ids[s2]
    rf[RF_D1] = d1
    rf[RF_D2] = d2
    rf[RF_TH1] = net.th[s1]
    rf[RF_TH2] = net.th[s2]
    return s1, s2, d1, d2


@jit
def link_winners(net, rec, s1, s2):
    """The winners are always linked: a new edge, or the existing one back to age 1 [ref]."""
    nbr, age, deg = net.nbr, net.age, net.deg
    p = find_slot(nbr, deg, s1, s2)
    if p >= 0:
        age[s1, p] = 1
        age[s2, find_slot(nbr, deg, s2, s1)] = 1
        rec.ri[RI_EDGE] = 2
    else:
        net.iscal[I_MAXDEG] = max(net.iscal[I_MAXDEG], connect(nbr, age, deg, s1, s2, 1))
        net.iscal[I_E] += 1
        rec.ri[RI_EDGE] = 1


@jit
def age_winner_edges(net, s1):
    """Every edge of s1 ages by 1 (the one just made or reset included, which is then 2)."""
    nbr, age, deg = net.nbr, net.age, net.deg
    for p in range(deg[s1]):
        b = nbr[s1, p]
        age[s1, p] += 1
        age[b, find_slot(nbr, deg, b, s1)] += 1


@jit
def remove_old_edges(net, rec, s1):
    """The edges of s1 older than a_max are removed, in ascending row order (the reference's ``find``);
    no node is removed with them [ref]. The record gets the neighbours' ids and the ages."""
    nbr, age, deg = net.nbr, net.age, net.deg
    del_ids, del_ages = rec.del_ids, rec.del_ages
    amax = net.fscal[F_AMAX]
    nd = 0
    for p in range(deg[s1]):
        if age[s1, p] > amax:
            b = nbr[s1, p]
            a = age[s1, p]
            q = nd
            while q > 0 and del_ids[q - 1] > b:
                del_ids[q] = del_ids[q - 1]
                del_ages[q] = del_ages[q - 1]
                q -= 1
            del_ids[q] = b
            del_ages[q] = a
            nd += 1
    for q in range(nd):
        disconnect(nbr, age, deg, s1, del_ids[q])
        del_ids[q] = net.ids[del_ids[q]]  # rows -> ids for the record
    net.iscal[I_E] -= nd
    net.iscal[I_EDGEDEL] += nd
    rec.ri[RI_NDELETED] = nd


@jit
def winner_moves(X, xi, net, s1):
    """Only the winner moves [ref]: M <- M + 1, w <- w + (1/M)(x - w), 1/M computed first."""
    net.M[s1] += 1
    inv = 1.0 / net.M[s1]
    Y = net.Y
    for j in range(X.shape[1]):
        Y[s1, j] = Y[s1, j] + inv * (X[xi, j] - Y[s1, j])


@jit
def reset_thresholds(net, rec, s1, s2):
    """Both winners' thresholds are reset after every input, a new node included [ref]."""
    net.th[s1] = threshold_of(net.Y, net.deg, net.nbr, s1, s1, s2)
    net.th[s2] = threshold_of(net.Y, net.deg, net.nbr, s2, s1, s2)
    rec.rf[RF_NEWTH1] = net.th[s1]
    rec.rf[RF_NEWTH2] = net.th[s2]


@jit
def periodic_denoise(net, rec, buf):
    """The denoising of every λ samples, recorded."""
    n, mean_m = denoise(
        net.Y,
        net.M,
        net.th,
        net.ids,
        net.deg,
        net.nbr,
        net.age,
        net.iscal,
        net.fscal,
        buf.dmask,
        buf.newrow,
        rec.swept_ids,
        rec.swept_pos,
    )
    rec.ri[RI_DENOISED] = 1
    rec.ri[RI_NSWEPT] = n
    rec.rf[RF_MEANM] = mean_m


# ------------------------------------------------------------------ the step
@jit
def step(X, xi, net, rec, buf, track):
    """Learn ``X[xi]``: one pass of the reference's loop (see ``docs/baselines/asoinn.md``).

    ``net``, ``rec`` and ``buf`` are the :data:`Net`, :data:`Rec` and :data:`Buf` tuples of arrays,
    updated in place.
    """
    t = begin_step(net, rec)
    if net.iscal[I_K] == 0 or net.iscal[I_STARTING] == 1:
        two_node_start(X, xi, net, rec)  # no denoising on these steps, as in the reference
    else:
        s1, s2, d1, d2 = find_winners(X, xi, net, rec, buf)
        # [fix] s2 == s1 (one node, or every other node SENTINEL away): the reference would link the
        # node to itself when x passes both tests; x becomes a node instead
        if d1 > net.th[s1] or d2 > net.th[s2] or s1 == s2:
            rec.ri[RI_CASE] = 1
            add_node(X, xi, net, rec, SENTINEL)
        else:
            rec.ri[RI_CASE] = 2
            link_winners(net, rec, s1, s2)
            age_winner_edges(net, s1)
            remove_old_edges(net, rec, s1)
            winner_moves(X, xi, net, s1)
        reset_thresholds(net, rec, s1, s2)
        if t % net.iscal[I_LAMBDA] == 0:
            periodic_denoise(net, rec, buf)
    if track:
        rec.ri[RI_NCLUSTERS] = components(net.nbr, net.deg, net.iscal[I_K], buf.labels)
    return 0


@jit
def run(
    X,
    start,
    Y,
    M,
    th,
    ids,
    deg,
    nbr,
    age,
    iscal,
    fscal,
    ri,
    rf,
    dist,
    del_ids,
    del_ages,
    swept_ids,
    swept_pos,
    dmask,
    newrow,
    labels,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room (a node or a degree slot); the
    caller grows the arrays and calls again from there. When ``trace`` has rows, row ``i`` receives
    the summary of step ``i`` (columns ``TRACE_COLUMNS``; needs ``track``).
    """
    net = Net(Y, M, th, ids, deg, nbr, age, iscal, fscal)
    rec = Rec(ri, rf, del_ids, del_ages, swept_ids, swept_pos)
    buf = Buf(dist, dmask, newrow, labels)
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
    "new_threshold1",
    "new_threshold2",
    "edge",
    "denoised",
    "mean_win_count",
)


@jit
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
    trace[i, 13] = rf[RF_NEWTH1]
    trace[i, 14] = rf[RF_NEWTH2]
    trace[i, 15] = ri[RI_EDGE]
    trace[i, 16] = ri[RI_DENOISED]
    trace[i, 17] = rf[RF_MEANM]


@jit
def nearest_nodes(X, Y, K, out):
    """Row of the nearest node (Euclidean distance, first row on ties) for every row of X."""
    d = X.shape[1]
    for i in range(X.shape[0]):
        best = math.inf
        s = 0
        for k in range(K):
            acc = 0.0
            for j in range(d):
                diff = X[i, j] - Y[k, j]
                acc += diff * diff
            v = math.sqrt(acc)
            if v < best:
                best = v
                s = k
        out[i] = s

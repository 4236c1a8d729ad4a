"""The one implementation of Growing Neural Gas's per-sample step (Fritzke 1995, as DemoGNG runs it).

:class:`cae.algorithms.gng.GNG` runs this kernel. The reference is DemoGNG's ``js/vbnn.js``
(repository ``rhaschke/demogng``): ``VBNN.prototype.adaptGNG`` (one sample), ``gnginsert`` (one
insertion), ``removeEdges`` and ``Edge.prototype.vanish`` (edge and orphan removal), driven by
``loopGNG`` in ``js/loop.js`` (the insertion every λ signals comes *before* that signal's
adaptation). What the step does, and every place it follows (**[ref]**) or departs from (**[fix]**)
the reference: ``docs/baselines/gng.md``. :func:`step` is one pass of ``loopGNG``'s body, with a
function for each part (:func:`insert_node`, :func:`find_winners`, :func:`link_winners`,
:func:`age_winner_edges`, :func:`move_winner_and_neighbours`, :func:`remove_old_edges`).

Conventions: plain loops over preallocated arrays (numba-compiled through :func:`cae._jit.jit`, or
plain Python, bit-identically); nodes in rows ``[:K]`` in creation order (the order in which DemoGNG's
``this.nodes`` object iterates; deleting nodes compacts the rows, keeping the order); undirected edges
in the neighbour lists of :mod:`cae._graph`, **kept in the order the edges were made** (the order of
DemoGNG's ``node.edges``/``node.neighbors`` objects, which decides the worst neighbour f on ties and
the order in which old edges are removed), with the reference's age (0 when made or reset).
Distances are SQUARED Euclidean distances, summed over features in order.
"""

import math
from collections import namedtuple

from .._graph import (
    compact_graph,
    compact_rows,
    compact_rows_2d,
    components_into,
    connect,
    find_slot,
    plan_compaction,
)
from .._jit import jit

N_INIT = 2  # the first two samples become the two start nodes (DemoGNG draws them from the distribution)
MIN_NODES_AFTER_ORPHAN = 3  # removeEdges removes an orphaned node only while noOfNodes > 3
BIG = 1.7976931348623157e308  # Number.MAX_VALUE, the reference's starting "minimum" distance

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of nodes
I_T = 1  # samples seen (the two start nodes included; DemoGNG's signalsPresented is t - 2)
I_E = 2  # number of edges
I_MAXDEG = 3  # a bound on every degree PLUS ONE (a step may add two edges to one node: q's)
I_NEXTID = 4  # next stable node id
I_LAMBDA = 5  # λ: insertion every λ signals
I_AMAX = 6  # a_max: an edge of s1 older than this is removed
I_MAXNODES = 7  # no insertion once there are this many nodes
I_INSERTED = 8  # insertions so far
N_ISCAL = 9

# ---- float scalars (fscal) ---------------------------------------------------
F_EPS_B = 0  # ε_b: s1 moves by ε_b (x - w_s1)
F_EPS_N = 1  # ε_n: each neighbour of s1 moves by ε_n (x - w_n)
F_ALPHA = 2  # α: q's and f's errors are multiplied by α at an insertion (DemoGNG: /= 2)
F_BETA = 3  # β: every error is multiplied by (1 - β) at every signal (Fritzke's d = 1 - β)
N_FSCAL = 4

# ---- record scratch (ri / rf) ------------------------------------------------
CASE_START = 0  # one of the two start nodes
CASE_ADAPT = 1  # an adaptation step
CASE_INSERT = 2  # an insertion (every λ signals), then the adaptation step

RI_CASE = 0
RI_S1 = 1  # rows of the winners (after the insertion; before any node removal), -1 if none
RI_S2 = 2
RI_S1ID = 3
RI_S2ID = 4
RI_NEWROW = 5  # the row of the node made at this step (a start node or r), -1 if none
RI_NEWID = 6
RI_QID = 7  # the insertion's q (largest error) and f (q's neighbour with the largest error), -1 if none
RI_FID = 8
RI_EDGE = 9  # 1: the edge s1-s2 was made; 2: it existed (its age reset to 0)
RI_NAGED = 10  # edges of s1 aged (all of s1's edges, s1-s2 included)
RI_NDELETED = 11  # edges removed for being older than a_max
RI_NSWEPT = 12  # nodes removed for being left without edges
RI_NCLUSTERS = 13  # -1 unless tracking
RI_NMOVED = 14  # neighbours of s1 moved
N_RI = 15

RF_D1 = 0  # squared distances of x to s1 and s2
RF_D2 = 1
RF_ERR_S1 = 2  # s1's error after the step
RF_ERR_Q = 3  # q's, f's and r's errors after the insertion
RF_ERR_F = 4
RF_ERR_R = 5
N_RF = 6

DONE = -1

#: The learned state (see :class:`cae.algorithms.gng.GNGNetwork`).
Net = namedtuple("Net", "Y err wins ids deg nbr age iscal fscal")
#: What one step did: the scalars, the aged edges (neighbour id, new age), the moves (row 0: s1's
#: displacement, row p + 1: that of the p-th neighbour, whose id is moved_ids[p]), the removed edges
#: (neighbour id, age) and nodes (id, position).
Rec = namedtuple("Rec", "ri rf aged_ids aged_ages moves moved_ids del_ids del_ages swept_ids swept_pos")
#: Scratch space.
Buf = namedtuple("Buf", "del_rows dmask newrow stack labels")


# ---------------------------------------------------------------- graph edits
@jit(allocates=False)
def remove_slot_ordered(nbr, age, deg, a, p):
    """Remove slot ``p`` of ``a``'s neighbour list, the later slots moving up (the order is kept, as
    deleting a key of a JavaScript object keeps the order of the others)."""
    for s in range(p, deg[a] - 1):
        nbr[a, s] = nbr[a, s + 1]
        age[a, s] = age[a, s + 1]
    deg[a] -= 1


@jit(allocates=False)
def disconnect_ordered(nbr, age, deg, a, b):
    """Delete the edge a-b from both lists, keeping each list's order (``Edge.prototype.vanish``)."""
    remove_slot_ordered(nbr, age, deg, a, find_slot(nbr, deg, a, b))
    remove_slot_ordered(nbr, age, deg, b, find_slot(nbr, deg, b, a))


@jit(allocates=False)
def add_edge(net, a, b):
    """``addEdge(a, b)``: a new edge of age 0, last in both lists."""
    deg = connect(net.nbr, net.age, net.deg, a, b, 0)
    net.iscal[I_MAXDEG] = max(net.iscal[I_MAXDEG], deg + 1)
    net.iscal[I_E] += 1


@jit(allocates=False)
def new_node(net):
    """A new last row (its position and error are set by the caller); returns it."""
    r = net.iscal[I_K]
    net.iscal[I_K] = r + 1
    net.ids[r] = net.iscal[I_NEXTID]
    net.iscal[I_NEXTID] += 1
    net.wins[r] = 0
    net.deg[r] = 0
    net.err[r] = 0.0
    return r


# ------------------------------------------------------------------ the step's parts
@jit(allocates=False)
def insert_node(net, rec):
    """``gnginsert``: r halfway between q (the first node with the largest error) and f (q's LAST
    neighbour with the largest error), q-f replaced by r-q and r-f, the errors of q and f multiplied
    by α and r's set to q's new one. [fix] No insertion when every error is 0 (the reference has no q
    then and fails)."""
    Y, err, nbr, deg, ri, rf = net.Y, net.err, net.nbr, net.deg, rec.ri, rec.rf
    q = -1
    max_err = 0.0
    for k in range(net.iscal[I_K]):
        if err[k] > max_err:
            max_err = err[k]
            q = k
    if q < 0:
        return
    f = -1
    max_nerr = 0.0
    for p in range(deg[q]):
        b = nbr[q, p]
        if err[b] >= max_nerr:
            max_nerr = err[b]
            f = b
    r = new_node(net)
    for j in range(Y.shape[1]):
        Y[r, j] = Y[q, j]
    alpha = net.fscal[F_ALPHA]
    if f >= 0:
        for j in range(Y.shape[1]):
            Y[r, j] = (Y[r, j] + Y[f, j]) * 0.5
        err[f] = err[f] * alpha
    err[q] = err[q] * alpha
    err[r] = err[q]
    if f >= 0:  # the edge q-f exists (f is q's neighbour): r-q, r-f, then q-f goes
        add_edge(net, r, q)
        add_edge(net, r, f)
        disconnect_ordered(nbr, net.age, deg, q, f)
        net.iscal[I_E] -= 1
    net.iscal[I_INSERTED] += 1
    ri[RI_CASE] = CASE_INSERT
    ri[RI_NEWROW] = r
    ri[RI_NEWID] = net.ids[r]
    ri[RI_QID] = net.ids[q]
    ri[RI_FID] = net.ids[f] if f >= 0 else -1
    rf[RF_ERR_Q] = err[q]
    rf[RF_ERR_F] = err[f] if f >= 0 else math.nan
    rf[RF_ERR_R] = err[r]


@jit(allocates=False)
def find_winners(X, xi, net, rec):
    """``adaptGNG``'s loop over the nodes: s1 and s2 by squared distance, a LATER node winning a tie
    (``<=``), and every error multiplied by (1 - β) on the way. Returns ``(s1, s2, d1)``."""
    Y, err = net.Y, net.err
    d = X.shape[1]
    decay = 1.0 - net.fscal[F_BETA]
    d1 = BIG
    d2 = BIG
    s1 = -1
    s2 = -1
    for k in range(net.iscal[I_K]):
        acc = 0.0
        for j in range(d):
            diff = Y[k, j] - X[xi, j]
            acc += diff * diff
        if acc <= d1:
            if s1 >= 0:
                s2 = s1
                d2 = d1
            s1 = k
            d1 = acc
        elif acc <= d2:
            s2 = k
            d2 = acc
        err[k] = err[k] * decay
    rec.ri[RI_S1] = s1
    rec.ri[RI_S2] = s2
    rec.ri[RI_S1ID] = net.ids[s1]
    rec.ri[RI_S2ID] = net.ids[s2]
    rec.rf[RF_D1] = d1
    rec.rf[RF_D2] = d2
    return s1, s2, d1


@jit(allocates=False)
def link_winners(net, rec, s1, s2):
    """``addEdge(bmu, bmu2)`` unless they are neighbours already."""
    if find_slot(net.nbr, net.deg, s1, s2) < 0:
        add_edge(net, s1, s2)
        rec.ri[RI_EDGE] = 1
    else:
        rec.ri[RI_EDGE] = 2


@jit(allocates=False)
def age_winner_edges(net, rec, buf, s1, s2):
    """Every edge of s1 ages by 1, the edge to s2 is reset to 0, and the edges older than a_max are
    listed (in the order of s1's list) for removal. Returns how many."""
    nbr, age, deg = net.nbr, net.age, net.deg
    amax = net.iscal[I_AMAX]
    n_old = 0
    for p in range(deg[s1]):
        b = nbr[s1, p]
        a = age[s1, p] + 1
        if b == s2:
            a = 0
        age[s1, p] = a
        age[b, find_slot(nbr, deg, b, s1)] = a
        rec.aged_ids[p] = net.ids[b]
        rec.aged_ages[p] = a
        if a > amax:
            buf.del_rows[n_old] = b
            n_old += 1
    rec.ri[RI_NAGED] = deg[s1]
    return n_old


@jit(allocates=False)
def move_winner_and_neighbours(X, xi, net, rec, s1):
    """s1 moves by ε_b (x - w_s1), then each neighbour n (s2 and the neighbours about to lose their
    edge included) by ε_n (x - w_n)."""
    Y, moves = net.Y, rec.moves
    d = X.shape[1]
    eps_b = net.fscal[F_EPS_B]
    eps_n = net.fscal[F_EPS_N]
    for j in range(d):
        delta = (X[xi, j] - Y[s1, j]) * eps_b
        Y[s1, j] = Y[s1, j] + delta
        moves[0, j] = delta
    for p in range(net.deg[s1]):
        b = net.nbr[s1, p]
        for j in range(d):
            delta = (X[xi, j] - Y[b, j]) * eps_n
            Y[b, j] = Y[b, j] + delta
            moves[p + 1, j] = delta
        rec.moved_ids[p] = net.ids[b]
    net.wins[s1] += 1
    rec.ri[RI_NMOVED] = net.deg[s1]


@jit(allocates=False)
def remove_old_edges(net, rec, buf, s1, n_old):
    """``removeEdges``: the listed edges, LAST first; a neighbour left without edges goes too while
    there are more than 3 nodes (DemoGNG's ``gng_delOrphanedNodes``)."""
    nbr, age, deg, dmask = net.nbr, net.age, net.deg, buf.dmask
    K = net.iscal[I_K]
    for k in range(K):
        dmask[k] = False
    live = K
    n_swept = 0
    for i in range(n_old - 1, -1, -1):
        b = buf.del_rows[i]
        rec.del_ids[n_old - 1 - i] = net.ids[b]
        rec.del_ages[n_old - 1 - i] = age[s1, find_slot(nbr, deg, s1, b)]
        disconnect_ordered(nbr, age, deg, s1, b)
        net.iscal[I_E] -= 1
        if deg[b] == 0 and live > MIN_NODES_AFTER_ORPHAN:
            dmask[b] = True
            live -= 1
            rec.swept_ids[n_swept] = net.ids[b]
            for j in range(net.Y.shape[1]):
                rec.swept_pos[n_swept, j] = net.Y[b, j]
            n_swept += 1
    rec.ri[RI_NDELETED] = n_old
    rec.ri[RI_NSWEPT] = n_swept
    if n_swept == 0:
        return
    newrow = buf.newrow
    plan_compaction(dmask, K, newrow)
    compact_rows_2d(net.Y, newrow, K)
    compact_rows(net.err, newrow, K)
    compact_rows(net.wins, newrow, K)
    compact_rows(net.ids, newrow, K)
    compact_graph(nbr, age, deg, newrow, K)
    net.iscal[I_K] = live


@jit(allocates=False)
def begin_step(net, rec):
    """One more sample and a clean record; returns t."""
    ri, rf = rec.ri, rec.rf
    t = net.iscal[I_T] + 1
    net.iscal[I_T] = t
    for i in range(ri.shape[0]):
        ri[i] = 0
    for i in range(rf.shape[0]):
        rf[i] = math.nan
    for i in (RI_S1, RI_S2, RI_S1ID, RI_S2ID, RI_NEWROW, RI_NEWID, RI_QID, RI_FID, RI_NCLUSTERS):
        ri[i] = -1
    return t


@jit(allocates=False)
def start_node(X, xi, net, rec):
    """One of the two start nodes: the sample itself, error 0, no edge."""
    r = new_node(net)
    for j in range(X.shape[1]):
        net.Y[r, j] = X[xi, j]
    rec.ri[RI_CASE] = CASE_START
    rec.ri[RI_NEWROW] = r
    rec.ri[RI_NEWID] = net.ids[r]


# ------------------------------------------------------------------ the step
@jit(allocates=False)
def step(X, xi, net, rec, buf, track):
    """Learn the sample ``X[xi]``: one pass of DemoGNG's ``loopGNG`` (insertion first, then ``adaptGNG``)."""
    t = begin_step(net, rec)
    iscal = net.iscal
    if iscal[I_K] < N_INIT:
        start_node(X, xi, net, rec)
    else:
        rec.ri[RI_CASE] = CASE_ADAPT
        if (t - N_INIT) % iscal[I_LAMBDA] == 0 and iscal[I_K] < iscal[I_MAXNODES]:
            insert_node(net, rec)
        s1, s2, d1 = find_winners(X, xi, net, rec)
        net.err[s1] = net.err[s1] + d1
        link_winners(net, rec, s1, s2)
        n_old = age_winner_edges(net, rec, buf, s1, s2)
        move_winner_and_neighbours(X, xi, net, rec, s1)
        rec.rf[RF_ERR_S1] = net.err[s1]
        if n_old > 0:
            remove_old_edges(net, rec, buf, s1, n_old)
    if track:
        rec.ri[RI_NCLUSTERS] = components_into(net.nbr, net.deg, iscal[I_K], buf.labels, buf.stack)
    return 0


@jit
def run(
    X,
    start,
    Y,
    err,
    wins,
    ids,
    deg,
    nbr,
    age,
    iscal,
    fscal,
    ri,
    rf,
    aged_ids,
    aged_ages,
    moves,
    moved_ids,
    del_ids,
    del_ages,
    swept_ids,
    swept_pos,
    del_rows,
    dmask,
    newrow,
    stack,
    labels,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room (a node, or a degree slot:
    ``iscal[I_MAXDEG]`` is one more than any degree, so one more slot covers the two edges a step
    can add to a node); the caller grows the arrays and calls again from there. When ``trace`` has
    rows, row ``i`` receives the summary of step ``i`` (columns ``TRACE_COLUMNS``; needs ``track``).
    """
    net = Net(Y, err, wins, ids, deg, nbr, age, iscal, fscal)
    rec = Rec(ri, rf, aged_ids, aged_ages, moves, moved_ids, del_ids, del_ages, swept_ids, swept_pos)
    buf = Buf(del_rows, dmask, newrow, stack, labels)
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
    "error_s1",
    "inserted",
    "q",
    "f",
    "error_q",
    "error_f",
    "n_aged",
    "n_insertions",
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
    trace[i, 11] = rf[RF_ERR_S1]
    trace[i, 12] = 1.0 if ri[RI_CASE] == CASE_INSERT else 0.0
    trace[i, 13] = ri[RI_QID] if ri[RI_QID] >= 0 else math.nan
    trace[i, 14] = ri[RI_FID] if ri[RI_FID] >= 0 else math.nan
    trace[i, 15] = rf[RF_ERR_Q]
    trace[i, 16] = rf[RF_ERR_F]
    trace[i, 17] = ri[RI_NAGED]
    trace[i, 18] = iscal[I_INSERTED]


@jit(allocates=False)
def nearest_nodes(X, Y, K, out):
    """Row of the nearest node (squared Euclidean distance, the LAST on ties, as the reference's
    winner search) for every row of X."""
    d = X.shape[1]
    for i in range(X.shape[0]):
        best = BIG
        s = 0
        for k in range(K):
            acc = 0.0
            for j in range(d):
                diff = Y[k, j] - X[i, j]
                acc += diff * diff
            if acc <= best:
                best = acc
                s = k
        out[i] = s

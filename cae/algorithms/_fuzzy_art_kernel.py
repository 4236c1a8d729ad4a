"""The one implementation of Fuzzy ART's per-sample step (see :mod:`cae.algorithms.fuzzy_art`).

Plain loops over preallocated arrays, compiled by :func:`cae._jit.jit` (or run as ordinary Python,
bit-identically). A sample x in [0, 1]^d is complement coded, I = (x, 1 - x); category j's weight
w_j = (wl[j], wc[j]) is stored as its two halves: ``wl`` = w_j[:d], the box's lower corner, and
``wc`` = w_j[d:], the complement of its upper corner (upper corner = 1 - wc).

For every category, :func:`choice_and_match` computes |I ∧ w_j| (∧ the element-wise minimum, |·| the
L1 norm, summed in the order of artlib's ``l1norm``: the d lower entries, then the d complement
entries), the choice T_j = |I ∧ w_j| / (α + |w_j|) and the match M_j = |I ∧ w_j| / d (|I| = d under
complement coding; artlib divides by d too). The search is every ART's, :func:`cae._art.search`: the
categories in order of decreasing T (ties: lower row first), each whose M_j < ρ reset, the first with
M_j >= ρ resonating (found in one pass, without sorting; the step record sorts, in Python, with
:func:`cae._art.search_record`). With no such category, a new one is made, w = I. Learning:
w_j <- β (I ∧ w_j) + (1 - β) w_j.

State (rows ``[:K]`` live, in creation order; categories are never removed): ``wl``, ``wc``, ``n``
(samples coded by the category, its creation included) and stable ``ids`` (= the row).
"""

import math

from .._art import search, strongest
from .._jit import jit

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # categories
I_T = 1  # samples seen
I_E = 2  # edges: always 0
I_MAXDEG = 3  # degree bound: always 0 (no neighbour lists)
N_ISCAL = 4

# ---- float scalars (fscal) ---------------------------------------------------
F_RHO = 0  # vigilance ρ
F_ALPHA = 1  # choice α
F_BETA = 2  # learning rate β
N_FSCAL = 3

# ---- the step's record (ri, rf; T and M per category in the scratch arrays) ----
RI_CASE = 0  # CASE_NEW or CASE_RESONANCE
RI_KBEFORE = 1  # categories as the sample arrived (the rows of T and M)
RI_WINNER = 2  # row of the category that resonated, or of the new one
RI_NRESET = 3  # categories reset before resonance (all of them for a new category)
N_RI = 4
RF_T = 0  # T of the winner (NaN for a new category)
RF_M = 1  # M of the winner (NaN for a new category)
N_RF = 2

CASE_NEW = 0
CASE_RESONANCE = 1
DONE = -1

TRACE_COLUMNS = (
    "t",
    "case",
    "n_nodes",
    "n_edges",
    "n_clusters",
    "n_deleted",
    "n_swept",
    "n_reset",
    "winner",
    "choice",
    "match",
)


@jit
def choice_and_match(X, r, wl, wc, K, alpha, T, M):
    """T_j and M_j of sample ``X[r]`` for the categories ``[:K]``, into ``T[:K]`` and ``M[:K]``."""
    d = X.shape[1]
    for j in range(K):
        num = 0.0
        size = 0.0
        for i in range(d):
            num += min(X[r, i], wl[j, i])
            size += wl[j, i]
        for i in range(d):
            num += min(1.0 - X[r, i], wc[j, i])
            size += wc[j, i]
        T[j] = num / (alpha + size)
        M[j] = num / d


@jit
def learn(X, r, wl, wc, j, beta):
    """w_j <- β (I ∧ w_j) + (1 - β) w_j, element by element as artlib's ``_update_numba``."""
    for i in range(X.shape[1]):
        wl[j, i] = beta * min(X[r, i], wl[j, i]) + (1 - beta) * wl[j, i]
        wc[j, i] = beta * min(1.0 - X[r, i], wc[j, i]) + (1 - beta) * wc[j, i]


@jit
def run(X, start, wl, wc, n, ids, iscal, fscal, ri, rf, T, M, track, trace):
    """Learn rows ``X[start:]``; returns ``DONE`` or the row that needs room for one more category."""
    rho, alpha, beta = fscal[F_RHO], fscal[F_ALPHA], fscal[F_BETA]
    for r in range(start, X.shape[0]):
        K = iscal[I_K]
        choice_and_match(X, r, wl, wc, K, alpha, T, M)
        best, reset = search(K, rho, T, M)
        if best < 0:
            if K + 1 > wl.shape[0]:
                return r
            for i in range(X.shape[1]):
                wl[K, i] = X[r, i]
                wc[K, i] = 1.0 - X[r, i]
            n[K] = 1
            ids[K] = K
            iscal[I_K] = K + 1
            ri[RI_CASE] = CASE_NEW
            ri[RI_WINNER] = K
            rf[RF_T] = math.nan
            rf[RF_M] = math.nan
        else:
            learn(X, r, wl, wc, best, beta)
            n[best] += 1
            ri[RI_CASE] = CASE_RESONANCE
            ri[RI_WINNER] = best
            rf[RF_T] = T[best]
            rf[RF_M] = M[best]
        ri[RI_KBEFORE] = K
        ri[RI_NRESET] = reset
        iscal[I_T] += 1
        if trace.shape[0] > 0:
            write_trace(trace, r, iscal, fscal, ri, rf)
    return DONE


@jit
def write_trace(trace, i, iscal, fscal, ri, rf):
    """Row ``i`` of a trace: the step's summary (columns ``TRACE_COLUMNS``; choice and match NaN for a new
    category)."""
    trace[i, 0] = iscal[I_T]
    trace[i, 1] = ri[RI_CASE]
    trace[i, 2] = iscal[I_K]
    trace[i, 3] = 0
    trace[i, 4] = iscal[I_K]
    trace[i, 5] = 0
    trace[i, 6] = 0
    trace[i, 7] = ri[RI_NRESET]
    trace[i, 8] = ri[RI_WINNER]
    trace[i, 9] = rf[RF_T]
    trace[i, 10] = rf[RF_M]


@jit
def nearest_nodes(X, wl, wc, K, alpha, T, M, out):
    """Category of largest T for each row of X (the lowest row on ties), as artlib's ``step_pred``."""
    for r in range(X.shape[0]):
        choice_and_match(X, r, wl, wc, K, alpha, T, M)
        out[r] = strongest(K, T)

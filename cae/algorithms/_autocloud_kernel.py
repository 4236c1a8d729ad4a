"""The one implementation of AutoCloud's per-sample step (see :mod:`cae.algorithms.autocloud`).

State (rows ``[:C]`` of the cloud arrays, in the reference's list order):
centres ``Y`` (C x d), variances ``var``, supports ``n`` (integers), stable
``ids``; the intersection matrix ``IM`` (capacity x capacity, only
``[:C, :C]`` in use, zero elsewhere); scalars ``iscal``/``fscal``. The
per-sample intersection list (the clouds ``x`` joined, plus a new or merged
cloud) lives in the scratch array ``flags``.

Floating point follows the reference's formulas literally, with IEEE
semantics: :func:`fdiv` gives 0/0 = NaN and x/0 = +-Inf as MATLAB does
(numba's and Python's scalar division would raise instead). ``norm(v)^2`` is
``sqrt(sum(v.^2))^2`` with the squares summed in index order; every other sum
is sequential, in index order.

The merge procedure is the reference's loop (scan the pairs (i, j), i < j, in
order; count a pair flagged on both sides; merge the first pair that meets
the condition; restart at i = 1) with one exact shortcut, proved in
:func:`merge_clouds`: the first scan of a sample visits only the pairs that
can meet the condition.
"""

import math

from .._jit import jit

# ---- integer scalars (iscal) -------------------------------------------------
I_K = 0  # number of clouds C
I_T = 1  # samples seen (the reference's k, cumulative)
I_E = 2  # edges: always 0
I_MAXDEG = 3  # degree bound: always 0 (no neighbour lists)
I_NEXTID = 4  # next stable cloud id
I_NMERGES = 5  # merges so far (the reference's contMerge)
N_ISCAL = 6

# ---- float scalars (fscal) ---------------------------------------------------
F_M = 0  # m, which sets the typicality threshold (m^2 + 1) / (2 n)
N_FSCAL = 1

KSI_FLOOR = 1.0e-4  # ksi = max(..., 0.0001) in Cloud.calculateZeta

# ---- cases -------------------------------------------------------------------
CASE_FIRST = 0  # k = 1: cloud 1 created from x
CASE_SECOND = 1  # k = 2: x added to cloud 1 unconditionally
CASE_JOINED = 2  # k >= 3: x typical for at least one cloud, joined every such cloud
CASE_NEW = 3  # k >= 3: x atypical for every cloud: a new cloud

# ---- record scratch (ri / rf) ------------------------------------------------
RI_CASE = 0
RI_S1 = 1  # row (among the clouds as x arrived) of highest membership, -1 if none
RI_S1ID = 2
RI_NEWROW = 3  # row of the created cloud (before any merge), -1 if none
RI_NEWID = 4
RI_NJOINED = 5
RI_NMERGES = 6
RI_NCLUSTERS = 7  # -1 unless tracking
RI_NBEFORE = 8  # clouds when x arrived
N_RI = 9

RF_ZETA_S1 = 0  # zeta of the cloud of highest membership
RF_MEMBERSHIP_S1 = 1
RF_THRESHOLD_S1 = 2  # its typicality threshold (m^2 + 1) / (2 n), n before the update
RF_TAUSUM = 3  # sum of tau over the clouds (negative: the membership argmax is flipped)
N_RF = 4

DONE = -1

TRACE_COLUMNS = (
    "t",
    "case",
    "n_nodes",
    "n_edges",
    "n_clusters",
    "n_deleted",
    "n_swept",
    "n_joined",
    "n_merges",
    "new_cloud",
    "s1",
    "zeta_s1",
    "threshold_s1",
    "membership_s1",
    "tau_sum",
    "total_merges",
)


@jit(allocates=False)
def fdiv(a, b):
    """a / b with IEEE semantics (0/0 = NaN, x/0 = +-Inf), as in MATLAB."""
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        if (a > 0.0) == (math.copysign(1.0, b) > 0.0):
            return math.inf
        return -math.inf
    return a / b


@jit(allocates=False)
def tentative(X, xi, Y, var, n, c):
    """Cloud.calculateZeta for cloud row ``c`` and sample ``X[xi]`` (Euclidean).

    Returns ``(zeta, var_, a, b)``: the eccentricity-based zeta, and the
    variance and weights of the tentative update n' = n + 1, a = (n' - 1)/n',
    b = 1/n', mu' = a mu + b x, var' = a var + b ||x - mu'||^2 — exactly what
    Cloud.addPoint would store. zeta = Inf for a cloud with n = 0.
    """
    if n[c] == 0:
        return math.inf, math.nan, math.nan, math.nan
    n_ = float(n[c] + 1)
    a = fdiv(n_ - 1.0, n_)
    b = fdiv(1.0, n_)
    s = 0.0
    for j in range(X.shape[1]):
        mu_ = a * Y[c, j] + b * X[xi, j]
        diff = X[xi, j] - mu_
        s += diff * diff
    nrm = math.sqrt(s)
    var_ = a * var[c] + b * (nrm * nrm)
    ksi = b + fdiv(s, n_ * var_)
    if not ksi > KSI_FLOOR:  # MATLAB's max ignores NaN: max(NaN, 1e-4) = 1e-4 [ref]
        ksi = KSI_FLOOR
    return ksi / 2.0, var_, a, b


@jit(allocates=False)
def threshold(m, n):
    """AutoCloud.calculateThreshold (Euclidean): (m^2 + 1) / (2 n)."""
    return fdiv(m * m + 1.0, 2.0 * float(n))


@jit(allocates=False)
def argmax_first(v, C):
    """First index of the largest value of ``v[:C]``, NaN ignored; -1 when all are NaN."""
    best = -1
    for i in range(C):
        if v[i] == v[i] and (best < 0 or v[i] > v[best]):
            best = i
    return best


@jit(allocates=False)
def new_cloud(X, xi, Y, var, n, ids, IM, iscal, row):
    """Cloud(x) at ``row``: mu = x, n = 1, var = 0; its intersection counts are zero."""
    for j in range(X.shape[1]):
        Y[row, j] = X[xi, j]
    n[row] = 1
    var[row] = 0.0
    ids[row] = iscal[I_NEXTID]
    iscal[I_NEXTID] += 1
    for r in range(row + 1):
        IM[r, row] = 0
        IM[row, r] = 0


@jit(allocates=False)
def merge_condition(IM, n, i, j):
    nint = IM[i, j]
    return nint > n[i] - nint or nint > n[j] - nint


@jit(allocates=False)
def merge_pair(Y, var, n, ids, IM, flags, iscal, C, i, j, merge_rec, nm, colv, rowv):
    """Merge clouds i < j exactly as AutoCloud.mergeClouds does; returns the new C.

    The merged cloud (n = n_i + n_j - nint, mu = (n_i mu_i + n_j mu_j)/(n_i + n_j),
    var = ((n_i - 1) var_i + (n_j - 1) var_j)/(n_i + n_j - 2)) takes row i,
    flagged, with a new id; row j goes and the rows after it move up. The
    intersection matrix becomes the reference's B: rows/columns other than
    i, j kept; column i = C = (A(:,i) + A(:,j)) where both are non-zero, else
    0 (row j dropped); row i = L = (A(i,:) + A(j,:)) where both are non-zero,
    else 0 (column j dropped); then B(i, c) = A(i, c) + A(c, j) for i < c < j.
    """
    nint = IM[i, j]
    ni = n[i]
    nj = n[j]
    fi = float(ni)
    fj = float(nj)
    for k in range(Y.shape[1]):
        Y[i, k] = fdiv(fi * Y[i, k] + fj * Y[j, k], fi + fj)
    var[i] = fdiv((fi - 1.0) * var[i] + (fj - 1.0) * var[j], fi + fj - 2.0)
    n[i] = ni + nj - nint
    merge_rec[nm, 0] = ids[i]
    merge_rec[nm, 1] = ids[j]
    merge_rec[nm, 2] = iscal[I_NEXTID]
    merge_rec[nm, 3] = nint
    ids[i] = iscal[I_NEXTID]
    iscal[I_NEXTID] += 1
    flags[i] = 1
    # -- the intersection matrix (read everything from A before changing it)
    for r in range(C):
        a = IM[r, i]
        b = IM[r, j]
        colv[r] = a + b if (a != 0 and b != 0) else 0
    for c in range(C):
        a = IM[i, c]
        b = IM[j, c]
        rowv[c] = a + b if (a != 0 and b != 0) else 0
    for c in range(i + 1, j):
        rowv[c] = IM[i, c] + IM[c, j]
    for r in range(C):  # drop column j
        for c in range(j, C - 1):
            IM[r, c] = IM[r, c + 1]
    for r in range(j, C - 1):  # drop row j
        for c in range(C - 1):
            IM[r, c] = IM[r + 1, c]
    for r in range(C):
        IM[r, C - 1] = 0
        IM[C - 1, r] = 0
    for r in range(C - 1):  # B(:, i) = C, then B(i, :) = L (with the i < c < j part)
        IM[r, i] = colv[r if r < j else r + 1]
    for c in range(C - 1):
        IM[i, c] = rowv[c if c < j else c + 1]
    # -- the cloud rows: drop row j
    for r in range(j, C - 1):
        for k in range(Y.shape[1]):
            Y[r, k] = Y[r + 1, k]
        var[r] = var[r + 1]
        n[r] = n[r + 1]
        ids[r] = ids[r + 1]
        flags[r] = flags[r + 1]
    flags[C - 1] = 0
    iscal[I_NMERGES] += 1
    return C - 1


@jit(allocates=False)
def merge_clouds(Y, var, n, ids, IM, flags, iscal, new_row, merge_rec, colv, rowv):
    """AutoCloud.mergeClouds; returns the number of merges.

    The reference scans every pair (i, j), i < j, in order: if both clouds
    are flagged, IM(i, j) += 1; the first pair with
    nint > n_i - nint or nint > n_j - nint merges, and the scan restarts at
    i = 1 (so flagged pairs already counted are counted again [ref]). It ends
    after a full scan without a merge.

    Shortcut (exact): the scan that ends a sample finds no pair meeting the
    condition, with every pair's final values (each pair's count changes only
    by its own increment, before its test, and no n changes without a merge).
    By the next sample's merge step, only these changed: the clouds x joined
    got n + 1 (which only makes the condition harder for their pairs with
    unflagged clouds), flagged pairs are about to be counted, and a new
    cloud (created only when x joined no cloud) has counts 0 with every
    cloud, which meet the condition only against a cloud with n < 0. So the
    first scan of a sample, in the reference's order, can merge only a pair
    flagged on both sides, or a pair (i, new cloud); every other pair it
    would test fails. The first scan visits just those; the scans after a
    merge are the reference's full scans. ``tests/unit/test_autocloud.py``
    checks the result against a literal transcription after every step.
    """
    C = iscal[I_K]
    nm = 0
    first = True
    while True:
        fi = -1
        fj = -1
        if first and new_row >= 0:  # no old cloud is flagged: only the pairs (i, new cloud)
            for i in range(new_row):
                if merge_condition(IM, n, i, new_row):
                    fi = i
                    fj = new_row
                    break
        elif first:
            for i in range(C - 1):
                if flags[i] == 0:
                    continue
                for j in range(i + 1, C):
                    if flags[j] != 0:
                        IM[i, j] += 1
                        if merge_condition(IM, n, i, j):
                            fi = i
                            fj = j
                            break
                if fi >= 0:
                    break
        else:
            for i in range(C - 1):
                for j in range(i + 1, C):
                    if flags[i] != 0 and flags[j] != 0:
                        IM[i, j] += 1
                    if merge_condition(IM, n, i, j):
                        fi = i
                        fj = j
                        break
                if fi >= 0:
                    break
        if fi < 0:
            break
        C = merge_pair(Y, var, n, ids, IM, flags, iscal, C, fi, fj, merge_rec, nm, colv, rowv)
        iscal[I_K] = C
        nm += 1
        first = False
    return nm


@jit(allocates=False)
def add_point(X, xi, Y, var, n, ids, IM, iscal, fscal, ri, rf, flags, zetas, thresholds, members, joined_ids):
    """AutoCloud.addPoint from the third sample on: x joins every cloud for which it is typical
    (normalised eccentricity zeta <= the Chebyshev threshold); the memberships; a new cloud when it joined none.

    Returns the new cloud's row, or -1.
    """
    C = iscal[I_K]
    m = fscal[F_M]
    nj = 0
    for i in range(C):
        zeta, v_, a, b = tentative(X, xi, Y, var, n, i)
        thr = threshold(m, n[i])
        zetas[i] = zeta
        thresholds[i] = thr
        if zeta < math.inf and zeta <= thr:  # x is typical for cloud i: Cloud.addPoint
            for j in range(X.shape[1]):
                Y[i, j] = a * Y[i, j] + b * X[xi, j]
            var[i] = v_
            n[i] += 1
            flags[i] = 1
            joined_ids[nj] = ids[i]
            nj += 1
    ri[RI_NJOINED] = nj
    tau_sum = 0.0
    for i in range(C):
        tau_sum += 1.0 - zetas[i]
    for i in range(C):
        members[i] = fdiv(1.0 - zetas[i], tau_sum)
    rf[RF_TAUSUM] = tau_sum
    s1 = argmax_first(members, C)
    if s1 >= 0:
        ri[RI_S1] = s1
        ri[RI_S1ID] = ids[s1]
        rf[RF_ZETA_S1] = zetas[s1]
        rf[RF_THRESHOLD_S1] = thresholds[s1]
        rf[RF_MEMBERSHIP_S1] = members[s1]
    if nj > 0:
        ri[RI_CASE] = CASE_JOINED
        return -1
    ri[RI_CASE] = CASE_NEW
    new_cloud(X, xi, Y, var, n, ids, IM, iscal, C)
    flags[C] = 1
    ri[RI_NEWROW] = C
    ri[RI_NEWID] = ids[C]
    iscal[I_K] = C + 1
    return C


@jit(allocates=False)
def step(
    X,
    xi,
    Y,
    var,
    n,
    ids,
    IM,
    iscal,
    fscal,
    ri,
    rf,
    flags,
    zetas,
    thresholds,
    members,
    ids_before,
    joined_ids,
    merge_rec,
    colv,
    rowv,
    track,
):
    """Learn the sample ``X[xi]``: AutoCloud.addPoint(x) followed by mergeClouds."""
    t = iscal[I_T] + 1
    iscal[I_T] = t
    C = iscal[I_K]
    for q in range(ri.shape[0]):
        ri[q] = 0
    for q in range(rf.shape[0]):
        rf[q] = math.nan
    ri[RI_S1] = -1
    ri[RI_S1ID] = -1
    ri[RI_NEWROW] = -1
    ri[RI_NEWID] = -1
    ri[RI_NCLUSTERS] = -1
    ri[RI_NBEFORE] = C
    for i in range(C):  # intersectionList = zeros(1, C)
        flags[i] = 0
    if track:
        for i in range(C):
            ids_before[i] = ids[i]
    new_row = -1
    if t == 1:  # Cloud(x) becomes cloud 1; membershipList = 1
        ri[RI_CASE] = CASE_FIRST
        new_cloud(X, xi, Y, var, n, ids, IM, iscal, 0)
        C = 1
        iscal[I_K] = 1
        ri[RI_NEWROW] = 0
        ri[RI_NEWID] = ids[0]
        ri[RI_S1] = 0
        ri[RI_S1ID] = ids[0]
        rf[RF_MEMBERSHIP_S1] = 1.0
        flags[0] = 0
    elif t == 2:  # cloud 1 takes x whatever it is; membershipList = 1
        ri[RI_CASE] = CASE_SECOND
        z, v_, a, b = tentative(X, xi, Y, var, n, 0)
        for j in range(X.shape[1]):
            Y[0, j] = a * Y[0, j] + b * X[xi, j]
        var[0] = v_
        n[0] += 1
        joined_ids[0] = ids[0]
        ri[RI_NJOINED] = 1
        ri[RI_S1] = 0
        ri[RI_S1ID] = ids[0]
        rf[RF_MEMBERSHIP_S1] = 1.0
    else:
        new_row = add_point(
            X, xi, Y, var, n, ids, IM, iscal, fscal, ri, rf, flags, zetas, thresholds, members, joined_ids
        )
    ri[RI_NMERGES] = merge_clouds(Y, var, n, ids, IM, flags, iscal, new_row, merge_rec, colv, rowv)
    if track:
        ri[RI_NCLUSTERS] = iscal[I_K]


@jit
def run(
    X,
    start,
    Y,
    var,
    n,
    ids,
    IM,
    iscal,
    fscal,
    ri,
    rf,
    flags,
    zetas,
    thresholds,
    members,
    ids_before,
    joined_ids,
    merge_rec,
    colv,
    rowv,
    track,
    trace,
):
    """Learn rows ``X[start:]`` in order.

    Returns ``DONE`` or the index of the first row that needs more room (one
    more cloud than the arrays hold); the caller grows them and calls again.
    When ``trace`` has rows, row ``i`` receives the summary of step ``i``.
    """
    cap = Y.shape[0]
    for i in range(start, X.shape[0]):
        C = iscal[I_K]
        if C + 1 > cap or C + 1 > IM.shape[0]:  # no neighbour lists: no degree check
            return i
        step(
            X,
            i,
            Y,
            var,
            n,
            ids,
            IM,
            iscal,
            fscal,
            ri,
            rf,
            flags,
            zetas,
            thresholds,
            members,
            ids_before,
            joined_ids,
            merge_rec,
            colv,
            rowv,
            track,
        )
        if trace.shape[0] > 0:
            write_trace(trace, i, iscal, fscal, ri, rf)
    return DONE


@jit(allocates=False)
def write_trace(trace, i, iscal, fscal, ri, rf):
    trace[i, 0] = iscal[I_T]
    trace[i, 1] = ri[RI_CASE]
    trace[i, 2] = iscal[I_K]
    trace[i, 3] = 0
    trace[i, 4] = ri[RI_NCLUSTERS]
    trace[i, 5] = 0
    trace[i, 6] = 2 * ri[RI_NMERGES]
    trace[i, 7] = ri[RI_NJOINED]
    trace[i, 8] = ri[RI_NMERGES]
    trace[i, 9] = 1 if ri[RI_NEWID] >= 0 else 0
    trace[i, 10] = ri[RI_S1]
    trace[i, 11] = rf[RF_ZETA_S1]
    trace[i, 12] = rf[RF_THRESHOLD_S1]
    trace[i, 13] = rf[RF_MEMBERSHIP_S1]
    trace[i, 14] = rf[RF_TAUSUM]
    trace[i, 15] = iscal[I_NMERGES]


@jit(allocates=False)
def nearest_nodes(X, Y, var, n, C, tau, out):
    """For every row of X, the first cloud of highest membership tau_i / sum(tau), NaN ignored.

    tau_i = 1 - zeta_i with zeta as in addPoint (k >= 3), the model unchanged.
    When every membership is NaN (the taus sum to 0 and are all 0) the
    reference's label would be empty; we return cloud 0 [fix].
    """
    for r in range(X.shape[0]):
        s = 0.0
        for c in range(C):
            tau[c] = 1.0 - tentative(X, r, Y, var, n, c)[0]
            s += tau[c]
        for c in range(C):
            tau[c] = fdiv(tau[c], s)
        best = argmax_first(tau, C)
        out[r] = best if best >= 0 else 0

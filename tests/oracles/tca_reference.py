"""A literal, slow, test-only transcription of the TCA reference code.

Written from ``Masuyama-lab/TCA``, ``TCA.m`` (commit 40a0b656699c088e495dab28c8ba5d1b99fe63e3) with
the initial state of ``mainTCA.m``, in the reference's own structure: row vectors that grow by one
entry per node, a dense adjacency matrix ``edge``, a full stable sort of the CIMs for every sample,
``knnsearch`` by sorting every distance, ``DeleteIntersection``/``findIntersection`` as written.
Indices are 0-based here. :meth:`ReferenceTCA.learn` is the body of the reference's loop over
samples; :meth:`ReferenceTCA.end_of_call` is what follows the loop.

Nothing here is shared with ``cae.algorithms._tca_kernel``; ``tests/unit/test_tca.py`` runs both on the
same streams and compares them after every step. Arithmetic is IEEE float64 with warnings off, as in
MATLAB (0/0 is NaN, x/0 is +-Inf, and comparisons with NaN are false). Sums (``sum``/``mean``) run in
index order (``np.cumsum``), the choice the kernel makes too (MATLAB's order for long vectors is not
documented). ``knnsearch`` is read as: the k smallest squared Euclidean distances, nearest first, ties
to the lower index, at most as many as there are nodes.

Where the reference cannot run, this transcription does what the kernel's documented fixes do
(``cae/algorithms/tca.py``, the items marked [fix]):

- the sample number in ``mod(sampleNum, Lambda)`` is cumulative over calls (``self.t``);
- a resonating candidate that is the last in CIM order has no s2 (the reference reads past the end);
- with one feature, ``DeleteIntersection`` is skipped (``findIntersection`` reads feature 2);
- ``edge`` starts empty rather than 2x2, so that a reconstruction with a single node deletes nothing
  (the reference's 2x2 start makes that case index out of range).
"""

import math

import numpy as np

F = np.float64


def _sum(v):
    v = np.asarray(v, dtype=F)
    return np.cumsum(v)[-1] if v.size else F(0)


def _mean(v):
    v = np.asarray(v, dtype=F)
    return _sum(v) / F(v.size) if v.size else F(np.nan)


def _median(v):
    v = np.sort(np.asarray(v, dtype=F))
    n = v.size
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _setat(v, i, value):
    """MATLAB's ``v(1, i) = value`` on a row vector (it grows when i is one past the end)."""
    if i == v.size:
        v = np.append(v, np.asarray(value, dtype=v.dtype))
    else:
        v = v.copy()
        v[i] = value
    return v


def CIM(X, Y, sig):
    """The reference's CIM: X is one row, Y one row or a matrix; returns one value per row of Y."""
    Y = np.atleast_2d(np.asarray(Y, dtype=F))
    n, att = Y.shape
    g_Kernel = np.zeros((n, att))
    for i in range(att):
        g_Kernel[:, i] = GaussKernel(X[i] - Y[:, i], sig)
    ret0 = GaussKernel(F(0), sig)
    ret1 = np.cumsum(g_Kernel, axis=1)[:, -1] / att
    return np.sqrt(ret0 - ret1)


_exp = np.vectorize(math.exp, otypes=[F])  # libm's exp, as numba's and MATLAB's scalar exp: no SIMD variant


def GaussKernel(sub, sig):
    return _exp(-(sub * sub) / (2 * (sig * sig)))


def findIntersection(A, B, C, D):
    F1 = B[0] - D[0]
    F2 = B[1] - D[1]
    M11 = B[0] - A[0]
    M21 = B[1] - A[1]
    M12 = C[0] - D[0]
    M22 = C[1] - D[1]
    deter = M11 * M22 - M12 * M21
    lam = -(F2 * M12 - F1 * M22) / deter
    gamma = (F2 * M11 - F1 * M21) / deter
    return bool((0 < lam) & (lam < 1) & (0 < gamma) & (gamma < 1))


def DeleteIntersection(weight, edge, NewEdgedNode, sigma, log):
    for d in np.flatnonzero(NewEdgedNode == 1):
        node1 = np.flatnonzero(edge[d, :])
        posX1 = weight[d, :]
        for m in range(node1.size):
            posY1 = weight[node1[m], :]
            for h in range(node1.size):
                target2 = node1[h]
                node2 = np.flatnonzero(edge[target2, :])
                posX2 = weight[target2, :]
                for k in range(node2.size):
                    posY2 = weight[node2[k], :]
                    if findIntersection(posX1, posY1, posX2, posY2):
                        cim1 = CIM(weight[d, :], weight[node1[m], :], sigma)[0]
                        cim2 = CIM(weight[target2, :], weight[node2[k], :], sigma)[0]
                        if cim2 >= cim1:
                            pair = (target2, node2[k])
                        else:
                            pair = (d, node1[m])
                        if edge[pair]:
                            log.append(("intersection", int(min(pair)), int(max(pair))))
                        edge[pair[0], pair[1]] = 0
                        edge[pair[1], pair[0]] = 0
    return weight, edge, np.zeros_like(NewEdgedNode)


class ReferenceTCA:
    """The reference's ``net`` and ``TCA(DATA, net)``, one sample at a time."""

    def __init__(self, d, Lambda=200, initSig=0.12):
        self.d = d
        self.numNodes = 0
        self.weight = np.zeros((0, d))
        self.CountNode = np.zeros(0)
        self.adaptiveSig = np.zeros(0)
        self.diligence = np.zeros(0)
        self.edge = np.zeros((0, 0), dtype=np.int64)
        self.NewEdgedNode = np.zeros(0, dtype=np.int64)
        self.ErrCIM = np.zeros(0)
        self.Lambda = Lambda
        self.initSig = F(initSig)
        self.t = 0
        self.log = []  # what the last step deleted: ("isolated"/"ErrCIM", row) and edge events

    # ---------------------------------------------------------------- helpers
    def _add_node(self, x, count, sig_of):
        """numNodes + 1 and the new entries; ``sig_of()`` is the RHS of ``adaptiveSig(1, numNodes) = ...``,
        evaluated before the assignment, as in MATLAB."""
        sig = sig_of()
        self.numNodes += 1
        K = self.numNodes
        self.weight = np.vstack([self.weight, x[None, :]])
        self.CountNode = _setat(self.CountNode, K - 1, count)
        self.adaptiveSig = _setat(self.adaptiveSig, K - 1, sig)
        self.diligence = _setat(self.diligence, K - 1, 1.0)
        self.NewEdgedNode = _setat(self.NewEdgedNode, K - 1, 0)
        self.ErrCIM = _setat(self.ErrCIM, K - 1, 1.0)
        e = np.zeros((K, K), dtype=np.int64)
        e[: K - 1, : K - 1] = self.edge
        self.edge = e

    def _delete(self, rows):
        keep = np.ones(self.numNodes, dtype=bool)
        keep[rows] = False
        self.edge = self.edge[keep][:, keep]
        self.weight = self.weight[keep]
        self.numNodes = int(keep.sum())
        self.CountNode = self.CountNode[keep]
        self.NewEdgedNode = self.NewEdgedNode[keep]
        self.ErrCIM = self.ErrCIM[keep]
        self.adaptiveSig = self.adaptiveSig[keep]
        self.diligence = self.diligence[keep]

    def _reconstruct(self):
        # Delete Node based on number of neighbors
        nNeighbor = self.edge.sum(axis=0)
        deleteNodeEdge = nNeighbor == 0
        if deleteNodeEdge.sum() != self.weight.shape[0]:
            self.log += [("isolated", int(r)) for r in np.flatnonzero(deleteNodeEdge)]
            self._delete(np.flatnonzero(deleteNodeEdge))
        # Delete Node based on ErrCIM
        posEC = np.argsort(self.ErrCIM, kind="stable")
        stateEC = self.ErrCIM[posEC]
        highEC = stateEC > _mean(self.adaptiveSig) * 2
        deleteNodeEC = posEC[highEC]
        if deleteNodeEC.size != self.weight.shape[0]:
            self.log += [("ErrCIM", int(r)) for r in np.sort(deleteNodeEC)]
            self._delete(deleteNodeEC)
        # Delete Intersections of edge
        if self.d >= 2:
            self.weight, self.edge, self.NewEdgedNode = DeleteIntersection(
                self.weight, self.edge, self.NewEdgedNode, _mean(self.adaptiveSig), self.log
            )
        else:
            self.NewEdgedNode = np.zeros_like(self.NewEdgedNode)

    # ---------------------------------------------------------------- the loop body
    def learn(self, x):
        x = np.asarray(x, dtype=F)
        self.t += 1
        self.log = []
        with np.errstate(divide="ignore", invalid="ignore"):
            self._learn(x)

    def _learn(self, input):
        nodeCIM = CIM(input, self.weight, _mean(self.adaptiveSig)) if self.numNodes else np.zeros(0)
        orderCIM = np.argsort(nodeCIM, kind="stable")
        stateCIM = nodeCIM[orderCIM]
        NstateCIM = int(np.sum(stateCIM <= _mean(self.adaptiveSig)))
        resonance = False
        currentSortedIndex = 0
        self.case = None

        if NstateCIM == 0:
            if self.weight.shape[0] == 0:
                self.adaptiveSig = _setat(self.adaptiveSig, 0, self.initSig)
            self.case = 1
            self._add_node(input, 1.0, lambda: _mean(self.adaptiveSig))
        else:
            while not resonance:
                s1 = orderCIM[currentSortedIndex]
                c = self.CountNode[s1]
                bestWeight = (c / (c + 1)) * self.weight[s1, :] + (1 / (c + 1)) * input
                bestCIM = CIM(input, bestWeight, self.adaptiveSig[s1])[0]
                if bestCIM <= _mean(self.adaptiveSig):
                    self.weight[s1, :] = bestWeight
                    self.CountNode[s1] += 1
                    self.diligence[s1] += 1
                    resonance = True
                    self.case = 2
                    Ecim = CIM(self.weight[s1, :], bestWeight, self.adaptiveSig[s1])[0]
                    self.ErrCIM[s1] = min(self.ErrCIM[s1], Ecim)
                    if NstateCIM >= 2 and currentSortedIndex + 1 < self.numNodes:  # [fix] past the end
                        s2 = orderCIM[currentSortedIndex + 1]
                        if CIM(input, self.weight[s2, :], self.adaptiveSig[s2])[0] <= _mean(self.adaptiveSig):
                            self.edge[s1, s2] = 1
                            self.edge[s2, s1] = 1
                            self.NewEdgedNode[s1] = 1
                else:
                    if currentSortedIndex == self.numNodes - 1:
                        dist = np.cumsum((self.weight - input[None, :]) ** 2, axis=1)[:, -1]
                        idx = np.argsort(dist, kind="stable")[:3]
                        self.case = 3
                        count = _mean(self.CountNode[idx])
                        sig = _mean(self.adaptiveSig[idx])
                        self._add_node(input, count, lambda: sig)
                        self.diligence[:] = 0  # zeros(size(numNodes)) is the scalar 0
                        resonance = True
                    else:
                        currentSortedIndex += 1

        # Topology Reconstruction
        if self.t % self.Lambda == 0:
            self._reconstruct()

        # Updates cimSig if there is no node inserted for a certain period.
        cnd = 1 if np.min(self.diligence) == 0 else np.min(self.diligence)
        self.adapted = False
        if _mean(self.diligence) > cnd * 10 and self.numNodes > 1:
            self.adapted = True
            from scipy.sparse.csgraph import connected_components

            _, LebelCluster = connected_components(self.edge != 0, directed=False)
            for k in range(LebelCluster.max() + 1):
                idxLC = np.flatnonzero(LebelCluster == k)
                selectedDili = self.diligence[idxLC]
                uniformDegree = _median(selectedDili) / (_median(selectedDili) + _mean(selectedDili))
                if (0.5 - uniformDegree) > 0.05:
                    self._shift(idxLC, selectedDili, uniformDegree, -1.0)
                elif (0.5 - uniformDegree) <= -0.05:
                    self._shift(idxLC, selectedDili, uniformDegree, +1.0)
            self.diligence[:] = 0

    def _shift(self, idxLC, selectedDili, uniformDegree, upper_sign):
        upper = np.flatnonzero(selectedDili >= _mean(selectedDili))
        lower = np.flatnonzero(selectedDili < _mean(selectedDili))
        for group, sign in ((upper, upper_sign), (lower, -upper_sign)):
            for i in group:
                rate = abs(uniformDegree) * 0.1
                r = idxLC[i]
                if sign < 0:
                    self.adaptiveSig[r] = self.adaptiveSig[r] - rate * _mean(self.adaptiveSig[idxLC[group]])
                    if self.adaptiveSig[r] <= self.initSig * 0.5:
                        self.adaptiveSig[r] = self.initSig * 0.5
                else:
                    self.adaptiveSig[r] = self.adaptiveSig[r] + rate * _mean(self.adaptiveSig[idxLC[group]])
                    if self.adaptiveSig[r] >= self.initSig * 1.5:
                        self.adaptiveSig[r] = self.initSig * 1.5

    def end_of_call(self):
        """The three deletions after the reference's loop."""
        self.log = []
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.numNodes:
                self._reconstruct()

    # ---------------------------------------------------------------- views
    def edges(self):
        i, j = np.nonzero(np.triu(self.edge, 1))
        return set(zip(i.tolist(), j.tolist()))

    def labels(self):
        from scipy.sparse.csgraph import connected_components

        return connected_components(self.edge != 0, directed=False)[1]

    def predict(self, X):
        """Nearest node by CIM with the mean bandwidth (first on ties), then its component."""
        sig = _mean(self.adaptiveSig)
        lab = self.labels()
        out = np.empty(len(X), dtype=np.int64)
        for n, x in enumerate(np.asarray(X, dtype=F)):
            out[n] = lab[np.argmin(CIM(x, self.weight, sig))]
        return out

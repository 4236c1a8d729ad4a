"""Test-only: a literal, slow transcription of ``SoinnPlus.m`` (ChayutDev/SOINNPlus, commit 0911eb4).

Written from the reference's MATLAB in its own structure (a class with the
same methods and fields, a dense adjacency matrix holding the edge values,
nodes deleted by removing rows and columns), in plain Python/NumPy, so that
``tests/unit/test_soinn.py`` can compare our kernel with it after every step. It
is our substitute for golden traces, which we do not have for the baselines.

MATLAB semantics kept by hand: ``min`` takes the first index on ties, ``find``
returns ascending indices, ``sum`` of a vector runs left to right, 0/0 is NaN
and comparisons with NaN are false, ``median`` averages the two middle values
as ``a + (b - a)/2`` (``meanof`` in ``median.m``), ``prctile`` places the sorted
values at 100 (i - 0.5)/n. Indices are 0-based here; where the reference adds
1-based indices (``deleteNodes``) we add ``index + 1``.

Two places where the reference cannot run, handled as our kernel does
(both marked [fix] in :mod:`cae.algorithms.soinn_plus`): ``max`` of an empty
set in the linking rule (we link), and the undefined ``setBond`` (skipped).
Fields the learning never reads (``trackInput``, ``curNodeTh``) are left out.
"""

import math

import numpy as np
from scipy.special import erfcinv


def _div(a, b):
    """MATLAB's a / b for doubles: 0/0 is NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _sum(values):
    acc = 0.0
    for v in values:
        acc += float(v)
    return acc


def _sq_dists(nodes, signal):
    """``sum(bsxfun(@minus, nodes, signal).^2, 2)``, each row summed over features in order."""
    D = np.zeros(nodes.shape[0])
    for j in range(nodes.shape[1]):
        D += (nodes[:, j] - signal[j]) ** 2
    return D


def _meanof(a, b):
    if np.sign(a) != np.sign(b) or math.isinf(a) or math.isinf(b):
        return (a + b) / 2
    return a + (b - a) / 2


def matlab_median(x):
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0:
        return math.nan
    half = n // 2
    y = x[half]
    if 2 * half == n:
        y = _meanof(x[half - 1], y)
    return float(y)


def matlab_prctile(x, p):
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0:
        return math.nan
    r = (p / 100) * n
    k = math.floor(r + 0.5)
    kp1 = k + 1
    r = r - k
    if k < 1:
        k = 1
    kp1 = min(kp1, n)
    y = (0.5 + r) * x[kp1 - 1] + (0.5 - r) * x[k - 1]
    if r == -0.5:
        y = x[k - 1]
    if x[k - 1] == x[kp1 - 1]:
        y = x[k - 1]
    return float(y)


def matlab_iqr(x):
    return matlab_prctile(x, 75) - matlab_prctile(x, 25)


def matlab_isoutlier_median(a):
    """``[TF, L, U, C] = isoutlier(a)`` with the default 'median' method (3 scaled MADs)."""
    madfactor = -1 / (math.sqrt(2) * float(erfcinv(3 / 2)))
    center = matlab_median(a)
    amad = madfactor * matlab_median(np.abs(np.asarray(a, dtype=float) - center))
    lower = center - 3 * amad
    upper = center + 3 * amad
    return None, lower, upper, center


class SoinnPlusReference:
    """``SoinnPlus(varargin)``: ``lam``/``age_max`` are 'lambda'/'ageMax', ``node``/``edge`` the plus flags."""

    def __init__(self, dim, lam=300, age_max=50, node=1, edge=1):
        self.minDegree = 1
        self.paramEdge = 2
        self.paramC = 2
        self.paramAlpha = 2
        self.deleteNodePeriod = lam
        self.maxEdgeAge = age_max
        self.dimension = dim
        self.nodeFlag = node
        self.edgeFlag = edge
        self.runThVariance = np.array([0.0, 0.0])
        self.runThMean = np.array([0.0, 0.0])
        self.linkCreated = 0
        self.nodes = np.zeros((0, dim))
        self.winningTimes = np.zeros(0)
        self.winTS = np.zeros(0)
        self.nodeTS = np.zeros(0)
        self.nodeDelTh = 0.0
        self.nodeAvgIdleDel = 0.0
        self.edgeAvgLtDel = 0.0
        self.adjacencyMat = np.zeros((0, 0))
        self.signalNum = 0
        self.nodeDeleted = 0
        self.edgeDeleted = 0
        if self.nodeFlag == 0:
            self.deleteNoiseHandler = self.deleteNoiseNodes_Original
        else:
            self.deleteNoiseHandler = self.deleteNoiseNodes_Plus
            self.deleteNodePeriod = 1
        if self.edgeFlag == 0:
            self.deleteEdgeHandler = self.deleteOldEdges_Original
        else:
            self.deleteEdgeHandler = self.deleteOldEdges_Plus
        self.last = {}  # what the last step decided (for the tests only)

    # ----------------------------------------------------------------- main
    def inputSignal(self, signal):
        signal = np.asarray(signal, dtype=float)
        self.signalNum = self.signalNum + 1
        self.last = {"case": 0, "eFlag": None, "deleted_nodes": 0, "deleted_edges": 0}
        if self.nodes.shape[0] < 3:
            self.addNode(signal)
            return
        winner, dists = self.findNearestNodes(2, signal)
        simThresholds = self.calculateSimiralityThresholds(winner)
        if np.any(self.runThVariance == 0):
            eFlag = True
        else:
            th = self.paramC * np.sqrt(self.runThVariance / self.linkCreated)
            noises = np.sum(self.adjacencyMat > 0, axis=0) < 1
            data = ~noises
            if not np.any(data):
                eFlag = True  # [fix] the reference's max([]) cannot run; link
            else:
                trustLv = self.winningTimes[winner] / np.max(self.winningTimes[data])
                eFlag = bool(np.any(np.sqrt(simThresholds) * (1 - trustLv) < (self.runThMean + th)))
        self.last.update(
            eFlag=bool(eFlag), winner=winner.copy(), dists=dists.copy(), simThresholds=simThresholds.copy()
        )
        if np.any(dists > simThresholds):
            self.last["case"] = 1
            self.addNode(signal)
        else:
            self.last["case"] = 2
            if eFlag:
                isNew = self.addEdge(winner)
                if isNew:
                    self.linkCreated = self.linkCreated + 1
                    preMean = self.runThMean
                    self.runThMean = self.runThMean + (np.sqrt(simThresholds) - self.runThMean) / self.linkCreated
                    self.runThVariance = self.runThVariance + (np.sqrt(simThresholds) - preMean) * (
                        np.sqrt(simThresholds) - self.runThMean
                    )
            self.incrementEdgeAges(winner[0])
            winner[0] = self.deleteEdgeHandler(winner[0])
            self.updateWinner(winner[0], signal)
            self.updateAdjacentNodes(winner[0], signal)
        if self.signalNum % self.deleteNodePeriod == 0:
            self.deleteNoiseHandler()

    # ------------------------------------------------------------ helpers
    def addNode(self, signal):
        self.nodes = np.vstack([self.nodes, signal[None, :]])
        self.winningTimes = np.append(self.winningTimes, 1.0)
        self.winTS = np.append(self.winTS, float(self.signalNum))
        self.nodeTS = np.append(self.nodeTS, float(self.signalNum))
        num = self.adjacencyMat.shape[0]
        A = np.zeros((num + 1, num + 1))
        A[:num, :num] = self.adjacencyMat
        self.adjacencyMat = A

    def findNearestNodes(self, num, signal):
        indexes = np.zeros(num, dtype=int)
        sqDists = np.zeros(num)
        D = _sq_dists(self.nodes, signal)
        for i in range(num):
            indexes[i] = int(np.argmin(D))  # first index on ties, as MATLAB's min
            sqDists[i] = D[indexes[i]]
            D[indexes[i]] = np.inf
        return indexes, sqDists

    def calculateSimiralityThresholds(self, nodeIndexes):
        return np.array([self.calculateSimiralityThreshold(i) for i in nodeIndexes])

    def calculateSimiralityThreshold(self, nodeIndex):
        if np.any(self.adjacencyMat[:, nodeIndex]):
            pals = self.nodes[self.adjacencyMat[:, nodeIndex] > 0, :]
            D = _sq_dists(pals, self.nodes[nodeIndex, :])
            return float(np.max(D))
        _, sqDists = self.findNearestNodes(2, self.nodes[nodeIndex, :])
        return float(sqDists[1])

    def addEdge(self, nodeIndexes):
        a, b = nodeIndexes[0], nodeIndexes[1]
        isNew = bool(self.adjacencyMat[a, b] or self.adjacencyMat[b, a])  # true when it EXISTED [ref]
        self.adjacencyMat[a, b] = 1
        self.adjacencyMat[b, a] = 1
        self.last["edge"] = "reset" if isNew else "created"
        return isNew

    def updateWinner(self, winnerIndex, signal):
        self.winningTimes[winnerIndex] = self.winningTimes[winnerIndex] + 1
        w = self.nodes[winnerIndex, :].copy()
        self.nodes[winnerIndex, :] = w + (signal - w) / self.winningTimes[winnerIndex]
        self.winTS[winnerIndex] = self.signalNum

    def updateAdjacentNodes(self, winnerIndex, signal):
        pals = np.nonzero(self.adjacencyMat[:, winnerIndex] > 0)[0]
        for i in range(len(pals)):
            w = self.nodes[pals[i], :].copy()
            self.nodes[pals[i], :] = w + (signal - w) / (100 * self.winningTimes[pals[i]])

    def incrementEdgeAges(self, winnerIndex):
        indexes = np.nonzero(self.adjacencyMat[:, winnerIndex] > 0)[0]
        for i in range(len(indexes)):
            self.incrementEdgeAge(winnerIndex, indexes[i])

    def incrementEdgeAge(self, i, j):
        self.adjacencyMat[i, j] = self.adjacencyMat[i, j] + 1
        self.adjacencyMat[j, i] = self.adjacencyMat[j, i] + 1

    def setEdgeAge(self, i, j, value):
        self.adjacencyMat[i, j] = value
        self.adjacencyMat[j, i] = value

    def deleteOldEdges_Original(self, winnerIndex):
        indexes = np.nonzero(self.adjacencyMat[:, winnerIndex] > self.maxEdgeAge + 1)[0]
        deletedNodeIndexes = []
        for i in range(len(indexes)):
            self.edgeDeleted = self.edgeDeleted + 1
            self.setEdgeAge(indexes[i], winnerIndex, 0)
            # [fix] obj.setBond(indexes(i), winnerIndex, 0) is undefined in the reference: skipped
            if not np.any(self.adjacencyMat[:, indexes[i]]):
                deletedNodeIndexes.append(int(indexes[i]))
        self.last["deleted_edges"] = len(indexes)
        winnerIndex = winnerIndex - sum(1 for k in deletedNodeIndexes if k < winnerIndex)
        self.deleteNodes(deletedNodeIndexes)
        return winnerIndex

    def collectClusterEdgeAge(self, seed):
        """``graph`` + ``dfsearch(G, seed, 'allevents')``: the weights of every edge of seed's component."""
        A = self.adjacencyMat
        seen = {int(seed)}
        stack = [int(seed)]
        while stack:
            u = stack.pop()
            for v in np.nonzero(A[u] > 0)[0]:
                if int(v) not in seen:
                    seen.add(int(v))
                    stack.append(int(v))
        comp = sorted(seen)
        ages = [A[u, v] for u in comp for v in np.nonzero(A[u] > 0)[0] if v > u]  # G.Edges order
        return np.array(ages, dtype=float)

    def deleteOldEdges_Plus(self, winnerIndex):
        edgeAge = self.collectClusterEdgeAge(winnerIndex)
        edge = self.adjacencyMat[:, winnerIndex].copy()
        c = matlab_prctile(edgeAge, 75)
        th = self.paramEdge * matlab_iqr(edgeAge)
        self.last.update(p75=c, iqr=matlab_iqr(edgeAge), component_edges=len(edgeAge))
        if th == 0:
            return winnerIndex
        curTh = c + th
        ratio = _div(self.edgeDeleted, self.edgeDeleted + len(edgeAge))
        delThreshold = self.edgeAvgLtDel * ratio + curTh * (1 - ratio)
        delFlag = edge > delThreshold
        indexes = np.nonzero(delFlag)[0]
        self.last["edge_threshold"] = delThreshold
        if len(indexes) > 0:
            self.edgeAvgLtDel = (self.edgeDeleted * self.edgeAvgLtDel + _sum(edge[delFlag])) / (
                self.edgeDeleted + len(indexes)
            )
        self.edgeDeleted = self.edgeDeleted + len(indexes)
        deletedNodeIndexes = []
        for i in range(len(indexes)):
            self.setEdgeAge(indexes[i], winnerIndex, 0)
            if not np.any(self.adjacencyMat[:, indexes[i]]):
                deletedNodeIndexes.append(int(indexes[i]))
        self.last["deleted_edges"] = len(indexes)
        winnerIndex = winnerIndex - sum(1 for k in deletedNodeIndexes if k < winnerIndex)
        self.deleteNodes(deletedNodeIndexes)
        return winnerIndex

    def deleteNodes(self, indexes):
        """``indexes``: a list of row indices or a logical mask (MATLAB adds ``sum(indexes)`` [ref])."""
        if isinstance(indexes, np.ndarray) and indexes.dtype == bool:
            rows = np.nonzero(indexes)[0]
            added = int(np.sum(indexes))  # a count
        else:
            rows = np.asarray(indexes, dtype=int)
            added = int(sum(k + 1 for k in indexes))  # the sum of the 1-based indices
        self.nodes = np.delete(self.nodes, rows, axis=0)
        self.winningTimes = np.delete(self.winningTimes, rows)
        self.adjacencyMat = np.delete(np.delete(self.adjacencyMat, rows, axis=0), rows, axis=1)
        self.winTS = np.delete(self.winTS, rows)
        self.nodeTS = np.delete(self.nodeTS, rows)
        self.nodeDeleted = self.nodeDeleted + added
        self.last["deleted_nodes"] = self.last.get("deleted_nodes", 0) + len(rows)

    def deleteNoiseNodes_Original(self):
        noises = np.sum(self.adjacencyMat > 0, axis=0) < self.minDegree
        self.deleteNodes(noises)

    def deleteNoiseNodes_Plus(self):
        noises = np.sum(self.adjacencyMat > 0, axis=0) < self.minDegree
        data = ~noises
        IT = self.signalNum - self.winTS
        UT = IT / self.winningTimes
        _, lower, u, c = matlab_isoutlier_median(UT[data])
        th = self.paramAlpha * ((u - c) / 3)
        curTh = c + th
        ratio = _div(self.nodeDeleted, self.nodeDeleted + int(np.sum(data)))
        noiseLv = _div(int(np.sum(noises)), self.nodes.shape[0])
        delThreshold = self.nodeDelTh * ratio + curTh * (1 - ratio) * (1 - noiseLv)
        inactiveIdx = UT > delThreshold
        self.last["node_threshold"] = delThreshold
        mask = inactiveIdx & noises
        if np.any(mask):
            n = int(np.sum(mask))
            self.nodeAvgIdleDel = (self.nodeDeleted * self.nodeAvgIdleDel + _sum(IT[mask])) / (self.nodeDeleted + n)
            self.nodeDelTh = (self.nodeDeleted * self.nodeDelTh + _sum(UT[mask])) / (self.nodeDeleted + n)
        self.deleteNodes(mask)

    # ------------------------------------------------------------ reading out
    def edges(self):
        """{(i, j): value} for i < j."""
        i, j = np.nonzero(np.triu(self.adjacencyMat) > 0)
        return {(int(a), int(b)): int(self.adjacencyMat[a, b]) for a, b in zip(i, j)}

    def predict(self, X):
        """Nearest node (first on ties), then its connected component numbered by smallest row."""
        K = self.nodes.shape[0]
        labels = -np.ones(K, dtype=int)
        n = 0
        for k in range(K):
            if labels[k] >= 0:
                continue
            stack = [k]
            labels[k] = n
            while stack:
                u = stack.pop()
                for v in np.nonzero(self.adjacencyMat[u] > 0)[0]:
                    if labels[v] < 0:
                        labels[v] = n
                        stack.append(v)
            n += 1
        return np.array([labels[int(np.argmin(_sq_dists(self.nodes, x)))] for x in np.asarray(X, float)])

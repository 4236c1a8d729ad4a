"""Test-only: a literal, slow transcription of Shen's ``fastSOINN.m`` (``fastSOINN(data, agemax, lambda, c)``).

Written from the MATLAB function (F. Shen, Nanjing University; the public file whose header cites Shen
and Hasegawa, Neural Networks 19, 2006) in its own structure: row vectors ``M`` and ``threshold`` that
grow by one entry per node, dense ``connection`` and ``age`` matrices, nodes deleted by removing rows
and columns, the loop body over samples ``i = 3 .. N`` as one method. Indices are 0-based here; the
sample number ``i`` stays 1-based, as in ``mod(i, lambda)``. Nothing is shared with
``cae.algorithms._asoinn_kernel``; ``tests/unit/test_asoinn.py`` runs both on the same streams and compares
them after every sample.

MATLAB semantics kept by hand: ``min`` takes the first index on ties; ``find`` returns ascending
indices; ``sum`` runs in index order; Euclidean distances are ``sqrt`` of the sum of squares over the
features in order (``norm`` is computed the same way here; MATLAB's ``norm`` may differ from it in the
last bit, which no test can see).

Besides the loop, :meth:`FastSoinnReference.denoise` is the body of the ``if mod(i, lambda) == 0``
block alone: the paper's numbers imply one more such pass after the last sample (not in
``fastSOINN.m``; see ``docs/baselines/asoinn.md``).

Where the reference cannot run or is plainly wrong, this transcription does what the kernel's
documented fixes do (the items marked [fix] in ``docs/baselines/asoinn.md``):

- with ONE feature, ``sqrt(sum(X.^2'))`` sums a row vector, i.e. over all nodes at once (one distance
  for the whole network); we take the distance of each node, what the code means for two or more
  features;
- when the runner-up is the winner itself (``dis(index(1)) = 1000000`` leaves the winner the smallest:
  one node left, or every other node 1e6 or more away) and the sample would not become a node, the
  reference links a node to itself; we add the sample as a node instead;
- after a denoising pass has deleted every node (possible only with c > 1) the reference fails at the
  next ``min`` of nothing; we start again as it starts: the next two samples become nodes.
"""

import math

import numpy as np

SENTINEL = 1000000.0


def _norm(a, b):
    acc = 0.0
    for j in range(len(a)):
        diff = float(a[j]) - float(b[j])
        acc += diff * diff  # MATLAB's .^2 is a product (pow may differ from it in the last bit)
    return math.sqrt(acc)


class FastSoinnReference:
    """The state of ``fastSOINN`` between two samples; :meth:`input` is one pass of its loop."""

    def __init__(self, dim, agemax, lam, c=1.0):
        self.agemax = agemax
        self.lam = lam
        self.c = c
        self.node = np.zeros((0, dim))
        self.M = np.zeros(0)
        self.threshold = np.zeros(0)
        self.connection = np.zeros((0, 0))
        self.age = np.zeros((0, 0))
        self.i = 0  # the 1-based number of the last sample learned
        self.first = None  # data(1, :) while the two-node start waits for data(2, :)
        self.last = {}

    # ------------------------------------------------------------ the start
    def _initialize(self, x1, x2):
        # node = [data(1,:); data(2,:)]; M = [1,1]; tem = norm(...); threshold = [tem,tem]; zeros
        self.node = np.vstack([x1, x2])
        self.M = np.array([1.0, 1.0])
        tem = _norm(x1, x2)
        self.threshold = np.array([tem, tem])
        self.connection = np.zeros((2, 2))
        self.age = np.zeros((2, 2))

    def input(self, x):
        x = np.asarray(x, dtype=float)
        self.i += 1
        self.last = {"case": 0, "deleted_edges": [], "deleted_nodes": [], "denoised": False}
        if self.node.shape[0] == 0 and self.first is None:  # data(1,:) (or a restart [fix])
            self.first = x.copy()
            self.last["n_nodes_shown"] = 1
            return
        if self.first is not None:  # data(2,:)
            self._initialize(self.first, x)
            self.first = None
            return
        self._loop_body(x)

    def _loop_body(self, x):
        i = self.i
        node = self.node
        # find winner node and runner-up node
        dis = np.array([_norm(x, node[k]) for k in range(node.shape[0])])
        index = [0, 0]
        value = [0.0, 0.0]
        index[0] = int(np.argmin(dis))  # first index on ties
        value[0] = float(dis[index[0]])
        dis[index[0]] = SENTINEL
        index[1] = int(np.argmin(dis))
        value[1] = float(dis[index[1]])
        s1, s2 = index
        self.last.update(winner=(s1, s2), value=(value[0], value[1]))
        self.last["threshold_used"] = (float(self.threshold[s1]), float(self.threshold[s2]))
        new = value[0] > self.threshold[s1] or value[1] > self.threshold[s2]
        if not new and s1 == s2:
            new = True  # [fix] the reference would link the node to itself
        if new:
            self.last["case"] = 1
            self.node = np.vstack([self.node, x[None, :]])
            self.threshold = np.append(self.threshold, SENTINEL)
            self.M = np.append(self.M, 1.0)
            s = self.node.shape[0]
            C = np.zeros((s, s))
            C[: s - 1, : s - 1] = self.connection
            A = np.zeros((s, s))
            A[: s - 1, : s - 1] = self.age
            self.connection, self.age = C, A
        else:
            self.last["case"] = 2
            if self.connection[s1, s2] == 0:
                self.connection[s1, s2] = 1
                self.connection[s2, s1] = 1
                self.age[s1, s2] = 1
                self.age[s2, s1] = 1
                self.last["edge"] = "created"
            else:
                self.age[s1, s2] = 1
                self.age[s2, s1] = 1
                self.last["edge"] = "reset"
            col = np.flatnonzero(self.connection[s1, :] != 0)
            self.age[s1, col] = self.age[s1, col] + 1
            self.age[col, s1] = self.age[col, s1] + 1
            locate = np.flatnonzero(self.age[s1, :] > self.agemax)
            self.last["deleted_edges"] = [(int(j), int(self.age[s1, j])) for j in locate]
            self.connection[s1, locate] = 0
            self.connection[locate, s1] = 0
            self.age[s1, locate] = 0
            self.age[locate, s1] = 0
            self.M[s1] = self.M[s1] + 1
            self.node[s1, :] = self.node[s1, :] + (1 / self.M[s1]) * (x - self.node[s1, :])
        # threshold update
        for who in (s1, s2):
            if np.count_nonzero(self.connection[who, :]) == 0:
                self.threshold[who] = _norm(self.node[s1, :], self.node[s2, :])
            else:
                v = np.flatnonzero(self.connection[who, :] != 0)
                self.threshold[who] = max(_norm(self.node[who, :], self.node[k, :]) for k in v)
        self.last["threshold_set"] = (float(self.threshold[s1]), float(self.threshold[s2]))
        # denoising
        if i % self.lam == 0:
            self.denoise()
            self.last["denoised"] = True

    def denoise(self):
        """The ``if mod(i, lambda) == 0`` block: returns the deleted rows."""
        K = self.node.shape[0]
        if K == 0:
            return []
        total = 0.0
        for m in self.M:
            total += m
        meanM = total / K
        neighbor = self.connection.sum(axis=0)
        one = set(np.flatnonzero(self.M < self.c * meanM)) & set(np.flatnonzero(neighbor == 1))
        zero = set(np.flatnonzero(self.M < meanM)) & set(np.flatnonzero(neighbor == 0))
        setu = sorted(int(k) for k in one | zero)
        self.last["deleted_nodes"] = self.last.get("deleted_nodes", []) + setu
        keep = np.setdiff1d(np.arange(K), setu)
        self.node = self.node[keep]
        self.threshold = self.threshold[keep]
        self.M = self.M[keep]
        self.connection = self.connection[np.ix_(keep, keep)]
        self.age = self.age[np.ix_(keep, keep)]
        return setu

    # ------------------------------------------------------------ views for the tests
    def n_nodes(self):
        return self.node.shape[0] + (1 if self.first is not None else 0)

    def edges(self):
        """``{(i, j): age}`` for i < j (rows of the live nodes)."""
        out = {}
        K = self.node.shape[0]
        for a in range(K):
            for b in range(a + 1, K):
                if self.connection[a, b]:
                    out[(a, b)] = int(self.age[a, b])
        return out


def fast_soinn(data, agemax, lam, c):
    """``[node, connection] = fastSOINN(data, agemax, lambda, c)``: the whole function on N >= 2 rows."""
    ref = FastSoinnReference(data.shape[1], agemax, lam, c)
    for x in data:
        ref.input(x)
    return ref.node, ref.connection

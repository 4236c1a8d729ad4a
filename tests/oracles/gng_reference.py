"""A test-only transcription of DemoGNG's Growing Neural Gas, to check cae.algorithms.gng against.

Source: repository ``rhaschke/demogng`` (Bernd Fritzke's DemoGNG), read at commit
``3c5e90ddd81f13949f73f3bcc3cd8d7a817c7951``:

* ``js/vbnn.js``: ``VBNN.prototype.adaptGNG`` (characters ~75,900-81,500 of the 91,654-character
  file: one signal), ``VBNN.prototype.gnginsert`` (~64,000-65,900: one insertion),
  ``VBNN.prototype.removeEdges`` and ``addEdge`` (~53,000), ``VBNN.prototype.removeNode``
  (~15,000), ``function Edge`` and ``Edge.prototype.vanish`` (~82,000-84,000), ``Node.prototype.init``
  (error 0); the read tool gives character offsets, not line numbers;
* ``js/loop.js``: ``function loopGNG`` (``signalsPresented += 1``; the insertion when
  ``signalsPresented % gng_lambda == 0`` and ``noOfNodes < gng_n_max``, *before* the signal's
  ``adapt``);
* ``js/numPar.js``: the options ``gng_delOrphanedNodes`` (the removal of nodes left without
  edges, while ``noOfNodes > 3``) and ``gng_doGlobalEdgeAging``.

Written independently of the kernel, in the reference's own data structures: JavaScript objects
keyed by ``"node#N"``/``"edge#N"`` strings iterate in insertion order, as Python dicts do, and
deleting a key keeps the others' order, as ``del`` does. So the tie rules are the reference's by
construction: the winner search keeps the LAST node at the smallest distance (``<=``), q is the
FIRST node of largest error (``>``), f the LAST of q's neighbours (in the order their edges were
made) of largest error (``>=``), and old edges are removed last first.

Choices, each named where it is made:

* the two start nodes are given (DemoGNG draws them from the distribution, ``getSignalFromPD``;
  the tests give the stream's first two samples, as the estimator takes them);
* α is a parameter (DemoGNG hard-codes ``/= 2``; ``x * 0.5`` is bit-identical to ``x / 2``);
* ``gng_delOrphanedNodes`` is on (Fritzke 1995 removes nodes without edges; DemoGNG's checkbox is
  off by default) and ``gng_doGlobalEdgeAging`` off (not in Fritzke 1995; on in DemoGNG's UI);
* GNG-U's utility (``gng_doUtility``, off for GNG) is left out;
* vectors have any number of components (DemoGNG's have x, y, z; z = 0 in 2-D adds an exact 0).
"""

from __future__ import annotations

MAX_VALUE = 1.7976931348623157e308  # Number.MAX_VALUE


class ReferenceFailure(RuntimeError):
    """Where the JavaScript would throw (``badUnit`` undefined: every error is 0 at an insertion)."""


class Node:
    def __init__(self, net, position):
        self.id = f"node#{net.nodeid}"  # Node.prototype.init
        self.num = net.nodeid
        net.nodeid += 1
        self.position = list(position)
        self.error = 0.0
        self.edges = {}
        self.neighbors = {}


class Edge:
    def __init__(self, net, a, b):  # function Edge(a, b)
        self.id = f"edge#{net.edgeid}"
        net.edgeid += 1
        self.nodes = {a.id: a, b.id: b}
        self.age = 0
        self.moriturus = False
        a.edges[self.id] = self
        b.edges[self.id] = self
        a.neighbors[b.id] = b
        b.neighbors[a.id] = a

    def vanish(self):  # Edge.prototype.vanish
        a, b = list(self.nodes.values())
        del a.edges[self.id]
        del b.edges[self.id]
        del a.neighbors[b.id]
        del b.neighbors[a.id]
        orphaned = []
        if len(a.edges) == 0:
            orphaned.append(a)
        if len(b.edges) == 0:
            orphaned.append(b)
        return orphaned


class DemoGNG:
    """``VBNN`` with ``model = "GNG"``, started from two given nodes; :meth:`signal` is one pass of ``loopGNG``."""

    def __init__(self, start, eps_b, eps_n, age_max, lam, alpha, beta, n_max):
        self.nodeid = 0
        self.edgeid = 0
        self.eps_b, self.eps_n, self.age_max = eps_b, eps_n, age_max
        self.lam, self.alpha, self.beta, self.n_max = lam, alpha, beta, n_max
        self.nodes = {}
        self.edges = {}
        self.noOfNodes = 0
        self.noOfEdges = 0
        self.signalsPresented = 0
        for p in start:
            n = Node(self, p)
            self.nodes[n.id] = n
            self.noOfNodes += 1

    # -------------------------------------------------------------- loop.js: loopGNG
    def signal(self, x):
        self.signalsPresented += 1
        inserted = False
        if self.signalsPresented % self.lam == 0 and self.noOfNodes < self.n_max:
            self.gnginsert()
            inserted = True
        self.adaptGNG(list(x))
        return inserted

    # -------------------------------------------------------------- vbnn.js
    def addEdge(self, a, b):
        e = Edge(self, a, b)
        self.edges[e.id] = e
        self.noOfEdges += 1

    def removeNode(self, n):
        for eid in list(n.edges):
            e2go = n.edges[eid]
            e2go.vanish()
            del self.edges[e2go.id]
            self.noOfEdges -= 1
        del self.nodes[n.id]
        self.noOfNodes -= 1

    def removeEdges(self, edgesToRemove):
        for e in range(len(edgesToRemove) - 1, -1, -1):
            nodes = edgesToRemove[e].vanish()
            for i in range(len(nodes) - 1, -1, -1):  # gng_delOrphanedNodes
                if self.noOfNodes > 3:
                    self.removeNode(nodes[i])
            del self.edges[edgesToRemove[e].id]
            self.noOfEdges -= 1

    def gnginsert(self):
        maxErr = 0.0
        badUnit = None
        for n in self.nodes.values():
            if n.error > maxErr:
                maxErr = n.error
                badUnit = n
        if badUnit is None:
            raise ReferenceFailure("no node with a positive error: badUnit is undefined")
        maxErrN = 0.0
        badNeighbor = None
        for nb in badUnit.neighbors.values():
            if nb.error >= maxErrN:
                maxErrN = nb.error
                badNeighbor = nb
        # (for the tests, not the reference: how many of q's neighbours had f's error)
        self.f_ties = sum(1 for nb in badUnit.neighbors.values() if nb.error == maxErrN)
        n = Node(self, badUnit.position)
        self.nodes[n.id] = n
        self.noOfNodes += 1
        if badNeighbor is not None:
            n.position = [(v + w) * 0.5 for v, w in zip(n.position, badNeighbor.position)]
            badNeighbor.error *= self.alpha
        badUnit.error *= self.alpha
        n.error = badUnit.error
        self.lastInserted = n
        for e in list(badUnit.edges.values()):
            if badNeighbor.id in e.nodes:
                self.addEdge(n, badUnit)
                self.addEdge(n, badNeighbor)
                self.removeEdges([e])
                break

    def adaptGNG(self, signal):
        mindist = MAX_VALUE
        min2dist = MAX_VALUE
        bmu = None
        bmu2 = None
        decay = 1 - self.beta
        for cn in self.nodes.values():
            curdist = 0.0
            for v, s in zip(cn.position, signal):
                d = v - s
                curdist += d * d
            if curdist <= mindist:
                if bmu is not None:
                    bmu2 = bmu
                    min2dist = mindist
                bmu = cn
                mindist = curdist
            elif curdist <= min2dist:
                bmu2 = cn
                min2dist = curdist
            cn.error *= decay
        bmu.error += mindist
        if bmu2.id not in bmu.neighbors:
            self.addEdge(bmu, bmu2)
        edgesToRemove = []
        for ecur in bmu.edges.values():
            ecur.age += 1
            if bmu2.id in ecur.nodes:
                ecur.age = 0
            if ecur.age > self.age_max and not ecur.moriturus:
                ecur.moriturus = True
                edgesToRemove.append(ecur)
        bmu.position = [w + (s - w) * self.eps_b for w, s in zip(bmu.position, signal)]
        for nb in bmu.neighbors.values():
            nb.position = [w + (s - w) * self.eps_n for w, s in zip(nb.position, signal)]
        if edgesToRemove:
            self.removeEdges(edgesToRemove)
        self.last = (bmu, bmu2, mindist, min2dist)

    # -------------------------------------------------------------- what the tests compare
    def state(self):
        """(ids, positions, errors, neighbour lists as (id, age) in their order), nodes in iteration order."""
        ns = list(self.nodes.values())
        return (
            [n.num for n in ns],
            [list(n.position) for n in ns],
            [n.error for n in ns],
            [[(_other(e, n).num, e.age) for e in n.edges.values()] for n in ns],
        )


def _other(edge, node):
    """The end of ``edge`` that is not ``node``."""
    return next(m for m in edge.nodes.values() if m is not node)

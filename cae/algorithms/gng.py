"""Growing Neural Gas, from DemoGNG's JavaScript.

Growing Neural Gas is B. Fritzke, *A growing neural gas network learns
topologies*, NIPS 7 (1995): a network that starts from two nodes, moves the
sample's nearest node s1 (and, less, its neighbours) towards it, links s1
to the second-nearest s2, ages s1's edges and removes those older than
a_max (and the nodes they leave without edges), accumulates each winner's
squared error, and every λ samples inserts a node halfway between the node q
of largest error and q's neighbour f of largest error. Clusters are the
connected components. The reference is DemoGNG (Fritzke's own teaching tool),
``js/vbnn.js`` of the repository ``rhaschke/demogng`` at commit
3c5e90ddd81f13949f73f3bcc3cd8d7a817c7951 (``adaptGNG``,
``gnginsert``, ``removeEdges``) with its loop in ``js/loop.js``; the one
implementation is :mod:`cae.algorithms._gng_kernel`.

What one step does, every point where we follow the reference (**[ref]**)
or depart from it (**[fix]**), the parameters and their defaults, and how
we test against a transcription of the reference: ``docs/baselines/gng.md``.

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.gng import GNG
>>> X = np.random.default_rng(0).random((500, 2))
>>> model = GNG(insertion_interval=50).fit(X)
>>> model.n_samples_seen_, len(model.nodes_)
(500, 11)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._base import StreamingClusterer
from .._params import Interval
from .._storage import ArrayState
from . import _gng_kernel as kernel

__all__ = ["GNG", "GNGNetwork", "GNGStepRecord"]

CASE_NAMES = {
    kernel.CASE_START: "start node",
    kernel.CASE_ADAPT: "adaptation",
    kernel.CASE_INSERT: "insertion",
}


class GNGNetwork(ArrayState):
    """The learned state of GNG (see :mod:`cae.algorithms._gng_kernel`).

    Rows ``[:K]`` of the node arrays are the live nodes in creation order:
    positions ``Y``, accumulated errors ``err``, the number of times each node
    was the winner ``wins`` (not the reference's: the app sizes nodes by it),
    stable ``ids``, and the neighbour lists ``deg``/``nbr``/``age`` in the order
    the edges were made, with the reference's ages (0 when made or reset).
    """

    KERNEL = kernel
    MIN_EDGE_AGE = 0
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "err": (np.float64, 0.0, None),
        "wins": (np.int64, 0, None),
        "ids": (np.int64, 0, None),
        "deg": (np.int64, 0, None),
        "nbr": (np.int64, 0, "deg"),
        "age": (np.int64, 0, "deg"),
    }

    def __init__(
        self,
        d: int,
        epsilon_b: float = 0.2,
        epsilon_n: float = 0.006,
        max_edge_age: int = 50,
        insertion_interval: int = 100,
        alpha: float = 0.5,
        error_decay: float = 0.005,
        max_nodes: int = 100,
        cap: int = 64,
        maxdeg: int = 8,
    ) -> None:
        super().__init__(d, cap=cap, maxdeg=maxdeg)
        self.iscal[kernel.I_LAMBDA] = int(insertion_interval)
        self.iscal[kernel.I_AMAX] = int(max_edge_age)
        self.iscal[kernel.I_MAXNODES] = int(max_nodes)
        self.fscal[kernel.F_EPS_B] = float(epsilon_b)
        self.fscal[kernel.F_EPS_N] = float(epsilon_n)
        self.fscal[kernel.F_ALPHA] = float(alpha)
        self.fscal[kernel.F_BETA] = float(error_decay)

    def _alloc_scratch(self) -> None:
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        for name in ("aged_ids", "aged_ages", "moved_ids", "del_ids", "del_ages", "swept_ids", "del_rows"):
            setattr(self, name, np.zeros(maxdeg, dtype=np.int64))
        self.moves = np.zeros((maxdeg + 1, self.d))
        self.swept_pos = np.zeros((maxdeg, self.d))
        self.dmask = np.zeros(cap, dtype=np.bool_)
        self.newrow = np.zeros(cap, dtype=np.int64)
        self.stack = np.zeros(cap, dtype=np.int64)
        self.labels = np.zeros(cap, dtype=np.int64)

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["Y"].shape[0]
        t = int(i[kernel.I_T])
        params = meta.get("params") or {}
        state = {
            "insertion_interval": int(i[kernel.I_LAMBDA]),
            "max_edge_age": int(i[kernel.I_AMAX]),
            "max_nodes": int(i[kernel.I_MAXNODES]),
            "epsilon_b": float(f[kernel.F_EPS_B]),
            "epsilon_n": float(f[kernel.F_EPS_N]),
            "alpha": float(f[kernel.F_ALPHA]),
            "error_decay": float(f[kernel.F_BETA]),
        }
        if any(params.get(k) != v for k, v in state.items()):
            return "the state's parameters disagree with the model's parameters"
        err = a["err"]
        if K and not (np.all(np.isfinite(err)) and np.all(err >= 0)):
            return "an error that is negative or not a finite number"
        if K and (np.any(a["wins"] < 0) or int(a["wins"].sum()) > t):
            return "more wins than samples seen"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "node ids that repeat or were never issued"
        if int(i[kernel.I_NEXTID]) > min(t, kernel.N_INIT) + int(i[kernel.I_INSERTED]) or i[kernel.I_INSERTED] < 0:
            return "more nodes than the start nodes and the insertions made"
        top = int(a["deg"].max(initial=0))
        if top > 0 and top >= int(i[kernel.I_MAXDEG]):
            return "a degree bound that is not above every degree"
        return None


@dataclass(frozen=True)
class GNGStepRecord:
    """What one call of ``learn_one`` did in GNG, with every quantity involved.

    ``s1``/``s2``/``new_node_row`` are rows of ``nodes_`` during the step (after
    an insertion, before a node removal); every other node reference is a
    stable id. Distances and errors are squared Euclidean distances. NaN
    marks a quantity not computed at this step.

    Attributes
    ----------
    t : int
        Samples seen after this one (the two start nodes included).
    case : int
        0 start node (the first two samples), 1 adaptation, 2 insertion then adaptation.
    s1, s2, s1_id, s2_id : int
        Rows and ids of the nearest and second-nearest nodes (-1 for a start node).
    dist1, dist2 : float
        Their squared distances to x.
    new_node_id, new_node_row : int
        The node made at this step (a start node, or the inserted r; -1 if none).
    inserted : bool
        True when a node r was inserted (every λ samples, before the adaptation).
    q_id, f_id : int
        The insertion's q (largest error) and f (q's neighbour with the largest error; -1 if q had none).
    error_q, error_f, error_r : float
        Their errors after the insertion (α times the old ones; r's = q's).
    edge_created, edge_reset : tuple of (int, int) or None
        The edge s1-s2 made (age 0), or found and reset to age 0.
    edges_aged : list of (int, int, int)
        ``(s1_id, neighbour_id, new_age)`` of every edge of s1 (each aged by 1, s1-s2 reset to 0).
    s1_move : ndarray of shape (n_features,)
        s1's displacement ε_b (x - w_s1).
    neighbour_moves : list of (int, ndarray)
        ``(neighbour_id, displacement ε_n (x - w_n))`` of each neighbour of s1.
    error_s1 : float
        s1's error after the step: (1 - β) E + dist1.
    edges_deleted : list of (int, int, int)
        ``(s1_id, neighbour_id, age)`` of each edge removed for an age above a_max.
    nodes_deleted : list of int
        Ids of the neighbours removed for being left without edges.
    deleted_positions : ndarray of shape (n_deleted, n_features)
        Where those nodes were.
    errors : ndarray of shape (n_nodes,)
        Every node's error after the step (rows of ``nodes_``).
    n_nodes, n_edges, n_clusters : int
        Network size after the step.
    """

    t: int
    case: int
    s1: int
    s2: int
    s1_id: int
    s2_id: int
    dist1: float
    dist2: float
    new_node_id: int
    new_node_row: int
    inserted: bool = False
    q_id: int = -1
    f_id: int = -1
    error_q: float = math.nan
    error_f: float = math.nan
    error_r: float = math.nan
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    edges_aged: list = field(default_factory=list)
    s1_move: np.ndarray | None = None
    neighbour_moves: list = field(default_factory=list)
    error_s1: float = math.nan
    edges_deleted: list = field(default_factory=list)
    nodes_deleted: list = field(default_factory=list)
    deleted_positions: np.ndarray | None = None
    errors: np.ndarray | None = None
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0

    @property
    def case_name(self) -> str:
        """'start node', 'adaptation' or 'insertion'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        if self.case == kernel.CASE_START:
            return "start node placed on the sample"
        what = ""
        if self.inserted:
            what = f"node {self.new_node_id} inserted between q={self.q_id} and f={self.f_id}, then "
        what += "s1 and its neighbours moved"
        if self.edge_created:
            what += ", edge s1-s2 created"
        elif self.edge_reset:
            what += ", edge s1-s2 reset to age 0"
        if self.edges_deleted:
            what += f", {len(self.edges_deleted)} edge(s) older than a_max removed"
        if self.nodes_deleted:
            what += f", {len(self.nodes_deleted)} node(s) left without edges removed"
        return what


class GNG(StreamingClusterer[GNGStepRecord]):
    """Growing Neural Gas (Fritzke 1995), as DemoGNG runs it.

    Starts from two nodes (the first two samples). For each sample x: s1 and
    s2 are the nearest and second-nearest nodes; every error is multiplied by
    (1 - β) and s1's grows by ||x - w_s1||²; s1 is linked to s2; s1's edges age
    by 1 (s1-s2 back to 0); s1 moves by ε_b (x - w_s1) and its neighbours by
    ε_n (x - w_n); s1's edges older than a_max are removed, and so are the
    neighbours they leave without edges. Every λ samples, before the
    adaptation, a node r is inserted halfway between q (largest error) and f
    (q's neighbour of largest error), unless there are ``max_nodes`` already.
    Clusters are the connected components (docs/baselines/gng.md).

    Parameters
    ----------
    epsilon_b : float, default=0.2
        ε_b, the winner's learning rate (Fritzke 1995; DemoGNG's slider starts at 0.02).
    epsilon_n : float, default=0.006
        ε_n, the neighbours' learning rate.
    max_edge_age : int, default=50
        a_max: an edge of the winner older than this is removed (DemoGNG: 100).
    insertion_interval : int, default=100
        λ: a node is inserted every λ samples (DemoGNG: 500).
    alpha : float, default=0.5
        α: q's and f's errors are multiplied by α at an insertion (DemoGNG halves them).
    error_decay : float, default=0.005
        β: every error is multiplied by 1 - β at every sample (Fritzke's d = 1 - β = 0.995;
        DemoGNG: β = 0.0005).
    max_nodes : int, default=100
        No insertion once the network has this many nodes (DemoGNG's n_max).

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes, n_features)
        Node positions, rows in creation order.
    node_ids_ : ndarray of shape (n_nodes,)
        Stable node ids (never reused).
    errors_ : ndarray of shape (n_nodes,)
        Accumulated error of each node.
    win_counts_ : ndarray of shape (n_nodes,)
        How often each node was the winner s1.
    edges_ : ndarray of shape (n_edges, 2)
        Row indices ``i < j`` of each edge, sorted.
    edge_ages_ : ndarray of shape (n_edges,)
        Age of each edge (0 when made or when its nodes were s1 and s2).
    node_labels_ : ndarray of shape (n_nodes,)
        Cluster of each node (connected components numbered by smallest row).
    n_clusters_ : int
        Number of connected components.
    n_insertions_ : int
        Nodes inserted so far.
    n_samples_seen_ : int
        Samples learned so far, over every call.
    labels_ : ndarray of shape (n_samples,)
        Labels of the last X given to ``fit``/``partial_fit``.
    n_features_in_ : int
        Number of features.
    feature_names_in_ : ndarray of str
        Feature names, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from cae.algorithms.gng import GNG
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.03, (400, 2)), rng.normal(1, 0.03, (400, 2))])[rng.permutation(800)]
    >>> model = GNG(max_edge_age=20).fit(X)
    >>> model.n_clusters_
    2
    >>> rec = model.learn_one(np.array([0.01, 0.02]))
    >>> rec.case_name, rec.t
    ('adaptation', 801)

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); GNG().fit(X[:300]).save(buf); _ = buf.seek(0)
    >>> resumed = GNG.load(buf).partial_fit(X[300:])
    >>> bool(np.array_equal(resumed.nodes_, GNG().fit(X).nodes_))
    True
    """

    algorithm = "GNG"
    _State = GNGNetwork
    _parameter_ranges = {
        "epsilon_b": Interval("float", 0, 1, symbol="ε_b"),
        "epsilon_n": Interval("float", 0, 1, symbol="ε_n"),
        "max_edge_age": Interval("int", 0, symbol="a_max"),
        "insertion_interval": Interval("int", 1, symbol="λ"),
        "alpha": Interval("float", 0, 1, symbol="α"),
        "error_decay": Interval("float", 0, 1, symbol="β"),
        "max_nodes": Interval("int", 2, symbol="n_max"),
    }

    def __init__(
        self,
        epsilon_b: float = 0.2,
        epsilon_n: float = 0.006,
        max_edge_age: int = 50,
        insertion_interval: int = 100,
        alpha: float = 0.5,
        error_decay: float = 0.005,
        max_nodes: int = 100,
    ) -> None:
        self.epsilon_b = epsilon_b
        self.epsilon_n = epsilon_n
        self.max_edge_age = max_edge_age
        self.insertion_interval = insertion_interval
        self.alpha = alpha
        self.error_decay = error_decay
        self.max_nodes = max_nodes

    def _state_kwargs(self) -> dict[str, Any]:
        return {
            "epsilon_b": float(self.epsilon_b),
            "epsilon_n": float(self.epsilon_n),
            "max_edge_age": int(self.max_edge_age),
            "insertion_interval": int(self.insertion_interval),
            "alpha": float(self.alpha),
            "error_decay": float(self.error_decay),
            "max_nodes": int(self.max_nodes),
        }

    def _record(self) -> GNGStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        s1_id, s2_id = int(ri[kernel.RI_S1ID]), int(ri[kernel.RI_S2ID])
        edge = int(ri[kernel.RI_EDGE])
        na, nm = int(ri[kernel.RI_NAGED]), int(ri[kernel.RI_NMOVED])
        nd, nsw = int(ri[kernel.RI_NDELETED]), int(ri[kernel.RI_NSWEPT])
        pair = (s1_id, s2_id)
        adapted = case != kernel.CASE_START
        return GNGStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            s1=int(ri[kernel.RI_S1]),
            s2=int(ri[kernel.RI_S2]),
            s1_id=s1_id,
            s2_id=s2_id,
            dist1=float(rf[kernel.RF_D1]),
            dist2=float(rf[kernel.RF_D2]),
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            inserted=case == kernel.CASE_INSERT,
            q_id=int(ri[kernel.RI_QID]),
            f_id=int(ri[kernel.RI_FID]),
            error_q=float(rf[kernel.RF_ERR_Q]),
            error_f=float(rf[kernel.RF_ERR_F]),
            error_r=float(rf[kernel.RF_ERR_R]),
            edge_created=pair if edge == 1 else None,
            edge_reset=pair if edge == 2 else None,
            edges_aged=[(s1_id, int(i), int(a)) for i, a in zip(net.aged_ids[:na], net.aged_ages[:na])],
            s1_move=net.moves[0].copy() if adapted else None,
            neighbour_moves=[(int(net.moved_ids[p]), net.moves[p + 1].copy()) for p in range(nm)],
            error_s1=float(rf[kernel.RF_ERR_S1]),
            edges_deleted=[(s1_id, int(i), int(a)) for i, a in zip(net.del_ids[:nd], net.del_ages[:nd])],
            nodes_deleted=[int(i) for i in net.swept_ids[:nsw]],
            deleted_positions=net.swept_pos[:nsw].copy(),
            errors=net.err[: net.K].copy(),
            n_nodes=net.K,
            n_edges=int(net.iscal[kernel.I_E]),
            n_clusters=int(ri[kernel.RI_NCLUSTERS]),
        )

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the nearest node (squared Euclidean distance, the last row on ties, as GNG's winner) of each row of X."""
        out = np.zeros(X.shape[0], dtype=np.int64)
        net = self.network_
        kernel.nearest_nodes(X, net.Y, net.K, out)
        return out

    # ------------------------------------------------------------ fitted state
    @property
    def win_counts_(self) -> NDArray[np.int64]:
        """How often each node was the winner s1."""
        return self._rows("wins")

    @property
    def errors_(self) -> NDArray[np.float64]:
        """The accumulated (and decayed) error of each node."""
        return self._rows("err")

    @property
    def n_insertions_(self) -> int:
        """Nodes inserted so far (every λ samples while there were fewer than ``max_nodes``)."""
        return int(self._net().iscal[kernel.I_INSERTED])

    def _node_attributes(self, row: int) -> dict[str, Any]:
        net = self._net()
        return {"error": float(net.err[row]), "win_count": int(net.wins[row])}

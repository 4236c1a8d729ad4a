"""SOINN+, from its author's MATLAB code.

SOINN+ is C. Wiwatcharakoses and D. Berrar, *SOINN+, a self-organizing
incremental neural network for unsupervised learning from noisy data
streams*, Expert Systems with Applications 143 (2020): a parameter-free
network that links its two winners when it trusts them and deletes old edges
and useless nodes by thresholds learned from what it deleted before. The
reference is its author's MATLAB class: repository ``ChayutDev/SOINNPlus``,
file ``SoinnPlus.m`` (ver. 1.0.1, MIT licence, commit
``0911eb434f5150741c6e8425597194ab0fa96182``). The one implementation is
:mod:`cae.algorithms._soinn_kernel`. (The class's legacy mode, once this
project's ASOINN, is retired: ASOINN is Shen's ``fastSOINN.m``,
:mod:`cae.algorithms.asoinn`.)

What one step does, every point where we follow a quirk of the reference
(**[ref]**) or depart from it (**[fix]**), and how the repository's Python
port differs from the MATLAB: ``docs/baselines/soinn_plus.md``.

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.soinn_plus import SOINNPlus
>>> X = np.random.default_rng(0).normal(0, 0.05, (200, 2))
>>> model = SOINNPlus().fit(X)
>>> model.n_samples_seen_, model.n_clusters_ >= 1
(200, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._base import StreamingClusterer
from .._storage import ArrayState
from . import _soinn_kernel as kernel

__all__ = ["SOINNPlus", "SoinnNetwork", "SoinnStepRecord"]

CASE_NAMES = {0: "initial node", 1: "new node", 2: "winner update"}


class SoinnNetwork(ArrayState):
    """The learned state of SOINN+ (see :mod:`cae.algorithms._soinn_kernel`).

    Rows ``[:K]`` of the node arrays are the live nodes in creation order:
    positions ``Y``, win counts ``M``, the step of the last win ``win_ts``
    (``winTS``) and of creation ``born`` (``nodeTS``), stable ``ids``, and the
    neighbour lists ``deg``/``nbr``/``age`` (age = the reference's adjacency
    value, >= 1). The scalars hold the mode, λ and a_max, and the running
    statistics of linking, edge deletion and node deletion.
    """

    KERNEL = kernel
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "M": (np.int64, 0, None),
        "win_ts": (np.int64, 0, None),
        "born": (np.int64, 0, None),
        "ids": (np.int64, 0, None),
        "deg": (np.int64, 0, None),
        "nbr": (np.int64, 0, "deg"),
        "age": (np.int64, 0, "deg"),
    }
    OTHER_ARRAYS: dict = {}

    def __init__(
        self,
        d: int,
        cap: int = 64,
        maxdeg: int = 8,
    ) -> None:
        super().__init__(d, cap=cap, maxdeg=maxdeg)
        self.iscal[kernel.I_MODE] = kernel.MODE_PLUS
        self.iscal[kernel.I_LAMBDA] = 1  # deleteNodePeriod = 1 in SOINN+
        self.fscal[kernel.F_AMAX] = math.nan

    def _init_other(self) -> None:
        for i in (
            kernel.F_MEAN1,
            kernel.F_MEAN2,
            kernel.F_VAR1,
            kernel.F_VAR2,
            kernel.F_EDGE_AVG,
            kernel.F_NODE_TH,
            kernel.F_NODE_IDLE,
        ):
            self.fscal[i] = 0.0

    def _alloc_scratch(self) -> None:
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        for name in ("del_rows", "del_ages", "del_ids", "del_rec_ages"):
            setattr(self, name, np.zeros(maxdeg, dtype=np.int64))
        self.swept_ids = np.zeros(cap, dtype=np.int64)
        self.swept_pos = np.zeros((cap, self.d))
        self.dmask = np.zeros(cap, dtype=np.bool_)
        self.newrow = np.zeros(cap, dtype=np.int64)
        self.dist2 = np.zeros(cap)
        self.ubuf = np.zeros(cap)
        self.ebuf = np.zeros(cap * maxdeg // 2 + 1, dtype=np.int64)
        self.stack = np.zeros(cap, dtype=np.int64)
        self.mark = np.zeros(cap, dtype=np.int64)
        self.labels = np.zeros(cap, dtype=np.int64)

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["Y"].shape[0]
        t = int(i[kernel.I_T])
        mode, lam = int(i[kernel.I_MODE]), int(i[kernel.I_LAMBDA])
        if mode != kernel.MODE_PLUS or lam != 1 or not math.isnan(f[kernel.F_AMAX]):
            return "a SOINN+ model whose state is not in the SOINN+ mode"
        if K and np.any(a["M"] < 1):
            return "a win count below 1"
        if K and (np.any(a["born"] < 1) or np.any(a["win_ts"] < a["born"]) or np.any(a["win_ts"] > t)):
            return "a node's creation or last-win step outside [1, t]"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "node ids that repeat or were never issued"
        if t < K or int(i[kernel.I_NEXTID]) > t:
            return "more nodes than samples seen"
        if min(int(i[kernel.I_LINKS]), int(i[kernel.I_EDGEDEL]), int(i[kernel.I_NODEDEL])) < 0:
            return "a negative counter"
        stats = f[
            [
                kernel.F_MEAN1,
                kernel.F_MEAN2,
                kernel.F_VAR1,
                kernel.F_VAR2,
                kernel.F_EDGE_AVG,
                kernel.F_NODE_TH,
                kernel.F_NODE_IDLE,
            ]
        ]
        if not (np.all(np.isfinite(stats)) and np.all(stats >= 0)):
            return "a running statistic that is negative or not a finite number"
        if int(i[kernel.I_LINKS]) == 0 and np.any(stats[:4] != 0):
            return "linking statistics without any link update"
        return None


@dataclass(frozen=True)
class SoinnStepRecord:
    """What one call of ``learn_one`` did in SOINN+, with every quantity involved.

    ``s1``/``s2``/``new_node_row`` are rows of ``nodes_`` as the sample
    arrived (-1 when not applicable); every other node reference is a stable
    id. Distances and thresholds T are squared Euclidean distances. NaN marks
    a quantity not computed at this step.

    Attributes
    ----------
    t : int
        Samples seen after this one.
    case : int
        0 initial node (fewer than 3 nodes), 1 new node (D1 > T1 or D2 > T2),
        2 winner update.
    s1, s2, s1_id, s2_id : int
        Rows and ids of the winners (-1 in case 0).
    dist1, dist2 : float
        Squared distances D1 <= D2 of x to s1 and s2.
    threshold1, threshold2 : float
        The similarity thresholds T1, T2.
    new_node_id, new_node_row : int
        The node created at this step (-1 if none).
    link : bool or None
        The linking decision (None in case 0); it only acts in case 2.
    trust1, trust2 : float
        M_i / max M over nodes with an edge (NaN when linking was unconditional).
    link_value1, link_value2, link_threshold1, link_threshold2 : float
        sqrt(T_i)(1 - trust_i) and mean_i + 2 sqrt(var_i / n_links): linked
        when some value is below its threshold.
    edge_created, edge_reset : tuple of (int, int) or None
        The s1-s2 edge created, or re-linked (its age reset to 1).
    link_statistics_updated : bool
        True when the running mean/variance moved (only on a re-link [ref]).
    n_links_created : int
        The reference's ``linkCreated`` after the step.
    component_edges : int
        Edges in s1's component when SOINN+'s edge deletion ran (-1 otherwise).
    p75, iqr : float
        MATLAB ``prctile(ages, 75)`` and ``iqr(ages)`` of those edges.
    edge_deletion_ratio, edge_deletion_threshold : float
        r and the age threshold of SOINN+'s edge deletion.
    edges_deleted : list of (int, int, int)
        ``(s1_id, neighbour_id, age)`` of each deleted edge.
    nodes_deleted : list of int
        Ids of the nodes deleted at this step: first the neighbours left
        without edges by the edge deletion, then the node deletion's.
    n_nodes_deleted_by_edges : int
        How many of ``nodes_deleted`` the edge deletion removed.
    deleted_positions : ndarray of shape (n_deleted, n_features)
        Where those nodes were.
    node_deletion_ran : bool
        True when a node deletion ran (every step past the first 3).
    n_isolated : int
        Nodes without edges seen by the node deletion (-1 if it did not run).
    unutility_median, unutility_upper, node_deletion_ratio, noise_level, node_deletion_threshold : float
        SOINN+'s node deletion: c, u, r, ν and the UT threshold.
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
    threshold1: float
    threshold2: float
    new_node_id: int
    new_node_row: int
    link: bool | None
    trust1: float = math.nan
    trust2: float = math.nan
    link_value1: float = math.nan
    link_value2: float = math.nan
    link_threshold1: float = math.nan
    link_threshold2: float = math.nan
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    link_statistics_updated: bool = False
    n_links_created: int = 0
    component_edges: int = -1
    p75: float = math.nan
    iqr: float = math.nan
    edge_deletion_ratio: float = math.nan
    edge_deletion_threshold: float = math.nan
    edges_deleted: list = field(default_factory=list)
    nodes_deleted: list = field(default_factory=list)
    n_nodes_deleted_by_edges: int = 0
    deleted_positions: np.ndarray | None = None
    node_deletion_ran: bool = False
    n_isolated: int = -1
    unutility_median: float = math.nan
    unutility_upper: float = math.nan
    node_deletion_ratio: float = math.nan
    noise_level: float = math.nan
    node_deletion_threshold: float = math.nan
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0

    @property
    def case_name(self) -> str:
        """'initial node', 'new node' or 'winner update'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        what = {
            0: "node created (fewer than 3 nodes)",
            1: "node created (outside a winner's threshold)",
            2: "winner updated",
        }[self.case]
        if self.edge_created:
            what += ", edge s1-s2 created"
        elif self.edge_reset:
            what += ", edge s1-s2 re-linked"
        if self.edges_deleted:
            what += f", {len(self.edges_deleted)} edge(s) deleted"
        if self.nodes_deleted:
            what += f", {len(self.nodes_deleted)} node(s) deleted"
        return what


class _SoinnBase(StreamingClusterer[SoinnStepRecord]):
    """SOINN+'s state, record, prediction and fitted attributes (the estimator below adds its API)."""

    _State = SoinnNetwork

    def _record(self) -> SoinnStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        s1_id, s2_id = int(ri[kernel.RI_S1ID]), int(ri[kernel.RI_S2ID])
        nd, nsw = int(ri[kernel.RI_NDELETED]), int(ri[kernel.RI_NSWEPT])
        edge = int(ri[kernel.RI_EDGE])
        link = int(ri[kernel.RI_LINK])
        pair = (s1_id, s2_id)
        return SoinnStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            s1=int(ri[kernel.RI_S1]),
            s2=int(ri[kernel.RI_S2]),
            s1_id=s1_id,
            s2_id=s2_id,
            dist1=float(rf[kernel.RF_D1]),
            dist2=float(rf[kernel.RF_D2]),
            threshold1=float(rf[kernel.RF_TH1]),
            threshold2=float(rf[kernel.RF_TH2]),
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            link=None if link < 0 else bool(link),
            trust1=float(rf[kernel.RF_TRUST1]),
            trust2=float(rf[kernel.RF_TRUST2]),
            link_value1=float(rf[kernel.RF_LINKV1]),
            link_value2=float(rf[kernel.RF_LINKV2]),
            link_threshold1=float(rf[kernel.RF_LINKTH1]),
            link_threshold2=float(rf[kernel.RF_LINKTH2]),
            edge_created=pair if edge == 1 else None,
            edge_reset=pair if edge == 2 else None,
            link_statistics_updated=bool(ri[kernel.RI_STATS]),
            n_links_created=int(net.iscal[kernel.I_LINKS]),
            component_edges=int(ri[kernel.RI_NCOMP]),
            p75=float(rf[kernel.RF_P75]),
            iqr=float(rf[kernel.RF_IQR]),
            edge_deletion_ratio=float(rf[kernel.RF_EDGE_RATIO]),
            edge_deletion_threshold=float(rf[kernel.RF_EDGE_DEL_TH]),
            edges_deleted=[(s1_id, int(i), int(a)) for i, a in zip(net.del_ids[:nd], net.del_rec_ages[:nd])],
            nodes_deleted=[int(i) for i in net.swept_ids[:nsw]],
            n_nodes_deleted_by_edges=int(ri[kernel.RI_NSWEPT_EDGE]),
            deleted_positions=net.swept_pos[:nsw].copy(),
            node_deletion_ran=bool(ri[kernel.RI_NODE_DEL]),
            n_isolated=int(ri[kernel.RI_NISO]),
            unutility_median=float(rf[kernel.RF_UT_CENTER]),
            unutility_upper=float(rf[kernel.RF_UT_UPPER]),
            node_deletion_ratio=float(rf[kernel.RF_NODE_RATIO]),
            noise_level=float(rf[kernel.RF_NOISE_LV]),
            node_deletion_threshold=float(rf[kernel.RF_NODE_DEL_TH]),
            n_nodes=net.K,
            n_edges=int(net.iscal[kernel.I_E]),
            n_clusters=int(ri[kernel.RI_NCLUSTERS]),
        )

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the nearest node (squared Euclidean distance, first row on ties) of each row of X."""
        out = np.zeros(X.shape[0], dtype=np.int64)
        net = self.network_
        kernel.nearest_nodes(X, net.Y, net.K, out)
        return out

    # ------------------------------------------------------------ fitted state
    @property
    def win_counts_(self) -> NDArray[np.int64]:
        """Win count M of each node (1 at creation)."""
        return self._rows("M")

    @property
    def last_win_steps_(self) -> NDArray[np.int64]:
        """The step t at which each node last won (or was created): the reference's ``winTS``."""
        return self._rows("win_ts")

    @property
    def creation_steps_(self) -> NDArray[np.int64]:
        """The step t at which each node was created (``nodeTS``)."""
        return self._rows("born")

    @property
    def unutilities_(self) -> NDArray[np.float64]:
        """UT = (t - last win) / M of each node, as SOINN+'s node deletion computes it."""
        net = self._net()
        t = int(net.iscal[kernel.I_T])
        return (t - net.win_ts[: net.K]) / net.M[: net.K]

    @property
    def n_links_created_(self) -> int:
        """The reference's ``linkCreated``: re-links of existing edges (docs/baselines/soinn_plus.md, the [ref] on addEdge)."""
        return int(self._net().iscal[kernel.I_LINKS])

    @property
    def link_threshold_mean_(self) -> NDArray[np.float64]:
        """Running mean of sqrt(T) for (s1, s2) over the link updates (``runThMean``)."""
        f = self._net().fscal
        return np.array([f[kernel.F_MEAN1], f[kernel.F_MEAN2]])

    @property
    def link_threshold_m2_(self) -> NDArray[np.float64]:
        """Welford sum of squared deviations of sqrt(T) for (s1, s2) (``runThVariance``)."""
        f = self._net().fscal
        return np.array([f[kernel.F_VAR1], f[kernel.F_VAR2]])

    @property
    def n_deleted_edges_(self) -> int:
        """Edges deleted so far (``edgeDeleted``)."""
        return int(self._net().iscal[kernel.I_EDGEDEL])

    @property
    def mean_deleted_edge_age_(self) -> float:
        """Mean age of the edges deleted by SOINN+'s edge deletion (``edgeAvgLtDel``; 0 before any)."""
        return float(self._net().fscal[kernel.F_EDGE_AVG])

    @property
    def node_deletion_counter_(self) -> int:
        """The reference's ``nodeDeleted``: deleted nodes counted by the node deletion, plus the SUM of
        the 1-based rows of the nodes the edge deletion removed (a quirk we follow: it sets r)."""
        return int(self._net().iscal[kernel.I_NODEDEL])

    @property
    def mean_deleted_node_unutility_(self) -> float:
        """Mean UT of the nodes SOINN+'s node deletion removed (``nodeDelTh``; 0 before any)."""
        return float(self._net().fscal[kernel.F_NODE_TH])

    @property
    def mean_deleted_node_idle_time_(self) -> float:
        """Mean idle time t - last win of the nodes SOINN+'s node deletion removed (``nodeAvgIdleDel``)."""
        return float(self._net().fscal[kernel.F_NODE_IDLE])

    def _node_attributes(self, row: int) -> dict[str, Any]:
        net = self._net()
        return {"win_count": int(net.M[row]), "last_win": int(net.win_ts[row]), "created": int(net.born[row])}


class SOINNPlus(_SoinnBase):
    """SOINN+: a parameter-free self-organising incremental network for noisy streams.

    SOINN+ (Wiwatcharakoses and Berrar, Expert Systems with Applications 143,
    2020) learns one sample at a time: a sample outside the similarity
    threshold of either of its two nearest nodes becomes a node; otherwise the
    winners are linked when the trust-based rule says so, the winner and its
    neighbours move towards it, old edges of the winner's component are deleted
    by a threshold learned from the ages of the edges deleted so far, and
    isolated nodes that have become useless (high unutility) are deleted after
    every sample. Clusters are the connected components of the graph. A
    faithful transcription of its author's MATLAB code (every quirk followed
    and fixed: docs/baselines/soinn_plus.md).

    There are no parameters.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes, n_features)
        Node positions, rows in creation order.
    node_ids_ : ndarray of shape (n_nodes,)
        Stable node ids (never reused).
    win_counts_ : ndarray of shape (n_nodes,)
        Win count M of each node.
    last_win_steps_, creation_steps_ : ndarray of shape (n_nodes,)
        The step of each node's last win and of its creation.
    unutilities_ : ndarray of shape (n_nodes,)
        (t - last win) / M.
    edges_ : ndarray of shape (n_edges, 2)
        Row indices ``i < j`` of each edge, sorted.
    edge_ages_ : ndarray of shape (n_edges,)
        Age of each edge (>= 1; 2 after the step that creates it).
    node_labels_ : ndarray of shape (n_nodes,)
        Cluster of each node (connected components numbered by smallest row).
    n_clusters_ : int
        Number of connected components.
    n_links_created_ : int
        Updates of the linking statistics.
    link_threshold_mean_, link_threshold_m2_ : ndarray of shape (2,)
        Running mean and sum of squared deviations of sqrt(T1), sqrt(T2).
    n_deleted_edges_ : int
        Edges deleted so far.
    mean_deleted_edge_age_ : float
        Mean age of the deleted edges.
    node_deletion_counter_ : int
        The reference's ``nodeDeleted`` (see the [ref] on deleteNodes in docs/baselines/soinn_plus.md).
    mean_deleted_node_unutility_, mean_deleted_node_idle_time_ : float
        Mean UT and idle time of the nodes deleted for being useless.
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
    >>> from cae.algorithms.soinn_plus import SOINNPlus
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.05, (300, 2)), rng.normal(1, 0.05, (300, 2))])
    >>> X = X[rng.permutation(len(X))]
    >>> model = SOINNPlus().fit(X)
    >>> bool(model.labels_[np.argmin(X.sum(1))] != model.labels_[np.argmax(X.sum(1))])
    True
    >>> rec = model.learn_one(np.array([0.01, 0.02]))
    >>> rec.case_name in ("new node", "winner update"), rec.t
    (True, 601)

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); SOINNPlus().fit(X[:300]).save(buf); _ = buf.seek(0)
    >>> resumed = SOINNPlus.load(buf).partial_fit(X[300:])
    >>> bool(np.array_equal(resumed.nodes_, SOINNPlus().fit(X).nodes_))
    True
    """

    algorithm = "SOINN+"

    def __init__(self) -> None:
        pass

    def _state_kwargs(self) -> dict[str, Any]:
        return {}

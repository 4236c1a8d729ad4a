"""TCA, Topological CIM-based Adaptive Resonance Theory (Masuyama et al., IEEE Access 7, 2019).

An ART network with a CIM vigilance (the nodes' mean kernel bandwidth) and a
topology that is rebuilt every λ samples, from the authors' MATLAB code,
which produced the numbers of the CAE paper: repository ``Masuyama-lab/TCA``,
file ``TCA.m`` at commit ``40a0b656699c088e495dab28c8ba5d1b99fe63e3``, with
the initial state of ``mainTCA.m`` (λ = 200, σ_init = 0.12, no nodes). The
algorithm itself is in :mod:`cae.algorithms._tca_kernel`; this module holds
its state, its step record and the estimator.

What TCA does with each sample, every point where we follow a quirk of the
reference (**[ref]**) or depart from it (**[fix]**), and the implementation
notes: ``docs/baselines/tca.md``.

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.tca import TCA
>>> X = np.random.default_rng(0).normal(0.5, 0.03, (300, 2))
>>> model = TCA(reconstruction_interval=100, sigma_init=0.1).fit(X)
>>> model.n_samples_seen_, model.threshold_ == model.mean_sigma_
(300, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray

from .._base import StreamingClusterer
from .._params import Interval
from .._storage import ArrayState
from . import _tca_kernel as kernel

__all__ = ["TCA", "TCAStepRecord", "TCANetwork"]

CASE_NAMES = {1: "new node (no node near)", 2: "resonance", 3: "new node (every candidate failed)"}
_NODE_REASONS = {kernel.NODE_ISOLATED: "isolated", kernel.NODE_ERRCIM: "ErrCIM"}
_EDGE_REASONS = {kernel.EDGE_NODE_DELETED: "node deleted", kernel.EDGE_INTERSECTION: "intersection"}


class TCANetwork(ArrayState):
    """All of a TCA model's learned state (see :mod:`cae.algorithms._tca_kernel`)."""

    KERNEL = kernel
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "C": (np.float64, 0.0, None),
        "sig": (np.float64, 0.0, None),
        "dil": (np.int64, 0, None),
        "err": (np.float64, 0.0, None),
        "newedged": (np.int64, 0, None),
        "ids": (np.int64, 0, None),
        "deg": (np.int64, 0, None),
        "nbr": (np.int64, 0, "deg"),
        "age": (np.int64, 0, "deg"),
    }
    OTHER_ARRAYS: dict = {}

    def __init__(
        self, d: int, reconstruction_interval: int = 200, sigma_init: float = 0.12, cap: int = 64, maxdeg: int = 8
    ) -> None:
        super().__init__(d, cap=cap, maxdeg=maxdeg)
        self.iscal[kernel.I_LAMBDA] = int(reconstruction_interval)
        self.fscal[kernel.F_SIGINIT] = float(sigma_init)

    def _init_other(self) -> None:
        self.fscal[kernel.F_SIGSUM] = 0.0

    def _alloc_scratch(self) -> None:
        cap, maxdeg, d = self.Y.shape[0], self.nbr.shape[1], self.d
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        self.cims = np.zeros(cap)
        self.dist2 = np.zeros(cap)
        self.heap = np.zeros(cap, dtype=np.int64)
        self.wbuf = np.zeros(d)
        self.mask = np.zeros(cap, dtype=np.bool_)
        self.newrow = np.zeros(cap, dtype=np.int64)
        self.labels = np.zeros(cap, dtype=np.int64)
        self.grp = np.zeros(cap, dtype=np.int64)
        self.cstart = np.zeros(cap + 1, dtype=np.int64)
        self.sortbuf = np.zeros(cap)
        self.nb1 = np.zeros(maxdeg, dtype=np.int64)
        self.nb2 = np.zeros(maxdeg, dtype=np.int64)
        self.knn_ids = np.zeros(3, dtype=np.int64)
        self.moved = np.zeros((2, d))
        self.rec_node_ids = np.zeros(cap, dtype=np.int64)
        self.rec_node_reason = np.zeros(cap, dtype=np.int64)
        self.rec_node_pos = np.zeros((cap, d))
        n_edges = cap * maxdeg
        self.rec_edge_a = np.zeros(n_edges, dtype=np.int64)
        self.rec_edge_b = np.zeros(n_edges, dtype=np.int64)
        self.rec_edge_reason = np.zeros(n_edges, dtype=np.int64)
        self.rec_sig_ids = np.zeros(cap, dtype=np.int64)
        self.rec_sig_before = np.zeros(cap)
        self.rec_sig_after = np.zeros(cap)

    def end_of_call(self) -> NDArray[np.int64]:
        """The reference's deletions at the end of a call; returns (node ids, reasons, edges) deleted."""
        ri = np.zeros(kernel.N_RI, dtype=np.int64)
        rf = np.full(kernel.N_RF, np.nan)
        self.call(kernel.end_of_call, ri=ri, rf=rf)
        return ri

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["Y"].shape[0]
        params = meta.get("params", {})
        lam, s0 = params.get("reconstruction_interval"), params.get("sigma_init")
        if int(i[kernel.I_LAMBDA]) != lam or not f[kernel.F_SIGINIT] == s0:
            return "the stored λ or σ_init differ from the model's parameters"
        t = int(i[kernel.I_T])
        if (K == 0) != (t == 0) or K > t:
            return "a node count that does not fit the samples seen (TCA never deletes every node)"
        if K and not np.all(np.isfinite(a["C"]) & (a["C"] >= 1)):
            return "a node count below 1"
        sig = a["sig"]
        if not np.all(np.isfinite(sig) & (sig > 0)):
            return "a bandwidth that is not a positive finite number"
        if K and not (np.all(sig >= 0.5 * s0 * (1 - 1e-9)) and np.all(sig <= 1.5 * s0 * (1 + 1e-9))):
            return "a bandwidth outside [σ_init / 2, 3 σ_init / 2]"
        sigsum = float(np.add.accumulate(sig)[-1]) if K else 0.0
        if not f[kernel.F_SIGSUM] == sigsum:
            return "the stored sum of the bandwidths does not match them"
        dil = a["dil"]
        if (
            np.any(dil < 0)
            or int(i[kernel.I_DILSUM]) != int(dil.sum())
            or int(i[kernel.I_DILZEROS]) != int(np.sum(dil == 0))
        ):
            return "diligences that are negative or do not match their stored sum"
        if not np.all((a["err"] >= 0) & (a["err"] <= 1)):
            return "an ErrCIM outside [0, 1]"
        if not np.all((a["newedged"] == 0) | (a["newedged"] == 1)):
            return "a new-edge flag that is neither 0 nor 1"
        if np.any(a["age"][np.arange(a["age"].shape[1])[None, :] < a["deg"][:, None]] != 1):
            return "an edge with an age (TCA's edges have none)"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "node ids that repeat or were never issued"
        return None


@dataclass(frozen=True)
class TCAStepRecord:
    """What one call of :meth:`TCA.learn_one` did.

    ``s1``/``s2``/``new_node_row`` are rows into ``nodes_`` as the sample
    arrived; every other node reference is a stable id.

    Attributes
    ----------
    t : int
        Samples seen after this one (cumulative over calls).
    case : int
        1 new node because no node was near x (NstateCIM = 0; also the first
        node), 2 resonance, 3 new node because every candidate failed.
    s1, s1_id : int
        The node that resonated (-1 if none).
    s2, s2_id : int
        The node after s1 in CIM order whose edge test was made (-1 if none).
    n_close : int
        NstateCIM, the number of nodes with CIM(x, w, σ̄) ≤ σ̄.
    n_candidates : int
        Candidates tried in the walk (0 when there was no walk).
    sigma : float
        σ̄, the mean bandwidth (and vigilance threshold) for this sample; NaN
        for the first node.
    cim_s1, resonance_cim, cim_s2 : float
        CIM(x, w_s1, σ̄), CIM(x, w_s1', σ_s1) and CIM(x, w_s2, σ_s2) (NaN when
        not computed).
    new_node_id, new_node_row : int
        The node created (-1 if none).
    new_node_sigma, new_node_count : float
        Its σ and count.
    knn_ids : list of int
        Case 3: the nearest nodes whose count and σ it took.
    edge_created : tuple of (int, int) or None
        (s1_id, s2_id) when the edge was created at this step.
    edge_existed : tuple of (int, int) or None
        (s1_id, s2_id) when the edge test passed but the edge was already there.
    edge_reset : None
        Always None (TCA's edges have no age); kept for the common protocol.
    moved : list of (int, ndarray, ndarray)
        ``(s1_id, before, after)`` for the resonating node.
    reconstruction : bool
        True when the topology reconstruction ran at this step (t % λ == 0).
    errcim_threshold, intersection_sigma : float
        2σ̄ of the ErrCIM deletion and σ̄ of the intersection test (NaN
        without a reconstruction).
    nodes_deleted : list of int
        Ids of the nodes deleted at this step.
    nodes_deleted_reasons : list of str
        ``"isolated"`` or ``"ErrCIM"``, for each of them.
    nodes_deleted_positions : ndarray of shape (n, n_features)
        Where they were.
    edges_deleted : list of (int, int, str)
        ``(id, id, reason)``, reason ``"node deleted"`` (an ErrCIM node's edge)
        or ``"intersection"``.
    sigma_adapted : bool
        True when the bandwidths were adapted at this step.
    sigma_changes : list of (int, float, float)
        ``(id, before, after)`` of each σ the adaptation changed.
    diligence_reset : bool
        True when every diligence was set to 0 (case 3 or an adaptation).
    mean_diligence : float
        The mean diligence tested for the adaptation (before any reset).
    n_nodes, n_edges, n_clusters : int
        Network size after the step.
    """

    t: int
    case: int
    s1: int
    s2: int
    s1_id: int
    s2_id: int
    n_close: int
    n_candidates: int
    sigma: float
    cim_s1: float
    resonance_cim: float
    cim_s2: float
    new_node_id: int
    new_node_row: int
    new_node_sigma: float
    new_node_count: float
    knn_ids: list = field(default_factory=list)
    edge_created: tuple | None = None
    edge_existed: tuple | None = None
    edge_reset: tuple | None = None
    moved: list = field(default_factory=list)
    reconstruction: bool = False
    errcim_threshold: float = math.nan
    intersection_sigma: float = math.nan
    nodes_deleted: list = field(default_factory=list)
    nodes_deleted_reasons: list = field(default_factory=list)
    nodes_deleted_positions: np.ndarray | None = None
    edges_deleted: list = field(default_factory=list)
    sigma_adapted: bool = False
    sigma_changes: list = field(default_factory=list)
    diligence_reset: bool = False
    mean_diligence: float = math.nan
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0

    @property
    def case_name(self) -> str:
        """'new node (no node near)', 'resonance' or 'new node (every candidate failed)'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        if self.case == 2:
            what = f"node {self.s1_id} resonated"
            if self.n_candidates > 1:
                what += f" (candidate {self.n_candidates} in CIM order)"
            if self.edge_created:
                what += f", edge {self.s1_id}–{self.s2_id} created"
        elif self.case == 1:
            what = "node created (no node near)"
        else:
            what = "node created (every candidate failed)"
        if self.nodes_deleted:
            what += f", {len(self.nodes_deleted)} node(s) deleted"
        if self.edges_deleted:
            what += f", {len(self.edges_deleted)} edge(s) deleted"
        if self.sigma_adapted:
            what += ", bandwidths adapted"
        return what


class TCA(StreamingClusterer[TCAStepRecord]):
    """Topological CIM-based ART: ART clustering with a CIM vigilance and a topology.

    TCA (Masuyama et al., IEEE Access 7, 2019) learns one sample at a time.
    A sample resonates with the first node, in order of CIM, whose updated
    position stays within the vigilance (the nodes' mean kernel bandwidth σ̄),
    or becomes a new node; resonating nodes are joined to the next node in
    that order. Every λ samples the topology is rebuilt (isolated and
    unreliable nodes, then crossing edges, are deleted), and the nodes'
    bandwidths adapt to how evenly they win. Clusters are the connected
    components. docs/baselines/tca.md lists every point where this follows or
    departs from the authors' code.

    Parameters
    ----------
    reconstruction_interval : int, default=200
        λ, the topology construction cycle: the reconstruction runs when the
        number of samples seen is a multiple of λ. An integer >= 1.
    sigma_init : float, default=0.12
        σ_init, the first node's kernel bandwidth; bandwidths stay within
        [σ_init/2, 3σ_init/2]. A finite number > 0.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes, n_features)
        Node positions, rows in creation order.
    node_ids_ : ndarray of shape (n_nodes,)
        Stable node ids (never reused).
    sigmas_ : ndarray of shape (n_nodes,)
        Each node's kernel bandwidth σ.
    win_counts_ : ndarray of shape (n_nodes,)
        The reference's CountNode (float: a node created after every
        candidate failed starts with its neighbours' mean count).
    diligences_ : ndarray of shape (n_nodes,)
        Wins since the last reset of the diligences.
    err_cims_ : ndarray of shape (n_nodes,)
        ErrCIM: 1 for a node that never resonated, 0 otherwise.
    new_edged_ : ndarray of bool, shape (n_nodes,)
        Nodes that set an edge since the last reconstruction.
    mean_sigma_ : float
        σ̄, the mean bandwidth: the vigilance and the prediction bandwidth.
    threshold_ : float
        The vigilance threshold, σ̄ (the same value as ``mean_sigma_``).
    edges_ : ndarray of shape (n_edges, 2)
        Row indices ``i < j`` of each edge, sorted. TCA's edges have no age
        (``edge_ages_`` raises AttributeError).
    node_labels_ : ndarray of shape (n_nodes,)
        Cluster of each node (connected components numbered by their smallest row).
    n_clusters_ : int
        Number of connected components.
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
    >>> from cae.algorithms.tca import TCA
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0.25, 0.03, (400, 2)), rng.normal(0.75, 0.03, (400, 2))])
    >>> X = X[rng.permutation(len(X))]
    >>> model = TCA(reconstruction_interval=100, sigma_init=0.1).fit(X)
    >>> model.n_clusters_ >= 2
    True
    >>> bool(model.labels_[np.argmin(X.sum(1))] != model.labels_[np.argmax(X.sum(1))])
    True
    >>> rec = model.learn_one(np.array([0.25, 0.26]))
    >>> rec.case_name
    'resonance'

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); TCA().learn_many(X[:300]).save(buf); _ = buf.seek(0)
    >>> resumed = TCA.load(buf).learn_many(X[300:])
    >>> bool(np.array_equal(resumed.nodes_, TCA().learn_many(X).nodes_))
    True
    """

    algorithm = "TCA"
    _State = TCANetwork
    _edge_ages = False
    _parameter_ranges = {
        "reconstruction_interval": Interval("int", 1, symbol="λ"),
        "sigma_init": Interval("float", 0, low_open=True, symbol="σ_init"),
    }

    def __init__(self, reconstruction_interval: int = 200, sigma_init: float = 0.12) -> None:
        self.reconstruction_interval = reconstruction_interval
        self.sigma_init = sigma_init

    def _state_kwargs(self) -> dict[str, Any]:
        return {"reconstruction_interval": int(self.reconstruction_interval), "sigma_init": float(self.sigma_init)}

    def end_batch(self) -> Self:
        """Run the reference's deletions at the end of a call of ``TCA.m``.

        Deletes the isolated nodes, then the nodes with ErrCIM > 2σ̄, then
        crossing edges (each step only when it would not delete every node),
        as the reference does whenever its training function returns.
        ``fit``/``partial_fit`` call it; so do the app and the experiments at
        the end of each stage.
        """
        net = self.__dict__.get("network_")
        if net is not None and net.K > 0:
            net.end_of_call()
            self._version = getattr(self, "_version", 0) + 1
        return self

    def _record(self) -> TCAStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        s1_id, s2_id = int(ri[kernel.RI_S1ID]), int(ri[kernel.RI_S2ID])
        edge = int(ri[kernel.RI_EDGE])
        nn = int(ri[kernel.RI_NDEL_ISO] + ri[kernel.RI_NDEL_ERR])
        ne = int(ri[kernel.RI_NEDGES_DEL])
        ns = int(ri[kernel.RI_NSIGCHG])
        d = net.d
        return TCAStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            s1=int(ri[kernel.RI_S1]),
            s2=int(ri[kernel.RI_S2]),
            s1_id=s1_id,
            s2_id=s2_id,
            n_close=int(ri[kernel.RI_NCLOSE]),
            n_candidates=int(ri[kernel.RI_NCAND]),
            sigma=float(rf[kernel.RF_MEANSIG]),
            cim_s1=float(rf[kernel.RF_CIM_S1]),
            resonance_cim=float(rf[kernel.RF_RES_CIM]),
            cim_s2=float(rf[kernel.RF_CIM_S2]),
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            new_node_sigma=float(rf[kernel.RF_NEWSIG]),
            new_node_count=float(rf[kernel.RF_NEWCOUNT]),
            knn_ids=[int(i) for i in net.knn_ids[: int(ri[kernel.RI_NKNN])]] if case == 3 else [],
            edge_created=(s1_id, s2_id) if edge == 1 else None,
            edge_existed=(s1_id, s2_id) if edge == 2 else None,
            moved=[(s1_id, net.moved[0].copy(), net.moved[1].copy())] if case == 2 else [],
            reconstruction=bool(ri[kernel.RI_RECON]),
            errcim_threshold=float(rf[kernel.RF_ERRTHR]),
            intersection_sigma=float(rf[kernel.RF_XSIGMA]),
            nodes_deleted=[int(i) for i in net.rec_node_ids[:nn]],
            nodes_deleted_reasons=[_NODE_REASONS[int(r)] for r in net.rec_node_reason[:nn]],
            nodes_deleted_positions=net.rec_node_pos[:nn].reshape(nn, d).copy(),
            edges_deleted=[
                (int(a), int(b), _EDGE_REASONS[int(r)])
                for a, b, r in zip(net.rec_edge_a[:ne], net.rec_edge_b[:ne], net.rec_edge_reason[:ne])
            ],
            sigma_adapted=bool(ri[kernel.RI_ADAPT]),
            sigma_changes=[
                (int(i), float(b), float(a))
                for i, b, a in zip(net.rec_sig_ids[:ns], net.rec_sig_before[:ns], net.rec_sig_after[:ns])
            ],
            diligence_reset=bool(ri[kernel.RI_DILRESET]),
            mean_diligence=float(rf[kernel.RF_MEANDIL]),
            n_nodes=net.K,
            n_edges=int(net.iscal[kernel.I_E]),
            n_clusters=int(ri[kernel.RI_NCLUSTERS]),
        )

    def prediction_sigma(self) -> float:
        """The bandwidth of ``predict`` (and the vigilance): σ̄, the nodes' mean σ (σ_init without nodes)."""
        net = self._net()
        return float(net.fscal[kernel.F_SIGSUM] / net.K) if net.K else float(self.sigma_init)

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the nearest node by CIM(x, w, σ̄) of each row of X (the first on ties)."""
        net = self.network_
        out = np.zeros(X.shape[0], dtype=np.int64)
        kernel.nearest_nodes(X, net.Y, net.K, self.prediction_sigma(), out, np.empty(max(net.K, 1)))
        return out

    # ------------------------------------------------------------ fitted state
    @property
    def sigmas_(self) -> NDArray[np.float64]:
        return self._rows("sig")

    @property
    def win_counts_(self) -> NDArray[np.float64]:
        return self._rows("C")

    @property
    def diligences_(self) -> NDArray[np.int64]:
        return self._rows("dil")

    @property
    def err_cims_(self) -> NDArray[np.float64]:
        return self._rows("err")

    @property
    def new_edged_(self) -> NDArray[np.bool_]:
        net = self._net()
        return net.newedged[: net.K] == 1

    @property
    def mean_sigma_(self) -> float:
        return self.prediction_sigma()

    @property
    def threshold_(self) -> float:
        return self.prediction_sigma()

    def _node_attributes(self, row: int) -> dict[str, Any]:
        net = self._net()
        return {
            "sigma": float(net.sig[row]),
            "win_count": float(net.C[row]),
            "diligence": int(net.dil[row]),
            "err_cim": float(net.err[row]),
        }

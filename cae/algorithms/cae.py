"""CAE, CIM-based ART with Edge: the estimator (scikit-learn and streaming API, fitted state, step records).

CAE is from N. Masuyama, Y. Takebayashi, Y. Nojima, C. K. Loo, H. Ishibuchi
and S. Wermter, *A Parameter-free Adaptive Resonance Theory-based Topological
Clustering Algorithm Capable of Continual Learning*, Neural Computing and
Applications 38 (2026); the authors' reference is ``Masuyama-lab/CAE``,
``MATLAB/CAE_train.m`` and ``MATLAB/CAE_test.m``. CAEA, the paper's tuned
baseline, is the same estimator with λ and a_max given. The algorithm runs in
:mod:`cae.algorithms._cae_kernel`; its state is
:class:`cae.algorithms._cae_network.CAENetwork`.

The algorithm step by step, in our words, with every point where the authors'
code differs from the paper's text and what we follow (**[ref]**):
``docs/cae-algorithm.md``.

Examples
--------
>>> import numpy as np
>>> from cae import CAE
>>> X = np.random.default_rng(0).normal(0, 0.05, (300, 2))
>>> model = CAE().fit(X)  # parameter-free: V, λ and a_max come from the stream
>>> model.deletion_interval_ == 2 * model.n_active_nodes_
True
>>> CAE(deletion_interval=50, max_edge_age=30).fit(X).deletion_interval_  # CAEA
50
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _jit
from .._base import StreamingClusterer
from .._params import Choice, Interval
from .._storage import ModelFileError
from . import _cae_kernel as kernel
from ._cae_network import CAENetwork

__all__ = ["CAE", "CAEStepRecord", "ModelFileError"]

CASE_NAMES = {0: "initial phase", 1: "Case I", 2: "Case II", 3: "Case III"}
#: the first samples, whose Silverman bandwidth is σ_init (the diversity D needs it)
N_INIT = kernel.N_INIT
#: the nodes the network needs before D < 1e-6 fixes λ
MIN_NODES_FOR_LAMBDA = kernel.MIN_NODES_FOR_LAMBDA


@dataclass(frozen=True)
class CAEStepRecord:
    """What one call of :meth:`CAE.learn_one` did, with every quantity involved.

    Node references come in two forms: ``s1``/``s2``/``new_node_row`` are row
    indices into ``nodes_`` *as the sample arrived* (-1 when not applicable);
    every other reference is a stable node id (see ``CAE.node_ids_``), so that
    a node can be followed across steps even when the isolated-node sweep
    renumbers rows.

    Attributes
    ----------
    t : int
        Samples seen after this one (1-based, cumulative over calls).
    case : int
        0 initial phase, 1 Case I (new node), 2 Case II (winner moves),
        3 Case III (winner and neighbours move, edge s1-s2).
    s1, s2 : int
        Rows of the winner and runner-up; -1 in the initial phase.
    s1_id, s2_id : int
        Their stable ids; -1 in the initial phase.
    v1, v2 : float
        CIM of ``x`` to s1 and s2 (NaN in the initial phase).
    sigma : float
        Mean bandwidth used for the winner search (NaN in the initial phase).
    threshold : float
        The similarity threshold V after this step (NaN until set).
    a_max : float
        The edge-deletion threshold computed at this step (NaN when not computed).
    new_node_id, new_node_row : int
        Id and row of the node created at this step (-1 if none).
    new_node_sigma : float
        Bandwidth given to a Case I node (NaN otherwise).
    edges_aged : list of (int, int, int)
        ``(s1_id, neighbour_id, new_age)`` for every edge of s1 that aged.
    edge_created, edge_reset : tuple of (int, int) or None
        The s1-s2 edge created, or whose age was reset to 1 (Case III).
    edge_ages_at_deletion : list of (int, int)
        ``(neighbour_id, age)`` of every edge of s1 when deletion was decided.
    median, q1, q3, a_thr, ratio : float
        The deletion statistics (Tukey's hinges, a_thr = q3 + (q3 - q1),
        r = n_del / (n_del + |alpha|)); NaN when not computed.
    mean_deleted_edge_age_before : float
        The running mean age of deleted edges used in a_max.
    edges_deleted : list of (int, int, int)
        ``(s1_id, neighbour_id, age)`` of each deleted edge.
    moved : list of (int, ndarray, ndarray)
        ``(id, before, after)`` for s1 and, in Case III, its neighbours.
    swept_ids : list of int
        Ids removed by the isolated-node sweep at this step.
    swept_positions : ndarray of shape (n_swept, n_features)
        Where those nodes were.
    diversity : float
        D = det(exp(R)) when computed at this step (NaN otherwise).
    lambda_fixed : bool
        True when D fell below 1e-6 at this step and fixed lambda.
    threshold_setup : bool
        True when sigma0 and V were (re)computed at this step.
    sigma0 : float
        The bandwidth given to every node by that set-up (NaN otherwise).
    n_nodes, n_edges, n_clusters : int
        Network size after the step.
    n_active_nodes, deletion_interval : int or None
        n_active and lambda after the step (None until estimated).
    """

    t: int
    case: int
    s1: int
    s2: int
    s1_id: int
    s2_id: int
    v1: float
    v2: float
    sigma: float
    threshold: float
    a_max: float
    new_node_id: int
    new_node_row: int
    new_node_sigma: float
    edges_aged: list = field(default_factory=list)
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    edge_ages_at_deletion: list = field(default_factory=list)
    median: float = math.nan
    q1: float = math.nan
    q3: float = math.nan
    a_thr: float = math.nan
    ratio: float = math.nan
    mean_deleted_edge_age_before: float = 0.0
    edges_deleted: list = field(default_factory=list)
    moved: list = field(default_factory=list)
    swept_ids: list = field(default_factory=list)
    swept_positions: np.ndarray | None = None
    diversity: float = math.nan
    lambda_fixed: bool = False
    threshold_setup: bool = False
    sigma0: float = math.nan
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0
    n_active_nodes: int | None = None
    deletion_interval: int | None = None

    @property
    def case_name(self) -> str:
        """'initial phase', 'Case I', 'Case II' or 'Case III'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        what = {
            0: "node created (initial phase)",
            1: "node created (Case I)",
            2: "winner updated (Case II)",
            3: "winner and neighbours updated (Case III)",
        }[self.case]
        if self.edges_deleted:
            what += f", {len(self.edges_deleted)} edge(s) deleted"
        if self.swept_ids:
            what += f", {len(self.swept_ids)} isolated node(s) deleted"
        return what

    @property
    def nodes_deleted(self) -> list[int]:
        """Ids of the nodes deleted at this step (the isolated-node sweep)."""
        return self.swept_ids


class CAE(StreamingClusterer[CAEStepRecord]):
    """CIM-based ART with Edge: parameter-free topological clustering of a stream.

    CAE (Masuyama et al., Neural Computing and Applications 38, 2026) learns
    one sample at a time. It grows nodes while the similarity threshold V is
    unknown, estimates the number of active nodes n_active (and the
    deletion interval lambda = 2 n_active) with a determinantal-point-process
    diversity criterion, sets V and each node's kernel bandwidth sigma from the
    active nodes, then moves winners, joins winners with edges, deletes old
    edges by an estimated age threshold a_max, and removes isolated nodes
    every lambda samples. Clusters are the connected components of the graph.

    With both parameters left at None this is the parameter-free CAE. Giving
    them turns it into CAEA, the paper's tuned baseline.

    Parameters
    ----------
    deletion_interval : int or None, default=None
        Fix lambda instead of estimating it (n_active = lambda // 2, no
        diversity estimation). Must be an integer >= 4.
    max_edge_age : float or None, default=None
        Fix the edge-age limit a_max instead of estimating it: an edge of the
        winner is deleted when its age exceeds it. Must be >= 1.
    sweep_count : {"stream", "batch"}, default="stream"
        What the isolated-node sweep counts: "stream", the samples seen over
        the whole stream (t, the specification); "batch", the samples of the
        current batch, started again by :meth:`end_batch` — as the authors'
        ``CAE_train.m`` counts the sample index within one training call
        [ref]. The two agree when the stream is one batch; in a staged run
        (one batch per stage) "batch" is the reference's schedule.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes, n_features)
        Node positions, rows in creation order.
    node_ids_ : ndarray of shape (n_nodes,)
        Stable node ids (never reused).
    sigmas_ : ndarray of shape (n_nodes,)
        Kernel bandwidth of each node; NaN where a node has none yet.
    win_counts_ : ndarray of shape (n_nodes,)
        Winning count M of each node.
    edges_ : ndarray of shape (n_edges, 2)
        Row indices ``i < j`` of each edge, sorted.
    edge_ages_ : ndarray of shape (n_edges,)
        Age of each edge (>= 1).
    node_labels_ : ndarray of shape (n_nodes,)
        Cluster of each node (connected components numbered by their smallest row).
    n_clusters_ : int
        Number of connected components.
    threshold_ : float
        The similarity threshold V (NaN until set).
    n_active_nodes_ : int or None
        n_active (None until estimated).
    deletion_interval_ : int or None
        lambda (None until estimated).
    sigma_init_ : float
        Silverman bandwidth of the first 10 samples (NaN before the 10th).
    n_deleted_edges_ : int
        Number of edges deleted so far.
    mean_deleted_edge_age_ : float
        Mean age of the deleted edges (0 before any deletion).
    n_samples_seen_ : int
        Samples learned so far, over every call.
    labels_ : ndarray of shape (n_samples,)
        Labels of the last X given to ``fit``/``partial_fit`` by the final network.
    n_features_in_ : int
        Number of features.
    feature_names_in_ : ndarray of str
        Feature names, when X was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from cae import CAE
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.05, (300, 2)), rng.normal(1, 0.05, (300, 2))])
    >>> X = X[rng.permutation(len(X))]
    >>> model = CAE().fit(X)
    >>> model.n_clusters_ >= 2
    True
    >>> bool(model.labels_[np.argmin(X.sum(1))] != model.labels_[np.argmax(X.sum(1))])
    True
    >>> rec = model.learn_one(np.array([0.01, 0.02]))
    >>> rec.case_name in ("Case I", "Case II", "Case III")
    True

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); CAE().fit(X[:300]).save(buf); _ = buf.seek(0)
    >>> resumed = CAE.load(buf).partial_fit(X[300:])
    >>> bool(np.array_equal(resumed.nodes_, CAE().fit(X).nodes_))
    True
    """

    algorithm = "CAE"
    _State = CAENetwork
    _parameter_ranges = {
        "deletion_interval": Interval("int", 4, none=True, symbol="λ"),
        "max_edge_age": Interval("float", 1, none=True, symbol="a_max"),
        "sweep_count": Choice(("stream", "batch")),
    }

    def __init__(
        self, deletion_interval: int | None = None, max_edge_age: float | None = None, sweep_count: str = "stream"
    ) -> None:
        self.deletion_interval = deletion_interval
        self.max_edge_age = max_edge_age
        self.sweep_count = sweep_count

    def _state_kwargs(self) -> dict[str, Any]:
        return {
            "deletion_interval": None if self.deletion_interval is None else int(self.deletion_interval),
            "max_edge_age": None if self.max_edge_age is None else float(self.max_edge_age),
            "sweep_per_batch": self.sweep_count == "batch",
        }

    def end_batch(self) -> Self:
        """A batch (one call of ``CAE_train.m``) ended: the per-batch sample count starts again.

        Only ``sweep_count="batch"`` reads that count; the learned state does not change.
        """
        net = self.__dict__.get("network_")
        if net is not None:
            net.end_batch()
        return self

    def continue_with(self, deletion_interval: int | None = None, max_edge_age: float | None = None) -> Self:
        """Keep what was learned and continue the stream with new fixed λ and a_max (a fork, as CAEA).

        Unlike :meth:`set_params` (which only sets the constructor's arguments, used by the next ``fit``),
        this also changes the learned state's parameters from the next sample on. ``max_edge_age`` None
        returns to the estimated a_max; ``deletion_interval`` fixes λ (and n_active = λ // 2) from here,
        None keeps the current λ, estimated or not yet. Returns self.

        Examples
        --------
        >>> import numpy as np
        >>> X = np.random.default_rng(0).normal(0, 0.05, (300, 2))
        >>> model = CAE().learn_many(X[:200]).continue_with(deletion_interval=40, max_edge_age=20)
        >>> model.deletion_interval_, model.get_params()["max_edge_age"]
        (40, 20)
        """
        self.set_params(deletion_interval=deletion_interval, max_edge_age=max_edge_age)
        self._check_params()
        net = self.__dict__.get("network_")
        if net is not None:
            net.set_parameters(deletion_interval, max_edge_age)
            self._version += 1  # the fitted attributes are cached per version
        return self

    def _record(self) -> CAEStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        s1_id = int(ri[kernel.RI_S1ID])
        s2_id = int(ri[kernel.RI_S2ID])
        na, nd, nm = int(ri[kernel.RI_NAGED]), int(ri[kernel.RI_NDELETED]), int(ri[kernel.RI_NMOVED])
        nalpha, nsw = int(ri[kernel.RI_NALPHA]), int(ri[kernel.RI_NSWEPT])
        edge = int(ri[kernel.RI_EDGE])
        pair = (s1_id, s2_id)
        lam = int(net.iscal[kernel.I_LAMBDA])
        nact = int(net.iscal[kernel.I_NACTIVE])
        return CAEStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            s1=int(ri[kernel.RI_S1]),
            s2=int(ri[kernel.RI_S2]),
            s1_id=s1_id,
            s2_id=s2_id,
            v1=float(rf[kernel.RF_V1]),
            v2=float(rf[kernel.RF_V2]),
            sigma=float(rf[kernel.RF_SIGMA]),
            threshold=float(rf[kernel.RF_THRESHOLD]),
            a_max=float(rf[kernel.RF_AMAX]),
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            new_node_sigma=float(rf[kernel.RF_NEWSIGMA]),
            edges_aged=[(s1_id, int(i), int(a)) for i, a in zip(net.aged_ids[:na], net.aged_ages[:na])],
            edge_created=pair if edge == 1 else None,
            edge_reset=pair if edge == 2 else None,
            edge_ages_at_deletion=[(int(i), int(a)) for i, a in zip(net.alpha_ids[:nalpha], net.alpha_ages[:nalpha])],
            median=float(rf[kernel.RF_MEDIAN]),
            q1=float(rf[kernel.RF_Q1]),
            q3=float(rf[kernel.RF_Q3]),
            a_thr=float(rf[kernel.RF_ATHR]),
            ratio=float(rf[kernel.RF_RATIO]),
            mean_deleted_edge_age_before=float(rf[kernel.RF_MEANDEL_BEFORE]),
            edges_deleted=[(s1_id, int(i), int(a)) for i, a in zip(net.del_ids[:nd], net.del_ages[:nd])],
            moved=[(int(net.moved_ids[k]), net.moved_before[k].copy(), net.moved_after[k].copy()) for k in range(nm)],
            swept_ids=[int(i) for i in net.swept_ids[:nsw]],
            swept_positions=net.swept_pos[:nsw].copy(),
            diversity=float(rf[kernel.RF_D]),
            lambda_fixed=bool(ri[kernel.RI_LAMFIXED]),
            threshold_setup=bool(ri[kernel.RI_SETUP]),
            sigma0=float(rf[kernel.RF_SIGMA0]),
            n_nodes=net.K,
            n_edges=int(net.iscal[kernel.I_E]),
            n_clusters=int(ri[kernel.RI_NCLUSTERS]),
            n_active_nodes=nact if nact > 0 else None,
            deletion_interval=lam if lam > 0 else None,
        )

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the nearest node (by CIM with the prediction bandwidth) of each row of X.

        A large X is labelled on every core (see :func:`cae._jit.threads`; ``CAE_THREADS=1`` keeps it
        on one); the answer is the same. "Large": n x K x d of at least ``PARALLEL_WORK`` (2**25, some
        10 ms of work on one core), below which waking a second thread cost more than it saved (the 2-D
        stream and a 16-D mixture of 20,000 rows were labelled slower on two threads, Letter, a 64-D
        mixture and Skin 2x faster).
        """
        out = np.zeros(X.shape[0], dtype=np.int64)
        net = self.network_
        args = (X, net.Y, net.K, self.prediction_sigma(), out, _jit.compiled())
        small = len(X) < 2 * kernel.PREDICT_CHUNK or len(X) * net.K * net.d < kernel.PARALLEL_WORK
        if small or not _jit.run_parallel(kernel.nearest_nodes_parallel, *args):
            kernel.nearest_nodes(*args)
        return out

    def compile_parallel_labelling(self, X: ArrayLike) -> None:
        """Label ``X`` with the parallel labelling, whatever its size and this process's thread count.

        For the warm-up (``python -m cae._warmup``), which compiles every kernel before a class needs it:
        :meth:`nearest_nodes` takes the parallel path only for large inputs on several threads.
        """
        X = self._samples(X, fitted=True)
        net = self.network_
        out = np.zeros(X.shape[0], dtype=np.int64)
        kernel.nearest_nodes_parallel(X, net.Y, net.K, self.prediction_sigma(), out, True)

    def winner_search_counts(self, X: ArrayLike, runner_up: bool = True) -> tuple[int, int]:
        """What the winner search does over the rows of ``X`` on the current network (for ``python -m cae.bench``):
        how many CIMs it computes exactly, and how many nodes the distance bound alone would have skipped, summed
        over the rows; ``runner_up``: learning's search (s1 and s2), else labelling's (s1)."""
        X = self._samples(X, fitted=True)
        Y = np.asfortranarray(self.nodes_, dtype=np.float64)
        counts = np.zeros(2, dtype=np.int64)
        kernel.search_counts(X, Y, Y.shape[0], self.prediction_sigma(), runner_up, counts)
        return int(counts[0]), int(counts[1])

    def prediction_sigma(self) -> float:
        """The bandwidth used by ``predict``: the nodes' mean sigma, else sigma_init,
        else (fewer than 10 samples) the nodes' Silverman bandwidth, else 1.0."""
        net = self.network_
        K = net.K
        s = kernel.mean_sigma(net.sig, K)
        if not math.isnan(s):
            return s
        s = net.fscal[kernel.F_SIGINIT]
        if not math.isnan(s):
            return float(s)
        if K >= 2:
            return float(kernel.silverman(net.Y, np.arange(K), K, net.d, np.empty(net.d)))
        return 1.0

    def edge_age_limits(self) -> NDArray[np.float64]:
        """The edge-age limit a_max each node's edges would be judged by if it won now (``cae info``).

        The kernel's own rule (:func:`cae.algorithms._cae_kernel.edge_age_limit`, spec 3.4): Tukey's hinges of
        the node's edge ages, a_thr = q3 + (q3 - q1), mixed with the mean age of the deleted edges by
        r = n_del / (n_del + |alpha|); infinite where a node has too few distinct ages to have hinges. CAEA's
        fixed a_max everywhere instead. Nothing in the model changes.

        Examples
        --------
        >>> X = np.random.default_rng(0).normal(0, 0.05, (2000, 2))
        >>> limits = CAE().fit(X).edge_age_limits()
        >>> limits.shape == (len(CAE().fit(X).nodes_),), bool(np.all(limits >= 1))
        (True, True)
        """
        net = self._net()
        names = kernel.Rec._fields
        rec = kernel.Rec(*(np.full(kernel.N_RF, np.nan) if n == "rf" else getattr(net, n) for n in names))
        buf = kernel.Buf(
            *(np.zeros(max(int(net.nbr.shape[1]), 1)) if n == "sortbuf" else None for n in kernel.Buf._fields)
        )
        nets = kernel.Net(*(getattr(net, n) for n in kernel.Net._fields))
        limit = getattr(kernel.edge_age_limit, "py_func", kernel.edge_age_limit)
        return np.array([limit(nets, rec, buf, k) for k in range(net.K)], dtype=float)

    @property
    def sigmas_(self) -> NDArray[np.float64]:
        return self._rows("sig")

    @property
    def win_counts_(self) -> NDArray[np.int64]:
        return self._rows("M")

    @property
    def threshold_(self) -> float:
        return float(self._net().fscal[kernel.F_V])

    @property
    def n_active_nodes_(self) -> int | None:
        n = int(self._net().iscal[kernel.I_NACTIVE])
        return n if n > 0 else None

    @property
    def deletion_interval_(self) -> int | None:
        n = int(self._net().iscal[kernel.I_LAMBDA])
        return n if n > 0 else None

    @property
    def sigma_init_(self) -> float:
        return float(self._net().fscal[kernel.F_SIGINIT])

    @property
    def n_deleted_edges_(self) -> int:
        return int(self._net().iscal[kernel.I_NDEL])

    @property
    def mean_deleted_edge_age_(self) -> float:
        return float(self._net().fscal[kernel.F_MEANDEL])

    @property
    def diversity_matrix_(self) -> NDArray[np.float64] | None:
        """R over the first nodes (R_kl = 1 - CIM(y_k, y_l, sigma_init)) as last computed.

        Rows are never changed once written, so ``R[:K, :K]`` is the matrix of
        the step that had K nodes. None when lambda was given, before the
        10th sample, or past 128 nodes (where only the inverse is kept).
        """
        net = self._net()
        nr = int(net.iscal[kernel.I_NR])
        if net.iscal[kernel.I_FIXED_LAMBDA] or nr == 0 or nr > kernel.DIV_LU_MAX:
            return None
        return self._ro(net.R[:nr, :nr])

    def recency_rows(self) -> NDArray[np.int64]:
        """Node rows, most recently created-or-won first."""
        net = self._net()
        return np.argsort(-net.stamp[: net.K], kind="mergesort")

    def active_rows(self) -> NDArray[np.int64]:
        """Rows of the active node set: the first min(K, n_active) of the recency list."""
        order = self.recency_rows()
        n = self.n_active_nodes_
        return order if n is None else order[: min(len(order), n)]

    @property
    def first_samples_(self) -> NDArray[np.float64]:
        """The first (up to 10) samples of the stream, from which sigma_init is computed."""
        net = self._net()
        return self._ro(net.first[: int(net.iscal[kernel.I_NFIRST])])

    def _node_attributes(self, row: int) -> dict[str, Any]:
        return {"sigma": float(self.sigmas_[row]), "win_count": int(self.win_counts_[row])}

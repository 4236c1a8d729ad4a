"""ASOINN, the paper's adjusted SOINN: Shen's ``fastSOINN.m``, streamed, with a final denoising pass.

The CAE paper's ASOINN (Shen and Hasegawa, 2008) points at Shen's lab; that lab's public MATLAB
function ``fastSOINN(data, agemax, lambda, c)`` with c = 1 and one more denoising pass after the
last sample reproduces the paper's ASOINN column (measured: ``cae/experiments/paper_tables/README.md``).
The one implementation is :mod:`cae.algorithms._asoinn_kernel`. What one step does, why this is the
paper's ASOINN, every place where we follow a quirk of the reference (**[ref]**) or fix it
(**[fix]**), and where the final pass goes in each protocol: ``docs/baselines/asoinn.md``.

In short: a node's similarity threshold is stored (a new node gets 1e6) and, after every sample, the
winner's and the runner-up's are reset to their longest edge (or to their distance from each other);
a sample within both winners' thresholds links them (always), ages the winner's edges, removes the
edges older than a_max (never a node) and moves the winner alone by 1/M; every λ samples the nodes
with one neighbour and M < c·mean(M) and those with no neighbour and M < mean(M) are deleted;
:meth:`ASOINN.end_batch` runs that denoising once more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray

from .._base import StreamingClusterer
from .._params import Interval
from .._storage import ArrayState, ModelFileError
from . import _asoinn_kernel as kernel

__all__ = ["ASOINN", "AsoinnNetwork", "AsoinnStepRecord"]

CASE_NAMES = {0: "initial node", 1: "new node", 2: "winner update"}


class AsoinnNetwork(ArrayState):
    """The learned state of ASOINN (see :mod:`cae.algorithms._asoinn_kernel`).

    Rows ``[:K]`` of the node arrays are the live nodes in creation order: positions ``Y``, win
    counts ``M``, stored similarity thresholds ``th`` (Euclidean; 1e6 for a node that has not yet
    been a winner or runner-up), stable ``ids``, and the neighbour lists ``deg``/``nbr``/``age``.
    The scalars hold λ, a_max, c and the counters.
    """

    KERNEL = kernel
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "M": (np.int64, 0, None),
        "th": (np.float64, 0.0, None),
        "ids": (np.int64, 0, None),
        "deg": (np.int64, 0, None),
        "nbr": (np.int64, 0, "deg"),
        "age": (np.int64, 0, "deg"),
    }
    OTHER_ARRAYS: dict = {}

    def __init__(
        self,
        d: int,
        deletion_interval: int = 300,
        max_edge_age: float = 50.0,
        denoise_factor: float = 1.0,
        cap: int = 64,
        maxdeg: int = 8,
    ) -> None:
        super().__init__(d, cap=cap, maxdeg=maxdeg)
        self.iscal[kernel.I_LAMBDA] = int(deletion_interval)
        self.fscal[kernel.F_AMAX] = float(max_edge_age)
        self.fscal[kernel.F_C] = float(denoise_factor)

    def _alloc_scratch(self) -> None:
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        self.del_ids = np.zeros(maxdeg, dtype=np.int64)
        self.del_ages = np.zeros(maxdeg, dtype=np.int64)
        self.swept_ids = np.zeros(cap, dtype=np.int64)
        self.swept_pos = np.zeros((cap, self.d))
        self.dmask = np.zeros(cap, dtype=np.bool_)
        self.newrow = np.zeros(cap, dtype=np.int64)
        self.dist = np.zeros(cap)
        self.labels = np.zeros(cap, dtype=np.int64)

    def denoise(self) -> list[int]:
        """One denoising pass now; returns the ids of the deleted nodes."""
        n, _ = self.call(kernel.denoise)
        return [int(i) for i in self.swept_ids[:n]]

    @classmethod
    def validate(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> None:
        if "th" not in a and {"win_ts", "born"} <= set(a):
            raise ModelFileError(
                "this ASOINN model was saved by an earlier CAE Explorer, whose ASOINN was SoinnPlus.m's legacy "
                "mode; ASOINN is now Shen's fastSOINN.m, a different algorithm whose state cannot be made from "
                "that file: train the model again"
            )
        super().validate(a, meta)

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["Y"].shape[0]
        t = int(i[kernel.I_T])
        params = meta.get("params") or {}
        if (
            int(i[kernel.I_LAMBDA]) != params.get("deletion_interval")
            or f[kernel.F_AMAX] != params.get("max_edge_age")
            or f[kernel.F_C] != params.get("denoise_factor", 1.0)
        ):
            return "the state's lambda, a_max or c disagree with the model's parameters"
        if K and np.any(a["M"] < 1):
            return "a win count below 1"
        th = a["th"]
        if K and not (np.all(np.isfinite(th)) and np.all(th >= 0)):
            return "a similarity threshold that is negative or not a finite number"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "node ids that repeat or were never issued"
        if t < K or int(i[kernel.I_NEXTID]) > t or (K and int(a["M"].sum()) - K > t):
            return "more nodes or wins than samples seen"
        starting = int(i[kernel.I_STARTING])
        if starting not in (0, 1) or (starting == 1 and K != 1):
            return "a two-node start that is not waiting for its second node"
        if int(i[kernel.I_SETTLED]) not in (0, 1):
            return "a flag that is neither 0 nor 1"
        if min(int(i[kernel.I_EDGEDEL]), int(i[kernel.I_NODEDEL]), int(i[kernel.I_PASSES])) < 0:
            return "a negative counter"
        return None


@dataclass(frozen=True)
class AsoinnStepRecord:
    """What one call of ``learn_one`` did in ASOINN, with every quantity involved.

    ``s1``/``s2``/``new_node_row`` are rows of ``nodes_`` as the sample arrived (-1 when not
    applicable); every other node reference is a stable id. Distances and thresholds are Euclidean.
    NaN marks a quantity not computed at this step.

    Attributes
    ----------
    t : int
        Samples seen after this one.
    case : int
        0 initial node (the two-node start), 1 new node (D1 > T1 or D2 > T2), 2 winner update.
    s1, s2, s1_id, s2_id : int
        Rows and ids of the winner and the runner-up (-1 in case 0; the same node when there is only
        one).
    dist1, dist2 : float
        Distances of x to s1 and s2 (dist2 is 1e6 when s2 is s1, as in the reference).
    threshold1, threshold2 : float
        The stored thresholds T1, T2 the novelty test read (1e6 for a node never reset yet).
    new_threshold1, new_threshold2 : float
        The thresholds of s1 and s2 after this step's reset.
    new_node_id, new_node_row : int
        The node created at this step (-1 if none).
    edge_created, edge_reset : tuple of (int, int) or None
        The s1-s2 edge created, or re-linked (its age back to 1).
    edges_deleted : list of (int, int, int)
        ``(s1_id, neighbour_id, age)`` of each edge of s1 removed for its age.
    denoised : bool
        True when a denoising pass ran at this step (t a multiple of λ).
    mean_win_count : float
        mean(M) at that pass (NaN otherwise).
    nodes_deleted : list of int
        Ids of the nodes the denoising deleted.
    deleted_positions : ndarray of shape (n_deleted, n_features)
        Where those nodes were.
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
    new_threshold1: float
    new_threshold2: float
    new_node_id: int
    new_node_row: int
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    edges_deleted: list = field(default_factory=list)
    denoised: bool = False
    mean_win_count: float = math.nan
    nodes_deleted: list = field(default_factory=list)
    deleted_positions: np.ndarray | None = None
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
            0: "node created (the two-node start)",
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
            what += f", {len(self.nodes_deleted)} node(s) deleted by denoising"
        return what


class ASOINN(StreamingClusterer[AsoinnStepRecord]):
    """ASOINN: SOINN with a denoising cycle λ and a maximum edge age a_max (Shen's fastSOINN).

    A sample farther from its nearest node (the winner) or its second-nearest (the runner-up) than
    that node's stored similarity threshold becomes a node; otherwise the two are linked, the
    winner's edges age and those older than a_max are removed, and the winner moves towards the
    sample. After every sample both winners' thresholds are reset to their longest edge (or to
    their distance from each other when they have none). Every λ samples, and once more at the end
    of every batch (:meth:`end_batch`, which ``fit`` and ``partial_fit`` call; ``learn_one`` and
    ``learn_many`` never do), the denoising deletes the nodes with one neighbour and a win
    count below c times the mean, and those with no neighbour and a win count below the mean.
    Clusters are the connected components. See ``docs/baselines/asoinn.md`` for the reference, every
    quirk followed and fixed, and the protocol.

    Parameters
    ----------
    deletion_interval : int, default=300
        λ, the denoising cycle: the denoising runs when the number of samples seen is a multiple
        of λ. An integer >= 1.
    max_edge_age : float, default=50
        a_max: an edge of the winner whose age (1 when made or re-linked, +1 each time the winner's
        edges age) exceeds a_max is removed. A finite number >= 0.
    denoise_factor : float, default=1.0
        c: a node with one neighbour is noise when its win count is below c times the mean win
        count (the paper's numbers imply c = 1). A finite number >= 0.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes, n_features)
        Node positions, rows in creation order.
    node_ids_ : ndarray of shape (n_nodes,)
        Stable node ids (never reused).
    win_counts_ : ndarray of shape (n_nodes,)
        Win count M of each node (1 at creation).
    thresholds_ : ndarray of shape (n_nodes,)
        Each node's stored similarity threshold (Euclidean; 1e6 until the node is a winner or a
        runner-up).
    edges_ : ndarray of shape (n_edges, 2)
        Row indices ``i < j`` of each edge, sorted.
    edge_ages_ : ndarray of shape (n_edges,)
        Age of each edge (2 after the step that makes it).
    node_labels_ : ndarray of shape (n_nodes,)
        Cluster of each node (connected components numbered by their smallest row).
    n_clusters_ : int
        Number of connected components.
    n_deleted_edges_, n_deleted_nodes_, n_denoising_passes_ : int
        Edges removed for their age, nodes deleted by denoising, denoising passes run (periodic and
        final).
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
    >>> from cae.algorithms.asoinn import ASOINN
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.05, (300, 2)), rng.normal(1, 0.05, (300, 2))])
    >>> X = X[rng.permutation(len(X))]
    >>> model = ASOINN(deletion_interval=100, max_edge_age=20).fit(X)
    >>> bool(model.labels_[np.argmin(X.sum(1))] != model.labels_[np.argmax(X.sum(1))])
    True
    >>> int(model.edge_ages_.max()) <= 20  # an edge of the winner goes as soon as it ages past a_max
    True
    >>> model.learn_one(np.array([5.0, 5.0])).case_name  # far from everything: a new node
    'new node'
    >>> float(model.thresholds_[-1])  # a new node accepts anything until it is a winner or runner-up
    1000000.0

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); ASOINN(100, 20).learn_many(X[:300]).save(buf); _ = buf.seek(0)
    >>> resumed = ASOINN.load(buf).learn_many(X[300:])
    >>> bool(np.array_equal(resumed.nodes_, ASOINN(100, 20).learn_many(X).nodes_))
    True
    """

    algorithm = "ASOINN"
    _State = AsoinnNetwork
    _parameter_ranges = {
        "deletion_interval": Interval("int", 1, symbol="λ"),
        "max_edge_age": Interval("float", 0, symbol="a_max"),
        "denoise_factor": Interval("float", 0, symbol="c"),
    }

    def __init__(
        self,
        deletion_interval: int = 300,
        max_edge_age: float = 50,
        denoise_factor: float = 1.0,
    ) -> None:
        self.deletion_interval = deletion_interval
        self.max_edge_age = max_edge_age
        self.denoise_factor = denoise_factor

    def _state_kwargs(self) -> dict[str, Any]:
        return {
            "deletion_interval": int(self.deletion_interval),
            "max_edge_age": float(self.max_edge_age),
            "denoise_factor": float(self.denoise_factor),
        }

    def denoise(self) -> list[int]:
        """Run one denoising pass now (whatever the sample count); returns the ids of the deleted nodes."""
        net = self._net()
        deleted = net.denoise()
        self._version = getattr(self, "_version", 0) + 1
        return deleted

    def end_batch(self) -> Self:
        """The denoising pass at the end of a batch.

        The paper's ASOINN numbers imply that the denoising also runs at the last sample (as if
        ``fastSOINN.m`` tested ``mod(i, lambda) == 0 || i == N``; see ``docs/baselines/asoinn.md``):
        one pass, unless the last sample's periodic denoising already ran (so a second call does
        nothing either). ``fit``/``partial_fit`` call this, and so do the experiments at the end of
        each stage.
        """
        net = self.__dict__.get("network_")
        if net is not None and not net.iscal[kernel.I_SETTLED]:
            self.denoise()
        return self

    def _record(self) -> AsoinnStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        s1_id, s2_id = int(ri[kernel.RI_S1ID]), int(ri[kernel.RI_S2ID])
        nd, nsw = int(ri[kernel.RI_NDELETED]), int(ri[kernel.RI_NSWEPT])
        edge = int(ri[kernel.RI_EDGE])
        pair = (s1_id, s2_id)
        return AsoinnStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=int(ri[kernel.RI_CASE]),
            s1=int(ri[kernel.RI_S1]),
            s2=int(ri[kernel.RI_S2]),
            s1_id=s1_id,
            s2_id=s2_id,
            dist1=float(rf[kernel.RF_D1]),
            dist2=float(rf[kernel.RF_D2]),
            threshold1=float(rf[kernel.RF_TH1]),
            threshold2=float(rf[kernel.RF_TH2]),
            new_threshold1=float(rf[kernel.RF_NEWTH1]),
            new_threshold2=float(rf[kernel.RF_NEWTH2]),
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            edge_created=pair if edge == 1 else None,
            edge_reset=pair if edge == 2 else None,
            edges_deleted=[(s1_id, int(i), int(a)) for i, a in zip(net.del_ids[:nd], net.del_ages[:nd])],
            denoised=bool(ri[kernel.RI_DENOISED]),
            mean_win_count=float(rf[kernel.RF_MEANM]),
            nodes_deleted=[int(i) for i in net.swept_ids[:nsw]],
            deleted_positions=net.swept_pos[:nsw].copy(),
            n_nodes=net.K,
            n_edges=int(net.iscal[kernel.I_E]),
            n_clusters=int(ri[kernel.RI_NCLUSTERS]),
        )

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the nearest node (Euclidean distance, first row on ties) of each row of X."""
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
    def thresholds_(self) -> NDArray[np.float64]:
        """Each node's stored similarity threshold (1e6 until it is a winner or runner-up)."""
        return self._rows("th")

    @property
    def n_deleted_edges_(self) -> int:
        """Edges removed for their age so far."""
        return int(self._net().iscal[kernel.I_EDGEDEL])

    @property
    def n_deleted_nodes_(self) -> int:
        """Nodes deleted by denoising so far."""
        return int(self._net().iscal[kernel.I_NODEDEL])

    @property
    def n_denoising_passes_(self) -> int:
        """Denoising passes run so far (every λ samples, and at the end of each batch)."""
        return int(self._net().iscal[kernel.I_PASSES])

    def _node_attributes(self, row: int) -> dict[str, Any]:
        net = self._net()
        return {"win_count": int(net.M[row]), "threshold": float(net.th[row])}

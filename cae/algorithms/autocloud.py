"""AutoCloud (Bezerra et al. 2020): evolving data clouds from typicality and eccentricity.

A sample joins every cloud it is typical for and starts a new cloud when it
is typical for none; clouds that share enough samples merge; every cloud is a
cluster. Written from the authors' MATLAB code, ``BrunuXCosta/AutoCloud``
(Apache-2.0), commit ``8ece63c84fb3248b051786a4e89d675758e5e4c1``, files
``AutoCloud.m`` and ``Cloud.m``, with the Euclidean measure, as the CAE paper
uses it. The per-sample step is in :mod:`cae.algorithms._autocloud_kernel`;
``tests/oracles/autocloud_reference.py`` is a literal transcription that the
tests compare with after every step.

What it does per sample, and every point where we follow a quirk of the
reference (**[ref]**) or depart from it (**[fix]**):
``docs/baselines/autocloud.md``.

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.autocloud import AutoCloud
>>> X = np.random.default_rng(0).normal(0, 0.05, (200, 2))
>>> model = AutoCloud(m=2.0).fit(X)
>>> model.n_clusters_ == model.n_clouds_ >= 1
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._base import EdgelessClusterer
from .._params import Interval
from .._storage import ArrayState
from . import _autocloud_kernel as kernel

__all__ = ["AutoCloud", "AutoCloudStepRecord", "CloudState"]

CASE_NAMES = {
    kernel.CASE_FIRST: "first sample",
    kernel.CASE_SECOND: "second sample",
    kernel.CASE_JOINED: "typical",
    kernel.CASE_NEW: "new cloud",
}


class CloudState(ArrayState):
    """AutoCloud's learned state.

    Rows ``[:C]`` of the cloud arrays are the clouds in the reference's list
    order: centres ``Y``, variances ``var`` (NaN possible, see
    docs/baselines/autocloud.md), supports ``n`` and stable ``ids``. ``IM`` is the intersection
    matrix (only ``[:C, :C]`` in use; its capacity grows with the clouds'),
    ``fscal[F_M]`` the parameter m. There are no neighbour lists.
    """

    KERNEL = kernel
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "var": (np.float64, 0.0, None),
        "n": (np.int64, 0, None),
        "ids": (np.int64, 0, None),
    }
    OTHER_ARRAYS = {"IM": ("i", 2)}

    def __init__(self, d: int, m: float = 1.0, cap: int = 64) -> None:
        super().__init__(d, cap=cap, maxdeg=0)
        self.fscal[kernel.F_M] = float(m)

    def _init_other(self) -> None:
        cap = self.capacity
        self.IM = np.zeros((cap, cap), dtype=np.int64)

    def _alloc_scratch(self) -> None:
        cap = self.Y.shape[0]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        self.flags = np.zeros(cap, dtype=np.int64)
        self.zetas = np.zeros(cap)
        self.thresholds = np.zeros(cap)
        self.members = np.zeros(cap)
        self.ids_before = np.zeros(cap, dtype=np.int64)
        self.joined_ids = np.zeros(cap, dtype=np.int64)
        self.merge_rec = np.zeros((cap, 4), dtype=np.int64)
        self.colv = np.zeros(cap, dtype=np.int64)
        self.rowv = np.zeros(cap, dtype=np.int64)

    def _grow_other(self) -> None:
        cap = self.capacity
        if self.IM.shape[0] < cap:
            IM = np.zeros((cap, cap), dtype=np.int64)
            m = self.IM.shape[0]
            IM[:m, :m] = self.IM
            self.IM = IM

    def _other_to_arrays(self) -> dict[str, NDArray[Any]]:
        K = self.K
        return {"IM": self.IM[:K, :K].copy()}

    def _other_from_arrays(self, a: dict[str, NDArray[Any]]) -> None:
        cap = self.capacity
        self.IM = np.zeros((cap, cap), dtype=np.int64)
        K = a["IM"].shape[0]
        self.IM[:K, :K] = a["IM"]

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["Y"].shape[0]
        IM = a["IM"]
        if IM.shape != (K, K):
            return "the intersection matrix does not match the number of clouds"
        m = f[kernel.F_M]
        if not (math.isfinite(m) and m > 0):
            return f"m = {m} is not a positive finite number"
        pm = meta.get("params", {}).get("m")
        if pm is not None and float(pm) != m:
            return f"the stored m = {m} differs from the parameter m = {pm}"
        t = int(i[kernel.I_T])
        if t < K or (t > 0) != (K > 0):
            return "the number of clouds does not fit the samples seen"
        if i[kernel.I_E] != 0 or i[kernel.I_MAXDEG] != 0 or i[kernel.I_NMERGES] < 0:
            return "edge or merge counters (AutoCloud has no edges)"
        n = a["n"]
        if K and np.any(n < 1):
            return "a cloud support n below 1"
        var = a["var"]
        if np.any(~np.isnan(var) & ~((var >= 0) & np.isfinite(var))):
            return "a cloud variance that is negative or infinite"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "cloud ids that repeat or were never issued"
        if np.any(IM < 0) or np.any(np.tril(IM) != 0):
            return "intersection counts that are negative or below the diagonal"
        if K >= 2:
            up = np.triu(np.ones((K, K), dtype=bool), 1)
            meets = (IM > n[:, None] - IM) | (IM > n[None, :] - IM)
            if np.any(meets & up):
                return "two clouds that meet the merge condition (merging always ends without such a pair)"
        return None


@dataclass(frozen=True)
class AutoCloudStepRecord:
    """What one call of :meth:`AutoCloud.learn_one` did.

    Cloud references are stable ids (``AutoCloud.cloud_ids_``), except
    ``s1`` and ``new_node_row``, which are rows among the clouds as the
    sample arrived.

    Attributes
    ----------
    t : int
        Samples seen after this one (the reference's k).
    case : int
        0 first sample (cloud created), 1 second sample (added to cloud 1),
        2 typical for at least one cloud (joined them all), 3 atypical for
        every cloud (new cloud).
    s1, s1_id : int
        Row and id of the cloud of highest membership (-1 when none: at
        k >= 3, every membership NaN).
    s2_id : int
        Always -1 (protocol field).
    joined_ids : list of int
        The clouds x joined (cloud 1 at k = 2).
    new_node_id, new_node_row : int
        The cloud created from x (-1 if none).
    merges : list of (int, int, int, int)
        ``(id_i, id_j, new_id, nint)`` for each merge, in order: clouds i and
        j (i before j in the list), the merged cloud, their intersection count.
    nodes_deleted : list of int
        Ids of the clouds removed by merging (both clouds of every merge).
    cloud_ids_before : ndarray
        Ids of the clouds as x arrived (the rows of the three arrays below).
    zetas, thresholds, memberships : ndarray
        Per cloud as x arrived: zeta, the typicality threshold
        (m^2 + 1)/(2 n) and the membership tau/sum(tau); empty for k <= 2.
    zeta_s1, threshold_s1, membership_s1 : float
        The same for the cloud of highest membership (membership 1 for k <= 2).
    tau_sum : float
        sum(tau); when negative, the highest membership is the lowest tau.
    edge_created, edge_reset : None
    edges_deleted : list
        Always empty (protocol fields: AutoCloud has no edges).
    n_nodes, n_edges, n_clusters : int
        Clouds after the step, 0, clouds after the step.
    """

    t: int
    case: int
    s1: int
    s1_id: int
    s2_id: int = -1
    joined_ids: list = field(default_factory=list)
    new_node_id: int = -1
    new_node_row: int = -1
    merges: list = field(default_factory=list)
    nodes_deleted: list = field(default_factory=list)
    cloud_ids_before: np.ndarray | None = None
    zetas: np.ndarray | None = None
    thresholds: np.ndarray | None = None
    memberships: np.ndarray | None = None
    zeta_s1: float = math.nan
    threshold_s1: float = math.nan
    membership_s1: float = math.nan
    tau_sum: float = math.nan
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    edges_deleted: list = field(default_factory=list)
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0

    @property
    def case_name(self) -> str:
        """'first sample', 'second sample', 'typical' or 'new cloud'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        if self.case == kernel.CASE_FIRST:
            what = "cloud created (first sample)"
        elif self.case == kernel.CASE_SECOND:
            what = "added to cloud 1 (second sample)"
        elif self.case == kernel.CASE_NEW:
            what = "new cloud (atypical for every cloud)"
        else:
            what = f"joined {len(self.joined_ids)} cloud(s)"
        if self.merges:
            what += f", {len(self.merges)} merge(s)"
        return what


class AutoCloud(EdgelessClusterer[AutoCloudStepRecord]):
    """AutoCloud: evolving clustering by typicality and eccentricity (Bezerra et al. 2020).

    A sample joins every data cloud for which it is typical — its normalised
    eccentricity zeta at most (m^2 + 1)/(2 n), n the cloud's support — and
    starts a new cloud when it is typical for none. Clouds that share enough
    samples are merged. There are no nodes or edges; each cloud is a
    cluster. See docs/baselines/autocloud.md for the algorithm step by
    step and every point where the reference has a quirk.

    So that code written for networks (figures, exports, ``to_networkx``)
    draws clouds without special cases, the network attributes describe the
    clouds: ``nodes_`` are the centres, ``node_ids_`` the cloud ids,
    ``win_counts_`` the supports, ``edges_`` an empty (0, 2) array,
    ``node_labels_`` = 0 .. C-1 (every cloud its own cluster) and
    ``n_clusters_`` = C, the number of clouds.

    Parameters
    ----------
    m : float, default=1.0
        Sets the typicality threshold (m^2 + 1)/(2 n); the reference's default
        is 1, the paper's grid {1, 2, 3}. Must be a finite number > 0.

    Attributes
    ----------
    cloud_centers_ : ndarray of shape (n_clouds, n_features)
        Centre mu of each cloud, in the reference's list order.
    cloud_variances_ : ndarray of shape (n_clouds,)
        Variance of each cloud (mean squared distance to the centre; NaN for
        clouds merged from two single-sample clouds, as in the reference).
    cloud_support_ : ndarray of shape (n_clouds,)
        Support n of each cloud.
    cloud_ids_ : ndarray of shape (n_clouds,)
        Stable ids (never reused; a merged cloud gets a new one).
    n_clouds_ : int
        Number of clouds C.
    n_merges_ : int
        Merges so far.
    nodes_, node_ids_, win_counts_ : ndarray
        The same as ``cloud_centers_``, ``cloud_ids_``, ``cloud_support_``.
    edges_ : ndarray of shape (0, 2)
        No edges.
    node_labels_ : ndarray of shape (n_clouds,)
        0 .. C-1.
    n_clusters_ : int
        C.
    n_samples_seen_ : int
        Samples learned so far, over every call.
    labels_ : ndarray of shape (n_samples,)
        Labels of the last X given to ``fit``/``partial_fit`` by the final clouds.
    n_features_in_ : int
    feature_names_in_ : ndarray of str

    Examples
    --------
    >>> import numpy as np
    >>> from cae.algorithms.autocloud import AutoCloud
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 0.05, (200, 2)), rng.normal(1, 0.05, (200, 2))])
    >>> X = X[rng.permutation(len(X))]
    >>> model = AutoCloud(m=1.0).fit(X)
    >>> model.n_clouds_ == model.n_clusters_ == len(model.cloud_centers_)
    True
    >>> int(model.cloud_support_.min()) >= 1 and model.edges_.shape == (0, 2)
    True
    >>> rec = model.learn_one(np.array([0.01, 0.02]))
    >>> rec.case_name in ("typical", "new cloud"), rec.t
    (True, 401)

    A saved model continues a stream bit-identically:

    >>> import io
    >>> buf = io.BytesIO(); AutoCloud().fit(X[:150]).save(buf); _ = buf.seek(0)
    >>> resumed = AutoCloud.load(buf).partial_fit(X[150:])
    >>> bool(np.array_equal(resumed.cloud_centers_, AutoCloud().fit(X).cloud_centers_))
    True
    """

    algorithm = "AutoCloud"
    _State = CloudState
    _parameter_ranges = {"m": Interval("float", 0, low_open=True)}

    def __init__(self, m: float = 1.0) -> None:
        self.m = m

    def _state_kwargs(self) -> dict[str, Any]:
        return {"m": float(self.m)}

    def _record(self) -> AutoCloudStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        nb = int(ri[kernel.RI_NBEFORE])
        nm = int(ri[kernel.RI_NMERGES])
        merges = [tuple(int(v) for v in net.merge_rec[k]) for k in range(nm)]
        full = case in (kernel.CASE_JOINED, kernel.CASE_NEW)
        C = net.K
        return AutoCloudStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            s1=int(ri[kernel.RI_S1]),
            s1_id=int(ri[kernel.RI_S1ID]),
            joined_ids=[int(v) for v in net.joined_ids[: int(ri[kernel.RI_NJOINED])]],
            new_node_id=int(ri[kernel.RI_NEWID]),
            new_node_row=int(ri[kernel.RI_NEWROW]),
            merges=merges,
            nodes_deleted=[v for mg in merges for v in mg[:2]],
            cloud_ids_before=net.ids_before[:nb].copy(),
            zetas=net.zetas[:nb].copy() if full else np.zeros(0),
            thresholds=net.thresholds[:nb].copy() if full else np.zeros(0),
            memberships=net.members[:nb].copy() if full else np.zeros(0),
            zeta_s1=float(rf[kernel.RF_ZETA_S1]),
            threshold_s1=float(rf[kernel.RF_THRESHOLD_S1]),
            membership_s1=float(rf[kernel.RF_MEMBERSHIP_S1]),
            tau_sum=float(rf[kernel.RF_TAUSUM]),
            n_nodes=C,
            n_edges=0,
            n_clusters=C,
        )

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the cloud of highest membership of each row of X (first on ties, NaN ignored)."""
        net = self.network_
        out = np.zeros(X.shape[0], dtype=np.int64)
        kernel.nearest_nodes(X, net.Y, net.var, net.n, net.K, np.zeros(max(net.K, 1)), out)
        return out

    def memberships(self, X: ArrayLike) -> NDArray[np.float64]:
        """Membership tau_i / sum(tau) of each row of X in each cloud (n_samples x n_clouds)."""
        X = self._samples(X, fitted=True)
        net = self.network_
        C = net.K
        out = np.zeros((X.shape[0], C))
        for r in range(X.shape[0]):
            tau = np.array([1.0 - kernel.tentative(X, r, net.Y, net.var, net.n, c)[0] for c in range(C)])
            s = 0.0
            for v in tau:
                s += v
            out[r] = [kernel.fdiv(v, s) for v in tau]
        return out

    # ---- the clouds
    @property
    def cloud_centers_(self) -> NDArray[np.float64]:
        return self.nodes_

    @property
    def cloud_variances_(self) -> NDArray[np.float64]:
        return self._rows("var")

    @property
    def cloud_support_(self) -> NDArray[np.int64]:
        return self._rows("n")

    @property
    def cloud_ids_(self) -> NDArray[np.int64]:
        return self.node_ids_

    @property
    def n_clouds_(self) -> int:
        return self._net().K

    @property
    def n_merges_(self) -> int:
        return int(self._net().iscal[kernel.I_NMERGES])

    # ---- the network view of the clouds
    @property
    def win_counts_(self) -> NDArray[np.int64]:
        return self.cloud_support_

    def _node_attributes(self, row: int) -> dict[str, Any]:
        return {
            "variance": float(self.cloud_variances_[row]),
            "support": int(self.cloud_support_[row]),
            "win_count": int(self.cloud_support_[row]),
        }

"""CAE's learned state: the arrays its kernel (:mod:`cae.algorithms._cae_kernel`) updates in place.

The storage mechanics (capacity, copies, the model file) are shared by every
algorithm and live in :mod:`cae._storage`; this module declares CAE's arrays
and what a sane CAE state is.

The path of one sample: :meth:`cae.CAE.learn_one` (in :mod:`cae._base`) calls
:meth:`CAENetwork.run <cae._storage.ArrayState.run>`, which calls the kernel's
``run`` with the array of each of its parameter names (the arrays declared
here; ``tests/unit/test_kernel_contract.py`` checks that the two agree); the kernel
writes what the step did into ``ri``/``rf`` and the id lists, at its
``RI_*``/``RF_*`` slots, which ``CAE._record`` (:mod:`cae.algorithms.cae`)
reads by the same names into a :class:`cae.CAEStepRecord`.
"""

import math

import numpy as np

from .. import _jit
from .._storage import ArrayState, ModelFileError, read_npz, save_npz  # noqa: F401  (re-exported)
from . import _cae_kernel as kernel


class CAENetwork(ArrayState):
    """All of a CAE model's learned state.

    Rows ``[:K]`` of the node arrays are the live nodes, in creation order:
    positions ``Y``, win counts ``M``, bandwidths ``sig`` (NaN until set),
    stable ``ids``, recency ``stamp`` (the step a node was created or last
    won), and the neighbour lists ``deg``/``nbr``/``age``. ``R`` holds the
    diversity state while lambda is unknown, ``first`` the first 10 samples.
    """

    KERNEL = kernel
    NODE_ARRAYS = {
        "Y": (np.float64, 0.0, "d"),
        "M": (np.int64, 0, None),
        "sig": (np.float64, np.nan, None),
        "ids": (np.int64, 0, None),
        "stamp": (np.int64, 0, None),
        "deg": (np.int64, 0, None),
        "nbr": (np.int64, 0, "deg"),
        "age": (np.int64, 0, "deg"),
    }
    FEATURE_MAJOR = ("Y",)  # the winner search and predict run over one feature of every node at a time
    OTHER_ARRAYS = {"R": ("f", 2), "first": ("f", 2)}

    def __init__(self, d, deletion_interval=None, max_edge_age=None, sweep_per_batch=False, cap=64, maxdeg=8):
        super().__init__(d, cap=cap, maxdeg=maxdeg)
        self.iscal[kernel.I_SWEEP_PER_BATCH] = int(bool(sweep_per_batch))
        if deletion_interval is not None:
            self.iscal[kernel.I_FIXED_LAMBDA] = 1
            self.iscal[kernel.I_LAMBDA] = int(deletion_interval)
            self.iscal[kernel.I_NACTIVE] = int(deletion_interval) // 2
            self.R = np.zeros((0, 0))
        if max_edge_age is not None:
            self.fscal[kernel.F_FIXED_AMAX] = float(max_edge_age)

    def _init_other(self):
        self.R = np.zeros((32, 32))
        self.first = np.zeros((kernel.N_INIT, self.d))
        self.fscal[kernel.F_MEANDEL] = 0.0

    # -- scratch buffers for the step record --------------------------------
    def _alloc_scratch(self):
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        for name in ("aged_ids", "aged_ages", "alpha_ids", "alpha_ages", "del_ids", "del_ages"):
            setattr(self, name, np.zeros(maxdeg, dtype=np.int64))
        self.moved_ids = np.zeros(maxdeg + 1, dtype=np.int64)
        self.moved_before = np.zeros((maxdeg + 1, self.d))
        self.moved_after = np.zeros((maxdeg + 1, self.d))
        self.swept_ids = np.zeros(cap, dtype=np.int64)
        self.swept_pos = np.zeros((cap, self.d))
        self.labels = np.zeros(cap, dtype=np.int64)
        self.dist2 = np.zeros(cap)
        self.acc = np.zeros(cap)
        self.sortbuf = np.zeros(maxdeg)
        self.order = np.zeros(cap + 65, dtype=np.int64)  # the recency list, its sort's stack, its up-to-date flag
        self.stack = np.zeros(cap, dtype=np.int64)
        self.mask = np.zeros(cap, dtype=np.bool_)
        self.svec = np.zeros(self.d)
        n = min(self.R.shape[0], kernel.DIV_LU_MAX)  # the diversity's LU (none for CAEA)
        self.lu = np.zeros((n, n))

    @property
    def screening(self):
        """Whether the winner search screens nodes with its vectorised lower bound on CIM: when compiled (the
        same results; in plain Python the bound's pass costs more than it saves, and the distance bound is used)."""
        return _jit.compiled()

    def _grow_other(self):
        if self.iscal[kernel.I_VSET] == 0 and self.iscal[kernel.I_FIXED_LAMBDA] == 0 and self.K + 1 > self.R.shape[0]:
            n = max(2 * self.R.shape[0], 16)
            R = np.zeros((n, n))
            m = self.R.shape[0]
            R[:m, :m] = self.R
            self.R = R

    def set_parameters(self, deletion_interval=None, max_edge_age=None):
        """Change CAEA's fixed parameters from the next sample on (a fork).

        ``max_edge_age`` None returns to the estimated a_max. ``deletion_interval``
        fixes lambda (and n_active = lambda // 2) from here; None keeps the
        current lambda, estimated or not yet.
        """
        self.fscal[kernel.F_FIXED_AMAX] = np.nan if max_edge_age is None else float(max_edge_age)
        if deletion_interval is not None:
            self.iscal[kernel.I_FIXED_LAMBDA] = 1
            self.iscal[kernel.I_LAMBDA] = int(deletion_interval)
            self.iscal[kernel.I_NACTIVE] = int(deletion_interval) // 2

    def end_batch(self):
        """A batch ended: the per-batch sample count starts again (``CAE_train.m`` returns)."""
        self.iscal[kernel.I_BATCH_T] = 0

    # -- save / load -----------------------------------------------------------
    #: the integer scalars before the per-batch sweep count (files written until then have only these)
    _ISCAL_BEFORE_BATCH_COUNT = kernel.I_SWEEP_PER_BATCH

    @classmethod
    def validate(cls, a, meta):
        """Files written before the per-batch sweep count have two integer scalars fewer: they count the
        sweep over the stream (0), and their batch count is their sample count (nothing else reads it)."""
        i = a.get("iscal")
        if isinstance(i, np.ndarray) and i.ndim == 1 and i.shape[0] == cls._ISCAL_BEFORE_BATCH_COUNT:
            a["iscal"] = np.concatenate([i, [0, i[kernel.I_T]]]).astype(i.dtype)
        super().validate(a, meta)

    def _other_to_arrays(self):
        nr = int(self.iscal[kernel.I_NR]) if self.iscal[kernel.I_VSET] == 0 else 0
        return {"R": self.R[:nr, :nr].copy(), "first": self.first.copy()}

    def _other_from_arrays(self, a):
        nr = a["R"].shape[0]
        cap_r = 0 if a["iscal"][kernel.I_FIXED_LAMBDA] else max(32, 1 << int(np.ceil(np.log2(nr + 1))))
        self.R = np.zeros((cap_r, cap_r))
        self.R[:nr, :nr] = a["R"]
        self.first = a["first"].astype(np.float64).copy()

    @classmethod
    def _check_values(cls, a, meta):
        i, f = a["iscal"], a["fscal"]
        K, d = a["Y"].shape
        if a["first"].shape != (kernel.N_INIT, d) or a["R"].shape[0] != a["R"].shape[1]:
            return "the first samples or the diversity matrix have the wrong shape"
        if not 0 <= i[kernel.I_NFIRST] <= kernel.N_INIT or not np.all(np.isfinite(a["first"])):
            return "the buffer of first samples"
        if K and np.any(a["M"] < 1):
            return "a win count below 1"
        sig = a["sig"]
        if np.any(~np.isnan(sig) & ~((sig > 0) & np.isfinite(sig))):
            return "a bandwidth that is not a positive finite number"
        V = f[kernel.F_V]
        if i[kernel.I_VSET] not in (0, 1) or (i[kernel.I_VSET] == 1) != (not math.isnan(V)):
            return "the threshold flag and the threshold V disagree"
        if not math.isnan(V) and not 0.0 <= V <= 1.0:
            return f"the similarity threshold V = {V} is not a CIM value in [0, 1]"
        lam, nact = int(i[kernel.I_LAMBDA]), int(i[kernel.I_NACTIVE])
        if lam < 0 or nact < 0 or nact != lam // 2:
            return "lambda and n_active disagree"
        if i[kernel.I_FIXED_LAMBDA] not in (0, 1) or (i[kernel.I_FIXED_LAMBDA] and lam < 4):
            return "a fixed lambda below 4"
        amax = f[kernel.F_FIXED_AMAX]
        if not math.isnan(amax) and not (np.isfinite(amax) and amax >= 1):
            return "a fixed a_max below 1 or infinite"
        if i[kernel.I_NDEL] < 0 or not (np.isfinite(f[kernel.F_MEANDEL]) and f[kernel.F_MEANDEL] >= 0):
            return "the deleted-edge statistics"
        ids = a["ids"]
        if K and (len(np.unique(ids)) != K or ids.min() < 0 or ids.max() >= i[kernel.I_NEXTID]):
            return "node ids that repeat or were never issued"
        if i[kernel.I_T] < K:
            return "more nodes than samples seen"
        if K and len(np.unique(a["stamp"])) != K:
            return "recency stamps that repeat"
        if a["R"].shape[0] != (i[kernel.I_NR] if i[kernel.I_VSET] == 0 else 0):
            return "the diversity state does not match the node count"
        per_batch = (meta.get("params") or {}).get("sweep_count", "stream") == "batch"
        if i[kernel.I_SWEEP_PER_BATCH] != int(per_batch) or not 0 <= i[kernel.I_BATCH_T] <= i[kernel.I_T]:
            return "the sweep count disagrees with the model's parameters, or counts more samples than seen"
        return None

"""Growable array storage for one CAE network, and its save format."""

import io
import json
import zipfile

import numpy as np

from . import _kernel as K_

_NO_TRACE = np.zeros((0, len(K_.TRACE_COLUMNS)))
FORMAT_NAME = "cae-explorer-model"
FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A model file that is not a valid CAE Explorer model (corrupt, truncated or foreign)."""


class Network:
    """All of a model's learned state, in arrays the kernel updates in place.

    Rows ``[:K]`` of the node arrays are the live nodes, in creation order.
    Capacity (rows, neighbour slots, diversity-matrix size) grows by doubling
    and never changes the results.
    """

    ARRAYS = ("Y", "M", "sig", "ids", "stamp", "deg", "nbr", "age", "R", "first", "iscal", "fscal")

    def __init__(self, d, deletion_interval=None, max_edge_age=None, cap=64, maxdeg=8, cap_r=32):
        self.d = int(d)
        self.Y = np.zeros((cap, d))
        self.M = np.zeros(cap, dtype=np.int64)
        self.sig = np.full(cap, np.nan)
        self.ids = np.zeros(cap, dtype=np.int64)
        self.stamp = np.zeros(cap, dtype=np.int64)
        self.deg = np.zeros(cap, dtype=np.int64)
        self.nbr = np.zeros((cap, maxdeg), dtype=np.int64)
        self.age = np.zeros((cap, maxdeg), dtype=np.int64)
        self.R = np.zeros((cap_r, cap_r))
        self.first = np.zeros((K_.N_INIT, d))
        self.iscal = np.zeros(K_.N_ISCAL, dtype=np.int64)
        self.fscal = np.full(K_.N_FSCAL, np.nan)
        self.fscal[K_.F_MEANDEL] = 0.0
        if deletion_interval is not None:
            self.iscal[K_.I_FIXED_LAMBDA] = 1
            self.iscal[K_.I_LAMBDA] = int(deletion_interval)
            self.iscal[K_.I_NACTIVE] = int(deletion_interval) // 2
            self.R = np.zeros((0, 0))
        if max_edge_age is not None:
            self.fscal[K_.F_FIXED_AMAX] = float(max_edge_age)
        self._alloc_scratch()

    # -- scratch buffers for the step record --------------------------------
    def _alloc_scratch(self):
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        self.ri = np.zeros(K_.N_RI, dtype=np.int64)
        self.rf = np.full(K_.N_RF, np.nan)
        self.aged_ids = np.zeros(maxdeg, dtype=np.int64)
        self.aged_ages = np.zeros(maxdeg, dtype=np.int64)
        self.alpha_ids = np.zeros(maxdeg, dtype=np.int64)
        self.alpha_ages = np.zeros(maxdeg, dtype=np.int64)
        self.del_ids = np.zeros(maxdeg, dtype=np.int64)
        self.del_ages = np.zeros(maxdeg, dtype=np.int64)
        self.moved_ids = np.zeros(maxdeg + 1, dtype=np.int64)
        self.moved_before = np.zeros((maxdeg + 1, self.d))
        self.moved_after = np.zeros((maxdeg + 1, self.d))
        self.swept_ids = np.zeros(cap, dtype=np.int64)
        self.swept_pos = np.zeros((cap, self.d))
        self.labels = np.zeros(cap, dtype=np.int64)
        self.dist2 = np.zeros(cap)
        self.sortbuf = np.zeros(maxdeg)

    @property
    def K(self):
        return int(self.iscal[K_.I_K])

    def _grow(self):
        K = self.K
        cap, maxdeg = self.Y.shape[0], self.nbr.shape[1]
        if K + 1 > cap:
            new = cap * 2
            for name in ("Y", "M", "sig", "ids", "stamp", "deg", "nbr", "age"):
                old = getattr(self, name)
                arr = np.zeros((new,) + old.shape[1:], dtype=old.dtype)
                if name == "sig":
                    arr[:] = np.nan
                arr[:cap] = old
                setattr(self, name, arr)
        if self.iscal[K_.I_MAXDEG] + 1 > maxdeg:
            new = maxdeg * 2
            for name in ("nbr", "age"):
                old = getattr(self, name)
                arr = np.zeros((old.shape[0], new), dtype=old.dtype)
                arr[:, :maxdeg] = old
                setattr(self, name, arr)
        if (self.iscal[K_.I_VSET] == 0 and self.iscal[K_.I_FIXED_LAMBDA] == 0
                and K + 1 > self.R.shape[0]):
            n = max(2 * self.R.shape[0], 16)
            R = np.zeros((n, n))
            m = self.R.shape[0]
            R[:m, :m] = self.R
            self.R = R
        self._alloc_scratch()

    def run(self, X, track=False, trace=None):
        """Learn the rows of X (float64, C-contiguous, finite) in order.

        With ``trace`` (an array of shape (len(X), len(TRACE_COLUMNS))), each
        step's summary is written to its row (this implies ``track``).
        """
        if trace is None:
            trace = _NO_TRACE
        else:
            track = True
        start = 0
        while True:
            start = K_.run(
                X, start, self.Y, self.M, self.sig, self.ids, self.stamp, self.deg, self.nbr,
                self.age, self.R, self.first, self.iscal, self.fscal, self.ri, self.rf,
                self.aged_ids, self.aged_ages, self.alpha_ids, self.alpha_ages, self.del_ids,
                self.del_ages, self.moved_ids, self.moved_before, self.moved_after,
                self.swept_ids, self.swept_pos, self.labels, self.dist2, self.sortbuf, track, trace)
            if start == K_.DONE:
                return
            self._grow()

    def set_parameters(self, deletion_interval=None, max_edge_age=None):
        """Change CAEA's fixed parameters from the next sample on (a fork).

        ``max_edge_age`` None returns to the estimated a_max. ``deletion_interval``
        fixes lambda (and n_active = lambda // 2) from here; None keeps the
        current lambda, estimated or not yet.
        """
        self.fscal[K_.F_FIXED_AMAX] = np.nan if max_edge_age is None else float(max_edge_age)
        if deletion_interval is not None:
            self.iscal[K_.I_FIXED_LAMBDA] = 1
            self.iscal[K_.I_LAMBDA] = int(deletion_interval)
            self.iscal[K_.I_NACTIVE] = int(deletion_interval) // 2

    def copy(self):
        other = Network.__new__(Network)
        other.d = self.d
        for name in self.ARRAYS:
            setattr(other, name, getattr(self, name).copy())
        other._alloc_scratch()
        return other

    # -- save / load -----------------------------------------------------------
    def to_arrays(self):
        K = self.K
        used = int(self.iscal[K_.I_MAXDEG])
        nr = int(self.iscal[K_.I_NR]) if self.iscal[K_.I_VSET] == 0 else 0
        return {
            "Y": self.Y[:K].copy(), "M": self.M[:K].copy(), "sig": self.sig[:K].copy(),
            "ids": self.ids[:K].copy(), "stamp": self.stamp[:K].copy(), "deg": self.deg[:K].copy(),
            "nbr": self.nbr[:K, :used].copy(), "age": self.age[:K, :used].copy(),
            "R": self.R[:nr, :nr].copy(), "first": self.first.copy(),
            "iscal": self.iscal.copy(), "fscal": self.fscal.copy(),
        }

    @classmethod
    def from_arrays(cls, a):
        net = cls.__new__(cls)
        Y = a["Y"]
        K, d = Y.shape
        net.d = d
        cap = max(64, 1 << int(np.ceil(np.log2(K + 1))))
        used = a["nbr"].shape[1]
        maxdeg = max(8, 1 << int(np.ceil(np.log2(used + 1))))
        net.Y = np.zeros((cap, d))
        net.Y[:K] = Y
        for name, dtype, fill in (("M", np.int64, 0), ("sig", np.float64, np.nan), ("ids", np.int64, 0),
                                  ("stamp", np.int64, 0), ("deg", np.int64, 0)):
            arr = np.full(cap, fill, dtype=dtype)
            arr[:K] = a[name]
            setattr(net, name, arr)
        for name in ("nbr", "age"):
            arr = np.zeros((cap, maxdeg), dtype=np.int64)
            arr[:K, :used] = a[name]
            setattr(net, name, arr)
        nr = a["R"].shape[0]
        cap_r = max(32, 1 << int(np.ceil(np.log2(nr + 1)))) if not a["iscal"][K_.I_FIXED_LAMBDA] else 0
        net.R = np.zeros((cap_r, cap_r))
        net.R[:nr, :nr] = a["R"]
        net.first = a["first"].astype(np.float64).copy()
        net.iscal = a["iscal"].astype(np.int64).copy()
        net.fscal = a["fscal"].astype(np.float64).copy()
        net._alloc_scratch()
        return net


_SCHEMA = {
    # name: (dtype kind, ndim)
    "Y": ("f", 2), "M": ("i", 1), "sig": ("f", 1), "ids": ("i", 1), "stamp": ("i", 1),
    "deg": ("i", 1), "nbr": ("i", 2), "age": ("i", 2), "R": ("f", 2), "first": ("f", 2),
    "iscal": ("i", 1), "fscal": ("f", 1),
}


def save_npz(path_or_file, arrays, meta):
    """Write a model file: an uncompressed ``.npz`` of plain arrays plus JSON metadata."""
    meta = dict(meta, format=FORMAT_NAME, version=FORMAT_VERSION)
    payload = {f"state_{k}": v for k, v in arrays.items()}
    payload["meta_json"] = np.array(json.dumps(meta, allow_nan=False))
    np.savez(path_or_file, **payload)


def load_npz(path_or_file):
    """Read and validate a model file; raise :class:`ModelFileError` on anything wrong."""
    try:
        with np.load(path_or_file, allow_pickle=False) as z:
            files = set(z.files)
            if "meta_json" not in files:
                raise ModelFileError("not a CAE Explorer model file (no metadata)")
            meta = json.loads(str(z["meta_json"][()]))
            arrays = {k: z[f"state_{k}"] for k in _SCHEMA if f"state_{k}" in files}
    except ModelFileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, json.JSONDecodeError,
            UnicodeDecodeError, io.UnsupportedOperation) as exc:
        raise ModelFileError(f"cannot read model file: it is corrupted, truncated or not a CAE model ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError("not a CAE Explorer model file (wrong format name)")
    if meta.get("version") != FORMAT_VERSION:
        raise ModelFileError(f"unsupported model file version {meta.get('version')!r} (this build reads {FORMAT_VERSION})")
    missing = [k for k in _SCHEMA if k not in arrays]
    if missing:
        raise ModelFileError(f"model file is missing arrays: {', '.join(missing)}")
    for k, (kind, ndim) in _SCHEMA.items():
        a = arrays[k]
        if a.dtype.kind != kind or a.ndim != ndim:
            raise ModelFileError(f"model file array {k!r} has the wrong type or shape")
    K = arrays["Y"].shape[0]
    d = meta.get("n_features")
    ok = (
        isinstance(d, int) and d >= 1
        and arrays["Y"].shape[1] == d and arrays["first"].shape == (K_.N_INIT, d)
        and all(arrays[k].shape[0] == K for k in ("M", "sig", "ids", "stamp", "deg", "nbr", "age"))
        and arrays["nbr"].shape == arrays["age"].shape
        and arrays["iscal"].shape == (K_.N_ISCAL,) and arrays["fscal"].shape == (K_.N_FSCAL,)
        and arrays["R"].shape[0] == arrays["R"].shape[1]
        and int(arrays["iscal"][K_.I_K]) == K
    )
    if ok:
        deg = arrays["deg"]
        nbr = arrays["nbr"]
        ok = bool(np.all(deg >= 0) and np.all(deg <= nbr.shape[1]))
        if ok and K:
            valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
            ok = bool(np.all((nbr[valid] >= 0) & (nbr[valid] < K)) and np.all(arrays["age"][valid] >= 1)
                      and int(deg.sum()) == 2 * int(arrays["iscal"][K_.I_E]))
        ok = ok and bool(np.all(np.isfinite(arrays["Y"])))
    if not ok:
        raise ModelFileError("model file is inconsistent (shapes or graph do not agree); it may be corrupted")
    return Network.from_arrays(arrays), meta

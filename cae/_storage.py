"""Array storage that every algorithm's learned state shares, and the one model-file format.

An algorithm's state is a set of NumPy arrays that its numba kernel updates in
place: per-node arrays (rows ``[:K]`` are the live nodes, in creation order,
with spare capacity below), neighbour lists for networks (see
:mod:`cae._graph`), two scalar arrays ``iscal`` (integers) and ``fscal``
(floats) indexed by the kernel's constants, and whatever else the algorithm
needs. :class:`ArrayState` owns the capacity (doubling when the kernel asks
for room, which never changes a result), copying, and the conversion to and
from the model file; a subclass only declares its arrays.

The model file
--------------
An uncompressed ``.npz`` that ``numpy.load(..., allow_pickle=False)`` reads:

* ``meta_json`` — a JSON string with ``format`` = ``"cae-explorer-model"``,
  ``version`` (2), ``algorithm`` (the registry name: ``CAE``, ``SOINN+``,
  ``ASOINN``, ``TCA``, ``AutoCloud``), ``params`` (the constructor
  parameters), ``n_features`` and ``feature_names``;
* ``state_<name>`` — the state arrays, node arrays trimmed to the live rows.

Version 1 files (written before the baselines existed: CAE only, parameters
at the top level of the metadata) are still read. Loading checks every
array's type and shape, the graph's consistency and the values that the
algorithm needs to be sane, and raises :class:`ModelFileError` otherwise.
"""

from __future__ import annotations

import inspect
import io
import json
import zipfile
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _jit

FORMAT_NAME = "cae-explorer-model"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)


class ModelFileError(ValueError):
    """A model file that is not a valid CAE Explorer model (corrupt, truncated, foreign or insane)."""


def kernel_parameters(func):
    """The parameter names of a kernel function, compiled (a numba dispatcher) or not."""
    return tuple(inspect.signature(getattr(func, "py_func", func)).parameters)


#: the parameters of every kernel's ``run`` around the state arrays it is given by name
RUN_LEADING, RUN_TRAILING = ("X", "start"), ("track", "trace")


def run_arrays(kernel):
    """The names of the state arrays ``kernel.run`` takes: its parameters between ``X, start`` and
    ``track, trace`` (raises TypeError if ``run`` does not have that shape)."""
    names = kernel_parameters(kernel.run)
    n0, n1 = len(RUN_LEADING), len(RUN_TRAILING)
    if names[:n0] != RUN_LEADING or names[len(names) - n1 :] != RUN_TRAILING:
        raise TypeError(f"{kernel.__name__}.run must be run(X, start, <state arrays>, track, trace), not {names}")
    return names[n0 : len(names) - n1]


def _pow2_at_least(n, floor):
    return max(floor, 1 << int(np.ceil(np.log2(max(n, 1) + 1))))


class ArrayState:
    """The learned state of one model: growable arrays a kernel updates in place.

    Subclasses declare

    ``KERNEL``
        the kernel module, with ``run``, ``write_trace``, ``TRACE_COLUMNS``
        and the scalar indices ``I_K`` (nodes), ``I_T`` (samples seen),
        ``I_E`` (edges), ``I_MAXDEG`` (a bound on every degree) and the sizes
        ``N_ISCAL``, ``N_FSCAL``;
    ``NODE_ARRAYS``
        ``name -> (dtype, fill, width)``: one row per node, ``width`` None
        (1-D), ``"d"`` (one column per feature) or ``"deg"`` (a neighbour-list
        slot per column);
    ``FEATURE_MAJOR``
        the names of ``"d"`` node arrays stored feature-major (Fortran order:
        one feature of every node side by side, for loops over the nodes that
        numba vectorises); the model file holds them row-major as the others;
    ``OTHER_ARRAYS``
        ``name -> (dtype kind, ndim)``: arrays saved whole (``iscal`` and
        ``fscal`` are always there);
    ``RUN_ARGS``
        optional: the state arrays ``KERNEL.run`` takes. The contract is by name: ``run``'s
        signature is ``run(X, start, <array names>, track, trace)`` and :meth:`run` passes the
        attribute of each name (see :func:`run_arrays`), so ``RUN_ARGS`` is read from the
        signature when a subclass does not declare it, and checked against it when it does.

    The kernel's ``run`` returns ``KERNEL.DONE`` or the row where it needs
    room: before each step it checks ``K + 1`` against the node capacity
    and, for networks, ``iscal[I_MAXDEG] + 1`` against the neighbour-list
    width (algorithms without neighbour lists, AutoCloud, check their own
    arrays instead; ``_grow_other`` grows them).
    """

    KERNEL: Any = None  # the kernel module (numba-compiled functions, read as Any)
    NODE_ARRAYS: dict = {}
    FEATURE_MAJOR: tuple = ()
    OTHER_ARRAYS: dict = {}
    RUN_ARGS: tuple = ()  # set from KERNEL.run's signature for each subclass
    _parameters: dict = {}  # kernel function -> its parameter names (read once, see call)
    #: the smallest valid edge age in a model file (GNG's edges are 0 when made, the others' 1)
    MIN_EDGE_AGE: int = 1

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.KERNEL is None:
            return
        names = run_arrays(cls.KERNEL)
        declared = cls.__dict__.get("RUN_ARGS")
        if declared is not None and tuple(declared) != names:
            raise TypeError(
                f"{cls.__name__}.RUN_ARGS {tuple(declared)} differ from the arrays "
                f"{cls.KERNEL.__name__}.run takes {names} (the state passes them by name)"
            )
        cls.RUN_ARGS = names

    if TYPE_CHECKING:
        # the arrays NODE_ARRAYS and OTHER_ARRAYS declare, and the scratch buffers, are set by name
        def __getattr__(self, name: str) -> np.ndarray: ...

    def __init__(self, d, cap=64, maxdeg=8):
        self.d = int(d)
        self._alloc_nodes(cap, maxdeg)
        self.iscal = np.zeros(self.KERNEL.N_ISCAL, dtype=np.int64)
        self.fscal = np.full(self.KERNEL.N_FSCAL, np.nan)
        self._init_other()
        self._alloc_scratch()

    # ---------------------------------------------------------- hooks
    def _init_other(self):
        """Create the OTHER_ARRAYS beyond iscal/fscal and set initial scalars."""

    def _alloc_scratch(self):
        """(Re)allocate the kernel's scratch buffers for the current capacity."""

    def _grow_other(self):
        """Grow any OTHER_ARRAYS the kernel asked room for (called by :meth:`_grow`)."""

    def _other_to_arrays(self):
        return {name: getattr(self, name).copy() for name in self.OTHER_ARRAYS}

    def _other_from_arrays(self, a):
        for name, (kind, _) in self.OTHER_ARRAYS.items():
            setattr(self, name, a[name].astype(np.float64 if kind == "f" else np.int64).copy())

    @classmethod
    def _check_values(cls, a, meta):
        """Return a message if the (shape-checked) arrays hold values the algorithm cannot use."""
        return None

    # ------------------------------------------------------ capacity
    def _alloc_nodes(self, cap, maxdeg):
        for name, (dtype, fill, width) in self.NODE_ARRAYS.items():
            shape = (cap,) if width is None else (cap, self.d if width == "d" else maxdeg)
            setattr(self, name, np.full(shape, fill, dtype=dtype, order="F" if name in self.FEATURE_MAJOR else "C"))

    @property
    def capacity(self):
        return next(iter(self._node_arrays().values())).shape[0]

    @property
    def max_degree_slots(self):
        for name, (_, _, width) in self.NODE_ARRAYS.items():
            if width == "deg":
                return getattr(self, name).shape[1]
        return 0

    def _node_arrays(self):
        return {name: getattr(self, name) for name in self.NODE_ARRAYS}

    @property
    def K(self):
        return int(self.iscal[self.KERNEL.I_K])

    @property
    def n_edges(self):
        return int(self.iscal[self.KERNEL.I_E])

    def _grow(self):
        K = self.K
        cap, maxdeg = self.capacity, self.max_degree_slots
        new_cap = cap * 2 if K + 1 > cap else cap
        has_deg = any(w == "deg" for _, _, w in self.NODE_ARRAYS.values())
        new_deg = maxdeg * 2 if has_deg and self.iscal[self.KERNEL.I_MAXDEG] + 1 > maxdeg else maxdeg
        if (new_cap, new_deg) != (cap, maxdeg):
            old = self._node_arrays()
            self._alloc_nodes(new_cap, new_deg)
            for name, arr in old.items():
                new = getattr(self, name)
                new[tuple(slice(0, n) for n in arr.shape)] = arr
        self._grow_other()
        self._alloc_scratch()

    # ---------------------------------------------------------- learning
    def run(self, X, track=False, trace=None):
        """Learn the rows of X (float64, C-contiguous, finite) in order.

        With ``trace`` (shape ``(len(X), len(KERNEL.TRACE_COLUMNS))``) each
        step's summary is written to its row (this implies ``track``).
        """
        _jit.ensure()  # switch to the compiled kernels as soon as they are ready
        if trace is None:
            trace = np.zeros((0, len(self.KERNEL.TRACE_COLUMNS)))
        else:
            track = True
        start = 0
        while True:
            start = self.KERNEL.run(X, start, *[getattr(self, n) for n in self.RUN_ARGS], track, trace)
            if start == self.KERNEL.DONE:
                return
            self._grow()

    def call(self, func, **given):
        """Call the kernel function ``func`` with this state's array of each of its parameter names,
        except those ``given`` (by name, as ``run`` is called)."""
        names = self._parameters.get(func)
        if names is None:
            names = self._parameters[func] = kernel_parameters(func)
        return func(*[given[name] if name in given else getattr(self, name) for name in names])

    def trace_row(self):
        """The trace row of the last step (the same row ``run`` writes with a trace)."""
        row = np.zeros((1, len(self.KERNEL.TRACE_COLUMNS)))
        self.KERNEL.write_trace(row, 0, self.iscal, self.fscal, self.ri, self.rf)
        return row[0]

    def copy(self):
        other = self.__class__.__new__(self.__class__)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if not isinstance(v, np.ndarray)})
        for name in list(self.NODE_ARRAYS) + ["iscal", "fscal"] + list(self.OTHER_ARRAYS):
            setattr(other, name, getattr(self, name).copy(order="K"))
        other._alloc_scratch()
        return other

    # ------------------------------------------------------ save / load
    def to_arrays(self):
        K = self.K
        used = int(self.iscal[self.KERNEL.I_MAXDEG])
        out = {}
        for name, (_, _, width) in self.NODE_ARRAYS.items():
            arr = getattr(self, name)
            out[name] = np.array(arr[:K, :used] if width == "deg" else arr[:K], order="C")  # a row-major copy
        out["iscal"] = self.iscal.copy()
        out["fscal"] = self.fscal.copy()
        out.update(self._other_to_arrays())
        return out

    @classmethod
    def schema(cls):
        s = {name: (np.dtype(dt).kind, 1 if w is None else 2) for name, (dt, _, w) in cls.NODE_ARRAYS.items()}
        s.update(iscal=("i", 1), fscal=("f", 1))
        s.update(cls.OTHER_ARRAYS)
        return s

    @classmethod
    def from_arrays(cls, a, meta):
        """A state from validated file arrays (see :meth:`validate`)."""
        cls.validate(a, meta)
        st = cls.__new__(cls)
        st.d = int(meta["n_features"])
        K = int(a["iscal"][cls.KERNEL.I_K])
        used = max([a[n].shape[1] for n, (_, _, w) in cls.NODE_ARRAYS.items() if w == "deg"] or [0])
        st._alloc_nodes(_pow2_at_least(K, 64), _pow2_at_least(used, 8))
        for name, (dtype, _, _width) in cls.NODE_ARRAYS.items():
            src = a[name].astype(dtype)
            getattr(st, name)[tuple(slice(0, n) for n in src.shape)] = src
        st.iscal = a["iscal"].astype(np.int64).copy()
        st.fscal = a["fscal"].astype(np.float64).copy()
        st._other_from_arrays(a)
        st._alloc_scratch()
        return st

    @classmethod
    def validate(cls, a, meta):
        """Raise :class:`ModelFileError` unless ``a`` is a consistent, sane state."""
        kern = cls.KERNEL
        schema = cls.schema()
        missing = [k for k in schema if k not in a]
        if missing:
            raise ModelFileError(f"model file is missing arrays: {', '.join(missing)}")
        for name, (kind, ndim) in schema.items():
            if a[name].dtype.kind != kind or a[name].ndim != ndim:
                raise ModelFileError(f"model file array {name!r} has the wrong type or shape")
        d = meta.get("n_features")
        bad = "model file is inconsistent (shapes or graph do not agree); it may be corrupted"
        if not (isinstance(d, int) and not isinstance(d, bool) and d >= 1):
            raise ModelFileError(bad)
        if a["iscal"].shape != (kern.N_ISCAL,) or a["fscal"].shape != (kern.N_FSCAL,):
            raise ModelFileError(bad)
        K = int(a["iscal"][kern.I_K])
        deg_names = [n for n, (_, _, w) in cls.NODE_ARRAYS.items() if w == "deg"]
        for name, (_, _, width) in cls.NODE_ARRAYS.items():
            arr = a[name]
            if arr.shape[0] != K or (width == "d" and arr.shape[1] != d):
                raise ModelFileError(bad)
        if any(not np.all(np.isfinite(a[n])) for n, (dt, _, w) in cls.NODE_ARRAYS.items() if w == "d"):
            raise ModelFileError("model file holds node positions that are not finite numbers")
        if "deg" in cls.NODE_ARRAYS and deg_names:
            deg, nbr = a["deg"], a["nbr"]
            if any(a[n].shape != nbr.shape for n in deg_names):
                raise ModelFileError(bad)
            ok = bool(np.all(deg >= 0) and np.all(deg <= nbr.shape[1]))
            if ok and K:
                valid = np.arange(nbr.shape[1])[None, :] < deg[:, None]
                rows = np.nonzero(valid)[0]
                cols = nbr[valid]
                ok = bool(
                    np.all((cols >= 0) & (cols < K))
                    and np.all(cols != rows)
                    and np.all(a["age"][valid] >= cls.MIN_EDGE_AGE)
                    and int(deg.sum()) == 2 * int(a["iscal"][kern.I_E])
                    and int(a["iscal"][kern.I_MAXDEG]) >= int(deg.max(initial=0))
                )
                if ok:  # every edge in both lists, once, with the same age
                    fwd = set(zip(rows.tolist(), cols.tolist(), a["age"][valid].tolist()))
                    ok = len(fwd) == len(rows) and all((j, i, g) in fwd for i, j, g in fwd)
            if not ok:
                raise ModelFileError(bad)
        if int(a["iscal"][kern.I_T]) < 0 or int(a["iscal"][kern.I_K]) < 0:
            raise ModelFileError(bad)
        msg = cls._check_values(a, meta)
        if msg:
            raise ModelFileError(f"model file holds impossible values: {msg}")


# ------------------------------------------------------------------ the file
def save_npz(path_or_file, arrays, meta):
    """Write a model file: an uncompressed ``.npz`` of plain arrays plus JSON metadata."""
    meta = dict(meta, format=FORMAT_NAME, version=FORMAT_VERSION)
    payload = {f"state_{k}": v for k, v in arrays.items()}
    payload["meta_json"] = np.array(json.dumps(meta, allow_nan=False))
    np.savez(path_or_file, **payload)


def read_npz(path_or_file):
    """Read a model file's metadata and arrays (no pickles); raise :class:`ModelFileError`.

    Version 1 metadata is brought to version 2's shape (``algorithm`` = CAE,
    ``params`` from the top level). The arrays are checked by the state class
    of the algorithm the metadata names (see :meth:`ArrayState.validate`).
    """
    not_npz = _not_an_archive(path_or_file)
    if not_npz:
        raise ModelFileError(not_npz)
    try:
        with np.load(path_or_file, allow_pickle=False) as z:
            files = set(z.files)
            if "meta_json" not in files:
                raise ModelFileError("not a CAE Explorer model file (no metadata)")
            meta = json.loads(str(z["meta_json"][()]))
            arrays = {k[len("state_") :]: z[k] for k in files if k.startswith("state_")}
    except ModelFileError:
        raise
    except (
        OSError,
        ValueError,
        EOFError,
        zipfile.BadZipFile,
        KeyError,
        json.JSONDecodeError,
        UnicodeDecodeError,
        io.UnsupportedOperation,
        TypeError,
    ) as exc:
        raise ModelFileError(
            f"cannot read model file: it is corrupted, truncated or not a CAE Explorer model ({exc})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFileError("not a CAE Explorer model file (wrong format name)")
    version = meta.get("version")
    if version not in READABLE_VERSIONS:
        raise ModelFileError(
            f"unsupported model file version {version!r} (this build reads {', '.join(map(str, READABLE_VERSIONS))})"
        )
    if version == 1:
        meta = {
            "format": FORMAT_NAME,
            "version": 1,
            "algorithm": "CAE",
            "params": {"deletion_interval": meta.get("deletion_interval"), "max_edge_age": meta.get("max_edge_age")},
            "n_features": meta.get("n_features"),
            "feature_names": meta.get("feature_names"),
        }
    if not isinstance(meta.get("algorithm"), str) or not isinstance(meta.get("params"), dict):
        raise ModelFileError("model file metadata names no algorithm or parameters")
    names = meta.get("feature_names")
    if names is not None and (
        not isinstance(names, list)
        or len(names) != meta.get("n_features")
        or not all(isinstance(n, str) for n in names)
    ):
        raise ModelFileError("model file metadata has feature names that do not fit its features")
    problem = check_input_scaling(meta.get("input_scaling"), meta.get("n_features"))
    if problem:
        raise ModelFileError(f"model file metadata has an impossible input scaling: {problem}")
    problem = check_learned_on(meta.get("learned_on"))
    if problem:
        raise ModelFileError(f"model file metadata says impossibly how the network was learned: {problem}")
    problem = check_cluster_trace(meta.get("cluster_trace"))
    if problem:
        raise ModelFileError(f"model file metadata has an impossible cluster trace: {problem}")
    return meta, arrays


#: the first bytes of a zip archive (an .npz file is one)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _not_an_archive(path_or_file):
    """Why ``path_or_file`` cannot be a model file before NumPy reads it (so that a CSV given as the model is
    told so, not that its "pickled data" needs ``allow_pickle``), or None."""
    try:
        if hasattr(path_or_file, "read"):
            where = path_or_file.tell()
            head = path_or_file.read(4)
            path_or_file.seek(where)
        else:
            with open(path_or_file, "rb") as fh:
                head = fh.read(4)
    except (OSError, ValueError, io.UnsupportedOperation):
        return None  # NumPy says what is wrong with it
    if isinstance(head, str):
        head = head.encode("latin-1", "replace")
    if head in _ZIP_MAGIC:
        return None
    if not head:
        return "not a CAE Explorer model file: the file is empty"
    what = "text (a CSV?)" if all(32 <= b < 127 or b in (9, 10, 13) for b in head) else "not an .npz archive"
    return (
        f"not a CAE Explorer model file: it holds {what}; a model file is the .npz that cae learn --out, "
        "model.save or the app's Model download writes"
    )


def check_learned_on(value):
    """What is wrong with a model file's ``learned_on`` (:meth:`cae.at_scale.SampleRuns.provenance`), or None
    (also when there is none)."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("how") != "samples":
        return "not a record of learning on samples"
    for key in ("rows", "samples", "sample_rows", "seed", "chosen"):
        v = value.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            return f"{key} is not a count"
    if not 0 <= value["chosen"] < max(value["samples"], 1):
        return "the chosen sample is not one of the samples"
    a = value.get("agreement")
    if not isinstance(a, (int, float)) or not 0 <= a <= 1:
        return "the agreement is not between 0 and 1"
    p = value.get("plain_clusters")
    if p is not None and (not isinstance(p, int) or p < 0):
        return "the clusters of every row are not a count"
    return None


def check_cluster_trace(value):
    """What is wrong with a model file's ``cluster_trace`` (rows, clusters, large clusters, nodes per record),
    or None (also when there is none)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > 1_000_000:
        return "not a list of records"
    last = 0
    for r in value:
        if not isinstance(r, list) or len(r) != 4 or not all(isinstance(v, int) and v >= 0 for v in r):
            return "a record is not four counts"
        if r[0] < last:
            return "the rows learned go back"
        last = r[0]
    return None


def check_input_scaling(value, n_features):
    """What is wrong with a model file's ``input_scaling`` (how ``cae learn`` scaled the features: ``how``,
    and ``divisor``, ``offset``, ``span`` per feature, see :class:`cae.data.csvio.Scaling`), or None (also
    when there is none)."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("how") not in ("minmax", "zscore"):
        return "not a min-max or z-score scaling"
    for key in ("divisor", "offset", "span"):
        v = value.get(key)
        if not isinstance(v, list) or len(v) != n_features or not all(isinstance(x, (int, float)) for x in v):
            return f"{key} is not a list of {n_features} numbers"
        if not all(np.isfinite(v)) or (key != "offset" and min(v, default=1) <= 0):
            return f"{key} holds a value that is not finite" + ("" if key == "offset" else " and positive")
    return None

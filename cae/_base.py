"""The estimator shell every algorithm shares: scikit-learn API, streaming API, fitted state, save/load.

An algorithm is a subclass of :class:`StreamingClusterer` that names its
state class (an :class:`cae._storage.ArrayState` whose numba kernel does the
learning), checks its parameters, turns the kernel's record scratch into a
step record, and says how a sample finds its nearest node. Everything else —
``fit``/``partial_fit``/``learn_one``/``learn_many``/``learn_traced``,
``predict``, the fitted attributes, ``to_networkx``, ``snapshot``,
``save``/``load`` — is here, once.

The step-record protocol
------------------------
``learn_one`` returns a frozen dataclass with at least: ``t`` (samples seen
after the step), ``event`` (a short phrase: what happened), ``s1_id`` and
``s2_id`` (the winners' stable ids, -1 when there were none),
``new_node_id`` (-1 if no node was created), ``edge_created`` and
``edge_reset`` (a pair of ids or None), ``edges_deleted`` (a list of tuples
that start with the two ids — then the age where edges have one, or TCA's
reason), ``nodes_deleted`` (a list of ids), ``n_nodes``,
``n_edges`` and ``n_clusters`` after the step. Algorithms add their own
quantities.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _graph, _jit
from ._params import Choice, Interval, check_parameters
from ._storage import ArrayState, ModelFileError, read_npz, save_npz

if TYPE_CHECKING:
    import networkx as nx
    import pandas as pd

__all__ = ["StreamingClusterer", "EdgelessClusterer", "PathOrFile"]

#: where a model is saved to or loaded from: a path, or a binary file object
PathOrFile = str | os.PathLike[str] | IO[bytes]
#: the step record an algorithm's ``learn_one`` returns
Record = TypeVar("Record")

_MAX_ABS = 1e150


#: what a model file keeps besides the state and the parameters: metadata key -> the model's attribute
_SAVED_EXTRAS = {"input_scaling": "input_scaling_", "learned_on": "learned_on_", "cluster_trace": "cluster_trace_"}


def _check_magnitude(X: NDArray[np.float64]) -> None:
    """Refuse values whose squared differences would overflow to inf/NaN."""
    if X.size and float(np.max(np.abs(X))) > _MAX_ABS:
        raise ValueError(
            f"values larger than {_MAX_ABS:g} in magnitude would overflow the distances; scale the data first"
        )


class StreamingClusterer(ClusterMixin, BaseEstimator, Generic[Record]):
    """Base class of CAE and the baselines (see the module docstring).

    Subclasses set ``algorithm`` (the name written into model files),
    ``_State`` (the state class) and implement ``_state_kwargs``, ``_record``
    and ``_nearest_nodes`` (the public methods check their samples first, once,
    in :meth:`_samples`).
    """

    algorithm: ClassVar[str] = ""
    _State: ClassVar[type[ArrayState]]
    #: every constructor argument's valid values, declared once (see :mod:`cae._params`); the
    #: registry's widgets read their bounds from here
    _parameter_ranges: ClassVar[dict[str, Interval | Choice]] = {}
    #: whether edges carry an age (CAE, SOINN+ and ASOINN do; TCA's edges do not)
    _edge_ages: ClassVar[bool] = True
    #: the values every feature must lie in (Fuzzy ART's complement coding: [0, 1]); None: any finite value
    input_range: ClassVar[tuple[float, float] | None] = None

    # fitted state (set by fit/partial_fit/learn_one/load, never by the constructor)
    network_: ArrayState
    labels_: NDArray[np.int64]
    n_features_in_: int
    feature_names_in_: NDArray[np.object_]
    #: how ``cae learn`` scaled the features before learning (see :class:`cae.data.csvio.Scaling`); saved
    input_scaling_: dict[str, Any]
    #: how ``cae learn --sampled`` (or *Your data*'s *Learn on samples*) learned the network: on samples of the
    #: rows, not on every row (see :meth:`cae.at_scale.SampleRuns.provenance`); saved
    learned_on_: dict[str, Any]
    #: the clusters over the rows learned, ``[rows, clusters, large clusters, nodes]`` per chunk, as ``cae learn``
    #: recorded them (:class:`cae.at_scale.ClusterTrace`); saved
    cluster_trace_: list[list[int]]
    _version: int

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags

    # ----------------------------------------------------------- hooks
    def _check_params(self) -> None:
        """Raise ValueError for invalid constructor arguments (checked against ``_parameter_ranges``)."""
        check_parameters(self._parameter_ranges, self.get_params())

    def _state_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``_State`` besides the number of features."""
        return {}

    def _record(self) -> Record:
        raise NotImplementedError

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Row of the node each row of X is assigned to (the algorithm's own similarity), for a model with
        at least one node; X is checked (:meth:`_samples`): C-contiguous float64, finite, the model's width."""
        raise NotImplementedError

    def end_batch(self) -> Self:
        """What the reference does when one call of its training function returns.

        ``fit`` and ``partial_fit`` call it after learning their X, and so do
        the app and the experiments after each stage of a stream. Nothing
        happens here except for algorithms whose reference code does work at
        the end of every call (TCA), or whose published numbers imply such work
        (ASOINN's final denoising pass). ``learn_one``/``learn_many`` never call it.
        An override that changes the state must bump ``self._version`` (the
        fitted attributes are cached per version).
        """
        return self

    # ------------------------------------------------------------ the one input check
    def _samples(
        self, X: ArrayLike, *, name: str = "X", one: bool = False, fitted: bool = False, reset: bool = False
    ) -> NDArray[np.float64]:
        """X as this model takes it — a C-contiguous, writeable float64 array, one row per sample — or a ValueError that
        says what is wrong, raised before anything changes.

        The one check of every public method that takes samples: ``fit``, ``partial_fit``, ``learn_many``,
        ``learn_one``, ``learn_traced``, ``learn_traced_into``, ``predict``, ``nearest_nodes`` and an
        algorithm's own (Fuzzy ART's ``acceptance``, AutoCloud's ``memberships``, CAE's
        ``winner_search_counts``). It refuses what is not real numbers; a wrong dimension (``one``: a single
        sample, a 1-D array; else a 2-D array); an empty array; NaN and infinity; another number of features
        than the model learned (any number, at least one, before it has learned; ``reset``: ``fit``, which
        starts over); values whose squared differences would overflow; values outside :attr:`input_range`.
        ``fitted``: the method needs a model that has learned (scikit-learn's ``NotFittedError``, a
        ValueError, otherwise).

        Examples
        --------
        >>> from cae import CAE
        >>> model = CAE().fit([[0.0, 0.0], [1.0, 1.0]])
        >>> model.nearest_nodes([[0.5, float("nan")]])
        Traceback (most recent call last):
        ...
        ValueError: X contains NaN or infinity (first at row 0, feature 1): drop or impute those values first
        >>> model.learn_one([0.5, 0.5, 0.5])
        Traceback (most recent call last):
        ...
        ValueError: x has 3 features, but CAE is expecting 2 features as input.
        >>> model.n_samples_seen_
        2
        """
        if fitted:
            check_is_fitted(self, "network_")
        try:
            raw = np.asarray(X)
            if raw.dtype.kind == "c":
                raise ValueError("complex numbers are not supported")
            A = raw.astype(np.float64, copy=False)
        except (TypeError, ValueError) as exc:  # text, complex numbers, ragged rows; an object: TypeError
            raise type(exc)(f"{name} must hold real numbers only ({exc})") from None
        if A.ndim != (1 if one else 2):
            want = "one sample, a 1-D array of its features" if one else "a 2-D array, one row per sample"
            raise ValueError(f"{name} must be {want}; got an array of shape {A.shape}")
        if A.size == 0:
            what = "no feature" if one or A.shape[0] else "no sample"
            raise ValueError(f"{name} is empty (shape {A.shape}): it has {what}")
        A = A.reshape(1, -1) if one else A
        if not reset and "network_" in self.__dict__ and A.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{name} has {A.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        finite = np.isfinite(A)
        if not finite.all():
            row, col = np.argwhere(~finite)[0]
            raise ValueError(
                f"{name} contains NaN or infinity (first at row {row}, feature {col}): drop or impute those values first"
            )
        _check_magnitude(A)
        self._check_range(A)
        A = np.ascontiguousarray(A)
        # numba compiles a kernel again for a read-only array (another type: pandas' copy-on-write arrays, a
        # one-column CSV's rows), minutes on a fresh machine; a copy costs a fraction of a pass over the rows
        return A if A.flags.writeable else A.copy()

    def _check_range(self, X: NDArray[np.float64]) -> None:
        """Refuse values outside :attr:`input_range`, saying how to bring them in."""
        if self.input_range is None or not X.size:
            return
        lo, hi = self.input_range
        if float(X.min()) < lo or float(X.max()) > hi:
            raise ValueError(
                f"{type(self).__name__} needs every value in [{lo:g}, {hi:g}] (got values from {float(X.min()):g} "
                f"to {float(X.max()):g}): min-max scale the data first"
            )

    def _validated(self, X: ArrayLike, *, reset: bool) -> NDArray[np.float64]:
        """:meth:`_samples` for the scikit-learn methods (``fit``, ``partial_fit``, ``learn_many``, ``predict``):
        scikit-learn's ``validate_data`` first (feature names, ``n_features_in_``; ``reset`` sets them), and
        what it set is put back when X is refused: a refused X changes nothing."""
        names = ("n_features_in_", "feature_names_in_")
        saved = {k: self.__dict__[k] for k in names if k in self.__dict__}
        try:
            data = validate_data(self, X, reset=reset, dtype=np.float64, ensure_min_samples=1)
            return self._samples(data, reset=reset)
        except BaseException:
            for k in names:
                self.__dict__.pop(k, None)
            self.__dict__.update(saved)
            raise

    # ------------------------------------------------------------ learning
    def _new_network(self, d: int) -> ArrayState:
        self._check_params()
        return self._State(d, **self._state_kwargs())

    def _learn(self, X: NDArray[np.float64], track: bool = False, trace: NDArray[np.float64] | None = None) -> None:
        """Learn the rows of X, checked by :meth:`_samples`."""
        self.network_.run(X, track=track, trace=trace)
        self._version = getattr(self, "_version", 0) + 1

    def _start(self, d: int) -> None:
        self.network_ = self._new_network(d)
        self.n_features_in_ = d
        self._version = 0

    def _begin(self, d: int) -> None:
        """Start a stream of ``d`` features, unless one has started (``d`` is checked by :meth:`_samples`)."""
        if "network_" not in self.__dict__:
            self._start(d)

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Reset the model and learn the rows of X in order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The stream, in the order it is presented.
        y : ignored

        Returns
        -------
        self
        """
        data = self._validated(X, reset=True)  # a refused X keeps the model
        self._start(data.shape[1])
        self._learn(data)
        self.end_batch()
        self.labels_ = self._predict_array(data)
        return self

    def partial_fit(self, X: ArrayLike, y: object = None) -> Self:
        """Continue the same stream with the rows of X (t is cumulative).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        data = self._continue(X)
        self.end_batch()
        self.labels_ = self._predict_array(data)
        return self

    def _continue(self, X: ArrayLike) -> NDArray[np.float64]:
        """Validate X against the stream so far (or start one) and learn it; returns the validated X."""
        data = self._validated(X, reset="network_" not in self.__dict__)
        self._begin(data.shape[1])
        self._learn(data)
        return data

    def learn_many(self, X: ArrayLike) -> Self:
        """Continue the stream with the rows of X, without computing ``labels_``.

        The same learning as :meth:`partial_fit` (one kernel, same results),
        minus the labelling pass over X and :meth:`end_batch`; for long
        streams and the app's batch steps.
        """
        self._continue(X)
        return self

    @property
    def trace_columns(self) -> tuple[str, ...]:
        """Names of the columns of :meth:`learn_traced` (always ``t``, ``case``,
        ``n_nodes``, ``n_edges``, ``n_clusters``, plus the algorithm's own)."""
        return tuple(self._State.KERNEL.TRACE_COLUMNS)

    def learn_traced(self, X: ArrayLike) -> pd.DataFrame:
        """Learn the rows of X and return one summary row per step (a DataFrame).

        The columns are :attr:`trace_columns`: the scalar parts of each
        step's record, for plotting internal quantities over time. The
        learning is the very same as :meth:`learn_many`.
        """
        import pandas as pd

        X = self._samples(X)
        out = np.zeros((X.shape[0], len(self.trace_columns)))
        self._begin(X.shape[1])
        self._learn(X, trace=out)
        return pd.DataFrame(out, columns=list(self.trace_columns))

    def learn_traced_into(self, X: ArrayLike, out: NDArray[np.float64]) -> NDArray[np.float64]:
        """:meth:`learn_traced`, the rows written into ``out`` (no DataFrame, no copy); returns ``out``.

        ``out`` is a C-contiguous float64 array of shape ``(len(X), len(trace_columns))``, e.g. rows
        of a longer trace: the app's stepper records 99,000 steps this way.
        """
        X = self._samples(X)
        shape = (X.shape[0], len(self.trace_columns))
        if out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float64 array of shape {shape}")
        self._begin(X.shape[1])
        self._learn(X, trace=out)
        return out

    def learn_one(self, x: ArrayLike) -> Record:
        """Learn one sample and return a record of what happened (see the module docstring).

        Parameters
        ----------
        x : array-like of shape (n_features,)
        """
        X = self._samples(x, name="x", one=True)
        self._begin(X.shape[1])
        self._learn(X, track=True)
        return self._record()

    def last_trace_row(self) -> NDArray[np.float64]:
        """The :meth:`learn_traced` row of the last step learned by :meth:`learn_one`."""
        return self._net().trace_row()

    # ---------------------------------------------------------- prediction
    def predict(self, X: ArrayLike) -> NDArray[np.int64]:
        """Label each row of X with the cluster of the node it is assigned to.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster numbers in ``[0, n_clusters_)``; -1 for every row when the
            model has no node.
        """
        check_is_fitted(self, "network_")
        return self._predict_array(self._validated(X, reset=False))

    def nearest_nodes(self, X: ArrayLike) -> NDArray[np.int64]:
        """Row of the node each row of X is assigned to, by the algorithm's own similarity.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        rows : ndarray of shape (n_samples,)
            Rows of ``nodes_``; -1 for every row when the model has no node.
        """
        return self._nearest_rows(self._samples(X, fitted=True))

    def _nearest_rows(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        _jit.ensure()
        if self.network_.K == 0:
            return np.full(X.shape[0], -1, dtype=np.int64)
        return self._nearest_nodes(X)

    def _predict_array(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """The labels of the rows of X, checked by :meth:`_samples`."""
        rows = self._nearest_rows(X)
        return rows if self.network_.K == 0 else np.asarray(self.node_labels_)[rows]

    def fit_predict(self, X: ArrayLike, y: object = None) -> NDArray[np.int64]:
        """Fit on X (reset) and return ``labels_``."""
        return self.fit(X).labels_

    # ---------------------------------------------------------- fitted state
    def _cached(self, key: str, fn: Callable[[], Any]) -> Any:
        check_is_fitted(self, "network_")
        cache = self.__dict__.setdefault("_cache", {})
        version = (self._version, id(self.network_))
        hit = cache.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
        value = fn()
        cache[key] = (version, value)
        return value

    @staticmethod
    def _ro(a: NDArray[Any]) -> NDArray[Any]:
        a = a.view()
        a.flags.writeable = False
        return a

    def _rows(self, name: str) -> NDArray[Any]:
        """A read-only view of the live rows of one of the state's per-node arrays."""
        net = self._net()
        return self._ro(getattr(net, name)[: net.K])

    def _net(self) -> Any:
        try:
            return self.__dict__["network_"]
        except KeyError:
            raise AttributeError(
                f"this {type(self).__name__} is not fitted yet: call fit, partial_fit or learn_one"
            ) from None

    @property
    def nodes_(self) -> NDArray[np.float64]:
        return self._rows("Y")

    @property
    def node_ids_(self) -> NDArray[np.int64]:
        return self._rows("ids")

    @property
    def n_samples_seen_(self) -> int:
        net = self._net()
        return int(net.iscal[net.KERNEL.I_T])

    def _edges(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        net = self._net()
        return _graph.edge_list(net.nbr, net.deg, net.age, net.K)

    @property
    def edges_(self) -> NDArray[np.int64]:
        return self._ro(self._cached("edges", self._edges)[0])

    @property
    def edge_ages_(self) -> NDArray[np.int64]:
        if not self._edge_ages:
            raise AttributeError(f"{type(self).__name__}'s edges have no age")
        return self._ro(self._cached("edges", self._edges)[1])

    def _components(self) -> tuple[NDArray[np.int64], int]:
        net = self._net()
        return _graph.component_labels(net.nbr, net.deg, net.K)

    @property
    def node_labels_(self) -> NDArray[np.int64]:
        return self._ro(self._cached("components", self._components)[0])

    @property
    def n_clusters_(self) -> int:
        return self._cached("components", self._components)[1]

    # ------------------------------------------------------------- utilities
    def _node_attributes(self, row: int) -> dict[str, Any]:
        """Extra per-node attributes for :meth:`to_networkx` (besides pos, row and cluster)."""
        return {}

    def to_networkx(self) -> nx.Graph:
        """The model as a :class:`networkx.Graph`.

        Nodes are keyed by their stable id and carry ``pos`` (tuple), ``row``,
        ``cluster`` and the algorithm's per-node quantities; edges carry
        ``age`` where the algorithm has ages.
        """
        import networkx as nx

        g = nx.Graph()
        ids = self.node_ids_
        labels = self.node_labels_
        P = self.nodes_
        for r in range(len(ids)):
            g.add_node(
                int(ids[r]),
                row=r,
                pos=tuple(float(v) for v in P[r]),
                cluster=int(labels[r]),
                **self._node_attributes(r),
            )
        E = np.asarray(self.edges_).reshape(-1, 2)
        ages = self.edge_ages_ if self._edge_ages else [None] * len(E)
        for (i, j), a in zip(E, ages):
            g.add_edge(int(ids[i]), int(ids[j]), **({} if a is None else {"age": int(a)}))
        return g

    def snapshot(self) -> Self:
        """An independent copy of this model (cheap: copies the arrays only)."""
        other = type(self)(**self.get_params())
        if hasattr(self, "network_"):
            other.network_ = self.network_.copy()
            other.n_features_in_ = self.n_features_in_
            for name in ("feature_names_in_", *_SAVED_EXTRAS.values()):
                if hasattr(self, name):
                    setattr(other, name, getattr(self, name))
            other._version = 0
        return other

    def _json_params(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in self.get_params().items():
            if isinstance(v, (bool, np.bool_)):
                out[k] = bool(v)
            elif isinstance(v, (int, np.integer)):
                out[k] = int(v)
            elif isinstance(v, (float, np.floating)):
                out[k] = float(v)
            else:
                out[k] = v
        return out

    def save(self, path: PathOrFile) -> None:
        """Save the model to ``path`` (or a binary file object).

        The format (an uncompressed ``.npz`` that NumPy reads without
        pickles, with JSON metadata) is described in :mod:`cae._storage`. A
        saved model continues a stream bit-identically to one never saved.
        """
        check_is_fitted(self, "network_")
        names = getattr(self, "feature_names_in_", None)
        meta = {
            "algorithm": self.algorithm,
            "params": self._json_params(),
            "n_features": int(self.n_features_in_),
            "feature_names": None if names is None else [str(n) for n in names],
        }
        for key, name in _SAVED_EXTRAS.items():
            if hasattr(self, name):
                meta[key] = getattr(self, name)
        save_npz(path, self.network_.to_arrays(), meta)

    @classmethod
    def load(cls, path: PathOrFile) -> Self:
        """Load a model written by :meth:`save` (by this class; see :func:`cae.load_model` for any).

        Raises
        ------
        ModelFileError
            If the file is corrupted, truncated, foreign, holds impossible
            values, or holds another algorithm's model.
        """
        meta, arrays = read_npz(path)
        if meta["algorithm"] != cls.algorithm:
            raise ModelFileError(
                f"this file holds a {meta['algorithm']} model, not a {cls.algorithm} model (cae.load_model reads any)"
            )
        return cls._from_file(meta, arrays)

    @classmethod
    def _from_file(cls, meta: dict[str, Any], arrays: dict[str, NDArray[Any]]) -> Self:
        try:
            model = cls(**meta["params"])
            model._check_params()
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"model file has invalid parameters: {exc}") from None
        model.network_ = model._State.from_arrays(arrays, meta)
        model.n_features_in_ = int(meta["n_features"])
        if meta.get("feature_names") is not None:
            model.feature_names_in_ = np.asarray(meta["feature_names"], dtype=object)
        for key, name in _SAVED_EXTRAS.items():
            if meta.get(key) is not None:
                setattr(model, name, meta[key])
        model._version = 0
        return model


class EdgelessClusterer(StreamingClusterer[Record]):
    """The shell of an algorithm whose nodes have no edges (AutoCloud's clouds, Fuzzy ART's categories).

    Every node is a cluster of its own, so that code written for networks reads these models without special
    cases: ``edges_`` is an empty (0, 2) array, ``node_labels_`` is 0 .. K-1, ``n_clusters_`` is K, and the
    edges have no age (``edge_ages_`` raises AttributeError). The state has no neighbour lists (its kernel keeps
    ``I_E`` and ``I_MAXDEG`` at 0).

    Examples
    --------
    >>> from cae import FuzzyART
    >>> model = FuzzyART(vigilance=0.9).fit([[0.1, 0.1], [0.9, 0.9], [0.12, 0.1]])
    >>> model.edges_.shape, model.node_labels_.tolist(), model.n_clusters_
    ((0, 2), [0, 1], 2)
    """

    _edge_ages = False

    @property
    def edges_(self) -> NDArray[np.int64]:
        self._net()
        return self._ro(np.zeros((0, 2), dtype=np.int64))

    @property
    def node_labels_(self) -> NDArray[np.int64]:
        return self._ro(np.arange(self._net().K, dtype=np.int64))

    @property
    def n_clusters_(self) -> int:
        return int(self._net().K)

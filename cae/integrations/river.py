"""Every registered algorithm as a `River <https://riverml.xyz>`_ clusterer.

``pip install "cae-explorer[river]"`` installs River. Every entry of the registry
(:data:`cae.registry.ALGORITHMS`) has a class here, generated from it: ``CAE``, ``CAEA``, ``SOINNPlus`` (for
``SOINN+``), ``ASOINN``, ``TCA``, ``AutoCloud``, …, whose keyword arguments are the entry's parameters with
its defaults (:data:`RIVER_CLASSES`); :class:`Clusterer` takes any registered name. Each is a
``river.base.Clusterer``: ``learn_one(x)`` learns one sample (a dict of numbers), ``predict_one(x)`` returns
the cluster of the node it is assigned to (``-1`` while the model has no node), and it composes with River's
transformers into a pipeline.

Features are named. The first sample learned fixes them (``feature_names_in_``), kept in the order of their
names (sorted with numbers by value: ``x2`` before ``x10``, so columns named ``x0 … x15`` keep their order and
``learn_one`` learns what ``learn_many`` does on the array, to the last bit), so the order in which a sample lists them never matters — not even to the last bit of a sum
over features (River's ``check_shuffle_features_no_impact``), and a pipeline after ``compose.Select`` (whose
output order varies between processes) learns the same network in every process. A sample with a feature the
model has not seen, or without one it has, is refused with a :class:`FeatureMismatch` that says which: the network lives in a space of fixed
dimension. Select the features first (``compose.Select("a", "b") | CAE()``) or impute missing values
(``preprocessing.StatImputer()``) where a stream's features come and go.

The learning is the same kernel as :meth:`cae.CAE.learn_many` (the same nodes, edges and clusters for the
same stream: tested); the fitted model is ``.model`` (a :class:`cae.CAE` or its peer: ``nodes_``, ``edges_``,
``to_networkx()``, ``save()``). One call per sample costs the numba dispatch on top of the learning itself,
so a River loop runs several times slower per sample than :meth:`~cae.CAE.learn_many` over an array
(``python -m cae.bench --peers`` prints both).

Examples
--------
CAE in a River pipeline after River's running min–max scaler, and alone, over the paper's 2-D stream
(six distributions, 1,000 points each, in random order):

>>> from river import metrics, preprocessing, stream
>>> from cae.data import make_paper2d, stationary_stream
>>> from cae.integrations.river import CAE
>>> s = stationary_stream(make_paper2d(n_per_class=1000, noise_fraction=0.0, seed=0), seed=0)
>>> scaled, plain = preprocessing.MinMaxScaler() | CAE(), CAE()
>>> for x, _ in stream.iter_array(s.X, s.y, feature_names=["x", "y"]):
...     scaled.learn_one(x)
...     plain.learn_one(x)
>>> def nmi(model):
...     score = metrics.NormalizedMutualInfo()
...     for x, y in stream.iter_array(s.X, s.y, feature_names=["x", "y"]):
...         score.update(y, model.predict_one(x))
...     return round(float(score.get()), 3)
>>> nmi(plain), plain.n_clusters, nmi(scaled), scaled["CAE"].n_clusters
(0.997, 6, 0.398, 2)
>>> plain.feature_names_in_, plain.model.n_samples_seen_
(('x', 'y'), 6000)

The paper's data already lie in [0, 1], and CAE alone finds the six distributions. The running scaler
hurts here: it maps the first sample to 0 and the next ones to the ends of the range seen so far, and CAE
takes its initial bandwidth σ_init from its first 10 samples (Silverman's rule) — 0.21 instead of 0.14
here — so its threshold V is too wide and clusters merge. Where features need scaling, scale with
known bounds, or with statistics from a first batch, rather than on the fly.

Every registered algorithm has its class, its parameters in the signature (River's ``clone`` and ``repr``
read them there):

>>> from cae.integrations.river import ASOINN, CAEA, SOINNPlus, AutoCloud
>>> ASOINN(deletion_interval=50)
ASOINN (
  deletion_interval=50
  max_edge_age=50
)
>>> CAEA(deletion_interval=100, max_edge_age=20).clone().deletion_interval, SOINNPlus().algorithm
(100, 'SOINN+')
>>> m = AutoCloud(m=2.0)
>>> for v in (0.0, 0.1, 0.05):
...     m.learn_one({"a": v})
>>> m.n_clusters
1

New features are refused, and the message says what to do:

>>> plain.learn_one({"x": 0.5, "y": 0.5, "z": 1.0})
Traceback (most recent call last):
    ...
cae.integrations.river.FeatureMismatch: CAE learned the features ['x', 'y'] (in this order); this sample has a new feature ['z']. A network has a fixed dimension: select the features first (compose.Select(...) | model) or start a new model.
"""

from __future__ import annotations

import inspect
import math
import numbers
import re

import numpy as np

try:
    from river import base
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "cae.integrations.river needs River: pip install 'cae-explorer[river]' (or pip install river)"
    ) from exc

from ..registry import ALGORITHMS


def _name_order(name):
    """A feature's place: its name with the numbers in it compared by value (``x2`` before ``x10``), then the
    name itself and its type, so that any names have one order.

    >>> sorted(["x10", "x2", "b", 3, "x1"], key=_name_order)
    [3, 'b', 'x1', 'x2', 'x10']
    """
    text = str(name)
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text) if p)
    return parts, text, type(name).__name__


class FeatureMismatch(ValueError):
    """A sample's features are not the ones the model learned (new ones, or some missing)."""


class Clusterer(base.Clusterer):
    """Any registered algorithm (:data:`cae.registry.ALGORITHMS`) as a River clusterer.

    Parameters
    ----------
    algorithm : str
        A registry name (:data:`cae.registry.ALGORITHMS`): ``"CAE"``, ``"CAEA"``, ``"SOINN+"``, ….
    **params
        The algorithm's parameters (the registry's names; defaults where not given). Checked when the
        model is built, at the first ``learn_one``.

    Attributes
    ----------
    feature_names_in_ : tuple of str or None
        The first sample's features, sorted by name, numbers in names by value (None before it).
    model : cae._base.StreamingClusterer or None
        The fitted model (None before the first sample).

    Examples
    --------
    >>> from cae.integrations.river import Clusterer
    >>> m = Clusterer("TCA", reconstruction_interval=50, sigma_init=0.2)
    >>> for x in ({"a": 0.1, "b": 0.2}, {"b": 0.25, "a": 0.12}, {"a": 0.9, "b": 0.8}):
    ...     m.learn_one(x)
    >>> m.feature_names_in_, m.model.n_samples_seen_, m.predict_one({"a": 0.11, "b": 0.21})
    (('a', 'b'), 3, 0)
    >>> m.clone().model is None, m.clone()._get_params()
    (True, {'algorithm': 'TCA', 'reconstruction_interval': 50, 'sigma_init': 0.2})
    """

    def __init__(self, algorithm: str = "CAE", **params):
        self.algorithm = algorithm
        self.params = params
        self._model = None
        self.feature_names_in_ = None

    # ----------------------------------------------------------------- helpers
    def _registry_name(self):
        return self.algorithm

    def _algorithm_params(self):
        out = self._get_params()
        out.pop("algorithm", None)
        out.pop("_POSITIONAL_ARGS", None)
        return out

    def _build(self, names):
        name = self._registry_name()
        if name not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
        model = ALGORITHMS[name].make(**self._algorithm_params())
        model._begin(len(names))  # starts the network
        model.feature_names_in_ = np.array(names, dtype=object)  # kept in the model file by save()
        return model

    def _row(self, x, names):
        """The sample's values in the order of ``names``; FeatureMismatch or ValueError when it cannot be."""
        if len(x) != len(names) or any(k not in x for k in names):
            known = set(names)
            new = [k for k in x if k not in known]
            missing = [k for k in names if k not in x]
            what = []
            if new:
                what.append(f"a new feature {new}" if len(new) == 1 else f"new features {new}")
            if missing:
                what.append(f"no {missing}")
            hint = (
                "select the features first (compose.Select(...) | model) or start a new model"
                if new
                else "impute missing values first (e.g. preprocessing.StatImputer() | model)"
            )
            raise FeatureMismatch(
                f"{self._registry_name()} learned the features {list(names)} (in this order); this sample has "
                f"{' and '.join(what)}. A network has a fixed dimension: {hint}."
            )
        row = np.empty(len(names))
        for i, k in enumerate(names):
            v = x[k]
            if not isinstance(v, numbers.Real):  # numbers (bool and NumPy's included), never text
                raise ValueError(f"feature {k!r} must be a number, got {v!r}")
            row[i] = v
            if not math.isfinite(row[i]):
                raise ValueError(f"feature {k!r} is {v!r}: missing or infinite values cannot be learned")
        return row

    # ------------------------------------------------------------ River's API
    @property
    def model(self):
        return self._model

    def learn_one(self, x: dict) -> None:
        """Learn one sample (a dict of numbers); the first one fixes the features (sorted by name)."""
        names = self.feature_names_in_
        first = names is None
        if first:
            names = tuple(sorted(x, key=_name_order))
            if not names:
                raise ValueError("a sample needs at least one feature")
        row = self._row(x, names)
        model = self._build(names) if first else self._model
        X = model._samples(
            row, name="x", one=True
        )  # the estimator shell's one check (a refused first sample keeps no model)
        if first:
            self._model = model
            self.feature_names_in_ = names
        model._learn(X)

    def predict_one(self, x: dict) -> int:
        """The cluster of the node ``x`` is assigned to (the algorithm's own similarity); -1 while there is none."""
        if self._model is None:
            return -1
        row = self._row(x, self.feature_names_in_)
        return int(self._model._predict_array(self._model._samples(row, name="x", one=True))[0])

    @property
    def n_clusters(self) -> int:
        """The number of clusters (connected components of the network; AutoCloud: its clouds)."""
        return 0 if self._model is None else int(self._model.n_clusters_)


def _river_class(spec):
    """The River class of a registry entry: a :class:`Clusterer` whose keyword arguments are the entry's
    parameters, with its defaults (River reads them from the signature: ``clone``, ``repr``)."""
    defaults = spec.defaults()

    def __init__(self, *args, **params):
        if len(args) > len(defaults):
            raise TypeError(f"{spec.river_name}() takes at most {len(defaults)} positional arguments")
        for k, v in zip(defaults, args):
            if k in params:
                raise TypeError(f"{spec.river_name}() got multiple values for argument {k!r}")
            params[k] = v
        unknown = set(params) - set(defaults)
        if unknown:
            raise TypeError(f"{spec.river_name}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        Clusterer.__init__(self, spec.name)
        for k, v in {**defaults, **params}.items():
            setattr(self, k, v)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v) for k, v in defaults.items()]
    )
    name = spec.river_name
    __init__.__qualname__ = f"{name}.__init__"
    params = ", ".join(f"{p.name}={p.default!r}" for p in spec.params)
    doc = (
        f"{spec.name} ({spec.description}) as a River clusterer: ``{name}({params})`` is "
        f"``Clusterer({spec.name!r}{', ' if params else ''}{params})``, its parameters in the signature."
    )
    return type(
        name,
        (Clusterer,),
        {
            "__init__": __init__,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
            "_registry_name": lambda self: spec.name,
        },
    )


#: registry name → the River class with that algorithm's parameters (one per entry of the registry)
RIVER_CLASSES = {name: _river_class(spec) for name, spec in ALGORITHMS.items()}
globals().update({cls.__name__: cls for cls in RIVER_CLASSES.values()})
__all__ = ["Clusterer", *(cls.__name__ for cls in RIVER_CLASSES.values()), "FeatureMismatch", "RIVER_CLASSES"]

"""Every algorithm the app and the experiments can run, with its parameters and the paper's setting.

The pages build their widgets from :attr:`Algorithm.params`, the experiments
make models with :meth:`Algorithm.make`, and "the paper's setting" comes from
:mod:`cae.presets`. The estimator classes are imported when first needed.

Examples
--------
>>> list(ALGORITHMS)
['CAE', 'CAEA', 'SOINN+', 'ASOINN', 'TCA', 'AutoCloud']
>>> ALGORITHMS["TCA"].paper_setting("segment", "stationary")
{'reconstruction_interval': 50, 'sigma_init': 0.2}
>>> type(make_algorithm("CAEA", deletion_interval=100, max_edge_age=20)).__name__
'CAE'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from .presets import paper_parameters

__all__ = ["Param", "Algorithm", "ALGORITHMS", "make_algorithm"]


@dataclass(frozen=True)
class Param:
    """One constructor argument, as a widget shows it."""

    name: str
    symbol: str
    label: str
    kind: str  # "int" or "float"
    low: float
    high: float
    default: float
    step: float
    help: str = ""

    def coerce(self, value):
        """The value as the estimator takes it; ValueError if it is not a number in range."""
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{self.label} must be a number, got {value!r}") from None
        if not (self.low <= v <= self.high):
            raise ValueError(f"{self.label} must lie in [{self.low:g}, {self.high:g}], got {v:g}")
        return int(round(v)) if self.kind == "int" else v


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm.

    ``cls`` is ``"module:Class"``; ``fixed`` are constructor arguments that
    every model of this entry has (CAEA is CAE with both parameters given).
    ``kind`` is ``"network"`` (nodes and edges) or ``"clouds"`` (AutoCloud).
    """

    name: str
    description: str
    cls: str
    params: tuple = ()
    family: str = ""
    kind: str = "network"
    fixed: dict = field(default_factory=dict)

    @property
    def estimator_class(self):
        module, name = self.cls.split(":")
        return getattr(importlib.import_module(module), name)

    def defaults(self):
        return {p.name: p.default for p in self.params}

    def make(self, **params):
        """A fresh, unfitted model; ``params`` override the defaults (unknown names are an error)."""
        unknown = set(params) - {p.name for p in self.params}
        if unknown:
            raise ValueError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        args = {**self.fixed, **self.defaults()}
        for p in self.params:
            if p.name in params:
                args[p.name] = p.coerce(params[p.name])
        return self.estimator_class(**args)

    def paper_setting(self, dataset, environment, variant="paper"):
        """The paper's grid-searched parameters for a dataset (see :func:`cae.presets.paper_parameters`)."""
        return paper_parameters(self.name, dataset, environment, variant) if self.params else {}

    def describe(self, params=None):
        """``"ASOINN (λ=50, a_max=10)"``: the name with its parameter values."""
        params = {**self.defaults(), **(params or {})}
        if not self.params:
            return self.name
        vals = ", ".join(f"{p.symbol}={params[p.name]:g}" for p in self.params)
        return f"{self.name} ({vals})"


_LAM = dict(symbol="λ", kind="int", low=4, high=5000, step=10)
ALGORITHMS = {
    "CAE": Algorithm(
        "CAE", "parameter-free: V, λ and a_max estimated from the stream", "cae.algorithms.cae:CAE", family="ART"
    ),
    "CAEA": Algorithm(
        "CAEA",
        "CAE with λ and a_max given (the paper's tuned ART baseline)",
        "cae.algorithms.cae:CAE",
        params=(
            Param(
                "deletion_interval",
                label="λ (deletion interval; n_active = λ/2)",
                default=80,
                help="Isolated nodes are removed every λ samples, and λ/2 nodes set the threshold V.",
                **_LAM,
            ),
            Param(
                "max_edge_age",
                "a_max",
                "a_max (edge-age limit)",
                "float",
                1,
                1000,
                40,
                1,
                "An edge of the winner older than a_max is deleted.",
            ),
        ),
        family="ART",
    ),
    "SOINN+": Algorithm(
        "SOINN+",
        "parameter-free GNG-style network with trust-based linking (Wiwatcharakoses & Berrar 2020)",
        "cae.algorithms.soinn_plus:SOINNPlus",
        family="SOINN",
    ),
    "ASOINN": Algorithm(
        "ASOINN",
        "adjusted SOINN (Shen & Hasegawa 2008): fixed node-deletion cycle and edge-age limit",
        "cae.algorithms.asoinn:ASOINN",
        params=(
            Param(
                "deletion_interval",
                label="λ (node-deletion cycle)",
                default=300,
                help="Every λ samples, nodes without edges are deleted.",
                **_LAM,
            ),
            Param(
                "max_edge_age",
                "a_max",
                "a_max (maximum edge age)",
                "float",
                1,
                1000,
                50,
                1,
                "An edge of the winner older than a_max is deleted.",
            ),
        ),
        family="SOINN",
    ),
    "TCA": Algorithm(
        "TCA",
        "topological CIM-based ART (Masuyama et al. 2019): bandwidth adapted by diligence",
        "cae.algorithms.tca:TCA",
        params=(
            Param(
                "reconstruction_interval",
                label="λ (topology construction cycle)",
                default=200,
                help="Every λ samples, isolated and unreliable nodes and crossing edges are deleted.",
                **_LAM,
            ),
            Param(
                "sigma_init",
                "σ_init",
                "σ_init (initial kernel bandwidth)",
                "float",
                0.01,
                2.0,
                0.12,
                0.01,
                "The CIM bandwidth, which is also TCA's vigilance.",
            ),
        ),
        family="ART",
    ),
    "AutoCloud": Algorithm(
        "AutoCloud",
        "evolving fuzzy data clouds (Bezerra et al. 2020): no nodes or edges",
        "cae.algorithms.autocloud:AutoCloud",
        params=(
            Param(
                "m",
                "m",
                "m (typicality threshold)",
                "float",
                0.1,
                10.0,
                1.0,
                0.5,
                "A sample joins a cloud when its eccentricity is within (m² + 1) / (2n).",
            ),
        ),
        family="clouds",
        kind="clouds",
    ),
}


def make_algorithm(name, **params):
    """A fresh model of a registered algorithm."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name].make(**params)

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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ._params import Interval
from .presets import paper_parameters

if TYPE_CHECKING:
    from ._base import StreamingClusterer

__all__ = ["Param", "Algorithm", "ALGORITHMS", "make_algorithm"]


@dataclass(frozen=True)
class Param:
    """One constructor argument, as a widget shows it.

    The valid values are not written here: they are the estimator's declaration
    (``_parameter_ranges``, see :mod:`cae._params`), read through :attr:`valid`.
    ``low``/``high`` are the widget's bounds: the valid ones, except where the
    widget stops short — ``widget_low`` for an open lower bound (m > 0) and
    ``widget_high`` where validity has no upper bound (a number input needs
    one). ``slider`` is ``(low, high, step)`` of a slider that shows a smaller,
    practical range (the Playground's CAEA sliders; lesson links clamp to it).
    """

    name: str
    label: str
    default: float
    step: float
    help: str = ""
    widget_low: float | None = None
    widget_high: float | None = None
    slider: tuple[float, float, float] | None = None
    owner: str = ""  # "module:Class" of the estimator, filled in by Algorithm

    @property
    def valid(self) -> Interval:
        """The estimator's declaration of this argument's valid values (a widget's argument is a number)."""
        valid = _estimator_class(self.owner)._parameter_ranges[self.name]
        assert isinstance(valid, Interval), f"{self.name} is no number: it has no widget"
        return valid

    @property
    def symbol(self) -> str:
        return self.valid.symbol or self.name

    @property
    def kind(self) -> str:
        """``"int"`` or ``"float"``."""
        return self.valid.kind

    @property
    def low(self) -> float:
        return self.valid.low if self.widget_low is None else self.widget_low

    @property
    def high(self) -> float:
        return self.valid.high if self.widget_high is None else self.widget_high

    def coerce(self, value: object) -> float:
        """The value as the estimator takes it; ValueError if it is not a number in the widget's range."""
        try:
            v = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{self.label} must be a number, got {value!r}") from None
        if not (self.low <= v <= self.high):
            raise ValueError(f"{self.label} must lie in [{self.low:g}, {self.high:g}], got {v:g}")
        return int(round(v)) if self.kind == "int" else v


def _estimator_class(path: str) -> type[StreamingClusterer[Any]]:
    module, name = path.split(":")
    cls: type[StreamingClusterer[Any]] = getattr(importlib.import_module(module), name)
    return cls


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
    params: tuple[Param, ...] = ()
    family: str = ""
    kind: str = "network"
    fixed: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # each parameter reads its valid values from this entry's estimator
        object.__setattr__(self, "params", tuple(replace(p, owner=self.cls) for p in self.params))

    @property
    def estimator_class(self) -> type[StreamingClusterer[Any]]:
        return _estimator_class(self.cls)

    def param(self, name: str) -> Param:
        """The parameter called ``name`` (KeyError if there is none)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no parameter {name!r}")

    def defaults(self) -> dict[str, float]:
        return {p.name: p.default for p in self.params}

    def make(self, **params: object) -> StreamingClusterer[Any]:
        """A fresh, unfitted model; ``params`` override the defaults (unknown names are an error)."""
        unknown = set(params) - {p.name for p in self.params}
        if unknown:
            raise ValueError(f"{self.name} has no parameter {', '.join(sorted(unknown))}")
        args = {**self.fixed, **self.defaults()}
        for p in self.params:
            if p.name in params:
                args[p.name] = p.coerce(params[p.name])
        return self.estimator_class(**args)

    def paper_setting(self, dataset: str, environment: str, variant: str = "paper") -> dict[str, float]:
        """The paper's grid-searched parameters for a dataset (see :func:`cae.presets.paper_parameters`)."""
        return paper_parameters(self.name, dataset, environment, variant) if self.params else {}

    def describe(self, params: dict[str, float] | None = None) -> str:
        """``"ASOINN (λ=50, a_max=10)"``: the name with its parameter values."""
        params = {**self.defaults(), **(params or {})}
        if not self.params:
            return self.name
        vals = ", ".join(f"{p.symbol}={params[p.name]:g}" for p in self.params)
        return f"{self.name} ({vals})"


_LAMBDA_INPUT_HIGH = 5000  # a number input needs an upper bound; λ has none
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
                slider=(4, 400, 2),
                step=10,
                widget_high=_LAMBDA_INPUT_HIGH,
            ),
            Param(
                "max_edge_age",
                label="a_max (edge-age limit)",
                default=40,
                step=1,
                widget_high=1000,
                slider=(1, 200, 1),
                help="An edge of the winner older than a_max is deleted.",
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
        "adjusted SOINN (Shen & Hasegawa 2008; Shen's fastSOINN): denoising cycle and edge-age limit",
        "cae.algorithms.asoinn:ASOINN",
        params=(
            Param(
                "deletion_interval",
                label="λ (denoising cycle)",
                default=300,
                help="Every λ samples (and at the end of the stream), nodes with at most one edge and a win count "
                "below the mean are deleted as noise.",
                step=10,
                widget_high=_LAMBDA_INPUT_HIGH,
            ),
            Param(
                "max_edge_age",
                label="a_max (maximum edge age)",
                default=50,
                step=1,
                widget_high=1000,
                help="An edge of the winner older than a_max is deleted.",
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
                step=10,
                widget_high=_LAMBDA_INPUT_HIGH,
            ),
            Param(
                "sigma_init",
                label="σ_init (initial kernel bandwidth)",
                default=0.12,
                step=0.01,
                widget_low=0.01,
                widget_high=2.0,
                help="The CIM bandwidth, which is also TCA's vigilance.",
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
                label="m (typicality threshold)",
                default=1.0,
                step=0.5,
                widget_low=0.1,
                widget_high=10.0,
                help="A sample joins a cloud when its eccentricity is within (m² + 1) / (2n).",
            ),
        ),
        family="clouds",
        kind="clouds",
    ),
}


def make_algorithm(name: str, **params: object) -> StreamingClusterer[Any]:
    """A fresh model of a registered algorithm."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name].make(**params)

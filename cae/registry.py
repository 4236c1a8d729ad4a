"""Every algorithm the app and the experiments can run, with its parameters and the paper's setting.

The pages build their widgets from :attr:`Algorithm.params`, the experiments
make models with :meth:`Algorithm.make`, and "the paper's setting" comes from
:mod:`cae.presets`. The estimator classes are imported when first needed.

This table is the one place an algorithm is registered: the package's exports
(``from cae import TCA``), the model files, the numba kernels to compile, the
warm-up, the River classes, the experiments' algorithms, order and colours, the
app's pickers and the tests' lists all follow it (``docs/adding-an-algorithm.md``).

Examples
--------
>>> [a.name for a in ALGORITHMS.values() if a.in_paper][:3]
['CAE', 'CAEA', 'SOINN+']
>>> ALGORITHMS["SOINN+"].export, ALGORITHMS["SOINN+"].river_name, ALGORITHMS["CAEA"].export
('SOINNPlus', 'SOINNPlus', '')
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

__all__ = [
    "Param",
    "Algorithm",
    "ALGORITHMS",
    "make_algorithm",
    "exports",
    "model_file_names",
    "kernel_modules",
    "column_order",
    "names_in_words",
    "count_in_words",
]


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

    def widget_kwargs(self) -> dict[str, Any]:
        """A number input's bounds, step and format: as many decimals as the step or the default has (ε_n's
        0.006 shows as 0.006, not 0.01).

        >>> ALGORITHMS["GNG"].param("epsilon_n").widget_kwargs()["format"]
        '%.3f'
        >>> ALGORITHMS["TCA"].param("reconstruction_interval").widget_kwargs()
        {'min_value': 1, 'max_value': 5000, 'step': 10}
        """
        if self.kind == "int":
            return dict(min_value=int(self.low), max_value=int(self.high), step=int(self.step))
        decimals = max(2, *(_decimals(v) for v in (self.step, self.default)))
        return dict(
            min_value=float(self.low), max_value=float(self.high), step=float(self.step), format=f"%.{decimals}f"
        )

    def coerce(self, value: object) -> float:
        """The value as the estimator takes it; ValueError if it is not a number in the widget's range."""
        try:
            v = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{self.label} must be a number, got {value!r}") from None
        if not (self.low <= v <= self.high):
            raise ValueError(f"{self.label} must lie in [{self.low:g}, {self.high:g}], got {v:g}")
        return int(round(v)) if self.kind == "int" else v


def _decimals(v: float) -> int:
    """Decimals needed to write ``v`` (at most 6): 0.006 -> 3, 0.5 -> 1, 2 -> 0."""
    text = f"{v:.6f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def _estimator_class(path: str) -> type[StreamingClusterer[Any]]:
    module, name = path.split(":")
    cls: type[StreamingClusterer[Any]] = getattr(importlib.import_module(module), name)
    return cls


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm: everything the package, the app and the experiments need to know of it.

    ``cls`` is ``"module:Class"``; ``fixed`` are constructor arguments that
    every model of this entry has. ``variant_of`` names the entry whose
    estimator and model file this one shares (CAEA is CAE with both
    parameters given): a variant exports no class of its own. ``kind`` is how
    the app draws it (:data:`cae.app.figures.network.MODEL_LAYERS`): ``"network"``
    (nodes and edges, the default), ``"clouds"`` (AutoCloud), ``"boxes"`` (Fuzzy
    ART) or ``"gas"`` (GNG).

    ``kernels`` are the numba kernel modules the estimator runs (compiled in
    the background, :mod:`cae._jit`); ``small`` are the parameters under which
    every kind of event of the kernel (new nodes, deletions, resets, ...)
    happens within a few hundred samples: the warm-up compiles every branch
    with them and the common tests run with them.

    ``in_paper`` marks the algorithms the paper compares (the default of
    ``python -m cae.experiments paper``); ``mean_variant`` those it also runs
    with the mean of their grid values (``ASOINN(mean)``); ``column`` is the
    place in the experiments' tables (the paper's column order; None: after
    them, in the order of this table) and ``colour`` the line colour of the
    experiments' figures. The paper's grid-searched values are in
    :mod:`cae.presets`.
    """

    name: str
    description: str
    cls: str
    params: tuple[Param, ...] = ()
    family: str = ""
    kind: str = "network"
    fixed: dict[str, Any] = field(default_factory=dict)
    variant_of: str = ""
    kernels: tuple[str, ...] = ()
    small: dict[str, Any] = field(default_factory=dict)
    in_paper: bool = False
    mean_variant: bool = False
    column: int | None = None
    colour: str = "#7f7f7f"

    def __post_init__(self) -> None:
        # each parameter reads its valid values from this entry's estimator
        object.__setattr__(self, "params", tuple(replace(p, owner=self.cls) for p in self.params))

    @property
    def estimator_class(self) -> type[StreamingClusterer[Any]]:
        return _estimator_class(self.cls)

    @property
    def module(self) -> str:
        """The estimator's module (``"cae.algorithms.tca"``)."""
        return self.cls.split(":")[0]

    @property
    def class_name(self) -> str:
        """The estimator's class name (``"TCA"``; CAEA's is ``"CAE"``)."""
        return self.cls.split(":")[1]

    @property
    def export(self) -> str:
        """The name ``cae`` and ``cae.algorithms`` export the estimator under; ``""`` for a variant."""
        return "" if self.variant_of else self.class_name

    @property
    def model_file_name(self) -> str:
        """The algorithm name a model file of this entry records (a variant's files are its parent's)."""
        return self.variant_of or self.name

    @property
    def river_name(self) -> str:
        """The class name in :mod:`cae.integrations.river`: the entry's name where it is one (``CAEA``), else
        the estimator's (``SOINN+`` -> ``SOINNPlus``)."""
        return self.name if self.name.isidentifier() else self.class_name

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
        "CAE",
        "parameter-free: V, λ and a_max estimated from the stream",
        "cae.algorithms.cae:CAE",
        family="ART",
        kernels=("cae.algorithms._cae_kernel",),
        in_paper=True,
        column=5,
        colour="#d62728",
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
        variant_of="CAE",
        kernels=("cae.algorithms._cae_kernel",),
        small={"deletion_interval": 20, "max_edge_age": 8},
        in_paper=True,
        mean_variant=True,
        column=4,
        colour="#1f77b4",
    ),
    "SOINN+": Algorithm(
        "SOINN+",
        "parameter-free GNG-style network with trust-based linking (Wiwatcharakoses & Berrar 2020)",
        "cae.algorithms.soinn_plus:SOINNPlus",
        family="SOINN",
        kernels=("cae.algorithms._soinn_kernel",),
        in_paper=True,
        column=2,
        colour="#ff7f0e",
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
        kernels=("cae.algorithms._asoinn_kernel",),
        small={"deletion_interval": 25, "max_edge_age": 6},
        in_paper=True,
        mean_variant=True,
        column=1,
        colour="#9467bd",
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
        kernels=("cae.algorithms._tca_kernel",),
        small={"reconstruction_interval": 30, "sigma_init": 0.3},
        in_paper=True,
        mean_variant=True,
        column=3,
        colour="#2ca02c",
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
        kernels=("cae.algorithms._autocloud_kernel",),
        small={"m": 1.0},
        in_paper=True,
        column=0,
        colour="#8c564b",
    ),
    "Fuzzy ART": Algorithm(
        "Fuzzy ART",
        "Carpenter, Grossberg & Rosen 1991: vigilance test, resonance and reset; boxes in [0, 1]ᵈ",
        "cae.algorithms.fuzzy_art:FuzzyART",
        params=(
            Param(
                "vigilance",
                label="ρ (vigilance)",
                default=0.75,
                step=0.05,
                help="A category accepts a sample when |I ∧ w|/|I| ≥ ρ: its box, stretched to hold the sample, "
                "has sides summing to at most d(1 − ρ). Low ρ merges, high ρ fragments.",
            ),
            Param(
                "choice",
                label="α (choice parameter)",
                default=0.001,
                step=0.001,
                widget_low=0.001,  # the input shows three decimals: 1e-6 would read 0.000
                widget_high=10.0,
                help="T = |I ∧ w| / (α + |w|) orders the search; a small α prefers the smallest box that holds "
                "the sample.",
            ),
            Param(
                "learning_rate",
                label="β (learning rate)",
                default=1.0,
                step=0.05,
                widget_low=0.01,
                help="w ← β (I ∧ w) + (1 − β) w; β = 1 is fast learning (the box stretches to hold the sample).",
            ),
        ),
        family="ART",
        kind="boxes",  # drawn as its boxes (cae.app.figures.lineage)
        kernels=("cae.algorithms._fuzzy_art_kernel",),
        small={"vigilance": 0.9},  # new categories, resets and resonance within a few hundred samples
        colour="#17becf",
    ),
    "GNG": Algorithm(
        "GNG",
        "Growing Neural Gas (Fritzke 1995, as DemoGNG runs it): a node inserted every λ samples, edges older "
        "than a_max removed",
        "cae.algorithms.gng:GNG",
        params=(
            Param(
                "epsilon_b",
                label="ε_b (winner's learning rate)",
                default=0.2,
                step=0.01,
                help="The nearest node s1 moves by ε_b (x − w_s1).",
            ),
            Param(
                "epsilon_n",
                label="ε_n (neighbours' learning rate)",
                default=0.006,
                step=0.001,
                help="Each neighbour n of s1 moves by ε_n (x − w_n).",
            ),
            Param(
                "max_edge_age",
                label="a_max (maximum edge age)",
                default=50,
                step=1,
                widget_high=1000,
                help="An edge of s1 older than a_max is removed, and so is a node it leaves without edges.",
            ),
            Param(
                "insertion_interval",
                label="λ (insertion interval)",
                default=100,
                step=10,
                widget_high=_LAMBDA_INPUT_HIGH,
                help="Every λ samples a node is inserted between the node of largest error and its worst neighbour.",
            ),
            Param(
                "alpha",
                label="α (error cut at an insertion)",
                default=0.5,
                step=0.05,
                help="The errors of q and f are multiplied by α when r is inserted between them.",
            ),
            Param(
                "error_decay",
                label="β (error decay; d = 1 − β)",
                default=0.005,
                step=0.001,
                help="Every error is multiplied by 1 − β at every sample.",
            ),
            Param(
                "max_nodes",
                label="n_max (maximum node count)",
                default=100,
                step=10,
                widget_high=5000,
                help="No insertion once the network has n_max nodes.",
            ),
        ),
        family="Neural gas",
        kind="gas",  # edges by age from 0 to a_max, insertions as events (cae.app.figures.lineage)
        kernels=("cae.algorithms._gng_kernel",),
        small={"insertion_interval": 10, "max_edge_age": 2, "max_nodes": 30},
        colour="#e377c2",
    ),
}


def make_algorithm(name: str, **params: object) -> StreamingClusterer[Any]:
    """A fresh model of a registered algorithm."""
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name].make(**params)


# ------------------------------------------------------------------ what the rest of the package reads
def exports() -> dict[str, str]:
    """Estimator class name -> its module, for every entry that is no variant (``cae``'s lazy exports)."""
    return {a.export: a.module for a in ALGORITHMS.values() if a.export}


def model_file_names() -> dict[str, str]:
    """The algorithm name a model file records -> ``"module:Class"`` of the estimator that reads it."""
    return {a.model_file_name: a.cls for a in ALGORITHMS.values() if not a.variant_of}


def kernel_modules() -> tuple[str, ...]:
    """Every entry's numba kernel modules, once each, in the order of the table."""
    return tuple(dict.fromkeys(k for a in ALGORITHMS.values() for k in a.kernels))


def column_order() -> list[str]:
    """The experiments' algorithm columns: the paper's order, each followed by its ``(mean)`` variant, then the
    algorithms the paper does not have, in the order of the table.

    >>> column_order()[:4]
    ['AutoCloud', 'ASOINN', 'ASOINN(mean)', 'SOINN+']
    """
    names = list(ALGORITHMS)
    ranked = sorted(names, key=lambda n: (ALGORITHMS[n].column is None, ALGORITHMS[n].column or 0, names.index(n)))
    return [v for n in ranked for v in ([n, f"{n}(mean)"] if ALGORITHMS[n].mean_variant else [n])]


# ------------------------------------------------------------------ the registry in the pages' words
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")


def names_in_words(names: list[str] | None = None) -> str:
    """``names`` (default: every registered algorithm) as a sentence lists them, for the pages' text.

    >>> names_in_words(["CAE", "GNG"]), names_in_words()[:20], names_in_words()[-17:]
    ('CAE and GNG', 'CAE, CAEA, SOINN+, A', 'Fuzzy ART and GNG')
    """
    names = list(ALGORITHMS) if names is None else list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def count_in_words(n: int | None = None) -> str:
    """``n`` (default: how many algorithms are registered) as the pages write a count: a word up to eleven.

    >>> count_in_words(), count_in_words(6), count_in_words(12)
    ('eight', 'six', '12')
    """
    n = len(ALGORITHMS) if n is None else int(n)
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)

"""The algorithms the Playground, *Explain a step* and the quiz offer: one entry each, saying what serves it.

An algorithm of the registry (:data:`cae.registry.ALGORITHMS`) is offered when this table knows how to explain
it: its step explanation and headline, its quiz (the question, its answers, the answer a step's record gives, and
the yes/no questions asked beside it), the kinds of step *Explain a step* can jump to, and its parameters as the
Playground's configuration holds them (a configuration key and a lesson-link query name per parameter, each
with the registry's :class:`~cae.registry.Param`: its label, default and widget range). No Streamlit here; the
explanation modules are imported when an entry is used, not with this table (app.py imports it early).

Examples
--------
>>> choices()
['CAE', 'CAEA', 'Fuzzy ART', 'GNG']
>>> [k for k, _ in ENTRIES["Fuzzy ART"].params]
['art_vigilance', 'art_choice', 'art_learning_rate']
>>> algo_text({**config_defaults(), "algo": "Fuzzy ART"})
'Fuzzy ART (ρ = 0.75, α = 0.001, β = 1)'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..registry import ALGORITHMS, Param

__all__ = [
    "Entry",
    "ENTRIES",
    "choices",
    "entry",
    "quiz_of",
    "quiz_truth",
    "config_defaults",
    "param_keys",
    "stepper_args",
    "algo_text",
]


@dataclass(frozen=True)
class Entry:
    """How the app explains one registered algorithm.

    ``explanations`` is the module with ``explain_step(rec, model, x)`` and ``headline(rec)``; ``quiz`` is
    ``(question, {answer: words}, truth(rec))`` and ``quiz_checks`` the yes/no questions asked beside it,
    ``(widget key, label, truth(rec))``; ``jumps`` the kinds of step *Explain a step* finds, ``(label, find_step's
    keywords)``; ``params`` the configuration's ``(key, Param)`` of each parameter (its lesson-link name is the
    key too); ``view_caption`` what the view after a step shows.
    """

    name: str
    explanations: str
    quiz: tuple
    quiz_checks: tuple = ()
    jumps: tuple = ()
    params: tuple[tuple[str, Param], ...] = ()
    view_caption: str = ""

    @property
    def module(self):
        return importlib.import_module(self.explanations)

    def explain_step(self, rec, model, x):
        return self.module.explain_step(rec, model, x)

    def headline(self, rec):
        return self.module.headline(rec)

    @property
    def is_cae(self) -> bool:
        return self.name in ("CAE", "CAEA")

    @property
    def quiz_key(self) -> str:
        """The quiz's answer widget's key (CAE's answers are numbers 0-3, GNG's True/False: a key each)."""
        return "w_quiz_case" if self.is_cae else f"w_quiz_case_{self.name.replace(' ', '_').lower()}"


def _prefixed(prefix, name):
    return tuple((f"{prefix}_{p.name}", p) for p in ALGORITHMS[name].params)


def _cae_quiz():
    from .explanations import QUIZ_CHOICES, quiz_truth

    return ("what will CAE do?", QUIZ_CHOICES, lambda rec: quiz_truth(rec)[0])


def _lineage_quiz(name):
    from .explanations_lineage import QUIZ

    return QUIZ[name]


_CAE_JUMPS = (
    ("Case I", dict(case=1)),
    ("Case II", dict(case=2)),
    ("Case III", dict(case=3)),
    ("edge deletion", dict(event="deletion")),
    ("sweep", dict(event="sweep")),
)
_CAE_CAPTION = (
    "The network right after this step: s1 (black ring) and s2 (magenta diamond), the current sample as a "
    "star, the dotted region is where CIM to s1 is at most V."
)
_CAE_CHECKS = (
    ("w_quiz_edge", "An edge will be deleted", lambda rec: bool(rec.edges_deleted)),
    ("w_quiz_node", "A node will be deleted (sweep)", lambda rec: bool(rec.swept_ids)),
)

#: the table: which explanation and quiz serve each algorithm the Playground offers
ENTRIES: dict[str, Entry] = {
    "CAE": Entry("CAE", "cae.app.explanations", ("cae",), _CAE_CHECKS, _CAE_JUMPS, (), _CAE_CAPTION),
    "CAEA": Entry(
        "CAEA",
        "cae.app.explanations",
        ("cae",),
        _CAE_CHECKS,
        _CAE_JUMPS,
        (("lam", ALGORITHMS["CAEA"].param("deletion_interval")), ("amax", ALGORITHMS["CAEA"].param("max_edge_age"))),
        _CAE_CAPTION,
    ),
    "Fuzzy ART": Entry(
        "Fuzzy ART",
        "cae.app.explanations_lineage",
        ("lineage",),
        (),
        (("new category", dict(case=0)), ("resonance", dict(case=1)), ("reset", dict(event="reset"))),
        _prefixed("art", "Fuzzy ART"),
        "The categories right after this step, as boxes (lower corner w to the complement's upper corner); the "
        "sample as a star.",
    ),
    "GNG": Entry(
        "GNG",
        "cae.app.explanations_lineage",
        ("lineage",),
        (("w_quiz_gng_edge", "An edge will be removed (older than a_max)", lambda rec: bool(rec.edges_deleted)),),
        (("insertion", dict(case=2)), ("edge removed", dict(event="deletion")), ("node removed", dict(event="sweep"))),
        _prefixed("gng", "GNG"),
        "The network right after this step: its edges shaded by age (0 to a_max), s1 and s2 ringed, the sample as "
        "a star.",
    ),
}


def choices() -> list[str]:
    """The registry's algorithms the app can explain, in the registry's order."""
    return [name for name in ALGORITHMS if name in ENTRIES]


def entry(name: str) -> Entry:
    """The entry of ``name`` (KeyError with the choices if it has none)."""
    if name not in ENTRIES:
        raise KeyError(f"{name!r} is not explained by the app: one of {', '.join(choices())}")
    return ENTRIES[name]


def quiz_of(name: str):
    """``(question, {answer: words}, truth(rec))`` of ``name``'s quiz."""
    kind = entry(name).quiz[0]
    return _cae_quiz() if kind == "cae" else _lineage_quiz(name)


def quiz_truth(name: str, rec) -> tuple:
    """The quiz's answers a step's record gives: the main question's, then each yes/no question's."""
    e = entry(name)
    return (quiz_of(name)[2](rec), *(check(rec) for _, _, check in e.quiz_checks))


def param_keys() -> dict[str, Param]:
    """Every configuration key of a parameter (all algorithms), with its Param."""
    return {key: p for name in choices() for key, p in entry(name).params}


def slider_range(p: Param) -> tuple[float, float, float]:
    """``(low, high, step)`` of a parameter's slider: the registry's practical slider, else the widget's range."""
    if p.slider is not None:
        return p.slider
    return (p.low, p.high, p.step)


def config_defaults() -> dict[str, float]:
    """The parameters' defaults, by configuration key (the literature's, as the registry declares them)."""
    return {key: p.default for key, p in param_keys().items()}


def model_params(cfg) -> dict[str, float]:
    """The chosen algorithm's constructor arguments in the configuration ``cfg``."""
    return {p.name: cfg[key] for key, p in entry(cfg["algo"]).params}


def stepper_args(cfg) -> dict[str, Any]:
    """The keyword arguments of a :class:`~cae.app.stepper.Stepper` for ``cfg``'s algorithm."""
    e = entry(cfg["algo"])
    if e.is_cae:
        params = model_params(cfg)
        return dict(
            deletion_interval=int(params["deletion_interval"]) if params else None,
            max_edge_age=int(params["max_edge_age"]) if params else None,
        )
    return dict(model_factory=partial(ALGORITHMS[e.name].make, **model_params(cfg)))


def algo_text(cfg) -> str:
    """The algorithm and its parameters in a few words: "CAE", "CAEA (λ = 80, a_max = 40)"."""
    e = entry(cfg["algo"])
    if not e.params:
        return e.name
    vals = ", ".join(f"{p.symbol} = {cfg[key]:g}" for key, p in e.params)
    return f"{e.name} ({vals})"

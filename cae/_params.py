"""Each estimator's parameters, declared once: the valid values of every constructor argument.

An estimator lists its numeric arguments in the class attribute ``_parameter_ranges``
(name -> :class:`Interval`). :meth:`cae._base.StreamingClusterer._check_params` validates them
from there when learning starts (and when a model file is loaded), and the registry's widgets
(:class:`cae.registry.Param`) take their bounds from the same declaration, so the two cannot
disagree. A widget may stop short of validity (a slider to 400 for a λ that may be any integer
>= 4): that practical bound is declared once, beside the widget, in :mod:`cae.registry`.

Why not scikit-learn's ``_parameter_constraints``: its ``Interval`` lives in a private module
(``sklearn.utils._param_validation``) without a deprecation policy; its integer intervals refuse
whole floats (300.0), which the paper's mean settings and the app's number inputs produce; its
messages cannot carry the paper's symbols (λ, a_max, σ_init); and scikit-learn's own estimator
checks read ``_parameter_constraints`` and expect its constraint objects there. This module is
small, public to the package, and has no dependency.

Examples
--------
>>> lam = Interval("int", 4, none=True, symbol="λ")
>>> 300 in lam, 300.0 in lam, 3 in lam, 2.5 in lam, None in lam, True in lam
(True, True, False, False, True, False)
>>> lam.check("deletion_interval", 3)
Traceback (most recent call last):
...
ValueError: deletion_interval (λ) must be an integer >= 4 or None, got 3
>>> Interval("float", 0, low_open=True).describe()
'a finite number > 0'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

__all__ = ["Interval", "Choice", "check_parameters"]


@dataclass(frozen=True)
class Interval:
    """The valid values of one numeric constructor argument.

    Parameters
    ----------
    kind : {"int", "float"}
        ``"int"``: a whole number (``300.0`` counts as 300); ``"float"``: any finite number.
        Booleans, strings, NaN and infinities are never valid.
    low, high : float
        The bounds; ``high`` may be ``math.inf`` (no upper bound).
    low_open : bool
        True when ``low`` itself is not valid (``m > 0``).
    none : bool
        True when None is valid too (CAE: "estimate it").
    symbol : str
        The paper's name of the quantity (λ, a_max, σ_init), shown in messages.
    """

    kind: Literal["int", "float"]
    low: float
    high: float = math.inf
    low_open: bool = False
    none: bool = False
    symbol: str = ""

    def __contains__(self, value: object) -> bool:
        if value is None:
            return self.none
        if isinstance(value, bool) or not isinstance(value, Real):  # NumPy's bool is no Real either
            return False
        v = float(value)
        if not math.isfinite(v) or (self.kind == "int" and not v.is_integer()):
            return False
        above = v > self.low if self.low_open else v >= self.low
        return above and v <= self.high

    def describe(self) -> str:
        """The valid values in words: ``"an integer >= 4 or None"``."""
        what = "an integer" if self.kind == "int" else "a finite number"
        low = f"{'>' if self.low_open else '>='} {self.low:g}"
        text = f"{what} {low}" if math.isinf(self.high) else f"{what} {low} and <= {self.high:g}"
        return text + (" or None" if self.none else "")

    def check(self, name: str, value: object) -> None:
        """Raise ValueError, with a message a person understands, when ``value`` is not valid."""
        if value not in self:
            symbol = f" ({self.symbol})" if self.symbol and self.symbol != name else ""
            raise ValueError(f"{name}{symbol} must be {self.describe()}, got {value!r}")


@dataclass(frozen=True)
class Choice:
    """The valid values of a constructor argument that picks one of a few named options.

    >>> count = Choice(("stream", "batch"))
    >>> "batch" in count, "Batch" in count, 1 in count
    (True, False, False)
    >>> count.check("sweep_count", "call")
    Traceback (most recent call last):
    ...
    ValueError: sweep_count must be one of 'stream', 'batch', got 'call'
    """

    values: tuple[str, ...]
    symbol: str = ""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def check(self, name: str, value: object) -> None:
        if value not in self:
            symbol = f" ({self.symbol})" if self.symbol and self.symbol != name else ""
            raise ValueError(f"{name}{symbol} must be {self.describe()}, got {value!r}")


def check_parameters(ranges: Mapping[str, Interval | Choice], params: Mapping[str, Any]) -> None:
    """Check every declared parameter of ``params`` (a ``get_params()`` dict) against its range."""
    for name, valid in ranges.items():
        valid.check(name, params[name])

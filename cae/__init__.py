"""CAE Explorer: a faithful, steppable implementation of CAE (CIM-based ART with Edge), and the
algorithms the paper compares it with.

Masuyama, Takebayashi, Nojima, Loo, Ishibuchi, Wermter, "A Parameter-free Adaptive Resonance
Theory-based Topological Clustering Algorithm Capable of Continual Learning", Neural Computing and
Applications 38, 2026.

The names below are imported when first used (``from cae import CAE`` works as usual), so that the
light modules — ``cae.data``, ``cae.app.lesson_links``, ``cae.app.figures`` — load without scikit-learn, and the
app's first page appears sooner.
"""

import importlib
from typing import TYPE_CHECKING

from .registry import exports

if TYPE_CHECKING:  # static types of some lazy names below (tests/unit/test_registry.py checks them)
    from ._storage import ModelFileError as ModelFileError
    from .algorithms import load_model as load_model
    from .algorithms.asoinn import ASOINN as ASOINN
    from .algorithms.autocloud import AutoCloud as AutoCloud
    from .algorithms.cae import CAE as CAE
    from .algorithms.cae import CAEStepRecord as CAEStepRecord
    from .algorithms.cae import CAEStepRecord as StepRecord  # noqa: F401  (an alias, exported lazily)
    from .algorithms.soinn_plus import SOINNPlus as SOINNPlus
    from .algorithms.tca import TCA as TCA

#: every registered estimator (:data:`cae.registry.ALGORITHMS`) by its class name, and a few more names
_WHERE = {**dict.fromkeys(exports(), ".algorithms"), "CAEStepRecord": ".algorithms", "load_model": ".algorithms"}
_WHERE["ModelFileError"] = "._storage"
#: names kept for code written before the algorithms moved into cae.algorithms
_ALIASES = {"StepRecord": "CAEStepRecord"}

__all__ = [*_WHERE, *_ALIASES]
__version__ = "0.2.0"


def __getattr__(name: str) -> object:
    if name in _ALIASES:
        value = __getattr__(_ALIASES[name])
        globals()[name] = value
        return value
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cae' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)

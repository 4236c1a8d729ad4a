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

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers
    from ._storage import ModelFileError
    from .algorithms import load_model
    from .algorithms.asoinn import ASOINN
    from .algorithms.autocloud import AutoCloud
    from .algorithms.cae import CAE, CAEStepRecord
    from .algorithms.cae import CAEStepRecord as StepRecord
    from .algorithms.soinn_plus import SOINNPlus
    from .algorithms.tca import TCA

__all__ = [
    "CAE",
    "SOINNPlus",
    "ASOINN",
    "TCA",
    "AutoCloud",
    "CAEStepRecord",
    "StepRecord",
    "ModelFileError",
    "load_model",
]
__version__ = "0.2.0"

_WHERE = dict.fromkeys(("CAE", "CAEStepRecord", "SOINNPlus", "ASOINN", "TCA", "AutoCloud", "load_model"), ".algorithms")
_WHERE["ModelFileError"] = "._storage"
#: names kept for code written before the algorithms moved into cae.algorithms
_ALIASES = {"StepRecord": "CAEStepRecord"}


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

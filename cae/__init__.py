"""CAE Explorer: a faithful, steppable implementation of CAE (CIM-based ART with Edge), and the
algorithms the paper compares it with.

Masuyama, Takebayashi, Nojima, Loo, Ishibuchi, Wermter, "A Parameter-free Adaptive Resonance
Theory-based Topological Clustering Algorithm Capable of Continual Learning", Neural Computing and
Applications 38, 2026.

The names below are imported when first used (``from cae import CAE`` works as usual), so that the
light modules — ``cae.datasets``, ``cae.lesson``, ``cae.viz`` — load without scikit-learn, and the
app's first page appears sooner.
"""

import importlib

__all__ = ["CAE", "SOINNPlus", "ASOINN", "TCA", "AutoCloud", "StepRecord", "ModelFileError", "load_model"]
__version__ = "0.2.0"

_WHERE = {"CAE": ".model", "StepRecord": ".model", "ModelFileError": "._storage", "load_model": "._base",
          "SOINNPlus": ".baselines", "ASOINN": ".baselines", "TCA": ".baselines", "AutoCloud": ".baselines"}


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cae' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)

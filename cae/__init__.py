"""CAE Explorer: a faithful, steppable implementation of CAE (CIM-based ART with Edge), and the
algorithms the paper compares it with.

Masuyama, Takebayashi, Nojima, Loo, Ishibuchi, Wermter, "A Parameter-free Adaptive Resonance
Theory-based Topological Clustering Algorithm Capable of Continual Learning", Neural Computing and
Applications 38, 2026.
"""

from ._base import load_model
from .model import CAE, ModelFileError, StepRecord
from .baselines import ASOINN, TCA, AutoCloud, SOINNPlus  # noqa: E402  (after CAE: they share its shell)

__all__ = ["CAE", "SOINNPlus", "ASOINN", "TCA", "AutoCloud", "StepRecord", "ModelFileError", "load_model"]
__version__ = "0.2.0"

"""CAE Explorer: a faithful, steppable implementation of CAE (CIM-based ART with Edge).

Masuyama, Takebayashi, Nojima, Loo, Ishibuchi, Wermter, "A Parameter-free
Adaptive Resonance Theory-based Topological Clustering Algorithm Capable of
Continual Learning", Neural Computing and Applications 38, 2026.
"""

from ._base import load_model
from .model import CAE, ModelFileError, StepRecord

__all__ = ["CAE", "StepRecord", "ModelFileError", "load_model"]
__version__ = "0.1.0"

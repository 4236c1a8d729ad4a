"""The algorithms, one module each, with its private numba kernel beside it.

=================  =====================  =========================================================
estimator          module                 kernel (the per-sample step, compiled by numba)
=================  =====================  =========================================================
CAE (and CAEA)     :mod:`.cae`            :mod:`._cae_kernel`, state arrays in :mod:`._cae_network`
SOINN+             :mod:`.soinn_plus`     :mod:`._soinn_kernel`
ASOINN             :mod:`.asoinn`         :mod:`._asoinn_kernel` (Shen's fastSOINN.m)
TCA                :mod:`.tca`            :mod:`._tca_kernel`
AutoCloud          :mod:`.autocloud`      :mod:`._autocloud_kernel`
=================  =====================  =========================================================

(The paper's six; :data:`cae.registry.ALGORITHMS` is the list that counts: every algorithm registered there is
exported here under its class name, and its model files are read by :func:`load_model`.)

Every estimator is a :class:`cae._base.StreamingClusterer` (one estimator shell, one state storage and
one model file, :mod:`cae._storage`); :func:`load_model` reads the file of any of them.

The estimators are imported when first used, so that a kernel or the state arrays
(``cae.algorithms._cae_network``, which the app's first picture reads) load without scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ..registry import exports, model_file_names

if TYPE_CHECKING:  # static types of some lazy names below (tests/unit/test_registry.py checks them)
    from .._base import PathOrFile, StreamingClusterer
    from .asoinn import ASOINN as ASOINN
    from .autocloud import AutoCloud as AutoCloud
    from .cae import CAE as CAE
    from .cae import CAEStepRecord as CAEStepRecord
    from .soinn_plus import SOINNPlus as SOINNPlus
    from .tca import TCA as TCA

#: every registered estimator's class name -> its module, and the names some estimator module also exports
_WHERE = {**exports(), "CAEStepRecord": "cae.algorithms.cae", "CAENetwork": "cae.algorithms._cae_network"}

__all__ = [*_WHERE, "load_model", "estimator_class", "MODEL_FILE_NAMES"]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cae.algorithms' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)


#: the algorithm name a model file records -> the estimator's class name (CAEA is CAE with parameters)
MODEL_FILE_NAMES: dict[str, str] = {name: path.split(":")[1] for name, path in model_file_names().items()}
_MODEL_FILE_CLASSES = model_file_names()


def estimator_class(algorithm: str) -> type[StreamingClusterer[Any]] | None:
    """The estimator class of a model file's algorithm name (``"CAE"``, ``"SOINN+"``, …), or None."""
    path = _MODEL_FILE_CLASSES.get(algorithm)
    if path is None:
        return None
    module, name = path.split(":")
    cls: type[StreamingClusterer[Any]] = getattr(importlib.import_module(module), name)
    return cls


def load_model(path: PathOrFile) -> StreamingClusterer[Any]:
    """Load a model file of any registered algorithm (:data:`cae.registry.ALGORITHMS`).

    Raises
    ------
    ModelFileError
        If the file is not a valid model file, or names an unknown algorithm.

    Examples
    --------
    >>> import io, numpy as np
    >>> buf = io.BytesIO()
    >>> CAE().fit(np.random.default_rng(0).random((200, 2))).save(buf)
    >>> _ = buf.seek(0)
    >>> type(load_model(buf)).__name__
    'CAE'
    """
    from .._storage import ModelFileError, read_npz

    meta, arrays = read_npz(path)
    cls = estimator_class(meta["algorithm"])
    if cls is None:
        raise ModelFileError(f"model file names an unknown algorithm {meta['algorithm']!r}")
    return cls._from_file(meta, arrays)

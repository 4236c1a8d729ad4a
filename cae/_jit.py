"""The one switch between numba-compiled and plain-Python kernels.

Every kernel module (:mod:`cae._kernel`, :mod:`cae._graph`, the baselines'
``_*_kernel`` modules) decorates its functions with :func:`jit`. With numba
installed, that compiles them (cached on disk); with ``CAE_DISABLE_NUMBA=1``
or without numba, the very same functions run as ordinary Python and give
bit-identical results, only slower. There is never a second implementation.
"""

import os

try:  # numba is a runtime dependency, but no algorithm may need it
    if os.environ.get("CAE_DISABLE_NUMBA") == "1":
        raise ImportError
    from numba import njit as _numba_njit

    def jit(func):
        return _numba_njit(cache=True, nogil=True)(func)

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised in a subprocess test

    def jit(func):
        return func

    HAVE_NUMBA = False

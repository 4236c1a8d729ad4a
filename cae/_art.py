"""The ART search, shared by every ART kernel (Fuzzy ART; any ART whose categories answer with a choice and a match).

Adaptive resonance theory (Carpenter & Grossberg) answers a sample the same way whatever its categories look
like. Each category j gives the sample a **choice** value T_j (how well it fits: the order of the search) and a
**match** value M_j (what the vigilance test reads); the algorithm's own formulas fill ``T[:K]`` and ``M[:K]``
(Fuzzy ART's boxes: :func:`cae.algorithms._fuzzy_art_kernel.choice_and_match`). Then:

1. **Search order**: the categories in order of decreasing T; ties go to the older category, the lower row
   (artlib's ``np.lexsort((idx, -T))``).
2. **Vigilance**: the first category in that order with M_j >= ρ **resonates** and learns the sample; each
   one tested before it failed the test and was **reset**. With none (or no category at all), the sample makes
   a new category.
3. **Prediction** (no vigilance test): the category of largest T, the lower row on ties.

:func:`search` and :func:`strongest` are compiled by :func:`cae._jit.jit` with the kernels that call them (or run
as plain Python) and create no arrays; :func:`search_order` and :func:`search_record` are plain NumPy, for the
step record an estimator builds from its kernel's ``T`` and ``M`` after the step.

Examples
--------
>>> import numpy as np
>>> T, M = np.array([0.5, 0.9, 0.9]), np.array([0.95, 0.2, 0.7])
>>> search(3, 0.8, T, M)  # rows 1 and 2 come first (T = 0.9) and are reset; row 0 resonates
(0, 2)
>>> search(3, 0.99, T, M), strongest(3, T)
((-1, 3), 1)
>>> search_record(T, M, 2)
([1, 2, 0], [0.9, 0.9, 0.5], [0.2, 0.7, 0.95], [1, 2])
"""

import numpy as np

from ._jit import jit

__all__ = ["search", "strongest", "search_order", "search_record"]


@jit(allocates=False)
def search(K, rho, T, M):
    """``(row that resonates, number of categories reset before it)`` for the choices ``T[:K]`` and matches
    ``M[:K]`` at vigilance ``rho``; ``(-1, K)`` when none resonates (every category is reset).

    The row is the largest T among the categories with M >= ρ, the lowest row on ties: the first that the
    search in order of decreasing T accepts, found in one pass without sorting. The categories reset before it
    are those with M < ρ that come earlier in that order (a larger T, or the same T and a lower row).
    """
    best = -1
    for j in range(K):
        if M[j] >= rho and (best < 0 or T[j] > T[best]):
            best = j
    if best < 0:
        return -1, K
    reset = 0
    for j in range(K):  # those searched before the winner: larger T, or equal T and a lower row
        if M[j] < rho and (T[j] > T[best] or (T[j] == T[best] and j < best)):
            reset += 1
    return best, reset


@jit(allocates=False)
def strongest(K, T):
    """Row of the largest choice ``T[:K]``, the lowest row on ties (prediction: no vigilance test); -1 if K = 0."""
    if K == 0:
        return -1
    best = 0
    for j in range(1, K):
        if T[j] > T[best]:
            best = j
    return best


# ---- the step record's view of a search (plain NumPy, outside the kernels) ----------------------------
def search_order(T):
    """Every category's row in the order of the search: decreasing T, the lower row first on ties."""
    T = np.asarray(T, dtype=np.float64)
    return np.lexsort((np.arange(len(T)), -T)).astype(np.int64)


def search_record(T, M, n_reset):
    """``(order, choices, matches, reset_ids)`` of one search as Python lists, for a step record: the rows in
    the order searched with their T and M, and the first ``n_reset`` of them, the categories reset."""
    order = search_order(T)
    return (
        [int(j) for j in order],
        [float(T[j]) for j in order],
        [float(M[j]) for j in order],
        [int(j) for j in order[: int(n_reset)]],
    )

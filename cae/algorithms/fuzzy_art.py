"""Fuzzy ART (Carpenter, Grossberg & Rosen 1991): the vigilance test, resonance and reset, with a fixed ρ.

Every category is a box in [0, 1]^d. A sample x (every feature in [0, 1]) is complement coded,
I = (x, 1 - x), so that |I| = d; category j's weight w_j = (u_j, 1 - v_j) holds the box's lower
corner u_j and the complement of its upper corner v_j. For each sample:

1. **Choice**: T_j = |I ∧ w_j| / (α + |w_j|) for every category (∧ the element-wise minimum, |·| the
   L1 norm).
2. **Search**: the categories in order of decreasing T (ties: the older category first). The first,
   J, is tested for **vigilance**: the match M_J = |I ∧ w_J| / |I| >= ρ is **resonance**; otherwise J
   is **reset** and the next is tested. |I ∧ w_J| = d - |R_J ⊕ x|, where R_J ⊕ x is the smallest box
   holding R_J and x: a category accepts x when its box, stretched to hold x, has sides summing to at
   most d (1 - ρ).
3. **No category resonates** (or there is none): a new category, w = I (the box of the point x).
4. **Learning** (resonance): w_J <- β (I ∧ w_J) + (1 - β) w_J; β = 1 (fast learning) stretches the box
   to hold x.

The per-sample step is in :mod:`cae.algorithms._fuzzy_art_kernel`; ``tests/unit/test_fuzzy_art.py`` checks
every step against artlib's ``FuzzyART`` (an independent implementation, a test-only dependency). The
formulas, the defaults and the measured numbers: ``docs/baselines/fuzzy_art.md``.

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.fuzzy_art import FuzzyART
>>> model = FuzzyART(vigilance=0.8)
>>> rec = model.learn_one(np.array([0.2, 0.2]))
>>> rec.case_name, rec.new_node_id
('new category', 0)
>>> rec = model.learn_one(np.array([0.375, 0.25]))
>>> rec.case_name, model.box_lower_.tolist(), model.box_upper_.tolist()
('resonance', [[0.2, 0.2]], [[0.375, 0.25]])
>>> rec = model.learn_one(np.array([0.9, 0.9]))  # the box would have sides 0.7 + 0.7 > 2 (1 - 0.8)
>>> rec.case_name, rec.reset_ids, model.n_clusters_
('new category', [0], 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _art
from .._base import EdgelessClusterer
from .._params import Interval
from .._storage import ArrayState
from . import _fuzzy_art_kernel as kernel

__all__ = ["FuzzyART", "FuzzyARTStepRecord", "FuzzyARTAcceptance", "FuzzyARTState"]

CASE_NAMES = {kernel.CASE_NEW: "new category", kernel.CASE_RESONANCE: "resonance"}


class FuzzyARTState(ArrayState):
    """Fuzzy ART's learned state: the weights' halves ``wl`` (w[:d], lower corners) and ``wc`` (w[d:],
    1 - upper corners), the samples ``n`` each category coded and stable ``ids``; ``fscal`` holds ρ, α, β.
    ``T`` and ``M`` are scratch: the last sample's choice and match per category."""

    KERNEL = kernel
    NODE_ARRAYS = {
        "wl": (np.float64, 0.0, "d"),
        "wc": (np.float64, 0.0, "d"),
        "n": (np.int64, 0, None),
        "ids": (np.int64, 0, None),
    }
    RUN_ARGS = ("wl", "wc", "n", "ids", "iscal", "fscal", "ri", "rf", "T", "M")

    def __init__(
        self, d: int, vigilance: float = 0.75, choice: float = 0.001, learning_rate: float = 1.0, cap: int = 64
    ) -> None:
        super().__init__(d, cap=cap, maxdeg=0)
        self.fscal[kernel.F_RHO] = float(vigilance)
        self.fscal[kernel.F_ALPHA] = float(choice)
        self.fscal[kernel.F_BETA] = float(learning_rate)

    def _alloc_scratch(self) -> None:
        cap = self.wl.shape[0]
        self.ri = np.zeros(kernel.N_RI, dtype=np.int64)
        self.rf = np.full(kernel.N_RF, np.nan)
        self.T = np.zeros(cap)
        self.M = np.zeros(cap)

    @classmethod
    def _check_values(cls, a: dict[str, NDArray[Any]], meta: dict[str, Any]) -> str | None:
        i, f = a["iscal"], a["fscal"]
        K = a["wl"].shape[0]
        params = meta.get("params", {})
        stored = (f[kernel.F_RHO], f[kernel.F_ALPHA], f[kernel.F_BETA])
        if stored != (params.get("vigilance"), params.get("choice"), params.get("learning_rate")):
            return "the stored ρ, α or β differ from the model's parameters"
        t = int(i[kernel.I_T])
        if (K == 0) != (t == 0) or K > t:
            return "a number of categories that does not fit the samples seen"
        if i[kernel.I_E] != 0 or i[kernel.I_MAXDEG] != 0:
            return "an edge count (Fuzzy ART has no edges)"
        wl, wc = a["wl"], a["wc"]
        if not (np.all((wl >= 0) & (wl <= 1)) and np.all((wc >= 0) & (wc <= 1))):
            return "a weight outside [0, 1]"
        if np.any(wl > 1 - wc + 1e-9):
            return "a box whose lower corner lies above its upper corner"
        n = a["n"]
        if K and (np.any(n < 1) or int(n.sum()) != t):
            return "sample counts below 1 or that do not add up to the samples seen"
        if not np.array_equal(a["ids"], np.arange(K)):
            return "category ids that are not 0, 1, 2, ... (categories are never removed)"
        return None


@dataclass(frozen=True)
class FuzzyARTStepRecord:
    """What one call of :meth:`FuzzyART.learn_one` did: the search, in order of T, and its outcome.

    Categories are named by their id (= row: categories are never removed).

    Attributes
    ----------
    t : int
        Samples seen after this one.
    case : int
        0 a new category (no category passed the vigilance test, or there was none), 1 resonance.
    vigilance : float
        ρ.
    order : list of int
        Every category as the sample arrived, in order of decreasing T (ties: lower id first): the order
        of the search.
    choices, matches : list of float
        T_j = |I ∧ w_j| / (α + |w_j|) and M_j = |I ∧ w_j| / |I| of the categories in ``order``.
    reset_ids : list of int
        The categories tested and reset (M_j < ρ), in the order tested: the head of ``order``.
    resonance_id : int
        The category that resonated (M_j >= ρ) and learned the sample; -1 for a new category.
    new_node_id : int
        The category made from the sample (-1 on resonance).
    s1_id : int
        The category that codes the sample now: ``resonance_id`` or ``new_node_id``.
    choice, match : float
        T and M of the category that resonated (NaN for a new category).
    s2_id, edge_created, edge_reset, edges_deleted, nodes_deleted : protocol fields
        Always -1, None, None, [] and [] (Fuzzy ART has no edges and removes nothing).
    n_nodes, n_edges, n_clusters : int
        Categories after the step, 0, categories after the step.
    """

    t: int
    case: int
    vigilance: float
    order: list = field(default_factory=list)
    choices: list = field(default_factory=list)
    matches: list = field(default_factory=list)
    reset_ids: list = field(default_factory=list)
    resonance_id: int = -1
    new_node_id: int = -1
    s1_id: int = -1
    choice: float = math.nan
    match: float = math.nan
    s2_id: int = -1
    edge_created: tuple | None = None
    edge_reset: tuple | None = None
    edges_deleted: list = field(default_factory=list)
    nodes_deleted: list = field(default_factory=list)
    n_nodes: int = 0
    n_edges: int = 0
    n_clusters: int = 0

    @property
    def case_name(self) -> str:
        """'resonance' or 'new category'."""
        return CASE_NAMES[self.case]

    @property
    def event(self) -> str:
        """What happened, in a few words (the step-record protocol of :mod:`cae._base`)."""
        resets = f" after {len(self.reset_ids)} reset(s)" if self.reset_ids else ""
        if self.case == kernel.CASE_RESONANCE:
            return (
                f"resonance with category {self.resonance_id}{resets}: "
                f"|I ∧ w|/|I| = {self.match:.3f} ≥ ρ = {self.vigilance:g}"
            )
        if not self.order:
            return f"new category {self.new_node_id} (the first sample)"
        return f"new category {self.new_node_id}: every category reset, |I ∧ w|/|I| < ρ = {self.vigilance:g}"

    def search_lines(self) -> list[str]:
        """The search, one line per category tested, with its T and M against ρ, and the outcome."""
        lines = []
        for k, (j, T, M) in enumerate(zip(self.order, self.choices, self.matches)):
            if k > len(self.reset_ids):
                break
            verdict = "resonance" if j == self.resonance_id else "reset"
            sign = "≥" if M >= self.vigilance else "<"
            lines.append(f"category {j}: T = {T:.4f}, |I ∧ w|/|I| = {M:.4f} {sign} ρ = {self.vigilance:g} → {verdict}")
        if self.case == kernel.CASE_NEW:
            lines.append(f"no category resonated → new category {self.new_node_id}, w = I = (x, 1 − x)")
        return lines


@dataclass(frozen=True)
class FuzzyARTAcceptance:
    """What each category would do with one sample x (rows in creation order), without learning it.

    ``lower``/``upper`` are the corners of R_j ⊕ x, the box category j would need to accept x (its box
    stretched to hold x: fast learning's box after x); j accepts x when the sides of that box sum to at
    most d (1 - ρ), i.e. ``matches[j] >= ρ``. ``winner`` is the category that would resonate (-1: a
    new category would be made) after ``reset`` (the categories tested and reset before it, in order).
    """

    x: NDArray[np.float64]
    choices: NDArray[np.float64]
    matches: NDArray[np.float64]
    accepts: NDArray[np.bool_]
    lower: NDArray[np.float64]
    upper: NDArray[np.float64]
    order: NDArray[np.int64]
    winner: int
    reset: list[int]


class FuzzyART(EdgelessClusterer[FuzzyARTStepRecord]):
    """Fuzzy ART (Carpenter, Grossberg & Rosen 1991): boxes, a choice function and a fixed vigilance ρ.

    See the module docstring for the algorithm and ``docs/baselines/fuzzy_art.md``. Every feature must
    lie in [0, 1] (complement coding): min-max scale the data first (a ValueError says so otherwise).

    So that code written for networks draws categories without special cases, the network attributes
    describe the categories: ``nodes_`` are the boxes' centres, ``node_ids_`` the category ids,
    ``win_counts_`` the samples each coded, ``edges_`` an empty (0, 2) array, ``node_labels_`` = 0 ..
    K-1 (every category its own cluster) and ``n_clusters_`` = K.

    Parameters
    ----------
    vigilance : float, default=0.75
        ρ in [0, 1]: a category accepts a sample when |I ∧ w|/|I| >= ρ. Low ρ: few large boxes (merges);
        high ρ: many small ones.
    choice : float, default=0.001
        α > 0 in T_j = |I ∧ w_j| / (α + |w_j|); small α prefers the smallest box that holds x.
    learning_rate : float, default=1.0
        β in (0, 1]; 1 is fast learning (the box stretches to hold x at once).

    Attributes
    ----------
    weights_ : ndarray of shape (n_categories, 2 n_features)
        w_j = (lower corner, 1 - upper corner), artlib's ``W``.
    box_lower_, box_upper_ : ndarray of shape (n_categories, n_features)
        The boxes' corners: w[:d] and 1 - w[d:].
    box_slack_ : ndarray of shape (n_categories,)
        d (1 - ρ) minus the sum of the box's sides: the samples a category accepts are those within this
        L1 distance of its box (in 2-D, the box grown into an octagon).
    n_categories_ : int
    nodes_, node_ids_, win_counts_, edges_, node_labels_, n_clusters_
        See above.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).random((300, 2))
    >>> model = FuzzyART(vigilance=0.7).fit(X)
    >>> bool(np.all(model.box_lower_ <= model.box_upper_)), model.n_clusters_ == model.n_categories_
    (True, True)
    >>> FuzzyART().fit([[0.5, 2.0]])
    Traceback (most recent call last):
    ...
    ValueError: FuzzyART needs every value in [0, 1] (got values from 0.5 to 2): min-max scale the data first
    """

    algorithm = "Fuzzy ART"
    _State = FuzzyARTState
    input_range = (0.0, 1.0)
    _parameter_ranges = {
        "vigilance": Interval("float", 0, 1, symbol="ρ"),
        "choice": Interval("float", 0, low_open=True, symbol="α"),
        "learning_rate": Interval("float", 0, 1, low_open=True, symbol="β"),
    }

    def __init__(self, vigilance: float = 0.75, choice: float = 0.001, learning_rate: float = 1.0) -> None:
        self.vigilance = vigilance
        self.choice = choice
        self.learning_rate = learning_rate

    def _state_kwargs(self) -> dict[str, Any]:
        return {
            "vigilance": float(self.vigilance),
            "choice": float(self.choice),
            "learning_rate": float(self.learning_rate),
        }

    def _record(self) -> FuzzyARTStepRecord:
        net = self.network_
        ri, rf = net.ri, net.rf
        case = int(ri[kernel.RI_CASE])
        kb = int(ri[kernel.RI_KBEFORE])
        order, choices, matches, reset_ids = _art.search_record(net.T[:kb], net.M[:kb], ri[kernel.RI_NRESET])
        winner = int(ri[kernel.RI_WINNER])
        K = net.K
        return FuzzyARTStepRecord(
            t=int(net.iscal[kernel.I_T]),
            case=case,
            vigilance=float(net.fscal[kernel.F_RHO]),
            order=order,
            choices=choices,
            matches=matches,
            reset_ids=reset_ids,
            resonance_id=winner if case == kernel.CASE_RESONANCE else -1,
            new_node_id=winner if case == kernel.CASE_NEW else -1,
            s1_id=winner,
            choice=float(rf[kernel.RF_T]),
            match=float(rf[kernel.RF_M]),
            n_nodes=K,
            n_clusters=K,
        )

    def _choice_and_match(self, X: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        net = self.network_
        T, M = np.zeros(max(net.K, 1)), np.zeros(max(net.K, 1))
        kernel.choice_and_match(X, 0, net.wl, net.wc, net.K, float(net.fscal[kernel.F_ALPHA]), T, M)
        return T[: net.K], M[: net.K]

    def _nearest_nodes(self, X: NDArray[np.float64]) -> NDArray[np.int64]:
        """Category of largest choice T for each row of X (the older on ties), as artlib's ``predict``."""
        net = self.network_
        out = np.zeros(X.shape[0], dtype=np.int64)
        T, M = np.zeros(max(net.K, 1)), np.zeros(max(net.K, 1))
        kernel.nearest_nodes(X, net.wl, net.wc, net.K, float(net.fscal[kernel.F_ALPHA]), T, M, out)
        return out

    def acceptance(self, x: ArrayLike) -> FuzzyARTAcceptance:
        """What each category would do with the sample ``x``, without learning it (a pure function).

        For each category j: T_j, M_j, whether it accepts x (M_j >= ρ) and R_j ⊕ x, the box it would
        need to accept x; and the search's outcome (see :class:`FuzzyARTAcceptance`).
        """
        x = self._samples(x, name="x", one=True, fitted=True)
        net = self.network_
        T, M = self._choice_and_match(x)
        rho = float(net.fscal[kernel.F_RHO])
        best, nreset = _art.search(net.K, rho, T, M)
        order = _art.search_order(T)
        return FuzzyARTAcceptance(
            x=x[0].copy(),
            choices=T.copy(),
            matches=M.copy(),
            accepts=M >= rho,
            lower=np.minimum(x, self.box_lower_),
            upper=np.maximum(x, self.box_upper_),
            order=order,
            winner=int(best),
            reset=[int(j) for j in order[: int(nreset)]],
        )

    @property
    def weights_(self) -> NDArray[np.float64]:
        return self._ro(self._cached("weights", lambda: np.hstack([self._rows("wl"), self._rows("wc")])))

    @property
    def box_lower_(self) -> NDArray[np.float64]:
        return self._rows("wl")

    @property
    def box_upper_(self) -> NDArray[np.float64]:
        return self._ro(self._cached("upper", lambda: 1.0 - self._rows("wc")))

    @property
    def box_slack_(self) -> NDArray[np.float64]:
        def slack() -> NDArray[np.float64]:
            net = self._net()
            sides = (self.box_upper_ - self.box_lower_).sum(axis=1)
            return np.asarray(net.d * (1.0 - float(net.fscal[kernel.F_RHO])) - sides)

        return self._ro(self._cached("slack", slack))

    @property
    def n_categories_(self) -> int:
        return self._net().K

    @property
    def nodes_(self) -> NDArray[np.float64]:
        return self._ro(self._cached("centres", lambda: (self.box_lower_ + self.box_upper_) / 2.0))

    @property
    def win_counts_(self) -> NDArray[np.int64]:
        return self._rows("n")

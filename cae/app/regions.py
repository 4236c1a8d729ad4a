"""Regions drawn on the plot, and samples drawn uniformly from them: "draw your own distribution".

A teacher drags a box or a lasso on the Playground's plot, and the stream continues with samples drawn
uniformly from the union of the drawn regions (DemoGNG's "draw with the mouse"). This module holds the
geometry and the sampler, without Streamlit:

- :class:`Region` — a box or a polygon (a lasso), its vertices on a grid of 1/1000 (so that a region
  travels in a lesson link exactly: ``b100_600_300_900`` is the box 0.1 ≤ x ≤ 0.3, 0.6 ≤ y ≤ 0.9);
- :func:`sample_regions` — the samples for given positions of the stream. Each sample is a function of
  the seed and its **position** only (a counter-based generator, no shared random state), so the samples
  before a step never change when the future is edited, and a lesson link that names the regions, the
  positions and the seed gives the same samples, bit for bit.

A polygon's inside is the even–odd rule (a lasso that crosses itself has holes where it winds twice). The
union of several regions is sampled uniformly by rejection: a region's bounding box is chosen in proportion
to its area and a point drawn uniformly in it, and the point is kept when it lies inside that region and in
no earlier one (so that an overlap is not sampled twice as often).

Examples
--------
>>> box = Region.box((0.1, 0.3), (0.6, 0.9))
>>> box.encode(), round(box.area, 6)
('b100_600_300_900', 0.06)
>>> Region.decode("b100_600_300_900") == box
True
>>> X = sample_regions([box], positions=range(1000, 1005), seed=3)
>>> X.shape, bool(box.contains(X).all())
((5, 2), True)
>>> bool((sample_regions([box], [1002, 1003], seed=3) == X[2:4]).all())  # a sample depends on its position
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Region",
    "sample_regions",
    "GRID",
    "MAX_VERTICES",
    "MIN_FILL",
    "MAX_COORDINATE",
    "MAX_DRAWN",
    "MAX_REGIONS",
    "region_from_selection",
    "click_position",
]

#: vertices lie on a grid of 1/GRID (the app's data lie in [0, 1]: a thousandth of the plot)
GRID = 1000
#: a lasso is simplified to at most this many vertices (it travels in the link)
MAX_VERTICES = 24
#: a region must fill at least this share of its bounding box (a sliver cannot be sampled quickly)
MIN_FILL = 0.05
#: no vertex beyond ±this (in data units)
MAX_COORDINATE = 1000.0
#: at most this many regions in one drawing, and this many samples from it
MAX_REGIONS = 6
MAX_DRAWN = 20000
_MAX_ROUNDS = 5000  # rejection rounds; each keeps a point with probability >= MIN_FILL / (number of regions)


def _on_grid(v):
    return round(float(v) * GRID) / GRID


@dataclass(frozen=True)
class Region:
    """A drawn region: ``kind`` is ``"box"`` or ``"polygon"``, ``vertices`` its corners on the 1/GRID grid.

    Make one with :meth:`box`, :meth:`polygon` or :meth:`decode` (they check it: ValueError with a plain
    message otherwise).
    """

    kind: str
    vertices: tuple[tuple[float, float], ...]

    # ---------------------------------------------------------------- make
    @classmethod
    def box(cls, x_range: Sequence[float], y_range: Sequence[float]) -> Region:
        """The box ``x_range`` × ``y_range`` (either order), its corners moved to the grid."""
        (x0, x1), (y0, y1) = sorted(map(_on_grid, x_range)), sorted(map(_on_grid, y_range))
        return cls._checked("box", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))

    @classmethod
    def polygon(cls, xs: Sequence[float], ys: Sequence[float], max_vertices: int = MAX_VERTICES) -> Region:
        """The polygon through ``(xs[i], ys[i])`` (a lasso's path; closed automatically), simplified to at
        most ``max_vertices`` corners (the least important first: Visvalingam–Whyatt) on the grid."""
        P = np.column_stack([np.asarray(xs, dtype=float).ravel(), np.asarray(ys, dtype=float).ravel()])
        if len(P) == 0 or not np.all(np.isfinite(P)):
            raise ValueError("a region needs finite coordinates")
        P = np.round(P * GRID) / GRID
        keep = np.ones(len(P), bool)
        keep[1:] = np.any(P[1:] != P[:-1], axis=1)  # repeated points of the path
        P = P[keep]
        if len(P) > 1 and np.all(P[0] == P[-1]):
            P = P[:-1]  # the closing point
        P = _simplify(P, max(3, int(max_vertices)))
        return cls._checked("polygon", tuple((float(x), float(y)) for x, y in P))

    @classmethod
    def _checked(cls, kind, vertices):
        region = cls(kind, tuple((_on_grid(x), _on_grid(y)) for x, y in vertices))
        V = region.array
        if len(V) < 3:
            raise ValueError("a region needs at least three corners")
        if np.abs(V).max() > MAX_COORDINATE:
            raise ValueError(f"a region's corners must lie within ±{MAX_COORDINATE:g}")
        (x0, y0), (x1, y1) = V.min(axis=0), V.max(axis=0)
        if region.area <= 0 or x1 <= x0 or y1 <= y0:
            raise ValueError("the region has no area: drag a larger box or lasso")
        if region.area < MIN_FILL * (x1 - x0) * (y1 - y0):
            raise ValueError("the region is too thin to draw samples from: draw a fuller shape")
        return region

    # ------------------------------------------------------------ geometry
    @property
    def array(self) -> np.ndarray:
        """The vertices as an ``(k, 2)`` array."""
        return np.array(self.vertices, dtype=float).reshape(-1, 2)

    @property
    def bbox(self) -> tuple[tuple[float, float], tuple[float, float]]:
        V = self.array
        return (float(V[:, 0].min()), float(V[:, 0].max())), (float(V[:, 1].min()), float(V[:, 1].max()))

    @property
    def area(self) -> float:
        """The area inside (even–odd rule), measured on a fine grid for a polygon that crosses itself."""
        V = self.array
        if not _crosses_itself(V):
            x, y = V[:, 0], V[:, 1]
            return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)
        (x0, x1), (y0, y1) = self.bbox
        n = 400
        gx, gy = np.meshgrid(x0 + (np.arange(n) + 0.5) * (x1 - x0) / n, y0 + (np.arange(n) + 0.5) * (y1 - y0) / n)
        inside = self.contains(np.column_stack([gx.ravel(), gy.ravel()]))
        return float(inside.mean() * (x1 - x0) * (y1 - y0))

    def contains(self, points) -> np.ndarray:
        """Which of ``points`` (rows x, y) lie inside (even–odd rule; the left and bottom edges inside)."""
        P = np.asarray(points, dtype=float).reshape(-1, 2)
        V = self.array
        x, y = P[:, 0:1], P[:, 1:2]
        ax, ay = V[:, 0], V[:, 1]
        bx, by = np.roll(ax, -1), np.roll(ay, -1)
        straddles = (ay <= y) != (by <= y)
        with np.errstate(divide="ignore", invalid="ignore"):
            cross_x = ax + (y - ay) * (bx - ax) / (by - ay)
        return np.count_nonzero(straddles & (x < cross_x), axis=1) % 2 == 1

    def outline(self) -> tuple[np.ndarray, np.ndarray]:
        """The closed outline ``(xs, ys)`` (the first corner repeated at the end), for drawing."""
        V = self.array
        return np.append(V[:, 0], V[0, 0]), np.append(V[:, 1], V[0, 1])

    # ---------------------------------------------------------------- text
    def encode(self) -> str:
        """Compact text: ``b`` or ``p`` and the corners in thousandths, ``_``-separated (x0_y0_x1_y1 for a box)."""
        if self.kind == "box":
            (x0, x1), (y0, y1) = self.bbox
            nums = (x0, y0, x1, y1)
        else:
            nums = tuple(v for xy in self.vertices for v in xy)
        return ("b" if self.kind == "box" else "p") + "_".join(str(round(v * GRID)) for v in nums)

    @classmethod
    def decode(cls, text: str) -> Region:
        """The region of :meth:`encode`'s text; ValueError for anything else."""
        text = str(text).strip()
        if len(text) < 2 or text[0] not in "bp":
            raise ValueError("a region starts with b (box) or p (polygon)")
        try:
            nums = [int(v) for v in text[1:].split("_")]
        except ValueError:
            raise ValueError("a region's corners are whole thousandths separated by _") from None
        if any(abs(v) > MAX_COORDINATE * GRID for v in nums):
            raise ValueError(f"a region's corners must lie within ±{MAX_COORDINATE:g}")
        vals = [v / GRID for v in nums]
        if text[0] == "b":
            if len(vals) != 4:
                raise ValueError("a box has four numbers: x0_y0_x1_y1")
            return cls.box((vals[0], vals[2]), (vals[1], vals[3]))
        if len(vals) % 2 or not 3 <= len(vals) // 2 <= MAX_VERTICES:
            raise ValueError(f"a polygon has 3 to {MAX_VERTICES} corners, x_y each")
        region = cls._checked("polygon", tuple(zip(vals[0::2], vals[1::2])))
        if region.encode() != text:  # e.g. "-0" or leading zeros: one spelling per region
            raise ValueError("a region's corners are whole thousandths separated by _")
        return region

    def describe(self) -> str:
        """A short description for a list: ``box 0.1–0.3 × 0.6–0.9`` or ``lasso, 12 corners, area 0.031``."""
        (x0, x1), (y0, y1) = self.bbox
        if self.kind == "box":
            return f"box {x0:g}–{x1:g} × {y0:g}–{y1:g}"
        return f"lasso around {x0:g}–{x1:g} × {y0:g}–{y1:g}, {len(self.vertices)} corners, area {self.area:.3g}"


def _crosses_itself(V):
    n = len(V)
    if n < 4:
        return False
    A, B = V, np.roll(V, -1, axis=0)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closing edge
            if _segments_cross(A[i], B[i], A[j], B[j]):
                return True
    return False


def _segments_cross(p, q, r, s):
    def orient(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    return orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0


def _simplify(P, max_vertices):
    """Visvalingam–Whyatt on a closed path: drop the corner of least triangle area until few enough remain."""
    P = [tuple(p) for p in P]
    while len(P) > max_vertices:
        n = len(P)
        areas = [
            abs(
                (P[i][0] - P[i - 1][0]) * (P[(i + 1) % n][1] - P[i - 1][1])
                - (P[(i + 1) % n][0] - P[i - 1][0]) * (P[i][1] - P[i - 1][1])
            )
            for i in range(n)
        ]
        del P[int(np.argmin(areas))]  # ties: the first
    return np.array(P, dtype=float).reshape(-1, 2)


# ------------------------------------------------------------------ from the browser
def _numbers(values, limit=20000):
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= limit:
        raise ValueError("not a list of numbers")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("not a list of numbers")
        out.append(float(v))
    arr = np.array(out)
    if not np.all(np.isfinite(arr)):
        raise ValueError("not finite")
    return arr


def region_from_selection(event) -> Region:
    """The region of a box or lasso selection as the plot reports it: ``{"kind": "box", "x": [x0, x1], "y":
    [y0, y1]}`` or ``{"kind": "lasso", "x": [...], "y": [...]}``. Anything else (it comes from a browser)
    is a ValueError with a message for the page.

    Examples
    --------
    >>> region_from_selection({"kind": "box", "x": [0.3, 0.1], "y": [0.6, 0.9]}).encode()
    'b100_600_300_900'
    >>> region_from_selection({"kind": "lasso", "x": [0.1, 0.3, 0.2, 0.1], "y": [0.1, 0.1, 0.3, 0.1]}).encode()
    'p100_100_300_100_200_300'
    """
    if not isinstance(event, dict) or event.get("kind") not in ("box", "lasso"):
        raise ValueError("the plot sent no box or lasso")
    try:
        xs, ys = _numbers(event.get("x")), _numbers(event.get("y"))
    except ValueError:
        raise ValueError("the plot sent a selection without coordinates") from None
    if len(xs) != len(ys):
        raise ValueError("the plot sent a selection without coordinates")
    if event["kind"] == "box":
        if len(xs) != 2:
            raise ValueError("the plot sent a box without its two corners")
        return Region.box(xs, ys)
    return Region.polygon(xs, ys)


def click_position(event, low, high, digits=4):
    """The clicked point ``[x, y]`` of ``{"x": …, "y": …}``, rounded to ``digits`` and kept within
    ``low`` … ``high`` (per axis); ValueError for anything else.

    Examples
    --------
    >>> click_position({"x": 0.123456, "y": 7}, low=(0, 0), high=(1, 1)).tolist()
    [0.1235, 1.0]
    """
    if not isinstance(event, dict):
        raise ValueError("the plot sent no position")
    try:
        xy = _numbers([event.get("x"), event.get("y")])
    except ValueError:
        raise ValueError("the plot sent no position") from None
    return np.round(np.clip(xy, np.asarray(low, float), np.asarray(high, float)), digits)


# ------------------------------------------------------------------ sampling
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z):
    """SplitMix64's finaliser on a uint64 array (wrapping arithmetic)."""
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniforms(seed, positions, attempt, lanes):
    """``(len(positions), lanes)`` numbers in [0, 1), each a function of (seed, position, attempt, lane)."""
    key = _mix(_mix(np.full(len(positions), seed, dtype=np.uint64)) ^ positions.astype(np.uint64))
    key = _mix(key + np.uint64(attempt * 64))
    out = np.empty((len(positions), lanes))
    for lane in range(lanes):
        out[:, lane] = (_mix(key + np.uint64(lane)) >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return out


def sample_regions(regions: Sequence[Region], positions: Iterable[int], seed: int) -> np.ndarray:
    """Samples drawn uniformly from the union of ``regions``, one for each stream position in ``positions``.

    Pure and seeded: the sample of a position depends on ``seed``, that position and the regions only
    (not on which other positions are asked for), so asking again, for any subset, gives the same values.

    Parameters
    ----------
    regions : sequence of Region
        At least one.
    positions : iterable of int
        Non-negative stream positions (0-based).
    seed : int
        Non-negative (the stream's seed).

    Returns
    -------
    ndarray of shape (len(positions), 2)

    Examples
    --------
    >>> left, right = Region.box((0, 0.2), (0, 1)), Region.box((0.6, 1), (0, 1))  # areas 0.2 and 0.4
    >>> X = sample_regions([left, right], range(30000), seed=0)
    >>> round(float((X[:, 0] < 0.5).mean()), 2)  # a third from the smaller box
    0.33
    """
    regions = list(regions)
    if not regions:
        raise ValueError("give at least one region")
    pos = np.asarray(list(positions) if not isinstance(positions, np.ndarray) else positions, dtype=np.int64)
    if pos.ndim != 1 or (len(pos) and pos.min() < 0):
        raise ValueError("positions are non-negative whole numbers")
    if int(seed) < 0:
        raise ValueError("the seed is a non-negative whole number")
    seed = int(seed)
    out = np.full((len(pos), 2), np.nan)
    boxes = np.array([[*r.bbox[0], *r.bbox[1]] for r in regions])  # x0, x1, y0, y1
    box_areas = (boxes[:, 1] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 2])
    cum = np.cumsum(box_areas) / box_areas.sum()  # each point of a box equally likely: uniform in the union
    todo = np.arange(len(pos))
    for attempt in range(_MAX_ROUNDS):
        if len(todo) == 0:
            break
        u = _uniforms(seed, pos[todo], attempt, 3)
        which = np.minimum(np.searchsorted(cum, u[:, 0], side="right"), len(regions) - 1)
        b = boxes[which]
        P = np.column_stack([b[:, 0] + u[:, 1] * (b[:, 1] - b[:, 0]), b[:, 2] + u[:, 2] * (b[:, 3] - b[:, 2])])
        ok = np.zeros(len(todo), bool)
        for k, region in enumerate(regions):
            mine = which == k
            if not mine.any():
                continue
            inside = region.contains(P[mine])
            for earlier in regions[:k]:  # the union: an overlap belongs to its first region only
                inside &= ~earlier.contains(P[mine])
            ok[np.flatnonzero(mine)[inside]] = True
        out[todo[ok]] = P[ok]
        todo = todo[~ok]
    # each round keeps a point with probability |union| / (sum of the boxes' areas) >= MIN_FILL / len(regions)
    if len(todo):  # pragma: no cover
        raise RuntimeError("could not draw samples from these regions")
    return out

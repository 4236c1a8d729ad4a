"""Where things are: vigilance regions as curves (one node's, or every node's) and the focus window around s1."""

from __future__ import annotations

import numpy as np

from ._draw import _f32


def vigilance_boundary(center, sigma, threshold, dims=(0, 1), n_angles=96, r_max=None):
    """The curve where CIM(p, center, sigma) = V in the plane of ``dims`` (other features at the centre's values).

    Points inside have CIM <= V: a sample there would not create a node (it
    resonates with this node). Returns (x, y) of the closed curve, or None if
    V is not set. Rays are cut at ``r_max`` where the region is unbounded.
    """
    if threshold is None or not np.isfinite(threshold) or not np.isfinite(sigma):
        return None
    d = len(center)
    # CIM^2 = 1 - mean_j exp(-dx_j^2 / 2 s^2); only the two plotted features differ from the centre
    target = d * (1.0 - threshold**2) - (d - 2)  # needed sum of the two exp terms
    if r_max is None:
        r_max = 50 * sigma
    th = np.linspace(0, 2 * np.pi, n_angles)
    c, s = np.cos(th), np.sin(th)

    def f(r):
        return np.exp(-((r * c) ** 2) / (2 * sigma**2)) + np.exp(-((r * s) ** 2) / (2 * sigma**2))

    lo = np.zeros_like(th)
    hi = np.full_like(th, r_max)
    if target > 2:
        return None
    for _ in range(50):  # bisection: f decreases with r
        mid = (lo + hi) / 2
        inside = f(mid) >= target
        lo = np.where(inside, mid, lo)
        hi = np.where(inside, hi, mid)
    r = lo
    return _f32(center[dims[0]] + r * c), _f32(center[dims[1]] + r * s)


def region_outlines(nodes, sigma, threshold, dims=(0, 1), n_angles=48, r_max=None):
    """Every node's vigilance region, as one NaN-separated polyline per node: ``(x, y)`` or None.

    A node's region is where a sample would resonate with it, CIM(x, y_k, σ̄) ≤ V (the other features at
    the node's values). With one σ̄ and one V for every node, every region is the same closed curve moved
    to its node: it is computed once (:func:`vigilance_boundary`) and translated.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = region_outlines(np.array([[0.0, 0.0], [1.0, 1.0]]), sigma=0.1, threshold=0.3, n_angles=8)
    >>> len(x), int(np.isnan(x).sum())  # 2 curves of 8 points, each closed by a gap
    (18, 2)
    """
    nodes = np.asarray(nodes, dtype=float)
    if len(nodes) == 0:
        return None
    curve = vigilance_boundary(np.zeros(nodes.shape[1]), sigma, threshold, dims=dims, n_angles=n_angles, r_max=r_max)
    if curve is None:
        return None
    i, j = dims
    dx, dy = (np.append(c.astype(float), np.nan) for c in curve)
    return _f32((nodes[:, [i]] + dx).ravel()), _f32((nodes[:, [j]] + dy).ravel())


def focus_window(points, full=None, pad=0.2, min_side=None):
    """The square view around ``points`` (each row x, y): ``((x0, x1), (y0, y1))``, padded by ``pad`` of its
    side on each side; None when it would be as large as ``full`` (the full view's bounds) — no zoom then.

    Examples
    --------
    >>> focus_window([[0.50, 0.50], [0.52, 0.51]], full=((0, 1), (0, 1)))
    ((0.496, 0.524), (0.491, 0.519))
    >>> focus_window([[0.0, 0.0], [1.0, 1.0]], full=((0, 1), (0, 1))) is None
    True
    """
    P = np.asarray(points, dtype=float).reshape(-1, 2)
    P = P[np.all(np.isfinite(P), axis=1)]
    if len(P) == 0:
        return None
    lo, hi = P.min(axis=0), P.max(axis=0)
    side = float(max(hi - lo)) * (1 + 2 * pad)
    if full is not None:
        span = max(full[0][1] - full[0][0], full[1][1] - full[1][0]) or 1.0
        if side >= 0.9 * span:
            return None
        side = max(side, min_side if min_side is not None else 0.005 * span)
    elif min_side is not None:
        side = max(side, min_side)
    side = side or 1e-6
    c = (lo + hi) / 2
    r = lambda v: round(float(v), 12)  # noqa: E731 - plain floats, free of float32 noise
    return (r(c[0] - side / 2), r(c[0] + side / 2)), (r(c[1] - side / 2), r(c[1] + side / 2))

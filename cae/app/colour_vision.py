"""Colour differences as people with and without colour-vision deficiency see them.

Used to choose and check the cluster palette (:data:`cae.app.figures.PALETTE`): the clusters of a network must
stay distinguishable for colour-blind students too. Pure NumPy, no Streamlit.

- :func:`simulate`: Machado, Oliveira and Fernandes (2009), *A physiologically-based model for simulation of
  color vision deficiency*, IEEE TVCG 15(6), severity 1.0, applied to linear RGB (sRGB decoded first);
  :func:`simulate_image` the same over every pixel of a picture (a screenshot, to look at as a class would).
- :func:`lab`: CIELAB (D65 white, the sRGB primaries).
- :func:`ciede2000`: the CIEDE2000 colour difference, following Sharma, Wu and Dalal (2005), *The CIEDE2000
  color-difference formula: implementation notes, supplementary test data, and mathematical observations*,
  Color Research and Application 30(1) (their 34 test pairs are in the tests).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["MACHADO", "simulate", "simulate_image", "lab", "ciede2000", "smallest_difference"]

#: Machado et al. (2009), severity 1.0, for linear RGB.
MACHADO = {
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}
# sRGB (linear) to XYZ, D65
_RGB_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
_WHITE = _RGB_XYZ.sum(axis=1)


def _rgb(colour):
    """sRGB in [0, 1] from ``"#rrggbb"``, ``"rgb(r, g, b)"`` or a sequence of three 0-255 numbers."""
    if isinstance(colour, str):
        c = colour.strip()
        if c.startswith("#"):
            c = c[1:]
            if len(c) == 3:
                c = "".join(ch * 2 for ch in c)
            return np.array([int(c[k : k + 2], 16) for k in (0, 2, 4)], dtype=float) / 255
        if c.startswith("rgb"):
            return np.array([float(v) for v in c[c.index("(") + 1 : c.index(")")].split(",")[:3]]) / 255
        raise ValueError(f"not a colour: {colour!r}")
    return np.asarray(colour, dtype=float)[:3] / 255


def _linear(srgb):
    srgb = np.asarray(srgb, dtype=float)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def simulate(colour, deficiency=None):
    """The colour (as linear RGB in [0, 1]) as seen with ``deficiency`` (a key of :data:`MACHADO`; None: as is)."""
    rgb = _linear(_rgb(colour))
    if deficiency is None:
        return rgb
    return np.clip(rgb @ MACHADO[deficiency].T, 0.0, 1.0)


def simulate_image(pixels, deficiency):
    """A picture as seen with ``deficiency``: ``pixels`` an sRGB array of shape (..., 3) in 0-255 (a screenshot),
    returned the same way (uint8), each pixel through :func:`simulate` and encoded to sRGB again.

    >>> px = np.array([[[214, 39, 40], [44, 160, 44], [128, 128, 128]]], dtype=np.uint8)  # red, green, grey
    >>> simulate_image(px, "deuteranopia")[0].tolist()  # red and green meet in an olive; grey stays grey
    [[139, 124, 31], [150, 136, 56], [128, 128, 128]]
    """
    rgb = _linear(np.asarray(pixels, dtype=float)[..., :3] / 255)
    seen = np.clip(rgb @ MACHADO[deficiency].T, 0.0, 1.0)
    srgb = np.where(seen <= 0.0031308, 12.92 * seen, 1.055 * seen ** (1 / 2.4) - 0.055)
    return np.clip(np.round(srgb * 255), 0, 255).astype(np.uint8)


def lab(linear_rgb):
    """CIELAB (L*, a*, b*) of linear-RGB colours (D65), shape (..., 3)."""
    xyz = np.asarray(linear_rgb, dtype=float) @ _RGB_XYZ.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1, lab2):
    """The CIEDE2000 difference between CIELAB colours (kL = kC = kH = 1); arrays of shape (..., 3) broadcast.

    >>> round(float(ciede2000((50, 2.5, 0), (73, 25, -18))), 4)
    27.1492
    """
    lab1, lab2 = np.asarray(lab1, dtype=float), np.asarray(lab2, dtype=float)
    L1, a1, b1 = lab1[..., 0], lab1[..., 1], lab1[..., 2]
    L2, a2, b2 = lab2[..., 0], lab2[..., 1], lab2[..., 2]
    c7 = ((np.hypot(a1, b1) + np.hypot(a2, b2)) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(c7 / (c7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.where(c1p == 0, 0.0, np.degrees(np.arctan2(b1, a1p)) % 360)
    h2p = np.where(c2p == 0, 0.0, np.degrees(np.arctan2(b2, a2p)) % 360)
    grey = c1p * c2p == 0
    dhp = h2p - h1p
    dhp = np.where(dhp > 180, dhp - 360, np.where(dhp < -180, dhp + 360, dhp))
    dhp = np.where(grey, 0.0, dhp)
    dLp, dCp = L2 - L1, c2p - c1p
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dhp) / 2)
    Lp, Cp = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    hp = np.where(
        grey,
        hsum,
        np.where(np.abs(h1p - h2p) <= 180, hsum / 2, np.where(hsum < 360, (hsum + 360) / 2, (hsum - 360) / 2)),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(hp - 30))
        + 0.24 * np.cos(np.radians(2 * hp))
        + 0.32 * np.cos(np.radians(3 * hp + 6))
        - 0.20 * np.cos(np.radians(4 * hp - 63))
    )
    d_theta = 30 * np.exp(-(((hp - 275) / 25) ** 2))
    rc = 2 * np.sqrt(Cp**7 / (Cp**7 + 25.0**7))
    sl = 1 + 0.015 * (Lp - 50) ** 2 / np.sqrt(20 + (Lp - 50) ** 2)
    sc = 1 + 0.045 * Cp
    sh = 1 + 0.015 * Cp * t
    rt = -np.sin(np.radians(2 * d_theta)) * rc
    return np.sqrt((dLp / sl) ** 2 + (dCp / sc) ** 2 + (dHp / sh) ** 2 + rt * (dCp / sc) * (dHp / sh))


def smallest_difference(colours, deficiency=None):
    """The smallest CIEDE2000 difference between any two of ``colours`` as seen with ``deficiency``.

    >>> round(smallest_difference(["#000000", "#ffffff"]), 1)
    100.0
    """
    labs = [lab(simulate(c, deficiency)) for c in colours]
    return float(min(ciede2000(p, q) for p, q in itertools.combinations(labs, 2)))

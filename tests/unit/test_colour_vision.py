"""The cluster palette for colour-blind students: CIEDE2000 (checked against Sharma et al. 2005) between the
first ten cluster colours as seen with protanopia, deuteranopia and tritanopia (Machado et al. 2009)."""

import numpy as np
import pytest

from cae.app import colour_vision as cv
from cae.app import figures

# Sharma, Wu and Dalal (2005), Table 1: L1, a1, b1, L2, a2, b2, ΔE00 (4 decimals); the pairs straddle the
# formula's branches (hue averaging, the rotation term, a grey colour).
SHARMA = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
]

CVD = ("protanopia", "deuteranopia", "tritanopia")


def test_ciede2000_reproduces_the_published_test_pairs():
    data = np.array(SHARMA)
    for first, second in ((data[:, :3], data[:, 3:6]), (data[:, 3:6], data[:, :3])):  # symmetric, too
        assert np.abs(cv.ciede2000(first, second) - data[:, 6]).max() < 1e-4
    for row in SHARMA:  # one pair at a time as well
        assert cv.ciede2000(row[:3], row[3:6]) == pytest.approx(row[6], abs=1e-4)


def test_the_simulation_decodes_srgb_and_keeps_white_and_grey():
    assert cv.simulate("#808080") == pytest.approx([0.2158605] * 3, abs=1e-6)  # sRGB 128 is 21.6 % linear light
    assert cv.lab(cv.simulate("#ffffff")) == pytest.approx([100, 0, 0], abs=1e-4)
    for d in CVD:  # a colour-blind person sees greys as greys
        assert cv.simulate("#ffffff", d) == pytest.approx([1, 1, 1], abs=2e-3)
        assert cv.simulate("#808080", d) == pytest.approx([0.2158605] * 3, abs=1e-3)
    # red and green, far apart with normal vision, nearly meet with protanopia and deuteranopia
    red_green = [cv.smallest_difference(["#d62728", "#2ca02c"], d) for d in (None, *CVD)]
    assert red_green[0] > 70 and red_green[1] < 30 and red_green[2] < 30 and red_green[3] > 40


@pytest.mark.parametrize("deficiency", [None, *CVD])
def test_the_first_ten_cluster_colours_stay_apart(deficiency):
    assert cv.smallest_difference(figures.PALETTE[:10], deficiency) >= 10


def test_every_cluster_colour_reads_on_the_white_plot():
    """At least 3:1 against white (WCAG 2.1's contrast for graphics), and no two colours of the palette equal."""
    for c in figures.PALETTE:
        y = float(cv.simulate(c) @ np.array([0.2126, 0.7152, 0.0722]))
        assert 1.05 / (y + 0.05) >= 3, c
    assert len(set(figures.PALETTE)) == len(figures.PALETTE)
    assert cv.smallest_difference(figures.PALETTE) >= 10


# ------------------------------------------------------------------ the edge ages, tested as the clusters are
@pytest.mark.parametrize("deficiency", [None, *CVD])
def test_the_edge_age_bands_stay_apart(deficiency):
    """As many bands as stay at least 10 CIEDE2000 apart with normal vision and under each deficiency: three (the five
    Viridis bands of before were 2.8 apart, 2.2 under deuteranopia: one navy for every edge)."""
    assert len(figures.AGE_COLOURS) == figures.N_AGE_BANDS == 3
    assert cv.smallest_difference(figures.AGE_COLOURS, deficiency) >= 10


def test_every_edge_age_colour_reads_on_the_white_plot_at_a_projectors_width():
    from cae.app.figures._draw import EDGE_WIDTH, mark_scale

    for c in figures.AGE_COLOURS:
        y = float(cv.simulate(c) @ np.array([0.2126, 0.7152, 0.0722]))
        assert 1.05 / (y + 0.05) >= 3, c
    assert EDGE_WIDTH >= 2.5 and EDGE_WIDTH * mark_scale(933) >= 4  # 4 px wide on a projector's 933-px square


def test_the_key_shows_exactly_the_age_bands_drawn():
    """Each band drawn (a line of its colour) is in the key with that colour and the ages it holds, and the key
    shows no other: with an age limit a_max, the bands are the edges up to half of it, up to it, and past it."""
    import re
    from types import SimpleNamespace

    ages = np.array([1, 3, 9, 14, 15, 20, 28, 29, 35])
    P = np.array([[k / 10, (k % 2) / 10] for k in range(10)], dtype=float)
    net = SimpleNamespace(
        network_=None,
        nodes_=P,
        node_ids_=np.arange(10),
        edges_=np.array([[k, k + 1] for k in range(9)]),
        edge_ages_=ages,
        node_labels_=np.zeros(10, int),
        win_counts_=np.ones(10),
        n_clusters_=1,
    )
    fig = figures.network_figure(net, legend=False, age_limit=28.4)
    drawn = {
        t.name.removeprefix("edges age "): (t.line.color, len(t.x) // 3)  # each edge: two ends and a gap
        for t in fig.data
        if (t.name or "").startswith("edges age")
    }
    assert drawn == {"≤ 14": ("#7a8ca3", 4), "15–28": ("#1f3d66", 3), "> 28.4": ("#c85a00", 2)}
    key = fig.layout.meta["key"]
    row = key[key.index('class="cae-key-ages"') :]
    shown = re.findall(r"border-top:[\d.]+px solid (#\w+)\"></span>([^<]+) \((\d+)\)</span>", row)
    assert [(c, label.replace("&gt;", ">"), int(n)) for c, label, n in shown] == [
        (c, label, n) for label, (c, n) in drawn.items()
    ]
    assert "a_max = 28.4" in row


def test_a_picture_is_simulated_pixel_by_pixel_as_each_colour_is():
    """simulate_image (a screenshot as a colour-blind student sees it) agrees with simulate on each pixel."""
    rng = np.random.default_rng(0)
    px = rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)
    for d in CVD:
        seen = cv.simulate_image(px, d)
        assert seen.shape == px.shape and seen.dtype == np.uint8
        for i, j in ((0, 0), (3, 4), (2, 1)):
            assert cv.lab(cv.simulate(seen[i, j].tolist(), None)) == pytest.approx(
                cv.lab(cv.simulate(px[i, j].tolist(), d)), abs=1.0
            )

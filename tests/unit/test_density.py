"""Your data's density picture (cae.app.density): every row counted, and over the grey image a network whose every
colour the key names (the grey too: "5 smaller clusters in grey") and whose clusters stay apart for colour-blind
students — opaque nodes (the grey showed through them: pink, dark green and maroon clusters read as the grey ones)
with an outline that keeps 3:1 against every grey of the image."""

import numpy as np
import pytest

from cae.app import colour_vision as cv
from cae.app import density
from cae.app.figures.palette import OTHER_CLUSTERS, PALETTE

CVD = (None, "protanopia", "deuteranopia", "tritanopia")


def _contrast(a, b, deficiency=None):
    """WCAG 2.1's contrast of two colours as seen with ``deficiency``."""
    la, lb = (float(cv.simulate(c, deficiency) @ np.array([0.2126, 0.7152, 0.0722])) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _hex(rgb):
    return "#" + "".join(f"{int(round(v)):02x}" for v in rgb)


@pytest.fixture(scope="module")
def fifteen():
    """15 clusters (10 take the palette's colours, 5 are grey) over 200,000 rows."""
    rng = np.random.default_rng(1)
    centres = rng.random((15, 2)) * 10
    labels = np.repeat(np.arange(15), np.arange(15, 0, -1) * 2)  # cluster 0 the largest
    nodes = centres[labels] + rng.normal(scale=0.2, size=(len(labels), 2))
    edges = np.array([[i, i + 1] for i in range(len(labels) - 1) if labels[i] == labels[i + 1]])
    X = centres[rng.integers(0, 15, 200_000)] + rng.normal(scale=0.4, size=(200_000, 2))
    fig = density.density_network_figure(X, nodes, edges, labels, np.ones(len(labels)))
    return fig, labels


def test_every_row_is_counted_and_the_network_is_drawn_over_it(fifteen):
    fig, labels = fifteen
    assert fig.data[0].type == "heatmap" and round(np.nansum(10 ** np.asarray(fig.data[0].z, float))) == 200_000
    nodes = [t for t in fig.data if t.type == "scattergl" and t.mode == "markers"]
    assert sum(len(t.x) for t in nodes) == len(labels)


def test_the_key_names_every_colour_grey_included(fifteen):
    """One legend entry per colour drawn: each of the ten coloured clusters by its number, the grey as the clusters it
    holds; no colour drawn without its name."""
    fig, labels = fifteen
    nodes = [t for t in fig.data if t.type == "scattergl" and t.mode == "markers"]
    colours = [t.marker.color for t in nodes]
    assert len(set(colours)) == len(colours) == 11 and set(colours) == {*PALETTE, OTHER_CLUSTERS}
    names = {t.marker.color: t.name for t in nodes}
    assert names[OTHER_CLUSTERS] == "5 smaller clusters in grey"
    assert sorted(names[c] for c in PALETTE) == sorted(f"cluster {k}" for k in range(10))  # the ten largest
    assert all(t.showlegend is not False for t in nodes) and fig.layout.showlegend is not False


@pytest.mark.parametrize("deficiency", CVD)
def test_clusters_stay_apart_over_the_density_for_colour_blind_students(fifteen, deficiency):
    """Opaque nodes in colours at least 10 CIEDE2000 apart (the grey's included) as seen with the deficiency, each
    outlined in a near-black that keeps 3:1 or more against every grey of the image (greys and black stay as they
    are under every deficiency: the outline holds for everyone)."""
    fig, _ = fifteen
    nodes = [t for t in fig.data if t.type == "scattergl" and t.mode == "markers"]
    for t in nodes:
        assert t.marker.opacity == 1 and not str(t.marker.color).startswith("rgba")
        assert t.marker.line.color == density.NODE_OUTLINE and t.marker.line.width >= 1.5
    assert cv.smallest_difference([t.marker.color for t in nodes], deficiency) >= 10
    heat = fig.data[0]
    ramp = [np.array([int(c[k : k + 2], 16) for k in (1, 3, 5)]) for _, c in heat.colorscale]
    for f in np.linspace(0, 1, 11):  # every grey of the image, from a cell of one row to the densest
        grey = _hex(ramp[0] + f * (ramp[1] - ramp[0]))
        assert _contrast(density.NODE_OUTLINE, grey, deficiency) >= 3.0, (grey, deficiency)

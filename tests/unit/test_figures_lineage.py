"""Fuzzy ART's boxes and GNG's edges by age and insertions in the main view (cae.app.figures.lineage)."""

from __future__ import annotations

import numpy as np
import pytest

from cae.algorithms.fuzzy_art import FuzzyART
from cae.algorithms.gng import GNG
from cae.app.figures import network_figure
from cae.app.figures.lineage import accepting_box, age_colours, box_outlines, insertion_marks
from cae.app.figures.palette import AGE_COLOURS
from cae.registry import ALGORITHMS


def _luminance(colour):
    if colour.startswith("#"):
        colour = "rgb(" + ",".join(str(int(colour[k : k + 2], 16)) for k in (1, 3, 5)) + ")"
    r, g, b = (int(v) / 255 for v in colour[colour.index("(") + 1 : -1].split(","))
    lin = [u / 12.92 if u <= 0.03928 else ((u + 0.055) / 1.055) ** 2.4 for u in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


@pytest.fixture(scope="module")
def art():
    X = np.random.default_rng(3).random((400, 2))
    m = FuzzyART(vigilance=0.8)
    recs = [m.learn_one(x) for x in X]
    return m, X, recs


def test_fuzzy_art_is_drawn_as_boxes_whose_corners_are_the_estimators(art):
    """The registry says Fuzzy ART is drawn as boxes; every rectangle drawn runs from box_lower_ to box_upper_."""
    m, X, recs = art
    assert ALGORITHMS["Fuzzy ART"].kind == "boxes"
    fig = network_figure(m, X, None, None, recs[-1], bounds=((0, 1), (0, 1)))
    box_traces = [t for t in fig.data if t.name == "categories (boxes)"]
    x = np.concatenate([np.asarray(t.x, float) for t in box_traces]).reshape(-1, 6)
    y = np.concatenate([np.asarray(t.y, float) for t in box_traces]).reshape(-1, 6)
    drawn = np.column_stack([x[:, 0], y[:, 0], x[:, 1], y[:, 2]])
    want = np.column_stack([m.box_lower_, m.box_upper_])
    order = lambda a: a[np.lexsort(a.T[::-1])]  # noqa: E731
    assert len(box_traces) >= 2 and len(x) == m.n_categories_
    assert np.allclose(order(drawn), order(want), atol=1e-6)  # float32 on the wire
    # closed rectangles: the fifth point is the first, the sixth a gap
    assert np.allclose(x[:, 4], x[:, 0]) and np.all(np.isnan(x[:, 5]))


def test_box_outlines_are_the_corners_given():
    x, y = box_outlines([[0.1, 0.2], [0.5, 0.6]], [[0.3, 0.4], [0.7, 0.9]])
    assert x.tolist()[6:11] == [0.5, 0.7, 0.7, 0.5, 0.5] and y.tolist()[6:11] == [0.6, 0.6, 0.9, 0.9, 0.6]


def test_the_accepting_box_holds_the_sample_when_it_resonates_and_passes_vigilance(art):
    """For samples that resonate, the box drawn (R_J ⊕ x) contains x, and its sides sum to at most d (1 − ρ);
    for a sample that makes a new category, no box is drawn."""
    m, _, _ = art
    rng = np.random.default_rng(9)
    resonated = 0
    for x in rng.random((60, 2)):
        J, lo, hi = accepting_box(m, x)
        acc = m.acceptance(x)
        if acc.winner < 0:
            assert J == -1 and lo is None
            continue
        resonated += 1
        assert J == acc.winner and np.all(lo <= x) and np.all(x <= hi)
        assert (hi - lo).sum() <= 2 * (1 - m.vigilance) + 1e-12
        assert np.all(lo <= m.box_lower_[J]) and np.all(m.box_upper_[J] <= hi)  # J's box stretched, not moved
    assert resonated > 10
    fresh = FuzzyART(vigilance=0.95).fit(np.array([[0.1, 0.1]]))
    assert accepting_box(fresh, [0.9, 0.9])[0] == -1
    fig = network_figure(fresh, None, None, np.array([0.9, 0.9]), None, show_vigilance=True)
    assert not any("would accept" in (t.name or "") for t in fig.data)


def test_the_accepting_box_and_the_vigilance_region_are_drawn_with_a_current_sample(art):
    m, X, recs = art
    x = np.asarray(m.box_upper_[0]) + 0.01
    J, lo, hi = accepting_box(m, x)
    assert J >= 0
    fig = network_figure(m, X, None, x, recs[-1], show_vigilance=True)
    box = next(t for t in fig.data if "would accept" in (t.name or ""))
    assert np.allclose(np.asarray(box.x, float)[:5], [lo[0], hi[0], hi[0], lo[0], lo[0]], atol=1e-6)
    region = next(t for t in fig.data if (t.name or "").startswith(f"vigilance region of category {J}"))
    assert (
        np.nanmin(np.asarray(region.x, float)) <= lo[0] + 1e-6
        and np.nanmax(np.asarray(region.y, float)) >= hi[1] - 1e-6
    )


def test_edge_ages_map_to_bands_around_a_max_monotonically_and_legibly():
    """An older edge is never in a younger band; up to half of a_max the first band, up to a_max the second, past it
    the third; every band's colour keeps 3:1 contrast on the white plot."""
    ages = np.arange(0, 61)
    band, colours, labels = age_colours(ages, 50)
    assert np.all(np.diff(band) >= 0) and band[0] == 0 and band[-1] == 2
    assert (
        band[ages == 25][0] == 0 and band[ages == 26][0] == 1 and band[ages == 50][0] == 1 and band[ages == 51][0] == 2
    )
    assert labels == ("≤ 25", "26–50", "> 50") and colours == list(AGE_COLOURS)
    assert min(1.05 / (_luminance(c) + 0.05) for c in colours) >= 3.0


def test_gng_edges_are_drawn_by_age_and_an_insertion_as_an_event():
    """Each edge is drawn in its age's colour; the step that inserts r marks r, q and f where they are, named."""
    m = GNG(insertion_interval=20, max_edge_age=30)
    X = np.random.default_rng(0).random((400, 2))
    recs = [m.learn_one(x) for x in X]
    assert ALGORITHMS["GNG"].kind == "gas"
    fig = network_figure(m, X, None, X[-1], recs[-1])
    band, colours, _ = age_colours(m.edge_ages_, 30)
    drawn = {t.line.color: len(t.x) // 3 for t in fig.data if (t.name or "").startswith("edges age")}
    assert drawn == {colours[b]: int((band == b).sum()) for b in np.unique(band)}
    ins = next(k for k, r in enumerate(recs) if r.inserted and k > 100)
    m2 = GNG(insertion_interval=20, max_edge_age=30)
    for x in X[: ins + 1]:
        rec = m2.learn_one(x)
    where = insertion_marks(m2, rec)
    ids = list(np.asarray(m2.node_ids_))
    assert np.allclose(where["r"], m2.nodes_[ids.index(rec.new_node_id)])
    assert np.allclose(where["q"], m2.nodes_[ids.index(rec.q_id)])
    fig = network_figure(m2, X[: ins + 1], None, X[ins], rec)
    names = [t.name for t in fig.data]
    assert f"r: inserted now (node {rec.new_node_id})" in names and f"q: largest error (node {rec.q_id})" in names
    assert {"r (new)", "q", "f"} <= {a.text for a in fig.layout.annotations}
    fig = network_figure(m2, X[: ins + 2], None, X[ins + 1], m2.learn_one(X[ins + 1]))
    assert not any((t.name or "").startswith("r: inserted") for t in fig.data)  # the next step inserted nothing


def test_the_lineage_is_drawn_as_two_families_meeting_in_cae():
    """Two rows: the ART-based (Fuzzy ART, then TCA and CAEA in one CIM-based group) and the GNG-based (GNG, SOINN,
    ASOINN, SOINN+), both ending in CAE, which spans them; a step's boxes framed (SOINN dashed, framed or not); each
    arrow with its source above it."""
    from cae.app.figures.lineage import lineage_html

    html = lineage_html(("SOINN", "SOINN+", "CAE"), {"CAE": "#d62728"})
    at = {
        name: html.index(f">{name}</span>") for name in ("Fuzzy ART", "TCA", "CAEA", "GNG", "SOINN", "ASOINN", "SOINN+")
    }
    assert at["Fuzzy ART"] < at["TCA"] < at["CAEA"] < at["GNG"] < at["SOINN"] < at["ASOINN"] < at["SOINN+"]
    assert html.count("border:2px solid #000") == 2 and html.count("border:2px dashed #000") == 1
    assert "grid-row:1 / span 2" in html and "border-left:5px solid #d62728" in html
    assert html.count("→</span>") == 4 and html.count("▶</span>") == 2 and "1.5px dashed" in html
    assert "ART-based" in html and "GNG-based" in html and "CIM-based ART" in html and "aria-label=" in html
    assert lineage_html().count("border:2px") == 0


def test_the_lessons_table_groups_each_number_by_stream_and_names_each_algorithm_once():
    from cae.app import lineage as ln
    from cae.app.figures.lineage import lineage_table_html

    runs = [ln.run_one(s, k, name, n_per_class=100) for s in ln.SETTINGS[:4] for name in ln.STREAMS for k in (0, 1)]
    html = lineage_table_html(ln.summary_table(runs), ln.TABLE_GROUPS)
    assert html.count('scope="colgroup"') == 4 and html.count('colspan="2"') == 4
    assert html.count(">noisy</th>") == html.count(">noise-free</th>") == 4
    assert html.count("<tr>") == 2 + 4 and html.count('scope="rowgroup"') == 2  # Fuzzy ART (3 rows), TCA
    assert 'rowspan="3"' in html and "white-space:nowrap" in html and " ± " not in html.split("<tbody>")[1]
    assert "font-size:0.875rem" in html and "font-size:0.78rem;color:#444" in html  # no 10.9-px grey any more

"""The picture's key (cae.app.figures.key): every mark the picture draws has its own glyph in the key.

A key that shows a round dot for a square mark (GNG's q and f were drawn as ● beside open squares) names a mark
nobody can find in the picture.
"""

from __future__ import annotations

import numpy as np
import pytest

from cae.app.figures import network_figure
from cae.app.figures.key import _SYMBOLS, glyph, key_entries, key_html
from cae.registry import ALGORITHMS


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_marker_in_the_key_is_drawn_with_its_own_symbol(name):
    X = np.random.default_rng(1).random((320, 2))
    model = ALGORITHMS[name].make()
    symbols = set()
    for t, x in enumerate(X):  # each step's picture: insertions, winners, removals come and go
        rec = model.learn_one(x)
        if t % 20 and t < 300:
            continue
        fig = network_figure(model, X[: t + 1], X[max(0, t - 50) : t + 1], x, rec, ((0, 1), (0, 1)), legend=False)
        traces = [tr.to_plotly_json() for tr in fig.data]
        for entry in key_entries(traces):
            if entry["kind"] == "markers" and len(entry["colours"]) == 1:
                symbols.add(entry["symbol"])
                assert entry["symbol"] in _SYMBOLS, (name, t, entry["name"], entry["symbol"])
        assert "cae-key" in fig.layout.meta["key"]
    assert symbols  # the picture marks something beyond its nodes


def test_open_and_filled_squares_differ_in_the_key():
    square = dict(kind="markers", symbol="square", size=12, colours=["#000"], halo=False)
    assert "■" in glyph(square) and "□" in glyph(dict(square, symbol="square-open"))
    assert "●" not in glyph(dict(square, symbol="square-open"))


def test_the_key_escapes_names():
    h = key_html([dict(type="scattergl", mode="markers", name="<b>", marker=dict(color="#000", size=9))])
    assert "&lt;b&gt;" in h and "<b>" not in h

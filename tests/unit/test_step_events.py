"""Every event of a step, from one source: the Playground's "Last step" line (the panel beside the picture, still and
in every frame of Play), the headline of a step and *Explain a step*'s list are all cae.app.step_events, and each event
has its part in the step's explanation (the pages: tests/app/test_step_events_app.py)."""

import numpy as np
import pandas as pd
import pytest

from cae.app import explanations, explanations_lineage
from cae.app.panel import panel
from cae.app.step_events import EXPLAINED_BY, removed_positions, step_events, step_line, step_title
from cae.app.stepper import Stepper
from cae.app.streams import make_stream

#: the lesson link of the issue: /playground?stream=paper2d-ns&n=1500&noise=0.1&seed=9&algo=CAE
LESSON = dict(source="paper2d-ns", n_per_class=1500, noise=0.1, seed=9)


@pytest.fixture(scope="module")
def lesson():
    pg = Stepper(make_stream(LESSON))
    pg.step(227)
    return pg


def _text(blocks):
    """An explanation's blocks as one text: its words and formulas, its tables written out."""
    out = []
    for kind, content in blocks:
        out.append(content.to_string() if isinstance(content, pd.DataFrame) else str(content))
    return "\n".join(out)


def test_the_sweep_at_step_228_is_in_the_last_step_line_and_explain_lists_it(lesson):
    """t = 228: Case III, the edge s1–s2 made, and the isolated-node sweep removing 9 nodes — the line beside the
    picture named only the case (the issue's "Case III — s1 and its neighbours learn, edge s1–s2")."""
    lesson.step(1)
    rec = lesson.record
    events = step_events(rec)
    kinds = [e.kind for e in events]
    assert rec.t == 228 and kinds[0] == "case" and "sweep" in kinds and len(rec.swept_ids) == 9
    sweep = next(e for e in events if e.kind == "sweep")
    assert sweep.text == "isolated-node sweep: 9 nodes removed"
    last = panel(lesson)["last"]
    assert last == step_line(rec) and all(e.text in last for e in events)
    assert explanations.headline(rec) == last and step_title(rec) == f"t = 228: {events[0].text}"
    assert removed_positions(rec).shape == (9, 2)
    assert np.allclose(removed_positions(rec), lesson.deleted_in_frame)  # where the Playground marks them


def _cae_records(n=3000):
    """A CAE run's records with every kind of CAE event among them (initial phase, the three cases, edges made and
    renewed and deleted, λ estimated, V set, sweeps)."""
    pg = Stepper(make_stream(LESSON))
    out = []
    for _ in range(n):
        pg.step(1)
        out.append((pg.record, pg.model, pg.stream.X[pg.t - 1]))
    return out


def test_every_kind_of_cae_event_is_detailed_in_its_explanation():
    """Each event the line names has its part in the step's explanation (EXPLAINED_BY): the line and Explain cannot
    drift apart — an event named in one and not explained in the other fails here."""
    seen = set()
    for rec, model, x in _cae_records(1200):
        events = step_events(rec)
        kinds = {e.kind for e in events}
        new = kinds - seen
        if not new:
            continue
        seen |= kinds
        text = _text(explanations.explain_step(rec, model, x))
        for e in events:
            assert EXPLAINED_BY[e.kind] in text, (rec.t, e)
    assert {"initial", "case", "edge made", "edge renewed", "edges deleted", "lambda", "threshold", "sweep"} <= seen


def test_every_kind_of_fuzzy_art_and_gng_event_is_detailed_in_its_explanation():
    from cae.algorithms.fuzzy_art import FuzzyART
    from cae.algorithms.gng import GNG

    X = make_stream(LESSON).X[:1500]
    seen = set()
    for model in (FuzzyART(vigilance=0.85), GNG(insertion_interval=30, max_edge_age=3)):
        for x in X:
            rec = model.learn_one(x)
            events = step_events(rec)
            kinds = {e.kind for e in events}
            if not kinds - seen:
                continue
            seen |= kinds
            text = _text(explanations_lineage.explain_step(rec, model, x))
            for e in events:
                assert EXPLAINED_BY[e.kind] in text, (type(model).__name__, rec.t, e)
            assert explanations_lineage.headline(rec) == step_line(rec)
    assert {"new category", "resonance", "reset", "start node", "insertion", "adaptation", "edge made"} <= seen
    assert {"edge renewed", "edges removed", "nodes removed"} <= seen

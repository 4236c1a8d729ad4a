"""The pure parts of the Playground's Fuzzy ART and GNG (issue #28, item 3): the table of explained algorithms,
their parameters in configurations and lesson links, the panel's numbers, the quiz's truths and How often?."""

from functools import partial

import numpy as np
import pytest

from cae.algorithms.fuzzy_art import FuzzyART
from cae.algorithms.gng import GNG
from cae.app import explainable
from cae.app.how_often import _model, same_setting
from cae.app.lesson_links import PLAYGROUND_DEFAULTS, parse_playground, playground_query
from cae.app.panel import algorithm_rows, named_rows, panel
from cae.app.quiz import QuizScore
from cae.app.stepper import Stepper
from cae.data import make_paper2d, nonstationary_stream
from cae.registry import ALGORITHMS

STREAM = nonstationary_stream(make_paper2d(100, seed=0), seed=0)


def test_the_table_offers_the_registry_entries_it_explains_in_the_registry_order():
    assert explainable.choices() == [n for n in ALGORITHMS if n in ("CAE", "CAEA", "Fuzzy ART", "GNG")]
    with pytest.raises(KeyError, match="one of CAE, CAEA, Fuzzy ART, GNG"):
        explainable.entry("TCA")
    # every parameter of Fuzzy ART and GNG has a configuration key, with the registry's literature default
    for name in ("Fuzzy ART", "GNG"):
        keys = dict(explainable.entry(name).params)
        assert [p.name for p in keys.values()] == [p.name for p in ALGORITHMS[name].params]
        assert all(PLAYGROUND_DEFAULTS[k] == p.default for k, p in keys.items())


@pytest.mark.parametrize("name, cls", [("Fuzzy ART", FuzzyART), ("GNG", GNG)])
def test_a_configuration_makes_the_algorithms_model_with_its_parameters(name, cls):
    key = "art_vigilance" if name == "Fuzzy ART" else "gng_insertion_interval"
    value = 0.9 if name == "Fuzzy ART" else 40
    cfg = {**PLAYGROUND_DEFAULTS, "algo": name, key: value}
    pg = Stepper(STREAM, **explainable.stepper_args(cfg))
    assert type(pg.model) is cls and getattr(pg.model, key.split("_", 1)[1]) == value
    assert type(_model(cfg)) is cls and getattr(_model(cfg), key.split("_", 1)[1]) == value  # How often? too
    assert not same_setting(cfg, {**cfg, key: value / 2}) and same_setting(cfg, {**cfg, "seed": 3})
    assert explainable.stepper_args({**PLAYGROUND_DEFAULTS, "algo": "CAE"}) == dict(
        deletion_interval=None, max_edge_age=None
    )


def test_lesson_links_carry_the_algorithm_and_clamp_its_parameters_to_their_sliders():
    state, notices = parse_playground(
        {"algo": "GNG", "gng_insertion_interval": "99999", "gng_epsilon_b": "0.3", "art_vigilance": "x"},
        streams=["paper2d-ns"],
    )
    assert state["cfg"]["algo"] == "GNG" and state["cfg"]["gng_epsilon_b"] == 0.3
    assert state["cfg"]["gng_insertion_interval"] == 5000  # the slider's top
    assert any("gng_insertion_interval = 99999 is out of range: using 5000" in n for n in notices)
    assert any("art_vigilance" in n and "not a number" in n for n in notices)
    cfg = {**PLAYGROUND_DEFAULTS, **state["cfg"]}
    q = playground_query(cfg, {}, 10, [])
    assert q["algo"] == "GNG" and q["gng_insertion_interval"] == "5000" and q["gng_epsilon_n"] == "0.006"
    assert not any(k.startswith(("art_", "lam", "amax")) for k in q)  # only the chosen algorithm's
    again, notices = parse_playground(q, streams=["paper2d-ns"])
    assert notices == [] and {**PLAYGROUND_DEFAULTS, **again["cfg"]} == cfg


def test_the_panel_shows_fuzzy_arts_categories_rho_and_the_last_match():
    pg = Stepper(STREAM, model_factory=partial(ALGORITHMS["Fuzzy ART"].make, vigilance=0.8))
    rows = named_rows(panel(pg))
    assert rows["nodes"] == ["#categories", "0"] and rows["lambda"] == ["ρ", "0.8"] and rows["V"][1] == "—"
    pg.step(1)
    assert named_rows(panel(pg))["V"] == ["last match", "new"]  # the first sample makes a category
    pg.step(99)
    t = pg.find_step(1, case=1)
    pg.go_to(t)
    rows = named_rows(panel(pg))
    assert rows["nodes"] == ["#categories", str(pg.model.n_categories_)]
    assert rows["V"] == ["last match", f"{pg.record.match:.3f}"] and pg.record.match >= 0.8
    assert panel(pg)["last"].startswith(f"t = {t}: resonance with category {pg.record.resonance_id}")


def test_the_panel_shows_gngs_next_insertion_and_largest_error():
    pg = Stepper(STREAM, model_factory=partial(ALGORITHMS["GNG"].make, insertion_interval=30, max_nodes=4))
    pg.step(50)
    _, params = algorithm_rows(pg)
    assert params == [["next insertion in", "12"], ["largest error", f"{np.max(pg.model.errors_):.3f}"]]
    pg.step(62)  # two insertions: 4 nodes, n_max
    assert len(pg.model.nodes_) == 4 and algorithm_rows(pg)[1][0] == ["next insertion in", "none"]


def test_the_quiz_scores_gngs_questions_from_the_record():
    pg = Stepper(STREAM, model_factory=partial(ALGORITHMS["GNG"].make, insertion_interval=10))
    pg.step(11)
    score = QuizScore()
    r = score.reveal_step(pg, (True, False), "GNG")  # t = 12 = 2 + 10: an insertion
    assert pg.record.inserted and r.truth == (True, bool(pg.record.edges_deleted)) and r.algo == "GNG"
    assert r.marks[0] and score.asked == 1
    lines = r.lines()
    assert lines[0].startswith("**What GNG did:** Yes: t − 2 (its count of signals after the two start nodes)")
    assert "a node r is inserted" in lines[0] and lines[1].startswith("✓")
    assert lines[2].startswith(("✓", "✗")) and "An edge will be removed (older than a_max)" in lines[2]


def test_the_quiz_keeps_cae_s_answers_and_their_words():
    rec = Stepper(STREAM).step(300)
    assert explainable.quiz_truth("CAE", rec) == (rec.case, bool(rec.edges_deleted), bool(rec.swept_ids))
    r = QuizScore().reveal(300, (rec.case, False, False), explainable.quiz_truth("CAEA", rec))
    assert r.lines()[0].startswith("**What CAE did:**") and "an edge deleted" in r.lines()[2]


def test_find_step_finds_fuzzy_arts_resets():
    pg = Stepper(STREAM, model_factory=partial(ALGORITHMS["Fuzzy ART"].make, vigilance=0.9))
    pg.step(300)
    t = pg.find_step(0, event="reset")
    assert t is not None and pg.inspect(t)[0].reset_ids
    assert Stepper(STREAM).step(10) and Stepper(STREAM).find_step(0, event="reset") is None  # CAE has none

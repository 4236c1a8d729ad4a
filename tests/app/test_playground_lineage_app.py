"""AppTest: the Playground, its quiz and *Explain a step* with Fuzzy ART and GNG (issue #28, item 3)."""

import numpy as np
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.algorithms.fuzzy_art import FuzzyART
from cae.algorithms.gng import GNG

APP = str(ROOT / "app.py")


def _playground(algo=None):
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    if algo:
        at.radio(key="w_algo").set_value(algo).run()
        assert not at.exception
    return at


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def _step(at, n):
    at.number_input(key="w_stepn").set_value(n).run()
    at.button(key="b_stepn").click().run()
    assert not at.exception


def _text(at):
    return " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)


def test_the_algorithm_choice_offers_fuzzy_art_and_gng_with_their_parameters():
    at = _playground()
    assert list(at.radio(key="w_algo").options) == ["CAE", "CAEA", "Fuzzy ART", "GNG"]
    at.radio(key="w_algo").set_value("Fuzzy ART").run()
    assert [at.slider(key=k).value for k in ("w_art_vigilance", "w_art_choice", "w_art_learning_rate")] == [
        0.75,
        0.001,
        1.0,
    ]
    at.radio(key="w_algo").set_value("GNG").run()
    keys = ("epsilon_b", "epsilon_n", "max_edge_age", "insertion_interval", "alpha", "error_decay", "max_nodes")
    assert [at.slider(key=f"w_gng_{k}").value for k in keys] == [0.2, 0.006, 50, 100, 0.5, 0.005, 100]


def test_fuzzy_art_in_the_playground_step_300_its_numbers_and_the_step_explained():
    at = _playground("Fuzzy ART")
    at.slider(key="w_art_vigilance").set_value(0.8).run()
    _step(at, 300)
    pg = at.session_state.pg
    assert isinstance(pg.model, FuzzyART) and pg.t == 300 and pg.model.vigilance == 0.8
    ref = FuzzyART(vigilance=0.8).fit(pg.stream.X[:300])
    np.testing.assert_array_equal(pg.model.weights_, ref.weights_)
    assert _metric(at, "#categories") == str(ref.n_categories_)
    assert _metric(at, "ρ") == "0.8"
    rec = pg.record
    assert _metric(at, "last match") == ("new" if rec.case == 0 else f"{rec.match:.3f}")
    assert at.expander[0].label.startswith("t = 300: ")  # Fuzzy ART's headline, its search explained below
    assert any("M = |I∧w|/|I|" in str(df.value.columns.tolist()) for df in at.dataframe)
    assert "Fuzzy ART (ρ = 0.8, α = 0.001, β = 1)" in _text(at)


def test_gng_in_the_playground_step_300_its_numbers_and_the_step_explained():
    at = _playground("GNG")
    _step(at, 300)
    pg = at.session_state.pg
    assert isinstance(pg.model, GNG) and pg.t == 300
    ref = GNG().fit(pg.stream.X[:300])
    np.testing.assert_array_equal(pg.model.nodes_, ref.nodes_)
    assert _metric(at, "#nodes") == str(len(ref.nodes_))
    assert _metric(at, "next insertion in") == "2"  # insertions at t = 102, 202, 302, …
    assert _metric(at, "largest error") == f"{float(np.max(ref.errors_)):.3f}"
    assert f"{len(ref.edges_):,} edges" in _text(at)
    assert "s1 moves towards the sample by ε_b" in _text(at)
    _step(at, 2)  # t = 302: an insertion, as the panel said
    assert at.session_state.pg.record.inserted and at.expander[0].label.startswith("t = 302: node")
    assert _metric(at, "next insertion in") == "100"


@pytest.mark.parametrize("algo", ["Fuzzy ART", "GNG"])
def test_switching_to_fuzzy_art_or_gng_keeps_the_step_and_the_samples_placed_and_drawn(algo):
    from cae.app.regions import Region

    at = _playground()
    _step(at, 300)
    pg = at.session_state.pg
    pg.place([0.5, 0.5])  # placed by hand at t = 300
    pg.draw([Region.box((0.8, 0.9), (0.1, 0.2))], 50)  # and a drawing from t = 301
    at.run()
    at.radio(key="w_algo").set_value(algo).run()
    assert not at.exception
    new = at.session_state.pg
    assert new is not pg and new.t == 301 and type(new.model) is {"Fuzzy ART": FuzzyART, "GNG": GNG}[algo]
    assert [p for p, _ in new.placed] == [300] and new.drawn == pg.drawn
    ref = {"Fuzzy ART": FuzzyART, "GNG": GNG}[algo]().fit(pg.stream.X[:301])
    np.testing.assert_array_equal(new.model.nodes_, ref.nodes_)  # the same 301 samples, the placed one among them
    note = next(i.value for i in at.info if "Switched" in i.value)
    assert f"Switched from CAE to {algo} (" in note and "at t = 301" in note
    at.radio(key="w_algo").set_value("CAE").run()
    assert at.session_state.pg.t == 301 and at.session_state.pg.drawn == pg.drawn


def _quiz(at):
    at.toggle(key="w_quiz").set_value(True).run()
    assert not at.exception


def test_the_quiz_asks_fuzzy_art_its_question_and_scores_the_reveal():
    at = _playground("Fuzzy ART")
    _step(at, 300)
    _quiz(at)
    assert any("will this sample resonate with a category or make a new one?" in m.value.lower() for m in at.markdown)
    pg = at.session_state.pg
    truth = pg.model.snapshot().learn_one(pg.stream.X[pg.t]).case
    at.radio(key="w_quiz_case_fuzzy_art").set_value(truth).run()
    at.button(key="b_quiz_reveal").click().run()
    assert not at.exception and at.session_state.pg.t == 301
    assert _metric(at, "Score") == "1 / 1" and any(s.value == "Right!" for s in at.success)
    assert "**What Fuzzy ART did:**" in _text(at)


def test_the_quiz_asks_gng_whether_it_inserts_a_node_and_removes_an_edge():
    at = _playground("GNG")
    _step(at, 301)
    _quiz(at)
    assert any("Will GNG insert a node at this step?" in m.value for m in at.markdown)
    at.radio(key="w_quiz_case_gng").set_value(False).run()  # wrong: t = 302 inserts
    at.button(key="b_quiz_reveal").click().run()
    assert not at.exception and at.session_state.pg.record.inserted
    assert _metric(at, "Score") == "0 / 1" and any(e.value == "Not quite." for e in at.error)
    assert "An edge will be removed (older than a_max):" in _text(at)


@pytest.mark.parametrize("algo", ["Fuzzy ART", "GNG"])
def test_a_lesson_link_carries_the_algorithm_and_its_parameters(algo):
    key, value = {"Fuzzy ART": ("art_vigilance", "0.9"), "GNG": ("gng_insertion_interval", "50")}[algo]
    at = _playground(algo)
    at.slider(key=f"w_{key}").set_value(float(value) if "." in value else int(value)).run()
    _step(at, 120)
    q = dict(at.query_params)
    assert q["algo"] == algo and q[key] == value and q["t"] == "120"
    fresh = AppTest.from_file(APP, default_timeout=180)
    fresh.query_params.update(q)
    fresh.run()
    fresh.switch_page("pages/playground.py").run()
    assert not fresh.exception
    pg = fresh.session_state.pg
    assert pg.t == 120 and fresh.radio(key="w_algo").value == algo
    assert fresh.slider(key=f"w_{key}").value == float(value)
    np.testing.assert_array_equal(pg.model.nodes_, at.session_state.pg.model.nodes_)


@pytest.mark.parametrize(
    "algo, kind, check",
    [
        ("Fuzzy ART", "reset", lambda rec: len(rec.reset_ids) > 0),
        ("Fuzzy ART", "new category", lambda rec: rec.case == 0),
        ("GNG", "insertion", lambda rec: rec.inserted),
        ("GNG", "edge removed", lambda rec: len(rec.edges_deleted) > 0),
    ],
)
def test_explain_a_step_finds_and_explains_fuzzy_art_and_gng_steps(algo, kind, check):
    at = _playground(algo)
    if algo == "GNG":
        at.slider(key="w_gng_max_edge_age").set_value(5).run()
    _step(at, 1500)
    at.switch_page("pages/explain.py").run()
    assert not at.exception
    at.number_input(key="w_explain_t").set_value(1).run()
    at.button(key=f"b_next_{kind}").click().run()
    assert not at.exception
    t = at.number_input(key="w_explain_t").value
    rec = at.session_state.pg.inspect(t)[0]
    assert t > 1 and check(rec) and at.header[0].value.startswith(f"t = {t}:")
    text = _text(at)
    if algo == "Fuzzy ART":
        assert "complement coded" in text and any("outcome" in df.value.columns for df in at.dataframe)
        assert "reset (M < ρ)" in str([df.value.to_dict() for df in at.dataframe]) or kind == "new category"
    else:
        assert "The nearest node is **s1" in text and "accumulated error" in text
    assert not any(b.key == "b_jump_lambda" for b in at.button)  # CAE's own event is not offered


def test_next_insertion_agrees_with_the_recorded_insertions():
    """The panel's "next insertion in" is where GNG's trace has its insertions."""
    from functools import partial

    from cae.app.panel import next_insertion
    from cae.app.stepper import Stepper
    from cae.data import make_paper2d, nonstationary_stream
    from cae.registry import ALGORITHMS

    pg = Stepper(
        nonstationary_stream(make_paper2d(100, seed=0), seed=0),
        model_factory=partial(ALGORITHMS["GNG"].make, insertion_interval=37),
    )
    pg.step(400)
    inserted = [t for t in range(1, 401) if pg.find_step(t - 1, case=2) == t]
    assert inserted and all(next_insertion(t - 1, 37) == 1 for t in inserted)
    assert inserted == [t for t in range(1, 401) if next_insertion(t - 1, 37) == 1]

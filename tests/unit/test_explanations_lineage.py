"""Fuzzy ART's and GNG's steps explained with their numbers, and their quiz's answers (cae.app.explanations_lineage).

The records are small enough to check by hand (the numbers in the comments)."""

from __future__ import annotations

import numpy as np
import pytest

from cae.algorithms.fuzzy_art import FuzzyART
from cae.algorithms.gng import GNG
from cae.app.explanations_lineage import (
    DEMOGNG_ORDER,
    GNG_QUIZ_CHOICES,
    QUIZ,
    explain_step,
    fuzzy_art_quiz_truth,
    gng_counter_words,
    gng_quiz_truth,
    headline,
    next_insertion,
)


def _text(blocks):
    return "\n".join(str(c) for k, c in blocks if k in ("md", "latex"))


def _tables(blocks):
    return [c for k, c in blocks if k == "table"]


def _art_reset_then_resonance():
    """ρ = 0.8, α = 0.001: category 0 is the box [0, 0.2] × [0, 0.15] (sides 0.35), category 1 the point
    (0.3, 0.45). x = (0.3, 0.15) is 0.1 (L1) outside box 0: stretched, its sides sum to 0.45, so
    M_0 = (2 − 0.45)/2 = 0.775 < 0.8 (reset) although T_0 = 1.55/(0.001 + 1.65) = 0.9388 is the larger;
    box 1 stretched has sides 0.3: M_1 = 0.85 ≥ 0.8, T_1 = 1.7/2.001 = 0.8496: resonance."""
    m = FuzzyART(vigilance=0.8)
    for x in ([0.0, 0.0], [0.2, 0.15], [0.3, 0.45]):
        m.learn_one(np.array(x))
    x = np.array([0.3, 0.15])
    return m, m.learn_one(x), x


def test_fuzzy_art_search_is_explained_in_order_of_T_with_the_matches_against_rho():
    m, rec, x = _art_reset_then_resonance()
    blocks = explain_step(rec, m, x)
    text = _text(blocks)
    table = _tables(blocks)[0]
    assert table["category"].tolist() == [0, 1]
    assert table["T = |I∧w|/(α+|w|)"].tolist() == [pytest.approx(0.9388, abs=1e-4), pytest.approx(0.8496, abs=1e-4)]
    assert table["M = |I∧w|/|I|"].tolist() == [pytest.approx(0.775), pytest.approx(0.85)]
    assert table["M vs ρ"].tolist() == ["< 0.8", "≥ 0.8"]
    assert table["outcome"].tolist() == ["reset (M < ρ)", "resonance: learns the sample"]
    assert text.startswith("**Resonance** (t = 4): category 1 passes the vigilance test after 1 reset(s)")
    assert r"I &= (x,\ 1 - x) \\ &= (0.3, 0.15, 0.7, 0.85)" in text
    assert r"M_{1} = 0.85 \geq \rho = 0.8" in text
    assert "Its box is now (0.3, 0.15) to (0.3, 0.45)" in text  # fast learning stretched the point to a segment
    assert headline(rec) == "t = 4: resonance with category 1; category 0 reset (match below ρ)"
    assert fuzzy_art_quiz_truth(rec) == 1


def test_fuzzy_art_new_category_after_every_reset():
    """(0.9, 0.9) against the box [0.2, 0.3] × [0.2, 0.25]: stretched, sides 0.7 + 0.7 = 1.4, M = 0.3 < 0.8."""
    m = FuzzyART(vigilance=0.8)
    m.learn_one(np.array([0.2, 0.2]))
    m.learn_one(np.array([0.3, 0.25]))
    x = np.array([0.9, 0.9])
    rec = m.learn_one(x)
    blocks = explain_step(rec, m, x)
    assert _text(blocks).startswith("**New category** (t = 3): every one of the 1 categories was tested and reset")
    assert _tables(blocks)[0]["M = |I∧w|/|I|"].tolist() == [pytest.approx(0.3)]
    assert r"w_{1} = I = (0.9, 0.9, 0.1, 0.1)" in _text(blocks)
    assert fuzzy_art_quiz_truth(rec) == 0 and headline(rec) == "t = 3: new category 1; category 0 reset (match below ρ)"
    first = FuzzyART().learn_one(np.array([0.5, 0.5]))
    assert "there is no category yet" in _text(explain_step(first, m, np.array([0.5, 0.5])))


def _gng_steps():
    m = GNG(insertion_interval=3, epsilon_b=0.5, epsilon_n=0.1)
    xs = [(0, 0), (1, 0), (0.2, 0), (0.9, 0.1), (0.1, 0.1), (0.5, 0.5)]
    return m, [(m.learn_one(np.array(x, float)), np.array(x, float)) for x in xs]


def test_gng_adaptation_is_explained_with_s1_s2_the_error_the_edge_and_the_moves():
    """Nodes (0, 0) and (1, 0), x = (0.2, 0): s1 = 0 at squared distance 0.04, s2 = 1 at 0.64; E_s1 = 0.04;
    the edge 0–1 is made (age 0); s1 moves by 0.5 (x − w_s1) = (0.1, 0), its new neighbour 1 by
    0.1 (x − w_1) = (−0.08, 0)."""
    m = GNG(insertion_interval=3, epsilon_b=0.5, epsilon_n=0.1)
    m.learn_one(np.array([0.0, 0.0]))
    m.learn_one(np.array([1.0, 0.0]))
    x = np.array([0.2, 0.0])
    rec = m.learn_one(x)
    blocks = explain_step(rec, m, x)
    text = _text(blocks)
    assert "**s1 = node 0**" in text and "**s2 = node 1**" in text
    assert r"\|x - w_{s_1}\|^2 &= 0.04 \\ \|x - w_{s_2}\|^2 &= 0.64" in text
    assert r"\|x - w_{s_1}\|^2 = 0.04" in text and text.count("= 0.04") >= 2  # E_s1 = 0 · (1 − β) + 0.04
    assert "the edge 0–1 is **created** with age 0" in text
    aged, moves, errors = _tables(blocks)
    assert aged.to_dict("records") == [{"edge": "0–1", "age now": 0}]
    assert moves["move"].tolist() == ["(0.1, 0)", "(-0.08, 0)"]
    assert errors["node"].tolist() == [0, 1] and errors["error E"].tolist() == [0.04, 0.0]
    assert "No edge of s1 is older than a_max = 50" in text
    assert (
        gng_quiz_truth(rec) is False
        and headline(rec) == "t = 3: adaptation (s1 = node 0, s2 = node 1); edge 0–1 made (s1–s2)"
    )


def test_gng_insertion_is_explained_with_q_f_and_r():
    """The insertion puts r halfway between q and f and says so, with their errors after the cut."""
    m, steps = _gng_steps()
    rec, x = next((r, x) for r, x in steps if r.inserted)
    blocks = explain_step(rec, m, x)
    text = _text(blocks)
    assert rec.t == 5 and (rec.q_id, rec.f_id, rec.new_node_id) == (0, 1, 2)
    assert text.startswith(
        "**Insertion** (t = 5; the count of signals after the two start nodes, t − 2 = 3, is a multiple of λ = 3): "
        "q = node 0 has the largest accumulated error"
    )
    assert DEMOGNG_ORDER in text
    assert "f = node 1 is its neighbour of largest error" in text and "r = node 2" in text
    assert rf"E_q = {rec.error_q:.4g}" in text and rec.error_r == rec.error_q
    assert gng_quiz_truth(rec) is True
    assert headline(rec) == (
        "t = 5: node 2 inserted between q = 0 and f = 1; adaptation (s1 = node 0, s2 = node 2); "
        "edge 0–2 renewed (s1–s2, age 0)"
    )
    assert "edge 0–1" not in text  # q–f was replaced by q–r and r–f: s1 = 0 meets s2 = r = 2
    start = steps[0][0]
    assert _text(explain_step(start, m, steps[0][1])).startswith("**Start node** (t = 1)")


def test_the_quiz_per_algorithm_asks_its_question_and_answers_from_the_record():
    m, rec, _ = _art_reset_then_resonance()
    question, choices, truth = QUIZ["Fuzzy ART"]
    assert question == "Will this sample resonate with a category or make a new one?"
    assert truth(rec) in choices and choices[truth(rec)].startswith("It resonates")
    question, choices, truth = QUIZ["GNG"]
    assert question == "Will GNG insert a node at this step?"
    _, steps = _gng_steps()
    assert [truth(r) for r, _ in steps] == [False, False, False, False, True, False]
    assert all(truth(r) in choices for r, _ in steps)


def test_gngs_next_insertion_is_stated_from_its_own_counter_why_602():
    """With λ = 100 GNG inserts at t = 102, 202, …, 602: its counter is the signals after its two start nodes
    (DemoGNG's signalsPresented, t − 2), and it inserts before learning the signal. At t = 600 — a multiple of λ of
    t — nothing is inserted, and the explanation says the next insertion is at t = 602, not at t = 600."""
    from cae.app.streams import make_stream

    X = make_stream(dict(source="paper2d-ns", n_per_class=250, noise=0.1, seed=0)).X
    m = GNG(insertion_interval=100)
    recs = {t: m.learn_one(x) for t, x in enumerate(X[:600], start=1)}
    assert [t for t, r in recs.items() if r.inserted] == [102, 202, 302, 402, 502]
    text = _text(explain_step(recs[600], m, X[599]))
    assert not recs[600].inserted and gng_quiz_truth(recs[600]) is False
    assert "no insertion at this step. GNG's counter (signals after its two start nodes) is t − 2 = 598" in text
    assert "the next insertion is at t = 602 (in 2 samples), not at t = 600." in text
    assert DEMOGNG_ORDER in text and "**insert first**" in DEMOGNG_ORDER and "**decays**" in DEMOGNG_ORDER
    rec = m.learn_one(X[600])  # t = 601
    assert not rec.inserted and "at t = 602 (in 1 sample)" in _text(explain_step(rec, m, X[600]))
    rec = m.learn_one(X[601])  # t = 602
    assert rec.inserted and "t − 2 = 600, is a multiple of λ = 100" in _text(explain_step(rec, m, X[601]))
    assert gng_counter_words(602, m).endswith("the next insertion is at t = 702 (in 100 samples), not at t = 700.")
    assert [next_insertion(t, 100) for t in (0, 1, 2, 600, 601, 602)] == [102, 101, 100, 2, 1, 100]
    full = GNG(insertion_interval=3, max_nodes=3)
    for x in X[:20]:
        full.learn_one(x)
    assert gng_counter_words(20, full) == "GNG has n_max = 3 nodes: no more insertions."
    assert "before the sample is learned" in GNG_QUIZ_CHOICES[True]

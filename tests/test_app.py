"""AppTest through app.py: every page, its controls, and what it shows."""


import numpy as np
from streamlit.testing.v1 import AppTest

from cae import CAE
from conftest import ROOT

APP = str(ROOT / "app.py")


def _app():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def _seen(at):
    return int(_metric(at, "Samples seen").split("/")[0].replace(",", ""))


def _playground():
    at = _app()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    return at


def test_home_shows_the_paper_and_the_preset():
    at = _app()
    assert at.title[0].value == "CAE Explorer"
    text = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "Neural Computing and Applications 38, 2026" in text
    at.button(key="b_preset").click().run()
    assert not at.exception
    assert at.title[0].value == "Playground"
    assert at.session_state.pg_cfg["source"] == "paper2d-ns"


def test_playground_step_stepn_reset():
    at = _playground()
    assert _seen(at) == 0
    at.button(key="b_step1").click().run()
    assert _seen(at) == 1 and _metric(at, "#nodes") == "1"
    at.number_input(key="w_stepn").set_value(250).run()
    at.button(key="b_stepn").click().run()
    assert _seen(at) == 251
    pg = at.session_state.pg
    assert int(_metric(at, "#nodes")) == len(pg.model.nodes_) > 10
    assert _metric(at, "λ") == str(pg.model.deletion_interval_)
    assert pg.trace_so_far.shape[0] == 251  # the traces have one row per step
    assert any(c.value == "251 steps recorded" for c in at.caption)
    at.button(key="b_reset").click().run()
    assert _seen(at) == 0 and at.session_state.pg.t_max == 0


def test_play_ticks_and_scrub_back():
    at = _playground()
    at.select_slider(key="w_speed").set_value(50).run()
    at.toggle(key="w_play").set_value(True).run()
    ticks = [_seen(at)]
    for _ in range(3):  # each run is one frame of the play fragment
        at.run()
        ticks.append(_seen(at))
    assert ticks == [50, 100, 150, 200]
    at.toggle(key="w_play").set_value(False).run()
    assert _seen(at) == 200
    at.slider(key="w_scrub").set_value(60).run()
    assert _seen(at) == 60
    pg = at.session_state.pg
    assert pg.t == 60 and pg.t_max == 200 and pg.record.t == 60
    fresh = CAE().fit(pg.stream.X[:60])
    assert int(_metric(at, "#nodes")) == len(fresh.nodes_)
    np.testing.assert_array_equal(pg.model.nodes_, fresh.nodes_)
    # continue from here forks the history
    at.button(key="b_fork").click().run()
    assert at.session_state.pg.t_max == 60 and _seen(at) == 60
    at.number_input(key="w_stepn").set_value(10).run()
    at.button(key="b_stepn").click().run()  # learning goes on from the fork
    assert _seen(at) == 70 and at.session_state.pg.t_max == 70



def test_caea_sliders_rebuild_the_run():
    at = _playground()
    at.radio(key="w_algo").set_value("CAEA").run()
    at.slider(key="w_lam").set_value(40).run()
    at.number_input(key="w_stepn").set_value(100).run()
    at.button(key="b_stepn").click().run()
    assert _metric(at, "λ") == "40"
    assert at.session_state.pg.model.deletion_interval == 40


def test_explanation_names_the_right_case_with_its_numbers():
    at = _playground()
    at.number_input(key="w_stepn").set_value(400).run()
    at.button(key="b_stepn").click().run()
    pg = at.session_state.pg
    t3 = pg.find_step(100, case=3)
    at.switch_page("pages/explain.py").run()
    at.number_input(key="w_explain_t").set_value(t3).run()
    assert not at.exception
    assert f"t = {t3}: Case III" in at.subheader[0].value
    # the numbers, computed here by hand from the model as it was before the step
    before = CAE().fit(pg.stream.X[: t3 - 1])
    x = pg.stream.X[t3 - 1]
    Y, sig = np.asarray(before.nodes_), float(np.nanmean(before.sigmas_))
    cim = np.sqrt(1 - np.mean(np.exp(-((x - Y) ** 2) / (2 * sig**2)), axis=1))
    s1, s2 = np.argsort(cim, kind="stable")[:2]
    latex = " ".join(l.value for l in at.latex)
    assert f"V_1 = {cim[s1]:.4g}" in latex and f"V_2 = {cim[s2]:.4g}" in latex
    assert f"V = {before.threshold_:.4g}" in latex
    text = " ".join(m.value for m in at.markdown)
    assert "Case III" in text and f"row {s1}" in text


def test_explain_page_jumps_to_lambda_and_shows_the_diversity():
    at = _app()
    at.switch_page("pages/explain.py").run()
    at.button(key="b_first50").click().run()
    at.button(key="b_jump_λ fixed").click().run()
    assert not at.exception
    pg = at.session_state.pg
    t = pg.find_step(0, event="lambda")
    assert f"t = {t}: initial phase" in at.subheader[0].value
    text = " ".join(m.value for m in at.markdown)
    lam = pg.model.deletion_interval_
    assert f"n_active ← {lam // 2}" in text and f"λ ← 2·n_active = {lam}" in text
    assert any(l.value.strip("$\n ").endswith("< 10^{-6}") for l in at.latex)


def test_every_page_renders_without_exception():
    at = _app()
    for page in ("pages/playground.py", "pages/explain.py"):
        at.switch_page(page).run()
        assert not at.exception, page

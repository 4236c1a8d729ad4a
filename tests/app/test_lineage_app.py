"""The Lineage page runs the lesson in the background and shows its table and the four networks."""

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app.figures.lineage import KIND_NOTES
from cae.app.lineage import SETTINGS, TABLE_COLUMNS


def test_the_lineage_page_runs_the_lesson_over_two_seeds_and_shows_the_table():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/lineage.py").run()
    assert not at.exception
    at.selectbox(key="w_lin_n").set_value(250).run()
    at.select_slider(key="w_lin_seeds").set_value(2).run()
    at.button(key="b_lin_run").click().run()
    job = at.session_state["lineage_job"]
    assert job.wait(300) and job.error is None
    at.run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table.columns) == TABLE_COLUMNS
    assert table["seeds"].tolist() == [2] * len(SETTINGS)
    assert table["algorithm"].tolist() == ["Fuzzy ART"] * 3 + ["GNG"] * 3 + ["CAEA", "CAE"]
    assert all(" ± " in v for v in table["NMI"]) and all(" ± " in v for v in table["merges"])
    words = " ".join(m.value for m in at.markdown)
    assert "ρ = 0.5 is too low" in words and "λ = 1000 is too large" in words and "No parameter" in words
    # the four networks at the step chosen, Fuzzy ART's as boxes
    assert at.slider(key="w_lin_t").value == 1650  # clamped to the 250-per-class stream's 1,650 samples
    charts = list(at.get("plotly_chart"))
    assert len(charts) == 4
    assert '"categories (boxes)"' in charts[0].proto.spec
    assert (at.query_params["n"], at.query_params["seeds"]) == ("250", "2")  # a lesson link of this state


def test_a_lesson_link_opens_the_lineage_page_with_its_settings():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update({"n": "500", "art": "0.95", "gng": "1000", "t": "800", "seed": "3"})
    at.run()
    at.switch_page("pages/lineage.py").run()
    assert not at.exception
    assert at.selectbox(key="w_lin_n").value == 500 and at.select_slider(key="w_lin_art").value == 0.95
    assert at.select_slider(key="w_lin_gng").value == 1000 and at.slider(key="w_lin_t").value == 800
    assert at.number_input(key="w_lin_seed").value == 3
    assert "**Fuzzy ART ρ = 0.95** (too high)" in [m.value for m in at.markdown]


def test_compare_says_how_to_read_fuzzy_arts_boxes_and_gngs_edges():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/compare.py").run()
    at.select_slider(key="w_cmp_n").set_value(250).run()
    at.multiselect(key="w_cmp_algos").set_value(["CAE", "Fuzzy ART", "GNG"]).run()
    at.number_input(key="w_cmp_stepn").set_value(600).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(c.endswith(KIND_NOTES["boxes"]) for c in captions) and any(
        c.endswith(KIND_NOTES["gas"]) for c in captions
    )
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert '"categories (boxes)"' in specs[1] and "removed past a_max = 50" in specs[2]

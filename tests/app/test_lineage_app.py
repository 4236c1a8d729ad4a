"""The Lineage page: the two families meeting in CAE, the two networks of one step of the lineage, the lesson's
table with one sentence per row (the committed run, or one run in the background), and its lesson link."""

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app import lineage as ln
from cae.app.figures.lineage import KIND_NOTES


def _lineage(monkeypatch, results=None, query=None):
    if results is not None:
        monkeypatch.setenv("CAE_EXPLORER_RESULTS", str(results))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    if query:
        at.query_params.update(query)
    at.run()
    at.switch_page("pages/lineage.py").run()
    assert not at.exception
    return at


def _html(at):
    return " ".join(h.proto.body for h in at.get("html"))


def test_the_page_shows_the_lineage_one_steps_two_networks_and_the_committed_table(monkeypatch, tmp_path):
    """A small committed run in a results folder of its own: the lineage's seven boxes, GNG and ASOINN (the default
    step) drawn at t = 3,300 with GNG's counter and DemoGNG's order, the table's 25 rows and one sentence per row."""
    runs = ln.run_all(1, 100)
    ln.write_runs(runs, tmp_path / "lineage.csv")
    at = _lineage(monkeypatch, tmp_path, {"n": "250"})
    html = _html(at)
    for name in ("Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "ASOINN", "SOINN+"):
        assert f"<b>{name}</b>" in html
    assert at.selectbox(key="w_lin_step").value == 4  # GNG → ASOINN
    charts = list(at.get("plotly_chart"))
    assert len(charts) == 2 and "removed past a_max = 50" in charts[0].proto.spec
    captions = [c.value for c in at.caption]
    assert KIND_NOTES["gas"] in captions
    assert any(c.startswith("GNG's counter (signals after its two start nodes) is t − 2 = 1,648") for c in captions)
    assert any("DemoGNG's order" in c for c in captions)
    assert any(c.startswith("**GNG → ASOINN** · ASOINN inserts a node where a sample falls outside") for c in captions)
    assert at.slider(key="w_lin_t").value == 1650  # 3,300 clamped to the 250-per-class stream's 1,650 samples
    # the committed table and its sentences, from the folder's CSV
    assert html.count("<tr>") == 2 + len(ln.SETTINGS)
    assert "The committed run, `results/lineage.csv` (1 seed, 660 samples a run on the noisy stream; " in " ".join(
        captions
    )
    words = " ".join(m.value for m in at.markdown)
    for s in ln.SETTINGS:
        assert f"- {ln.setting_sentence(s, runs)}" in words
    assert (at.query_params["step"], at.query_params["stream"], at.query_params["n"]) == ("4", "noisy", "250")


def test_another_step_and_the_noise_free_stream_draw_that_steps_networks(monkeypatch, tmp_path):
    at = _lineage(monkeypatch, tmp_path / "none", {"n": "250", "t": "400"})
    assert any(c.startswith("No committed run to show") for c in (c.value for c in at.caption))
    at.selectbox(key="w_lin_step").set_value(1).run()  # Fuzzy ART → TCA
    at.radio(key="w_lin_stream").set_value("noise-free").run()
    assert not at.exception
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    assert '"categories (boxes)"' in specs[0] and '"categories (boxes)"' not in specs[1]
    titles = [m.value for m in at.markdown if m.value.startswith("**")]
    assert titles[:2] == ["**Fuzzy ART ρ = 0.75** · usual", "**TCA λ = 500, σ_init = 0.1** · usual: the paper's"]
    assert "border:2px solid #000" in _html(at)  # the step's two boxes framed
    assert at.query_params["stream"] == "noise-free" and at.slider(key="w_lin_t").value == 400


def test_the_page_runs_the_lesson_in_the_background_and_shows_its_table(monkeypatch, tmp_path):
    at = _lineage(monkeypatch, tmp_path, {"n": "250", "seeds": "2"})
    assert at.select_slider(key="w_lin_seeds").value == 2
    at.button(key="b_lin_run").click().run()
    job = at.session_state["lineage_job"]
    assert job.wait(600) and job.error is None and len(job.runs) == 2 * 2 * len(ln.SETTINGS)
    at.run()
    assert not at.exception
    assert "Done: 25 settings on 2 streams over 2 seeds (seeds 0–1)." in [c.value for c in at.caption]
    html = _html(at)
    assert html.count("<tr>") == 2 + len(ln.SETTINGS) and "edges across classes" in html
    words = " ".join(m.value for m in at.markdown)
    assert ln.setting_sentence(ln.setting("GNG λ = 10"), job.runs) in words


def test_a_lesson_link_opens_the_lineage_page_with_its_settings(monkeypatch, tmp_path):
    at = _lineage(monkeypatch, tmp_path, {"n": "500", "step": "6", "stream": "noise-free", "t": "800", "seed": "3"})
    assert at.selectbox(key="w_lin_n").value == 500 and at.selectbox(key="w_lin_step").value == 6
    assert at.radio(key="w_lin_stream").value == "noise-free"
    assert at.slider(key="w_lin_t").value == 800 and at.number_input(key="w_lin_seed").value == 3
    assert "**SOINN+** · no parameter" in [m.value for m in at.markdown]


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

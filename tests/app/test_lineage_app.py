"""The Lineage page: the two families as the paper draws them, the lesson's seven steps — each one's words with
its numbers above its two networks, its rows of the table (the whole table one click away) — the committed run or
one run in the background, and its lesson link."""

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app import lineage as ln
from cae.app import lineage_lesson as lesson
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


def _words(at):
    return " ".join(m.value for m in at.markdown)


def test_the_page_opens_on_the_lessons_first_step_with_its_networks_and_its_rows(monkeypatch, tmp_path):
    """A small committed run in a results folder of its own: the families (SOINN too), step 1's words with that run's
    numbers above Fuzzy ART's and TCA's networks, and the table filtered to their 8 rows (the whole table one click
    away)."""
    runs = ln.run_all(2, 100)
    ln.write_runs(runs, tmp_path / "lineage.csv")
    at = _lineage(monkeypatch, tmp_path, {"n": "250"})
    html = _html(at)
    for name in ("Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "SOINN", "ASOINN", "SOINN+"):
        assert f">{name}</span>" in html
    assert "§2 based on" in html and "[furao06]" in html
    assert at.selectbox(key="w_lin_step").value == 1
    step = lesson.STEPS[0]
    first = at.markdown[0].value
    assert first.startswith("**Step 1 of 7 · Fuzzy ART → CIM-based ART** (the classic ART, then TCA). ART-based")
    assert first.endswith(lesson.step_text(step, runs)) and "On the noisy stream Fuzzy ART ends with" in first
    titles = [m.value for m in at.markdown if m.value.startswith("**") and "** · " in m.value]
    assert titles == [
        "**Fuzzy ART ρ = 0.75** · usual: the app's default",
        "**TCA λ = 500, σ_init = 0.1** · usual: the paper's grid search",
    ]
    charts = list(at.get("plotly_chart"))
    assert len(charts) == 2 and '"categories (boxes)"' in charts[0].proto.spec
    assert at.slider(key="w_lin_t").value == 1650  # 3,300 clamped to the 250-per-class stream's 1,650 samples
    assert html.count("<tr>") == 2 + len(lesson.step_settings(step)) == 2 + 8
    captions = " ".join(c.value for c in at.caption)
    assert "The committed run, `results/lineage.csv` (2 seeds, 660 samples a run on the noisy stream; " in captions
    words = _words(at)
    for s in lesson.step_settings(step):
        assert f"- {ln.setting_sentence(s, runs)}" in words
    assert ln.setting_sentence(ln.setting("CAE"), runs) not in words
    at.toggle(key="w_lin_all").set_value(True).run()
    assert _html(at).count("<tr>") == 2 + len(ln.SETTINGS)
    assert (at.query_params["step"], at.query_params["stream"], at.query_params["n"]) == ("1", "noisy", "250")


def test_each_step_draws_its_two_networks_says_its_words_and_shows_its_rows(monkeypatch, tmp_path):
    runs = ln.run_all(2, 100)
    ln.write_runs(runs, tmp_path / "lineage.csv")
    at = _lineage(monkeypatch, tmp_path, {"n": "250", "t": "400"})
    for k, step in enumerate(lesson.STEPS, start=1):
        at.selectbox(key="w_lin_step").set_value(k).run()
        assert not at.exception
        head = at.markdown[0].value
        assert head.startswith(f"**Step {k} of 7 · {step.title}**") and lesson.step_text(step, runs) in head
        assert ("**Paper says / code does**" in head) == bool(step.notes)
        names = [m.value.split("** · ")[0][2:] for m in at.markdown if m.value.startswith("**") and "** · " in m.value]
        assert [ln.setting(name).algorithm for name in names] == list(step.draws)
        assert len(list(at.get("plotly_chart"))) == 2
        assert _html(at).count("<tr>") == 2 + len(lesson.step_settings(step)), step.title
        assert ("border:2px" in _html(at)) and at.query_params["step"] == str(k)
        assert len(at.table) == (1 if step.per_seed else 0)
    at.selectbox(key="w_lin_step").set_value(4).run()  # GNG's counter and DemoGNG's order under its picture
    captions = [c.value for c in at.caption]
    assert KIND_NOTES["gas"] in captions
    assert any(c.startswith("GNG's counter (signals after its two start nodes) is t − 2 = 398") for c in captions)
    at.radio(key="w_lin_stream").set_value("noise-free").run()
    assert not at.exception and at.query_params["stream"] == "noise-free"


def test_without_a_committed_run_the_steps_say_their_words_and_the_page_says_why(monkeypatch, tmp_path):
    at = _lineage(monkeypatch, tmp_path / "none", {"n": "250", "t": "400"})
    assert any(c.startswith("No committed run to show") for c in (c.value for c in at.caption))
    assert at.markdown[0].value.endswith(lesson.STEPS[0].words)  # no numbers to quote
    assert "border:2px solid #000" in _html(at)  # the step's two boxes framed


def test_the_page_runs_the_lesson_in_the_background_and_quotes_it(monkeypatch, tmp_path):
    at = _lineage(monkeypatch, tmp_path, {"n": "250", "seeds": "2", "step": "3"})
    assert at.select_slider(key="w_lin_seeds").value == 2
    at.button(key="b_lin_run").click().run()
    job = at.session_state["lineage_job"]
    assert job.wait(600) and job.error is None and len(job.runs) == 2 * 2 * len(ln.SETTINGS)
    at.run()
    assert not at.exception
    assert "Done: 25 settings on 2 streams over 2 seeds (seeds 0–1). The steps quote this run." in [
        c.value for c in at.caption
    ]
    html = _html(at)
    assert html.count("<tr>") == 2 + 6 and "edges across classes" in html  # CAEA's 5 rows and CAE's
    assert lesson.step_text(lesson.STEPS[2], job.runs) in at.markdown[0].value
    assert ln.setting_sentence(ln.setting("CAEA λ = 10"), job.runs) in _words(at)


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

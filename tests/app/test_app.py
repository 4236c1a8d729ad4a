"""AppTest through app.py: every page, its controls, and what it shows."""

import numpy as np
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae import CAE
from cae.app.player import frames_wanted
from cae.evaluation import nmi

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


def test_playground_shows_nmi_and_ari_as_n_a_while_one_class_is_seen():
    """Stream #1 alone holds one class: NMI and ARI are undefined there (scikit-learn's flip between 0 and 1 as its
    clusters split and merge: t = 203, 7 clusters, would read 1.000). The panel says "n/a", "one class so far" under
    it, and why beside the numbers; from stream #2 on the scores are scikit-learn's."""
    at = _playground()
    assert at.session_state.pg.stream.stage_ends[0] == 1650
    for n, clusters in ((203, "7"), (97, "9"), (540, "3")):
        at.number_input(key="w_stepn").set_value(n).run()
        at.button(key="b_stepn").click().run()
        assert not at.exception and _metric(at, "#clusters") == clusters
        shown = [next(m for m in at.metric if m.label == name) for name in ("NMI", "ARI")]
        assert [(m.value, m.delta) for m in shown] == [("n/a", "one class")] * 2  # the why under the value
        note = next(c.value for c in at.caption if c.value.startswith("NMI/ARI against"))
        assert "n/a while the labels seen hold one class — both are undefined there" in note
    at.number_input(key="w_stepn").set_value(1000).run()
    at.button(key="b_stepn").click().run()
    pg = at.session_state.pg
    y, pred = pg.stream.y[: pg.t], pg.model.predict(pg.stream.X[: pg.t])
    keep = y != pg.stream.noise_label
    assert _metric(at, "NMI") == f"{nmi(y[keep], pred[keep]):.3f}" != "1.000"
    assert not any("one class" in c.value for c in at.caption)


def test_live_metrics_on_one_class():
    """live_metrics: by default a single class has no NMI/ARI (NaN) and says why (cae.evaluation.ONE_CLASS_SO_FAR);
    under the text's convention it gets scikit-learn's scores (0 with several clusters), under the paper's 1; an
    unknown convention is refused."""
    from cae.app.stepper import Stepper
    from cae.data import make_paper2d, nonstationary_stream
    from cae.evaluation import ONE_CLASS_SO_FAR

    pg = Stepper(nonstationary_stream(make_paper2d(1500, seed=0), seed=0))
    pg.step(1)
    assert pg.live_metrics()["scores n/a"] == ONE_CLASS_SO_FAR  # one sample: one class too
    pg.step(299)
    assert pg.model.n_clusters_ > 1
    shown, paper, text = pg.live_metrics(), pg.live_metrics(convention="paper"), pg.live_metrics(convention="text")
    assert shown["single class"] and paper["single class"] and text["single class"]
    assert np.isnan(shown["NMI"]) and np.isnan(shown["ARI"]) and shown["scores n/a"] == "n/a — one class so far"
    assert paper["NMI"] == paper["ARI"] == 1.0 and paper["scores n/a"] == ""
    assert text["NMI"] == pytest.approx(0.0) and text["ARI"] == pytest.approx(0.0)
    with pytest.raises(ValueError, match="convention"):
        pg.live_metrics(convention="published")
    pg.step(1700)
    later = pg.live_metrics()
    assert not later["single class"] and later["scores n/a"] == "" and 0 < later["NMI"] <= 1


def test_play_runs_in_the_browser_and_stops_on_the_frame_shown():
    at = _playground()
    at.selectbox(key="w_speed").set_value(50).run()
    at.toggle(key="w_play").set_value(True).run()
    assert not at.exception
    # while Play starts, the still view stays (at the step Play started from: the browser hides it when the
    # player has drawn its first frame), saying what it waits for; no history slider
    assert _seen(at) == 0 and any(
        c.value.startswith(":material/hourglass_top: **Play is starting**") for c in at.caption
    )
    assert not [s for s in at.slider if s.key == "w_scrub"]
    play = at.session_state.play_session
    pg = at.session_state.pg
    assert play.t_start == 0 and pg.t == 200  # the first answer: 4 frames of 50 samples, computed ahead
    # the browser shows frame 150 and asks for more (what the player's JavaScript sends)
    at.session_state["player"] = {"epoch": play.epoch, "seq": 1, "shown": 150, "fps": 5}
    at.run()
    assert not at.exception and play.served == 1 and play.shown == 150
    # from then on the browser's player draws the frames: no still view, no waiting line
    assert not [m for m in at.metric if m.label == "Samples seen"]
    assert not any("Play is starting" in c.value for c in at.caption)
    assert pg.t == 200 + 50 * frames_wanted(5)  # as many frames as 1.5 s of play at 5 frames/s
    assert dict(at.query_params)["t"] == "150"  # the link says what the class sees
    # Play switched off beside the plot: the run stops on the frame the browser last reported
    at.toggle(key="w_play").set_value(False).run()
    assert "play_session" not in at.session_state
    assert _seen(at) == 150
    pg = at.session_state.pg
    assert pg.t == 150 and pg.t_max == 150 and pg.record.t == 150  # the frames after it were never seen
    np.testing.assert_array_equal(pg.model.nodes_, CAE().fit(pg.stream.X[:150]).nodes_)
    at.slider(key="w_scrub").set_value(60).run()
    assert _seen(at) == 60
    pg = at.session_state.pg
    assert pg.t == 60 and pg.t_max == 150 and pg.record.t == 60
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
    assert f"t = {t3}: Case III" in at.header[0].value
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
    at.button(key="b_jump_lambda").click().run()
    assert not at.exception
    pg = at.session_state.pg
    t = pg.find_step(0, event="lambda")
    assert f"t = {t}: initial phase" in at.header[0].value
    text = " ".join(m.value for m in at.markdown)
    lam = pg.model.deletion_interval_
    assert f"n_active ← {lam // 2}" in text and f"λ ← 2·n_active = {lam}" in text
    assert any(l.value.strip("$\n ").endswith("< 10^{-6}") for l in at.latex)


def test_explain_page_jumps_both_ways():
    """After a run (the usual way a class arrives), the previous Case III / deletion are found too."""
    at = _playground()
    at.number_input(key="w_stepn").set_value(3000).run()
    at.button(key="b_stepn").click().run()
    pg = at.session_state.pg
    at.switch_page("pages/explain.py").run()
    assert at.number_input(key="w_explain_t").value == 3000
    for kind, kw in (("Case III", dict(case=3)), ("edge deletion", dict(event="deletion"))):
        now = at.number_input(key="w_explain_t").value
        at.button(key=f"b_prev_{kind}").click().run()
        want = pg.find_step(now, direction="previous", **kw)
        assert want is not None and want < now
        assert at.number_input(key="w_explain_t").value == want and f"t = {want}:" in at.header[0].value
        at.button(key=f"b_next_{kind}").click().run()
        nxt = pg.find_step(want, **kw)  # None when that was the last one: the view stays, with a notice
        assert at.number_input(key="w_explain_t").value == (nxt or want)
    at.number_input(key="w_explain_t").set_value(1).run()
    at.button(key="b_prev_Case I").click().run()
    assert not at.exception and any("No Case I in the recorded steps before t = 1" in i.value for i in at.info)


def test_long_formulas_are_broken_into_lines():
    """A 16-feature winner update: every number is on a line of at most four numbers (nothing clipped)."""
    from cae.app.explanations import explain_step

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.02, (400, 16)) for c in (0.3, 0.7)])[rng.permutation(800)]
    m = CAE().learn_many(X[:-100])
    for x in X[-100:]:
        rec = m.learn_one(x)
        if rec.case == 3:
            break
    update = next(c for k, c in explain_step(rec, m, x) if k == "latex" and "aligned" in c and "M_{s_1} &=" in c)
    lines = update.split("\\\\")
    assert len(lines) >= 12 and all(line.count(",") <= 4 for line in lines)  # 4 numbers, 3 commas + 1 at the break
    _, before, after = rec.moved[0]
    for v in np.concatenate([before, after, x]):
        assert f"{v:.4g}" in update


def test_every_page_renders_without_exception():
    at = _app()
    for page in ("pages/playground.py", "pages/explain.py"):
        at.switch_page(page).run()
        assert not at.exception, page


# ------------------------------------------------------------------ the geometry a lesson depends on
def _figure(at, key):
    """The Plotly figure (as a dict) of the chart with widget key ``key``."""
    import json

    chart = next(c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}"))
    return json.loads(chart.proto.spec)


def _width(fig):
    x0, x1 = fig["layout"]["xaxis"]["range"]
    return x1 - x0


def _names(fig):
    return [t.get("name") for t in fig["data"]]


def test_focus_on_s1_and_every_nodes_region_on_the_playground():
    at = _playground()
    at.number_input(key="w_stepn").set_value(700).run()
    at.button(key="b_stepn").click().run()
    full = _figure(at, "main_fig")
    assert "every node's vigilance region" not in _names(full)
    assert [a["text"] for a in full["layout"]["annotations"]] == ["s2", "s1", "x"]  # no focus note: the marks' names
    at.toggle(key="w_focus").set_value(True).run()
    at.toggle(key="w_regions").set_value(True).run()
    assert not at.exception
    fig = _figure(at, "main_fig")
    pg = at.session_state.pg
    ids = list(pg.model.node_ids_)
    (x0, x1), (y0, y1) = fig["layout"]["xaxis"]["range"], fig["layout"]["yaxis"]["range"]
    for p in (pg.model.nodes_[ids.index(pg.record.s1_id)], pg.model.nodes_[ids.index(pg.record.s2_id)]):
        assert x0 <= p[0] <= x1 and y0 <= p[1] <= y1
    assert _width(fig) < _width(full) / 4
    assert fig["layout"]["annotations"][0]["text"].startswith("focused on s1 · view ")
    names = _names(fig)
    assert "every node's vigilance region" in names and names.index("s1") > names.index("nodes")
    q = dict(at.query_params)
    assert q["focus"] == "1" and q["regions"] == "1"  # in the lesson link
    # the placed sample's view shows every region too (a sample resonates with node k iff it lies in k's)
    assert "every node's vigilance region" in _names(_figure(at, "place_fig"))


def test_the_quiz_starts_focused_and_leaves_the_full_view_after():
    at = _playground()
    at.number_input(key="w_stepn").set_value(600).run()
    at.button(key="b_stepn").click().run()
    full = _width(_figure(at, "main_fig"))
    at.toggle(key="w_quiz").set_value(True).run()
    assert not at.exception and at.toggle(key="w_focus").value is True
    before = _figure(at, "quiz_fig_before")
    assert _width(before) < full / 4 and before["layout"]["annotations"][0]["text"].startswith("focused on s1")
    assert "focus" not in dict(at.query_params)  # a quiz link is focused without saying so
    at.toggle(key="w_quiz").set_value(False).run()
    assert at.toggle(key="w_focus").value is False and _width(_figure(at, "main_fig")) == pytest.approx(full)


def test_explain_has_the_same_view_toggles():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"stream": "paper2d-ns", "n": "500", "t": "3000", "focus": "1", "regions": "1"})
    at.run()
    at.switch_page("pages/explain.py").run()
    assert not at.exception
    assert at.toggle(key="w_focus").value is True and at.toggle(key="w_regions").value is True
    fig = _figure(at, "explain_fig")
    assert _width(fig) < 1.06 / 4 and "every node's vigilance region" in _names(fig)
    # no legend over the narrow column: the picture's key under it names its marks, each whole
    assert fig["layout"].get("showlegend") is False
    key = next(h.proto.body for h in at.get("html") if 'class="cae-key"' in h.proto.body)
    assert "every node&#x27;s vigilance region" in key and "current sample" in key
    at.toggle(key="w_focus").set_value(False).run()
    assert _width(_figure(at, "explain_fig")) > 0.9


def test_long_labels_show_whole():
    """The sidebar's stream box holds a short title, the rest under it; "of N" under the samples seen."""
    at = _playground()
    box = at.selectbox(key="w_source")
    assert box.format_func(box.value) == "Paper 2-D · non-stationary"
    assert any(c.value == "stream #1 → #6" for c in at.sidebar.caption)
    at.selectbox(key="w_source").set_value("drift-appear").run()
    assert any(c.value == "a class leaves half way as a new one arrives" for c in at.sidebar.caption)
    seen = next(m for m in at.metric if m.label == "Samples seen")
    assert seen.value == "0" and seen.delta == f"of {len(at.session_state.pg.stream):,}"


def test_the_a_max_formula_is_broken_into_lines():
    from cae.app.explanations import explain_step
    from cae.app.stepper import Stepper
    from cae.data import make_paper2d, nonstationary_stream

    pg = Stepper(nonstationary_stream(make_paper2d(400, seed=0), seed=0))
    pg.step(1500)
    formula, t = None, 0
    while formula is None:  # the first Case III whose a_max is computed (not fixed)
        t = pg.find_step(t, case=3)
        rec, model, x = pg.inspect(t)
        blocks = [c for k, c in explain_step(rec, model, x) if k == "latex" and r"a_{\max} &=" in c]
        formula = blocks[0] if blocks else None
    lines = formula.split("\\\\")
    assert len(lines) == 3 and lines[-1].strip().startswith("&=") and f"{rec.a_max:.4g}" in lines[-1]


def _fake_noise_study(folder):
    import pandas as pd

    rows = [
        dict(
            algorithm=a,
            environment=e,
            noise=n,
            n_per_class=15000,
            run=r,
            stage=s,
            nmi=0.9,
            ari=0.9,
            n_nodes=10,
            n_clusters=6,
            merged=(a == "CAE" and n == 0.1 and r < 3 and s == "stream #6"),
            split=False,
            params="{}",
            seconds=1.0,
        )
        for a in ("CAE", "TCA")
        for e, stages in (("stationary", ["all"]), ("nonstationary", [f"stream #{k}" for k in range(1, 7)]))
        for n in (0.0, 0.1)
        for r in range(10)
        for s in stages
    ]
    pd.DataFrame(rows).to_csv(folder / "noise.csv", index=False)


def test_playground_says_what_the_noise_study_found(tmp_path, monkeypatch):
    """Beside the live metrics: 'with this noise, CAE merges clusters in k of N seeds', from results/noise.csv."""
    _fake_noise_study(tmp_path)
    monkeypatch.setenv("CAE_EXPLORER_RESULTS", str(tmp_path))
    at = _playground()  # the paper's non-stationary stream with 10 % noise, CAE
    captions = [c.value for c in at.caption]
    assert any(
        c.startswith("From the noise study: with this noise (10 %), CAE merges clusters in 3 of 10 seeds")
        for c in captions
    ), captions
    at.slider(key="w_noise").set_value(0.05).run()
    assert any(c == "From the noise study: it measured 0, 10 % noise only, not 5 %." for c in at.caption.values)
    at.slider(key="w_noise").set_value(0.0).run()
    assert any("CAE merges clusters in 0 of 10 seeds" in c for c in at.caption.values)
    monkeypatch.setenv("CAE_EXPLORER_RESULTS", str(tmp_path / "absent"))
    at = _playground()
    assert not any("noise study" in c for c in at.caption.values) and not at.exception


def test_experiments_page_shows_the_noise_study(tmp_path, monkeypatch):
    _fake_noise_study(tmp_path)
    monkeypatch.setenv("CAE_EXPLORER_RESULTS", str(tmp_path))
    at = _app()
    at.switch_page("pages/experiments.py").run()
    assert not at.exception
    faults = next(d.value for d in at.dataframe if "merged" in d.value.columns)
    cae_ns = faults[(faults["algorithm"] == "CAE") & (faults["environment"] == "nonstationary")]
    assert cae_ns["merged"].tolist() == ["0 of 10", "3 of 10"]
    at.radio(key="w_ex_noise_metric").set_value("n_clusters").run()
    assert not at.exception


# ------------------------------------------------------------------ the Playground's sidebar agrees with itself
def _caption_with(at, text):
    return next((c.value for c in at.caption if text in c.value), None)


def test_new_seed_the_box_the_caption_and_the_link_agree():
    at = _playground()
    first = at.number_input(key="w_seed").value
    for seed in (first + 1, first + 2, first + 3):
        at.button(key="b_seed").click().run()
        assert not at.exception
        assert at.number_input(key="w_seed").value == seed
        assert f"· seed {seed} ·" in _caption_with(at, "samples · stages")
        assert dict(at.query_params)["seed"] == str(seed) and at.session_state.pg.stream.seed == seed
    at.number_input(key="w_seed").set_value(7).run()  # typed in the box: the same agreement
    assert "· seed 7 ·" in _caption_with(at, "samples · stages") and dict(at.query_params)["seed"] == "7"
    at.button(key="b_seed").click().run()
    assert at.number_input(key="w_seed").value == 8 and dict(at.query_params)["seed"] == "8"


_WIDGET_KINDS = ("number_input", "slider", "select_slider", "selectbox", "radio", "toggle")


def _default_differs(w):
    """True if widget ``w``, drawn by the browser without its value, would show its own default: not the value the
    page uses."""
    p, kind = w.proto, type(w).__name__
    if kind in ("Selectbox", "Radio"):
        return w.index != p.default
    if kind == "SelectSlider":
        values = w.value if isinstance(w.value, tuple) else (w.value,)
        return [list(p.options).index(w.format_func(v)) for v in values] != list(p.default)
    if kind == "Slider":
        values = w.value if isinstance(w.value, tuple) else (w.value,)
        return [float(v) for v in values] != list(p.default)
    return w.value != p.default  # a number box, a toggle


@pytest.mark.parametrize(
    "page, link",
    [
        ("pages/playground.py", {}),
        ("pages/explain.py", {"stream": "paper2d-ns", "n": "500", "seed": "4", "t": "300"}),
        ("pages/lineage.py", {"seed": "7", "n": "500", "seeds": "10", "step": "3"}),
    ],
    ids=["playground", "explain-link", "lineage-link"],
)
def test_a_widget_whose_value_the_page_sets_is_sent_with_it_on_every_run(page, link):
    """The box shows what the page uses, in the browser too: a widget whose value the page sets (the Playground's
    seed 9, a link's values, the Explain step) goes out with that value on every run, not only in the run that set
    it. In CI the Seed box read 0 beside a run of seed 9, twice; here 3 of 12 fresh loads of the Playground did
    (its stage reports its size at once and the page runs again), 0 of 24 once every run sends the value."""
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in link.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    at.run()  # the page again, as the browser asks at once
    assert not at.exception
    unsent = [
        (w.key, w.value)
        for kind in _WIDGET_KINDS
        for w in getattr(at, kind)
        if not w.proto.set_value and _default_differs(w)
    ]
    assert unsent == []
    if page == "pages/playground.py":  # (the case the check exists for, seen)
        assert at.number_input(key="w_seed").value == 9 and at.number_input(key="w_seed").proto.set_value


def test_the_paper_setting_button_and_one_caea_default_for_both_pages():
    from cae.registry import ALGORITHMS

    paper_ns = ALGORITHMS["CAEA"].paper_setting("synthetic", "nonstationary")
    paper_st = ALGORITHMS["CAEA"].paper_setting("synthetic", "stationary")
    assert paper_ns != paper_st  # a_max 40 and 30: the button follows the stream
    at = _playground()
    at.radio(key="w_algo").set_value("CAEA").run()
    # the Playground starts with the paper's setting, as Compare does
    assert (at.slider(key="w_lam").value, at.slider(key="w_amax").value) == (
        paper_ns["deletion_interval"],
        paper_ns["max_edge_age"],
    )
    at.slider(key="w_lam").set_value(120).run()
    at.slider(key="w_amax").set_value(7).run()
    at.button(key="b_pg_paper").click().run()
    assert not at.exception
    assert (at.slider(key="w_lam").value, at.slider(key="w_amax").value) == (50, 40)
    assert at.session_state.pg.model.deletion_interval == 50 and at.session_state.pg.model.max_edge_age == 40
    assert dict(at.query_params)["lam"] == "50" and dict(at.query_params)["amax"] == "40"
    at.selectbox(key="w_source").set_value("paper2d-st").run()
    at.button(key="b_pg_paper").click().run()
    assert (at.slider(key="w_lam").value, at.slider(key="w_amax").value) == (
        paper_st["deletion_interval"],
        paper_st["max_edge_age"],
    )
    cmp = _app()
    cmp.switch_page("pages/compare.py").run()
    assert not cmp.exception
    assert cmp.number_input(key="w_cmp_CAEA_deletion_interval").value == paper_ns["deletion_interval"]
    assert cmp.number_input(key="w_cmp_CAEA_max_edge_age").value == paper_ns["max_edge_age"]


def test_switching_cae_and_caea_keeps_the_step_and_says_so():
    from cae.app.regions import Region

    at = _playground()
    at.number_input(key="w_stepn").set_value(300).run()
    at.button(key="b_stepn").click().run()
    pg = at.session_state.pg
    pg.place([0.5, 0.5])  # a sample placed by hand at t = 300
    pg.draw([Region.box((0.8, 0.9), (0.1, 0.2))], 50)  # and a drawing from t = 301
    at.run()
    names = _names(_figure(at, "main_fig"))  # the main view marks them above the nodes
    drawing = "your drawing: the next samples come from here"
    assert names.index("placed by hand") > names.index("nodes") and names.index(drawing) > names.index("nodes")
    cae_nodes = np.asarray(pg.model.nodes_).copy()
    at.radio(key="w_algo").set_value("CAEA").run()
    assert not at.exception
    caea = at.session_state.pg
    assert caea is not pg and caea.t == 301 and caea.model.deletion_interval == 50
    assert [p for p, _ in caea.placed] == [300] and caea.drawn == pg.drawn  # placed and drawn by hand: kept
    ref = CAE(deletion_interval=50, max_edge_age=40).fit(pg.stream.X[:301])
    np.testing.assert_array_equal(caea.model.nodes_, ref.nodes_)  # CAEA learned the same 301 samples
    note = next(i.value for i in at.info if "Switched" in i.value)
    assert "Switched from CAE to CAEA (λ = 50, a_max = 40) at t = 301" in note and "Switching back" in note
    q = dict(at.query_params)
    assert q["t"] == "301" and q["place"] == "300:0.5:0.5" and q["draw"] == "301:50:b800_100_900_200"
    at.slider(key="w_lam").set_value(60).run()
    assert at.session_state.pg.t == 301 and at.session_state.pg.model.deletion_interval == 60
    assert any(i.value.startswith("Changed from CAEA (λ = 50, a_max = 40) to CAEA (λ = 60") for i in at.info)
    at.slider(key="w_lam").set_value(50).run()
    at.run()
    assert not any("Switched" in i.value for i in at.info)  # said once
    at.radio(key="w_algo").set_value("CAE").run()
    back = at.session_state.pg
    assert back.t == 301 and back.model.deletion_interval is None
    np.testing.assert_array_equal(back.model.nodes_, cae_nodes)  # the same run as before the switch
    # new data start over
    at.button(key="b_seed").click().run()
    assert at.session_state.pg.t == 0 and not any("Switched" in i.value for i in at.info)


def test_the_first_view_arrives_as_a_picture_and_the_slow_parts_wait_to_be_asked_for():
    at = _playground()
    assert len(at.image) == 1  # the session's first view: a picture, until the chart is drawn
    at.button(key="b_stepn").click().run()
    assert not at.exception and len(at.image) == 0  # later runs: the interactive chart alone
    # the graph layout is computed only when its expander is opened; the traces CSV only when clicked
    assert "topology" not in at.session_state
    assert [b for b in at.get("download_button") if "traces" in str(b.proto.label)]


def test_the_playground_opens_on_the_stream_to_come_with_the_first_step_said_in_the_view():
    """At t = 0 the main view draws the stream to come (faintly) with "press Step 1" written in it, no
    unexplained "frame: … ms", and one line instead of five empty charts of internal quantities; from the
    first step on, the data seen, the traces, and no hint."""
    at = _playground()
    pg = at.session_state.pg
    fig = _figure(at, "main_fig")
    come = next(t for t in fig["data"] if t["name"] == "the stream to come")
    assert len(come["x"]["bdata"]) > 0 and _names(fig)[0] == "the stream to come"  # under everything else
    notes = [a["text"] for a in fig["layout"].get("annotations", [])]
    assert any("Step 1" in n for n in notes), notes
    assert not [c for c in at.caption if c.value.startswith("frame:")]
    assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith("-traces_fig_chart")]
    assert [c for c in at.caption if c.value.startswith("**Internal quantities over time**")]
    at.button(key="b_step1").click().run()
    assert pg.t == 1 and not at.exception
    fig = _figure(at, "main_fig")
    assert "the stream to come" not in _names(fig)
    assert not any("Step 1" in a["text"] for a in fig["layout"].get("annotations", []))
    assert [c for c in at.get("plotly_chart") if c.proto.id.endswith("-traces_fig_chart")]
    assert not [c for c in at.caption if c.value.startswith("frame:")]


def test_compare_runs_fuzzy_art_beside_cae():
    """Fuzzy ART from the registry's picker, with its ρ, α and β inputs: it learns the same stream as CAE in
    lock step, each category a node at its box's centre and a cluster of its own."""
    from cae.registry import make_algorithm

    at = _app()
    at.switch_page("pages/compare.py").run()
    at.multiselect(key="w_cmp_algos").set_value(["CAE", "Fuzzy ART"]).run()
    assert not at.exception
    rho = at.number_input(key="w_cmp_Fuzzy ART_vigilance")
    assert (rho.label, rho.value) == ("ρ (vigilance)", 0.75)
    alpha = at.number_input(key="w_cmp_Fuzzy ART_choice")
    assert (alpha.value, alpha.min, alpha.proto.format) == (0.001, 0.001, "%.3f")  # reads 0.001, never 0.000
    rho.set_value(0.85).run()
    at.number_input(key="w_cmp_stepn").set_value(500).run()
    at.button(key="b_cmp_step").click().run()
    assert not at.exception
    tab = at.dataframe[0].value
    label = "Fuzzy ART (ρ=0.85, α=0.001, β=1)"
    assert tab["algorithm"].tolist() == ["CAE", label] and tab["samples seen"].tolist() == [500, 500]
    ls = at.session_state.cmp
    model = ls.playgrounds[label].model
    alone = make_algorithm("Fuzzy ART", vigilance=0.85).learn_many(ls.stream.X[:500])
    np.testing.assert_array_equal(model.weights_, alone.weights_)
    np.testing.assert_array_equal(model.nodes_, (alone.box_lower_ + alone.box_upper_) / 2)
    assert int(tab.loc[tab["algorithm"] == label, "#clusters"].iloc[0]) == model.n_categories_ > 1

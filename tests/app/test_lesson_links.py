"""Lesson links, the quiz and placed samples: a teacher's link opens exactly the same view."""

import numpy as np
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app.explanations import resonance
from cae.app.lesson_links import PLAYGROUND_DEFAULTS, parse_continual, parse_playground, parse_step, playground_query
from cae.app.stepper import Stepper
from cae.app.streams import SOURCES, make_stream
from cae.streamlit_glue.playground_session import algo_params

STREAMS = list(SOURCES)

HOSTILE = [
    {"stream": "mars"},
    {"stream": ""},
    {"stream": "<script>alert(1)</script>"},
    {"n": "abc"},
    {"n": "-5"},
    {"n": "1e309"},
    {"n": "nan"},
    {"noise": "-0.3"},
    {"noise": "7"},
    {"noise": "inf"},
    {"seed": "-1"},
    {"seed": "99999999999999999999"},
    {"seed": "3.7"},
    {"algo": "Neural Gas"},  # GNG is offered (issue #28); NG is not
    {"algo": "cae"},
    {"lam": "2"},
    {"lam": "1000001"},
    {"lam": "x"},
    {"amax": "0"},
    {"t": "-10"},
    {"t": "10000000000"},
    {"t": "12abc"},
    {"vig": "maybe"},
    {"win": "7"},
    {"place": "1:2"},
    {"place": "a:b:c,5:0.1:0.2"},
    {"place": ",".join(f"{k}:0.5:0.5" for k in range(80))},
    {"t": "9" * 10_000},
    {"x" * 500: "1"},
    {"stream": "moons", "n": "[1,2]", "quiz": "1", "teach": "1", "sn": "yes", "bw": "1", "place": "-3:0.1:0.1"},
]


def test_thirty_hostile_query_strings_parse_without_errors():
    assert len(HOSTILE) == 30
    for q in HOSTILE:
        state, notices = parse_playground(q, STREAMS)
        cfg = {**PLAYGROUND_DEFAULTS, **state["cfg"]}
        assert cfg["source"] in STREAMS and cfg["n_per_class"] in (250, 500, 1500, 5000, 15000)
        assert (
            0 <= cfg["noise"] <= 0.5
            and 0 <= cfg["seed"] <= 10**6
            and cfg["algo"] in ("CAE", "CAEA", "Fuzzy ART", "GNG")
        )
        assert 4 <= cfg["lam"] <= 400 and cfg["lam"] % 2 == 0 and 1 <= cfg["amax"] <= 200
        assert state["t"] is None or state["t"] >= 0
        assert len(state["place"]) <= 50
        assert notices, q  # every one of them had something to say
        playground_query(cfg, state["view"], state["t"] or 0, state["place"])  # and round-trips


def test_parse_values_by_hand():
    state, notices = parse_playground(
        {"noise": "0.13", "lam": "61", "win": "520", "place": "9:0.25:0.5,3:0.1:0.2"}, STREAMS
    )
    assert state["cfg"] == {"noise": 0.15, "lam": 60}  # snapped to the widgets' steps (half to even), with notices
    assert state["view"] == {"win": 500} and state["place"] == [(3, 0.1, 0.2), (9, 0.25, 0.5)]
    assert len(notices) == 3 and "using 0.15" in notices[0]
    assert parse_step({"t": "50"}, t_max=40) == (40, ["t = 50 is out of range: using 40"])
    out, notes = parse_continual(
        {"stream": "iris", "order": "2,0,9", "seed": "4"}, ["paper", "iris"], lambda s: [0, 1, 2]
    )
    assert out == {"stream": "iris", "seed": 4} and "distinct class numbers among 0, 1, 2" in notes[0]


def test_focus_and_every_region_travel_in_the_link_and_the_quiz_starts_focused():
    base = {**PLAYGROUND_DEFAULTS}
    state, notices = parse_playground({"focus": "1", "regions": "1"}, STREAMS)
    assert not notices and state["view"] == {"focus": True, "regions": True}
    q = playground_query(base, state["view"], 10, [])
    assert q["focus"] == "1" and q["regions"] == "1"
    # an old link (before focus and regions existed) opens as it did: nothing said, the page's own values
    old = {"stream": "paper2d-ns", "n": "500", "t": "700", "vig": "0", "win": "500"}
    state, notices = parse_playground(old, STREAMS)
    assert not notices and "focus" not in state["view"] and "regions" not in state["view"]
    assert playground_query(base, state["view"], 700, []).keys() == {*old, "noise", "seed", "algo"}
    # the quiz starts focused: quiz=1 alone means focus=1, and a focused quiz link does not say focus
    state, _ = parse_playground({"quiz": "1"}, STREAMS)
    assert state["view"] == {"quiz": True, "focus": True}
    assert "focus" not in playground_query(base, state["view"], 0, [])
    state, _ = parse_playground({"quiz": "1", "focus": "0"}, STREAMS)
    assert state["view"]["focus"] is False
    assert playground_query(base, state["view"], 0, [])["focus"] == "0"  # round-trips
    state, notices = parse_playground({"focus": "maybe"}, STREAMS)
    assert "focus" not in state["view"] and notices == ["ignored focus = 'maybe': use 1 or 0"]


def test_an_old_link_opens_the_playground_with_the_full_view():
    at = _app({"stream": "paper2d-ns", "n": "500", "t": "700", "win": "500"})
    at.switch_page("pages/playground.py").run()
    assert not at.exception and not at.warning
    assert at.toggle(key="w_focus").value is False and at.toggle(key="w_regions").value is False
    assert "focus" not in dict(at.query_params)


def _app(query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    return at


def _fresh(cfg, t):
    pg = Stepper(make_stream(cfg), **algo_params(cfg))
    pg.step(t)
    return pg


def test_a_lesson_link_reproduces_the_view():
    query = {
        "stream": "paper2d-ns",
        "n": "500",
        "noise": "0.15",
        "seed": "7",
        "algo": "CAEA",
        "lam": "60",
        "amax": "30",
        "t": "1234",
        "vig": "0",
        "win": "500",
    }
    at = _app(query)
    at.switch_page("pages/playground.py").run()
    assert not at.exception and not at.warning
    pg = at.session_state.pg
    cfg = {
        **PLAYGROUND_DEFAULTS,
        "source": "paper2d-ns",
        "n_per_class": 500,
        "noise": 0.15,
        "seed": 7,
        "algo": "CAEA",
        "lam": 60,
        "amax": 30,
    }
    ref = _fresh(cfg, 1234)
    assert pg.t == 1234 and pg.model.deletion_interval == 60
    np.testing.assert_array_equal(pg.model.nodes_, ref.model.nodes_)
    np.testing.assert_array_equal(pg.model.edges_, ref.model.edges_)
    assert at.toggle(key="w_vig").value is False and at.slider(key="w_window").value == 500
    assert any(f"{len(ref.model.nodes_):,} nodes · {len(ref.model.edges_):,} edges" in c.value for c in at.caption)
    assert dict(at.query_params) == {**query, "noise": "0.15"}  # written back, normalised
    assert any("t=1234" in c.value and "lam=60" in c.value for c in at.code)


@pytest.mark.parametrize("q", HOSTILE, ids=[f"hostile{k}" for k in range(len(HOSTILE))])
def test_hostile_links_give_a_notice_not_a_traceback(q):
    at = _app(q)
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    assert at.warning and at.warning[0].value.startswith("Some values in this link could not be used")
    assert (
        "<script>" not in at.warning[0].value.replace("\\<", "<").replace("&lt;", "<")
        or "\\<script\\>" in at.warning[0].value
    )


def test_t_beyond_the_stream_is_clamped_with_a_notice():
    at = _app({"stream": "moons", "n": "250", "t": "999999"})
    at.switch_page("pages/playground.py").run()
    pg = at.session_state.pg
    assert not at.exception and pg.t == len(pg.stream) == 550
    assert "beyond the stream" in at.warning[0].value


def test_a_click_that_carries_an_older_url_of_this_session_does_not_wind_the_run_back():
    # Under load a click can reach the server before the browser took the URL of the previous run,
    # so the rerun carries a query this session wrote itself: it is not a new link.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/playground.py").run()
    stale = dict(at.query_params)
    assert stale["t"] == "0"
    at.button(key="b_step1").click().run()
    assert at.session_state.pg.t == 1 and dict(at.query_params)["t"] == "1"
    for k, v in stale.items():  # the browser still shows the URL of t = 0
        at.query_params[k] = v
    at.button(key="b_stepn").click().run()
    assert not at.exception and not at.warning
    assert at.session_state.pg.t == 101
    # a link the session never wrote is still applied
    at.query_params["t"] = "40"
    at.run()
    assert at.session_state.pg.t == 40


def test_explain_and_continual_links():
    at = _app({"stream": "paper2d-st", "n": "500", "seed": "2", "t": "420"})
    at.switch_page("pages/explain.py").run()
    assert not at.exception
    assert at.number_input(key="w_explain_t").value == 420 and "t = 420:" in at.header[0].value
    assert dict(at.query_params)["t"] == "420"
    at2 = _app({"stream": "iris", "order": "2,0,1", "seed": "5"})
    at2.switch_page("pages/continual.py").run()
    assert not at2.exception
    assert at2.radio(key="w_cl_src").value == "builtin" and at2.selectbox(key="w_cl_builtin").value == "iris"
    assert at2.multiselect(key="w_cl_order_builtin_iris").value == [2, 0, 1]
    assert at2.number_input(key="w_cl_seed").value == 5


def test_quiz_predict_then_reveal():
    at = _app({"stream": "paper2d-ns", "n": "500", "t": "600", "quiz": "1", "teach": "1"})
    at.switch_page("pages/playground.py").run()
    assert not at.exception and at.session_state.pg.t == 600
    assert any("Teacher view" in c.value for c in at.caption)
    assert not any(m.label == "#nodes" for m in at.metric)  # hidden until revealed
    pg = at.session_state.pg
    truth = pg.model.snapshot().learn_one(pg.stream.X[600])
    at.radio(key="w_quiz_case").set_value(truth.case).run()
    at.checkbox(key="w_quiz_edge").set_value(bool(truth.edges_deleted)).run()
    at.checkbox(key="w_quiz_node").set_value(bool(truth.swept_ids)).run()
    at.button(key="b_quiz_reveal").click().run()
    assert not at.exception and pg.t == 601 and pg.record.case == truth.case
    assert at.success and at.success[0].value == "Right!"
    assert {m.label: m.value for m in at.metric}["Score"] == "1 / 1"
    assert any("Case" in e.label or "initial" in e.label for e in at.expander)
    at.button(key="b_quiz_next").click().run()
    wrong = (truth.case + 1) % 4
    nxt = pg.model.snapshot().learn_one(pg.stream.X[601])
    at.radio(key="w_quiz_case").set_value(wrong if wrong != nxt.case else (wrong + 1) % 4).run()
    at.button(key="b_quiz_reveal").click().run()
    assert at.error[0].value == "Not quite." and {m.label: m.value for m in at.metric}["Score"] == "1 / 2"


def test_place_a_sample_forks_and_travels_in_the_link():
    at = _app({"stream": "paper2d-ns", "n": "500", "t": "800"})
    at.switch_page("pages/playground.py").run()
    pg = at.session_state.pg
    rows, _, V = resonance(pg.model, [0.17, 0.7])
    assert np.isfinite(V) and len(rows) > 0  # the left blob: some nodes would resonate
    at.number_input(key="w_place_x0").set_value(0.17).run()
    at.number_input(key="w_place_x1").set_value(0.7).run()
    assert any("resonates with" in c.value for c in at.caption)
    at.button(key="b_place").click().run()
    assert not at.exception and pg.t == 801 and len(pg.placed) == 1
    np.testing.assert_allclose(pg.stream.X[800], [0.17, 0.7])
    assert pg.record.case in (2, 3)  # it resonated
    link = dict(at.query_params)
    assert link["place"] == "800:0.17:0.7" and link["t"] == "801"
    again = _app(link)
    again.switch_page("pages/playground.py").run()
    pg2 = again.session_state.pg
    assert not again.exception and pg2.t == 801
    np.testing.assert_array_equal(pg2.model.nodes_, pg.model.nodes_)


# ------------------------------------------------------------------ drawings in the link
def test_drawings_travel_in_the_link_and_come_back():
    from cae.app.regions import Region

    box = Region.box((0.1, 0.3), (0.6, 0.9))
    tri = Region.polygon([0.5, 0.9, 0.7], [0.1, 0.1, 0.4])
    draw = [(800, 1000, (box, tri)), (2000, 5, (tri,))]
    q = playground_query(PLAYGROUND_DEFAULTS, {}, 2100, [(1900, 0.5, 0.5)], draw)
    assert q["draw"] == "800:1000:b100_600_300_900:p500_100_900_100_700_400,2000:5:p500_100_900_100_700_400"
    state, notices = parse_playground(q, STREAMS)
    assert not notices and state["draw"] == draw and state["place"] == [(1900, 0.5, 0.5)]
    # a link written before drawings existed has none, and says nothing about it
    state, notices = parse_playground({"stream": "moons", "t": "5"}, STREAMS)
    assert state["draw"] == [] and not notices and "draw" not in playground_query(PLAYGROUND_DEFAULTS, {}, 5, [])


HOSTILE_DRAW = [
    "x",
    ":",
    "1:2",
    "-1:5:b0_0_100_100",
    "1.5:5:b0_0_100_100",
    "10:0:b0_0_100_100",
    "10:20001:b0_0_100_100",
    "10:5:",
    "10:5:c0_0_1_1",
    "10:5:b0_0_0_100",
    "10:5:p0_0_1_1",
    "10:5:" + ":".join(["b0_0_100_100"] * 7),
    "10:5:b<script>",
    "10:5:b0_0_100_100,12:5:b0_0_100_100",  # the second overlaps the first
    ",".join(f"{k * 10}:5:b0_0_100_100" for k in range(25)),
    "10:5:p" + "_".join(["1"] * 60),
    "10:5:b0_0_1e9_1",
    "99999999999999999999999:5:b0_0_100_100",
]


@pytest.mark.parametrize("value", HOSTILE_DRAW)
def test_hostile_drawings_are_dropped_with_a_notice(value):
    state, notices = parse_playground({"draw": value}, STREAMS)
    assert notices, value
    for start, count, regions in state["draw"]:
        assert start >= 0 and 1 <= count <= 20000 and 1 <= len(regions) <= 6
    playground_query(PLAYGROUND_DEFAULTS, {}, 0, [], state["draw"])  # and round-trips
    assert parse_playground({"draw": "1:1:b0_0_1_1" * 1000}, STREAMS)[1][0].startswith("ignored draw: its value")


def test_a_drawing_travels_in_the_link_and_opens_the_same_run():
    from cae.app.regions import Region

    at = _app({"stream": "paper2d-ns", "n": "500", "t": "800"})
    at.switch_page("pages/playground.py").run()
    pg = at.session_state.pg
    box, tri = Region.box((0.5, 0.7), (0.2, 0.4)), Region.polygon([0.75, 0.95, 0.85], [0.7, 0.7, 0.9])
    pg.draw([box, tri], 300)  # as a box and a lasso drawn on the plot do
    at.run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "1. box 0.5–0.7 × 0.2–0.4" in text and "2. lasso around 0.75–0.95 × 0.7–0.9" in text
    assert any("300 drawn from your regions" in c.value for c in at.caption)
    assert any("(300 still to come; outlined in the main view)" in c.value for c in at.caption)
    at.number_input(key="w_stepn").set_value(120).run()
    at.button(key="b_stepn").click().run()
    assert pg.t == 920 and _metric_value(at, "Current stream") == "your drawing"
    assert (box.contains(pg.stream.X[800:920]) | tri.contains(pg.stream.X[800:920])).all()
    link = dict(at.query_params)
    assert link["draw"] == "800:300:b500_200_700_400:p750_700_950_700_850_900" and link["t"] == "920"
    again = _app(link)
    again.switch_page("pages/playground.py").run()
    assert not again.exception and not again.warning
    pg2 = again.session_state.pg
    assert pg2.t == 920 and pg2.drawn == pg.drawn
    np.testing.assert_array_equal(pg2.stream.X, pg.stream.X)
    np.testing.assert_array_equal(pg2.model.nodes_, pg.model.nodes_)
    # each region can be removed: the drawing goes on from the other, for the samples still to come
    again.button(key="b_region_rm_0").click().run()
    assert pg2.drawing_at().regions == (tri,) and pg2.drawing_at().count == 180 and pg2.t == 920
    assert (
        dict(again.query_params)["draw"]
        == "800:120:b500_200_700_400:p750_700_950_700_850_900,920:180:p750_700_950_700_850_900"
    )
    again.button(key="b_drawing_rm").click().run()
    assert pg2.drawing_at() is None and len(pg2.stream) == 3300 + 120
    assert any(c.value.startswith("No drawing gives the next samples") for c in again.caption)


def test_a_link_whose_edits_do_not_fit_opens_without_them_and_says_so():
    at = _app({"stream": "paper2d-ns", "n": "250", "t": "50", "place": "20:0.5:0.5", "draw": "10:30:b0_0_100_100"})
    at.switch_page("pages/playground.py").run()
    assert not at.exception and at.session_state.pg.t == 50
    assert "overlaps" in at.warning[0].value and not at.session_state.pg.drawn and not at.session_state.pg.placed


def _metric_value(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_a_typed_box_is_a_region_too():
    at = _app({"stream": "paper2d-ns", "n": "250", "t": "100"})
    at.switch_page("pages/playground.py").run()
    at.number_input(key="w_draw_n").set_value(40).run()
    for key, v in (("w_box_x0", 0.6), ("w_box_x1", 0.8), ("w_box_y0", 0.1), ("w_box_y1", 0.3)):
        at.number_input(key=key).set_value(v).run()
    at.button(key="b_box_add").click().run()
    pg = at.session_state.pg
    assert not at.exception and dict(at.query_params)["draw"] == "100:40:b600_100_800_300"
    at.number_input(key="w_box_x1").set_value(0.6).run()  # no area: said, nothing added
    at.button(key="b_box_add").click().run()
    assert "has no area" in at.warning[0].value and len(pg.drawing_at().regions) == 1

"""The pages show every event of a step from the one source (cae.app.step_events): at t = 228 of the issue's lesson link
(Case III, the edge s1–s2 made, the isolated-node sweep removing 9 nodes) the Playground's "Last step" line and
*Explain a step*'s list name them all, and Explain's picture marks the 9 removed nodes as the Playground does."""

import json

from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app.figures.traces import _values
from cae.app.step_events import step_events

LINK = dict(stream="paper2d-ns", n="1500", noise="0.1", seed="9", algo="CAE")


def _open(page, t):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params.update({**LINK, "t": str(t)})
    at.run()
    at.switch_page(page).run()
    assert not at.exception
    return at


def _removed(at):
    """The picture's "removed this frame" marks: how many."""
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        for trace in spec["data"]:
            if trace.get("name") == "removed this frame":
                return len(_values(trace["x"]))
    return 0


def test_explain_a_step_lists_every_event_and_marks_the_removed_nodes():
    at = _open("pages/explain.py", 228)
    assert at.header[0].value.startswith("t = 228: Case III")
    listed = next(m.value for m in at.markdown if m.value.startswith("**This step:**"))
    rec = at.session_state.pg.inspect(228)[0]
    events = step_events(rec)
    assert [e.kind for e in events][-1] == "sweep" and all(e.text in listed for e in events)
    assert "isolated-node sweep: 9 nodes removed" in listed
    assert _removed(at) == 9


def test_the_playground_names_every_event_of_the_step_just_taken():
    at = _open("pages/playground.py", 227)
    at.button(key="b_step1").click().run()
    assert not at.exception and at.session_state.pg.t == 228
    last = next(m.value for m in at.markdown if m.value.startswith("**Last step**"))
    events = step_events(at.session_state.pg.record)
    assert all(e.text in last for e in events) and "isolated-node sweep: 9 nodes removed" in last
    assert _removed(at) == 9

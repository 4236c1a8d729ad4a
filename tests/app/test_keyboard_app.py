"""The keyboard's requests, through AppTest: after each action the Playground asks the browser to focus the next
action's control (tests/browser/test_keyboard_browser.py checks the focus itself in Chromium), a request made
just before ``st.rerun()`` is sent again by the run that follows, and the skip link's target is the page's first
control."""

import re

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.streamlit_glue.a11y import key_selector

APP = str(ROOT / "app.py")
REQUEST = re.compile(r'--cae-focus: "([^"]*)"; --cae-focus-seq: (\d+);')


def _requests(at):
    """The focus requests this run sent: ``[(selectors, number)]``."""
    return [(m[1].split("|"), int(m[2])) for h in at.get("html") for m in REQUEST.finditer(h.proto.body)]


def _pending(at):
    """The selectors of the request waiting for the next run."""
    return at.session_state["_a11y_focus_pending"][0].split("|")


def _skip(at):
    found = [re.search(r'--cae-skip: "([^"]*)"', h.proto.body) for h in at.get("html")]
    return [m[1].split("|") for m in found if m]


def _playground(**query):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(stream="paper2d-ns", n="500", **query)
    at.run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    return at


def test_step_1_and_step_n_keep_the_focus_on_the_button_pressed():
    at = _playground(t="10")
    assert _requests(at) == []  # nothing asked before an action
    at.button(key="b_step1").click().run()
    assert _requests(at)[-1][0] == [key_selector("b_step1")]
    at.button(key="b_stepn").click().run()
    (wanted, seq), *_ = _requests(at)[-1:]
    assert wanted == [key_selector("b_stepn")] and seq == 2  # a new number: the browser acts on it once


def test_reveal_asks_for_next_sample_and_next_sample_for_the_prediction():
    at = _playground(t="700", quiz="1")
    assert _skip(at)[-1][:3] == [
        key_selector("b_step1"),
        key_selector("w_quiz_case", "input[type=radio]:checked"),
        key_selector("w_quiz_case", "input[type=radio]"),
    ]
    # the click's run ends in st.rerun(): the request waits in the session for the next run (app.py's, which
    # AppTest's switch_page does not run: see the test below) to send it
    at.button(key="b_quiz_reveal").click().run()
    assert _pending(at) == [key_selector("b_quiz_next"), key_selector("w_quiz", "input")]
    assert at.button(key="b_quiz_next")  # what the request names is on the page
    at.button(key="b_quiz_next").click().run()
    assert _pending(at) == [
        key_selector("w_quiz_case", "input[type=radio]:checked"),
        key_selector("w_quiz_case", "input[type=radio]"),
        key_selector("b_quiz_reveal"),
    ]
    assert at.button(key="b_quiz_reveal")


def _rerun_after_a_request():
    import streamlit as st

    from cae.streamlit_glue.a11y import focus_after, keyboard_support

    keyboard_support()
    if st.button("Go", key="go"):
        focus_after(".st-key-next button")
        st.rerun()


def test_a_request_made_before_a_rerun_is_sent_by_the_next_run_once():
    at = AppTest.from_function(_rerun_after_a_request).run()
    assert _requests(at) == []
    at.button(key="go").click().run()
    assert _requests(at) == [([".st-key-next button"], 1)]  # the run after st.rerun() sent it
    at.run()
    assert _requests(at) == []  # and only that run


def test_a_selector_the_script_cannot_carry_is_refused():
    from cae.streamlit_glue.a11y import _checked

    assert _checked([".st-key-b_step1 button", ".st-key-w_quiz input[type=radio]:checked"])
    for bad in ('.a"b', ".a|b", ".a; } body { x", ".a\\b"):
        with pytest.raises(ValueError, match="not a selector"):
            _checked([bad])

"""The Playground's session object and the page-side computations moved into ``cae/app``, without Streamlit: the
session reads and writes a plain dict as it does ``st.session_state``."""

import numpy as np
import pytest

from cae.app import continual as source
from cae.app.quiz import peek
from cae.streamlit_glue.session import CFG_WIDGETS, DEFAULT_CFG, PlaygroundSession, W

SMALL = dict(DEFAULT_CFG, n_per_class=250, noise=0.0, seed=1)


def _session():
    return PlaygroundSession({})


def test_the_configuration_and_its_widgets_change_together():
    ss = _session()
    assert ss.cfg == DEFAULT_CFG and ss.cfg is not DEFAULT_CFG
    ss.set_config(seed=41, algo="CAEA")
    assert ss.cfg["seed"] == 41 and ss.state[W.SEED] == 41 and ss.state[W.ALGO] == "CAEA"
    ss.new_seed()
    assert ss.cfg["seed"] == 42 == ss.state[W.SEED]


def test_start_over_drops_the_widgets_and_rebuilds_at_t0():
    ss = _session()
    pg = ss.run_for(SMALL)
    pg.step(30)
    ss.state[W.FOCUS] = True
    ss.state["other_page_key"] = 1
    ss.start_over(SMALL)
    assert not any(str(k).startswith("w_") for k in ss.state) and ss.state["other_page_key"] == 1
    assert ss.run_for(SMALL) is not pg and ss.run.t == 0  # same data, but a fresh start: t = 0
    ss.restore_widgets()
    assert {key: ss.state[key] for key in CFG_WIDGETS.values()} == {k: SMALL[n] for n, k in CFG_WIDGETS.items()}


def test_a_page_change_gives_the_widgets_the_values_the_session_keeps():
    """Streamlit names widgets by page: on another page the same keys are new widgets (at their defaults) and the
    last page's lose their values. A page change re-seeds every configuration and view widget from the session;
    on the same page a change the user just made wins and is noted."""
    ss = _session()
    ss.carry_widgets("playground")
    ss.open_lesson(
        {
            "cfg": {"seed": 9, "n_per_class": 1500},
            "view": {"focus": True, "win": 500},
            "t": 3703,
            "place": [],
            "draw": [],
        }
    )
    ss.carry_widgets("playground")  # the lesson's own run: its values stay in the widgets
    assert ss.state[W.SEED] == 9 and ss.state[W.FOCUS] is True and ss.state[W.WINDOW] == 500
    for key in [k for k in ss.state if str(k).startswith("w_")]:  # Explain's run: the Playground's widgets are gone
        del ss.state[key]
    ss.carry_widgets("explain")
    assert ss.state[W.SEED] == 9 and ss.state[W.N] == 1500 and ss.state[W.FOCUS] is True
    ss.state[W.FOCUS] = False  # the user turns focus off on Explain
    ss.carry_widgets("explain")
    assert ss.view["focus"] is False and ss.state[W.FOCUS] is False
    ss.state[W.SEED] = 0  # a widget left at a stale default by a page change must not win over the session
    ss.carry_widgets("playground")
    assert ss.state[W.SEED] == 9 and ss.state[W.FOCUS] is False and ss.state[W.WINDOW] == 500
    assert ss.view_state()["win"] == 500


def test_switching_algorithm_keeps_the_step_and_says_so_once():
    ss = _session()
    pg = ss.run_for(SMALL)
    assert ss.run_for(dict(SMALL)) is pg  # the same configuration: the same run
    pg.step(40)
    caea = dict(SMALL, algo="CAEA")
    said = []
    new = ss.run_for(caea, learning=lambda words: said.append(words) or _Nothing())
    assert new is not pg and new.t == 40 and said and "learns the first 40 samples" in said[0]
    note = ss.take_switch_note()
    assert note.startswith("Switched from CAE to CAEA (λ = ") and "at t = 40" in note
    assert ss.take_switch_note() is None
    other = ss.run_for(dict(SMALL, seed=2))  # new data start over
    assert other.t == 0 and ss.take_switch_note() is None


def test_the_traces_figure_is_kept_until_the_run_changes_or_is_invalidated():
    ss = _session()
    pg = ss.run_for(SMALL)
    built = []

    def build():
        built.append(pg.t)
        return object()

    first = ss.traces_figure(build)
    assert ss.traces_figure(build) is first and built == [0]
    pg.step(5)
    assert ss.traces_figure(build, frozen=True) is first  # while playing it stays as it was
    second = ss.traces_figure(build)
    assert second is not first and built == [0, 5]
    ss.invalidate_traces()
    assert ss.traces_figure(build) is not second
    ss.reset()
    assert pg.t == 0 and ss.TRACES not in ss.state


def test_a_lesson_link_is_applied_once_and_its_own_links_are_not():
    ss = _session()
    q = {"stream": "moons", "t": "5"}
    assert ss.link_is_new("playground", q)
    ss.remember_link("playground", q)
    assert not ss.link_is_new("playground", q) and ss.link_is_new("explain", q) and not ss.link_is_new("x", {})
    ss.open_lesson({"cfg": {"seed": 3}, "view": {"focus": True}, "t": 5, "place": [], "draw": []})
    assert ss.state[W.FOCUS] is True and ss.cfg["seed"] == 3
    assert ss.take_pending_lesson()["t"] == 5 and ss.take_pending_lesson() is None
    assert ss.take_lesson_applied() and not ss.take_lesson_applied()


def test_the_quiz_peeks_without_learning_and_scores_the_reveal():
    ss = _session()
    pg = ss.run_for(SMALL)
    pg.step(20)
    ahead = peek(pg)
    assert pg.t == 20 and ahead.t == 20 and np.array_equal(ahead.x, pg.stream.X[20])
    score = ss.quiz
    assert ss.quiz is score and score.showing(pg.t) is None
    r = score.reveal_step(pg, (ahead.record.case, False, False))
    assert pg.t == 21 and r.t == 21 and r.truth[0] == ahead.record.case and r.marks[0]
    assert (score.asked, score.right) == (1, int(r.right)) and score.showing(21) is r
    assert r.lines()[0].startswith("**What CAE did:**") and r.lines()[1].startswith("✓ you said:")
    score.next_sample()
    assert score.showing(21) is None and score.text == f"{int(r.right)} / 1"


def test_continual_sources_give_their_data_and_stages():
    paper = source.labelled_data("paper", 0, n_per_class=50, noise=0.1)
    classes, _ = source.class_choices(paper)
    assert classes == list(range(6))  # the noise is not a class to order
    stream = source.staged_stream("paper", paper, [5, 0], seed=0)
    assert len(stream.stage_names) == 2
    stream, drift = source.drift_data(next(iter(source_drifts())), 0.0, 0)
    assert len(drift.X) == len(stream)
    assert source.labelled_data("upload", 0, upload=None) is None
    with pytest.raises(ValueError, match="unknown source"):
        source.labelled_data("drift", 0)


def source_drifts():
    from cae.data import DRIFT_STREAMS

    return DRIFT_STREAMS


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

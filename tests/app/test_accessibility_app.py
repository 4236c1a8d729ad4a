"""Text alternatives, through AppTest: the Playground's main view in words, with the model's own numbers, and
every chart's data as a table behind a toggle (traces, Compare, Continual)."""

import re

import numpy as np
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app.explanations import view_summary
from cae.app.step_events import step_events

APP = str(ROOT / "app.py")
SUMMARY = re.compile(
    r"The network at step t = ([\d,]+) of ([\d,]+)\. This step: (.+?)\. Now ([\d,]+) nodes?, ([\d,]+) edges?, "
    r"([\d,]+) clusters?; similarity threshold V = ([\d.]+)\."
)


def _page(path):
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(path).run()
    assert not at.exception
    return at


def _summary(at):
    texts = [m.value for m in at.markdown if m.value.startswith("The network at step")]
    assert len(texts) == 1, texts
    return texts[0]


def _int(s):
    return int(s.replace(",", ""))


def _check_summary(at, then=""):
    """The main view's sentence says the Playground's step, what it did and the network's counts (and ``then``, a
    pattern for the sentence after them)."""
    pg = at.session_state.pg
    m = re.fullmatch(SUMMARY.pattern + then, _summary(at))
    assert m, _summary(at)
    t, n, event, nodes, edges, clusters, v = m.groups()[:7]
    assert (_int(t), _int(n)) == (pg.t, len(pg.stream))
    assert event == "; ".join(e.text for e in step_events(pg.record))  # every event, as the "Last step" line
    assert (_int(nodes), _int(edges), _int(clusters)) == (
        len(pg.model.nodes_),
        len(pg.model.edges_),
        pg.model.n_clusters_,
    )
    assert float(v) == round(float(pg.model.threshold_), 4)


def test_the_main_view_says_in_words_what_it_shows():
    at = _page("pages/playground.py")
    assert _summary(at).startswith("The network at step t = 0 of")
    at.number_input(key="w_stepn").set_value(250).run()
    at.button(key="b_stepn").click().run()
    _check_summary(at)
    at.button(key="b_step1").click().run()
    _check_summary(at)
    assert at.session_state.pg.t == 251


def test_the_quiz_views_say_the_network_in_words_but_not_the_answer():
    """Before the reveal: the step shown (not the one the class predicts) and where the next sample is; after it:
    the step just taken, what it did, and the network after it."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(stream="paper2d-ns", n="500", t="700", quiz="1")
    at.run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    pg = at.session_state.pg
    _check_summary(at, r" The star is the next sample, at \((\S+), (\S+)\): what will CAE do with it\?")
    assert pg.t == 700
    x, y = pg.stream.X[700]  # the 701st sample: the one the class predicts
    assert _summary(at).endswith(f"at ({x:.3g}, {y:.3g}): what will CAE do with it?")
    at.button(key="b_quiz_reveal").click().run()
    assert not at.exception and at.session_state.pg.t == 701
    _check_summary(at)  # the step revealed, what it did; no next sample any more


def test_the_traces_as_a_table():
    at = _page("pages/playground.py")
    at.number_input(key="w_stepn").set_value(300).run()
    at.button(key="b_stepn").click().run()
    assert not any(d for d in at.dataframe if "series" in d.value.columns)  # behind the toggle
    at.toggle(key="w_traces_table").set_value(True).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "series" in d.value.columns)
    pg = at.session_state.pg
    col = {c: k for k, c in enumerate(pg.columns)}
    for series, key in (("#nodes", "n_nodes"), ("#clusters", "n_clusters"), ("V", "threshold")):
        rows = table[table.series == series]
        want = pg.trace_so_far[:, col[key]].astype(float)
        known = ~np.isnan(want)  # V is not set in the first steps: no point drawn, no row
        assert list(rows.t) == list(pg.trace_so_far[known, col["t"]]) and known.sum() > 250, series
        np.testing.assert_allclose(rows.value, want[known], rtol=1e-6)
    assert set(table.panel) >= {"network size", "similarity threshold V"}


def test_compare_chart_as_a_table():
    at = _page("pages/compare.py")
    at.button(key="b_cmp_step").click().run()
    at.toggle(key="w_cmp_traces_table").set_value(True).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "series" in d.value.columns)
    ls = at.session_state.cmp
    said = [m.value for m in at.markdown if m.value.startswith("The network at step t = 500 of")]
    assert len(said) == len(ls.playgrounds) >= 2  # each network in words, too
    for text, pg in zip(said, ls.playgrounds.values()):
        assert text == view_summary(pg.model, pg.t, pg.record, len(pg.stream))
        assert f"Now {len(pg.model.nodes_):,} nodes" in text
    for label, (t, v) in ls.traces("n_nodes").items():  # each run's #nodes, to its last step
        rows = table[table.panel.str.startswith("#nodes") & (table.series == label)]
        assert rows["samples seen"].iloc[-1] == t[-1] == ls.t == 500
        assert rows.value.iloc[-1] == float(v[-1])


def test_continual_matrices_as_tables():
    at = _page("pages/continual.py")
    at.radio(key="w_cl_src").set_value("builtin").run()
    at.selectbox(key="w_cl_builtin").set_value("iris").run()
    at.button(key="b_cl_run").click().run()
    at.toggle(key="w_cl_R_table").set_value(True).run()
    at.toggle(key="w_cl_P_table").set_value(True).run()
    assert not at.exception
    res = at.session_state.cl_result[1]
    shown = [d.value for d in at.dataframe if d.value.shape == (3, 3)]
    assert len(shown) == 2  # R, and each stage alone
    assert list(shown[0].index) == list(shown[0].columns) and shown[0].index[0].startswith("1: ")
    convention = at.radio(key="w_cl_convention").value
    np.testing.assert_allclose(shown[0].to_numpy(), res.matrix("nmi", convention), equal_nan=True)


def test_experiments_noise_study_as_a_table():
    from cae.experiments import noise as noise_study

    ndf = noise_study.read_study(ROOT / "results")
    if ndf is None:
        import pytest

        pytest.skip("no results/noise.csv")
    at = _page("pages/experiments.py")
    at.toggle(key="w_ex_noise_fig_table").set_value(True).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "noise (%)" in d.value.columns)
    assert set(table.series) == set(ndf["algorithm"])
    cae = table[(table.series == "CAE") & (table.panel == table.panel.iloc[0])]
    assert len(cae) == ndf["noise"].nunique() and cae.nmi.between(0, 1).all()

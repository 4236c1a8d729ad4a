"""How often? One setting over many seeds; the defaults (home picture, Playground) are a typical run and say so."""

import json

import numpy as np
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae import CAE
from cae.app import how_often as ho
from cae.app.lesson_links import PLAYGROUND_DEFAULTS
from cae.app.streams import make_stream
from cae.data import HOME_SEED, HOME_SUMMARY, home_stream
from cae.data.builtin import HOME_SEEDS, home_spread, home_summary
from cae.evaluation import nmi, partition_outcome

SMALL = dict(source="paper2d-ns", n_per_class=250, noise=0.1, algo="CAE")
STORED = json.loads((ROOT / "sample_data" / HOME_SUMMARY).read_text("utf-8"))


def test_partition_outcome_by_hand():
    y = np.repeat([0, 1, 2], 100)
    clean = partition_outcome(y, np.repeat([4, 5, 6], 100))
    assert clean == {
        "n_classes": 3,
        "n_large": 3,
        "merged": False,
        "merged_classes": [],
        "split": False,
        "split_classes": [],
    }
    # the rings bridged: classes 1 and 2 in one cluster
    bridged = partition_outcome(y, np.repeat([4, 5, 5], 100))
    assert bridged["merged_classes"] == [(1, 2)] and bridged["n_large"] == 2 and not bridged["split"]
    # class 0 in two large clusters (60 + 40), a one-point fragment of class 1 does not count as a split
    pred = np.repeat([4, 5, 6], 100)
    pred[:40] = 7
    pred[150] = 8
    out = partition_outcome(y, pred)
    assert out["split_classes"] == [0] and not out["merged"] and out["n_large"] == 4
    # a merge and a split at once
    pred = np.repeat([4, 4, 6], 100)
    pred[250:] = 9
    both = partition_outcome(y, pred)
    assert both["merged_classes"] == [(0, 1)] and both["split_classes"] == [2]


def test_run_setting_is_the_playground_run_to_the_end():
    out = ho.run_setting(SMALL, seed=3)
    stream = make_stream({**SMALL, "seed": 3})
    model = CAE().learn_many(stream.X)
    clean = stream.y != stream.noise_label
    pred = model.predict(stream.X)
    assert out.nmi == pytest.approx(nmi(stream.y[clean], pred[clean]))
    assert (out.n_nodes, out.n_clusters) == (len(model.nodes_), model.n_clusters_)
    assert out.merged == partition_outcome(stream.y[clean], pred[clean])["merged"]
    scored = ho.run_setting(SMALL, seed=3, score_noise=True)
    assert scored.nmi == pytest.approx(nmi(stream.y, pred)) and scored.merged == out.merged
    caea = ho.run_setting({**SMALL, "algo": "CAEA", "lam": 40, "amax": 20}, seed=3)
    assert caea.n_nodes == len(CAE(deletion_interval=40, max_edge_age=20).learn_many(stream.X).nodes_)


def test_the_job_runs_in_the_background_and_can_be_stopped():
    job = ho.HowOften({**SMALL, "n_per_class": 1500}, n_seeds=50).start()
    assert job.running  # start() returns at once
    words = job.words()
    assert words.startswith("0 of 50 runs done") or "runs done" in words
    while len(job.outcomes) < 2:
        assert job.running
        job.wait(0.05)
    assert "running seed" in job.words() and "s left" in job.words()
    job.cancel()
    assert job.wait(60) and job.cancelled and not job.error
    assert 2 <= len(job.outcomes) < 50 and job.words().startswith("Stopped:")
    # what it found is what a run of each seed gives
    done = ho.HowOften(SMALL, n_seeds=3).start()
    assert done.wait(120) and done.words() == "Done: 3 runs (seeds 0–2)."
    for o in done.outcomes:
        again = ho.run_setting(SMALL, o.seed)
        assert (o.nmi, o.n_clusters, o.kind) == (again.nmi, again.n_clusters, again.kind)
    assert done.same_setting({**SMALL, "seed": 7}) and not done.same_setting({**SMALL, "noise": 0.2})


def test_typical_seed_and_the_spread():
    mk = lambda s, v, k, n, m, sp=False: ho.RunOutcome(s, v, v, 100, n, k, m, sp, [], [], 0.1)  # noqa: E731
    runs = [
        mk(0, 0.70, 4, 4, True),
        mk(1, 0.99, 6, 9, False),  # clean, 6 large, but 9 clusters in all: not the most common count
        mk(2, 0.96, 6, 6, False),
        mk(3, 0.985, 6, 6, False),
        mk(4, 0.93, 7, 7, False, True),
    ]
    assert ho.typical_seed(runs) == 2  # clean, 6 large, 6 clusters; NMI nearest the median (0.96)
    words = ho.spread_words(runs, seed=0)
    assert "1 of 5 runs merge, 1 split, 3 clean" in words and words.endswith("Seed 0: merge (NMI 0.700, 4 clusters).")
    fig = ho.spread_figure(runs, seed=0)
    names = [t.name for t in fig.data]
    assert names[:3] == ["clean", "split", "merge"] and "seed 0 (shown)" in names
    assert list(fig.data[-1].x) == ["4", "6", "7"] and list(fig.data[-1].y) == [1, 3, 1]  # runs by #large clusters
    with pytest.raises(ValueError):
        ho.typical_seed([])


def test_the_defaults_are_the_typical_run_and_say_so():
    """The home picture and the Playground's default are the same run, the typical one of seeds 0–29, and the
    stored measurement is what the code measures today."""
    assert PLAYGROUND_DEFAULTS["seed"] == HOME_SEED == STORED["seed"]
    np.testing.assert_array_equal(home_stream().X, make_stream(PLAYGROUND_DEFAULTS).X)
    measured = home_spread()
    assert len(measured) == HOME_SEEDS == STORED["runs"] == 30
    assert home_summary(measured) == STORED
    assert STORED["typical"]["kind"] == "clean" and STORED["typical"]["n_clusters"] == 6
    assert STORED["merged"] == sum("merge" in r["kind"] for r in STORED["per_seed"]) > 0
    # the Playground's own computation agrees with the stored rows
    again = ho.run_setting(PLAYGROUND_DEFAULTS, seed=5)
    row = STORED["per_seed"][5]
    assert (round(again.nmi, 4), again.n_clusters, again.kind) == (row["nmi"], row["n_clusters"], row["kind"])
    assert ho.typical_seed(ho._as_outcomes(STORED["per_seed"])) == HOME_SEED


def _app():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    return at


def test_home_caption_says_which_run_and_how_typical():
    at = _app()
    cap = next(c.value for c in at.caption if c.value.startswith("CAE after the paper's 2-D data"))
    t = STORED["typical"]
    assert f"Seed {HOME_SEED}, a typical run: NMI {t['nmi']:.3f}, {t['n_clusters']} clusters" in cap
    med = float(np.median([r["nmi"] for r in STORED["per_seed"]]))
    assert f"median NMI is {med:.3f}" in cap and f"{STORED['merged']} of 30 runs merge" in cap
    # the Playground says the same of its default
    at.switch_page("pages/playground.py").run()
    hint = next(c.value for c in at.caption if c.value.startswith("How often?"))
    assert f"median NMI {med:.3f}; {STORED['merged']} of 30 merge" in hint
    assert f"Seed {HOME_SEED} is the typical run" in hint


def test_playground_how_often_runs_in_the_background_and_opens_a_seed():
    at = _app()
    at.switch_page("pages/playground.py").run()
    at.selectbox(key="w_source").set_value("paper2d-st").run()
    at.select_slider(key="w_n").set_value(250).run()
    assert not any(c.value.startswith("How often?") for c in at.caption)  # nothing known of this setting yet
    at.select_slider(key="w_howoften_n").set_value(5).run()
    at.button(key="b_howoften").click().run()
    assert not at.exception
    job = at.session_state.how_often_job
    assert job.wait(120) and len(job.outcomes) == 5
    at.run()
    assert not at.exception
    cfg = {**PLAYGROUND_DEFAULTS, "source": "paper2d-st", "n_per_class": 250}
    want = [ho.run_setting(cfg, s) for s in range(5)]
    text = next(m.value for m in at.markdown if m.value.startswith("Over seeds 0–4"))
    assert text == ho.spread_words(want, seed=HOME_SEED) + " (These runs.)"
    assert any(c.value.startswith(ho.spread_short(want)) for c in at.caption)  # beside the live metrics
    # open the run of another seed: the Playground switches to it
    at.selectbox(key="w_howoften_open").set_value(2).run()
    at.button(key="b_howoften_open").click().run()
    assert not at.exception and at.session_state.pg.stream.seed == 2 and at.session_state.pg_cfg["seed"] == 2
    assert "Seed 2: " in next(m.value for m in at.markdown if m.value.startswith("Over seeds 0–4"))
    # another setting: the runs are not shown as if they were its own
    at.slider(key="w_noise").set_value(0.2).run()
    assert not any(m.value.startswith("Over seeds") for m in at.markdown)
    assert any("were for another setting" in c.value for c in at.caption)

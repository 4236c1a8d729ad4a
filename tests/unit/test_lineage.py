"""The Lineage lesson's computation (cae.app.lineage): the settings, the runs, the table and its sentences — every
number a sentence quotes read back from the lesson's CSV, and what each sentence says a parameter does checked
against the estimators."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from support import lineage_check as check

from cae.app import lineage as ln
from cae.app.lineage import (
    MEANINGS,
    SETTINGS,
    STREAMS,
    TABLE_COLUMNS,
    LineageJob,
    LineageRun,
    merged_classes,
    models_at,
    read_runs,
    run_one,
    sentence_quotes,
    setting,
    summary_table,
    write_runs,
)
from cae.registry import ALGORITHMS

COMMITTED = ROOT / "results" / "lineage.csv"


def test_merges_count_the_classes_that_share_their_majority_cluster():
    """Six classes of 10 points each, labelled by hand."""
    y = np.repeat(np.arange(6), 10)
    own = np.repeat([10, 11, 12, 13, 14, 15], 10)
    assert merged_classes(y, own) == 0  # every class its own cluster
    two = own.copy()
    two[y == 1] = 10  # classes 0 and 1 in cluster 10
    assert merged_classes(y, two) == 2
    three = two.copy()
    three[y == 5] = 10  # and class 5 too
    assert merged_classes(y, three) == 3
    minority = own.copy()
    minority[np.flatnonzero(y == 1)[:4]] = 10  # 4 of class 1's 10 points in class 0's cluster: its majority is still 11
    assert merged_classes(y, minority) == 0
    assert merged_classes(y, np.zeros(60, int)) == 6  # one cluster for everything
    assert merged_classes(y, np.arange(60)) == 0  # every point its own cluster: fragments, not merges


def test_the_lesson_has_the_seven_algorithms_and_every_parameter_low_usual_and_high():
    """The paper's lineage in the registry: Fuzzy ART, TCA, CAEA, CAE, GNG, ASOINN, SOINN+; each parameter of the
    line (ρ, λ, a_max, σ_init) at a low, the usual and a high value, one at a time, with the usual row of each
    algorithm shared; CAE and SOINN+ with none."""
    assert list(dict.fromkeys(s.algorithm for s in SETTINGS)) == [
        "Fuzzy ART",
        "TCA",
        "CAEA",
        "CAE",
        "GNG",
        "ASOINN",
        "SOINN+",
    ]
    for algorithm, varied in ln.VARIED.items():
        usual = ln.usual_setting(algorithm)
        assert usual.params == ln.USUAL[algorithm]
        for name, (low, high) in varied.items():
            values = sorted(s.params[name] for s in SETTINGS if s.algorithm == algorithm and s.varies in ("", name))
            assert values == [low, ln.USUAL[algorithm][name], high], (algorithm, name)
            assert low < ln.USUAL[algorithm][name] < high
    symbols = {ALGORITHMS[s.algorithm].param(s.varies).symbol for s in SETTINGS if s.varies}
    assert symbols == {"ρ", "λ", "a_max", "σ_init"}
    a_max = {(s.algorithm, s.params["max_edge_age"]) for s in SETTINGS if "max_edge_age" in s.params}
    assert len(a_max) >= 9  # three values for each of CAEA, GNG and ASOINN
    assert [s.key for s in SETTINGS if s.level == "none"] == ["CAE", "SOINN+"]
    # the paper's grid-searched values for this stream are the usual ones where the paper has them
    assert ln.USUAL["CAEA"] == {"deletion_interval": 50, "max_edge_age": 40}
    assert ln.USUAL["TCA"] == {"reconstruction_interval": 500, "sigma_init": 0.1}
    assert ln.USUAL["ASOINN"] == {"deletion_interval": 250, "max_edge_age": 10}
    assert len({s.key for s in SETTINGS}) == len(SETTINGS) == 25
    assert set(STREAMS) == {"noisy", "noise-free"} and STREAMS["noise-free"] == 0.0


def _run(key, stream, seed, nmi, k, merges, nodes=10):
    return LineageRun(key, stream, seed, nmi, nmi, k, merges, nodes, 0.1, 12, 1, 0, np.nan, np.nan, 100, 0.0)


def test_the_table_has_one_row_per_setting_with_mean_and_sd_on_each_stream():
    a, b = SETTINGS[0].key, "CAE"
    runs = [
        _run(a, "noisy", 0, 0.5, 8, 2),
        _run(a, "noisy", 1, 0.7, 10, 4),
        _run(a, "noise-free", 0, 0.9, 6, 0),
        _run(a, "noise-free", 1, 1.0, 6, 0),
        _run(b, "noisy", 0, 0.9, 7, 0, nodes=40),
    ]
    table = summary_table(runs)
    assert list(table.columns) == TABLE_COLUMNS
    assert table["algorithm"].tolist() == ["Fuzzy ART", "CAE"]
    first = table.iloc[0]
    # mean ± sample sd: noisy NMI 0.6 ± 0.141, #clusters 9 ± 1.4; noise-free NMI 0.95 ± 0.071, 6 clusters in both
    assert (first["NMI, noisy"], first["#clusters, noisy"]) == ("0.600 ± 0.141", "9.0 ± 1.4")
    assert first["NMI, noise-free"] == "0.950 ± 0.071" and first["setting"] == "ρ = 0.5 (low)"
    assert first["#clusters, noise-free"] == "6"  # the value every seed has, not "6.0 ± 0.0"
    assert table.iloc[1]["#nodes, noisy"] == "40" and table.iloc[1]["NMI, noise-free"] == "—"
    assert table.iloc[1]["setting"] == "— (no parameter)"


def test_a_cell_whose_seeds_spread_wider_than_its_mean_is_a_median_and_its_range():
    """TCA at σ_init = 0.03 on the noisy stream (results/lineage.csv): one seed kept 105 clusters, the other nine 1-3;
    the mean 12.5 ± 32.5 is no number to read out, the median 2 [1–105] is."""
    clusters = [105, 3, 2, 2, 3, 3, 2, 1, 2, 2]
    assert np.mean(clusters) == 12.5 and ln.cell(clusters, "n_clusters") == "2 [1–105]"
    assert ln.cell([8, 9, 10], "n_clusters") == "9.0 ± 1.0"  # 2 ≤ 9: the mean stays
    text, quotes = ln.say(
        [_run("CAE", "noisy", s, 0.9, k, 0) for s, k in enumerate(clusters)],
        "CAE",
        "noisy",
        "n_clusters",
        ("cluster", "clusters"),
    )
    assert text == "median 2 clusters (1–105)" and [q.stat for q in quotes] == ["median", "min", "max"]
    text, _ = ln.say(
        [_run("CAE", "noisy", s, 0.9, k, 0) for s, k in enumerate([6, 7, 8])],
        "CAE",
        "noisy",
        "n_clusters",
        ("cluster", "clusters"),
    )
    assert text == "6–8 clusters"  # a count stays a count: its range, never 7.0 clusters


def test_a_run_is_reproducible_and_counts_what_it_says():
    s = setting("GNG λ = 100, a_max = 50")
    a = run_one(s, seed=1, stream_name="noisy", n_per_class=250)
    b = run_one(s, seed=1, stream_name="noisy", n_per_class=250)
    assert (a.nmi, a.n_clusters, a.merges, a.n_nodes, a.edges_across) == (
        b.nmi,
        b.n_clusters,
        b.merges,
        b.n_nodes,
        b.edges_across,
    )
    assert a.n_samples == 1650 and 0 <= a.merges <= 6 and 0 <= a.on_noise <= 1 and 0 <= a.edges_across <= a.n_edges
    clean = run_one(s, seed=1, stream_name="noise-free", n_per_class=250)
    assert clean.n_samples == 1500 and clean.on_noise == 0.0
    cae = run_one(setting("CAE"), seed=1, stream_name="noisy", n_per_class=250)
    assert cae.lam > 0 and cae.edges_deleted >= 0 and np.isnan(a.lam) and np.isnan(a.edges_deleted)


def test_edges_across_classes_count_edges_between_nodes_nearest_to_two_classes():
    """Two nodes on class 0's points and one on class 1's: an edge 0–1 is within a class, 1–2 across."""
    from types import SimpleNamespace

    stream = SimpleNamespace(
        X=np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [0.5, 0.9]]), y=np.array([0, 0, 1, 6]), noise_label=6
    )
    model = SimpleNamespace(
        nodes_=np.array([[0.0, 0.01], [0.1, 0.01], [0.95, 1.0]]),
        edges_=np.array([[0, 1], [1, 2]]),
        node_labels_=np.array([0, 0, 0]),
    )
    on_noise, n_edges, across, small = ln._network_counts(model, stream)
    assert (on_noise, n_edges, across, small) == (0.0, 2, 1, 1)


def test_the_job_runs_every_setting_on_both_streams_for_every_seed_in_the_background():
    few = SETTINGS[:2]
    job = LineageJob(n_seeds=2, n_per_class=100, settings=few).start()
    assert job.wait(300)
    assert job.error is None and len(job.runs) == 2 * 2 * len(few)
    assert {(r.setting, r.stream, r.seed) for r in job.runs} == {
        (s.key, name, seed) for s in few for name in STREAMS for seed in (0, 1)
    }
    assert job.words() == "Done: 2 settings on 2 streams over 2 seeds (seeds 0–1)."
    stopped = LineageJob(n_seeds=50, n_per_class=250).start()
    stopped.cancel()
    assert stopped.wait(60) and len(stopped.runs) < stopped.total and stopped.words().startswith("Stopped")


def test_models_at_a_step_have_learned_exactly_that_many_samples():
    stream, models = models_at(300, seed=0, n_per_class=250, stream_name="noise-free")
    assert [s.algorithm for s, _, _ in models] == ["Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "ASOINN", "SOINN+"]
    assert all(m.n_samples_seen_ == 300 and rec.t == 300 for _, m, rec in models)
    assert len(stream.X) == 1500
    _, empty = models_at(0, seed=0, n_per_class=250, settings=[setting("CAE")])
    assert all(rec is None for _, _, rec in empty)
    _, clamped = models_at(10**9, seed=0, n_per_class=250, settings=[setting("CAE")])
    assert clamped[0][1].n_samples_seen_ == 1650


def test_an_older_lessons_csv_is_refused_with_a_message(tmp_path):
    old = tmp_path / "lineage.csv"
    old.write_text(
        "setting,seed,nmi,ari,n_clusters,merges,n_nodes,on_noise,n_samples,seconds\nCAE,0,1,1,6,0,9,0,99,0\n"
    )
    with pytest.raises(ValueError, match="not this lesson's file .*python -m cae.experiments lineage"):
        read_runs(old)


# ------------------------------------------------------------------ the sentences against the CSV
def _check_sentences(path):
    """Every row's sentence: its quotes read back from the CSV (tests/support/lineage_check.py), no mean of a column
    whose seeds spread wider than the mean, and no other number than its setting's parameters and the constants of
    its fixed words."""
    df = pd.read_csv(path)
    runs = read_runs(path)
    checked = 0
    for s in SETTINGS:
        text, quotes = sentence_quotes(s, runs)
        assert text.startswith(s.key), text
        checked += check.check_quotes(df, text, quotes)
        assert not check.wide_means(df, quotes), (s.key, check.wide_means(df, quotes))
        allowed = {f"{v:g}" for v in s.params.values()} | {"6", str(ln.SMALL_CLUSTER)}
        allowed |= check.numbers(ln._extra([], s)[0])
        assert not check.other_numbers(text, quotes, allowed), (s.key, check.other_numbers(text, quotes, allowed))
    return checked


def test_every_number_a_sentence_quotes_is_read_back_from_the_lessons_csv(tmp_path):
    """A fresh, small lesson through the command (2 seeds, 100 points per distribution): each quoted number is what
    pandas computes from the CSV the command wrote."""
    from cae.experiments.cli import main

    assert main(["lineage", "--seeds", "2", "--n-per-class", "100", "--results", str(tmp_path)]) == 0
    assert _check_sentences(tmp_path / "lineage.csv") > 25 * 8


def test_the_committed_lessons_sentences_quote_its_csv():
    """The same for results/lineage.csv, the run docs/algorithms.md and the page show."""
    if not COMMITTED.exists():
        pytest.skip("results/lineage.csv is not there")
    runs = read_runs(COMMITTED)
    assert {r.setting for r in runs} == {s.key for s in SETTINGS} and {r.stream for r in runs} == set(STREAMS)
    assert len({r.seed for r in runs}) == 10
    assert _check_sentences(COMMITTED) > 25 * 8


def test_a_quote_that_does_not_match_the_csv_fails_the_check(tmp_path):
    """The check can fail: a CSV whose NMI was changed after the sentences' runs no longer matches."""
    runs = [run_one(setting("CAE"), 0, name, n_per_class=100) for name in STREAMS]
    path = tmp_path / "lineage.csv"
    write_runs(runs, path)
    df = pd.read_csv(path)
    text, quotes = sentence_quotes(setting("CAE"), runs)
    df.loc[0, "nmi"] = df.loc[0, "nmi"] + 0.01
    q = next(q for q in quotes if q.field == "nmi" and q.stream == "noisy")
    assert q.text != check.expected(df, q)


def test_a_mean_read_out_of_a_column_that_spreads_wider_than_it_fails_the_check():
    """The check that keeps means out of wide columns can fail: CAE's λ on the noisy stream of results/lineage.csv
    spreads 38-200 around a mean of 89.8 (the old page said "λ estimated at 90"); quoted as a mean, it is caught, and
    the lesson quotes its ends and every seed instead."""
    if not COMMITTED.exists():
        pytest.skip("results/lineage.csv is not there")
    df = pd.read_csv(COMMITTED)
    runs = read_runs(COMMITTED)
    mean = ln.quote(runs, "CAE", "noisy", "lam", "mean")
    assert mean.text == "89.8" and check.wide_means(df, [mean])
    assert check.spread_of(df, "CAE", "noisy", "lam") == 162.0
    text, quotes = sentence_quotes(setting("CAE"), runs)
    assert "between 38 and 200 (noisy)" in text and not any(q.field == "lam" and q.stat == "mean" for q in quotes)
    # TCA at σ_init = 0.03: 12.5 clusters on average, 105 in one seed — read out as the median and its range
    text, quotes = sentence_quotes(setting("TCA σ_init = 0.03"), runs)
    assert "median 2 clusters (1–105)" in text and "12.5" not in text


def test_no_sentence_likens_caes_lambda_to_gngs():
    """CAE's λ is the number of samples between isolated-node deletions, with λ/2 active nodes setting V; GNG's λ
    is its insertion interval. No text of the lesson puts the two side by side."""
    from cae.app import lineage_lesson as lesson

    runs = [
        run_one(s, 0, name, n_per_class=100) for s in SETTINGS if s.algorithm in ("CAE", "CAEA") for name in STREAMS
    ]
    texts = [ln.setting_sentence(s, runs) for s in SETTINGS if s.algorithm in ("CAE", "CAEA")]
    texts += [MEANINGS[("CAE", "")], MEANINGS[("CAEA", "deletion_interval")], lesson.step_text(lesson.STEPS[2], runs)]
    for text in texts:
        assert "GNG" not in text and "insertion" not in text, text
    assert "insertion interval" in MEANINGS[("GNG", "insertion_interval")]
    assert "λ/2 of them in the code" in MEANINGS[("CAEA", "deletion_interval")]
    assert "every λ samples" in MEANINGS[("CAEA", "deletion_interval")]


# ------------------------------------------------------------------ what the sentences say each parameter does
def _stream(n=150, seed=0, noise=0.1):
    return ln._stream(seed, n, "noisy" if noise else "noise-free")


def test_caes_lambda_is_estimated_and_sets_the_active_nodes_and_the_deletion_interval():
    """CAE: λ = 2 n_active once the DPP test holds (λ/2 active nodes set V); CAEA: n_active = λ/2 as given."""
    X = _stream().X
    cae = ALGORITHMS["CAE"].make().fit(X)
    assert cae.deletion_interval_ == 2 * cae.n_active_nodes_
    caea = ALGORITHMS["CAEA"].make(deletion_interval=50, max_edge_age=40).fit(X)
    assert (caea.deletion_interval_, caea.n_active_nodes_) == (50, 25)


def test_tcas_bandwidths_stay_within_half_and_one_and_a_half_sigma_init():
    for sigma in (0.03, 0.1, 0.5):
        m = ALGORITHMS["TCA"].make(reconstruction_interval=100, sigma_init=sigma).fit(_stream(300).X)
        assert np.all(m.sigmas_ >= 0.5 * sigma - 1e-12) and np.all(m.sigmas_ <= 1.5 * sigma + 1e-12)


def test_fuzzy_arts_vigilance_is_the_sides_of_the_stretched_box():
    """|I ∧ w|/|I| ≥ ρ exactly when the box stretched to hold the sample has sides summing to at most 2 (1 − ρ)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        lo = rng.random(2) * 0.5
        hi = lo + rng.random(2) * 0.5
        x = rng.random(2)
        w = np.concatenate([lo, 1 - hi])
        I = np.concatenate([x, 1 - x])
        match = np.minimum(I, w).sum() / I.sum()
        sides = (np.maximum(hi, x) - np.minimum(lo, x)).sum()
        rho = rng.random()
        assert (match >= rho) == (sides <= 2 * (1 - rho) + 1e-12) or abs(match - rho) < 1e-9


def test_gngs_insertions_come_every_lambda_signals_after_the_two_start_nodes():
    m = ALGORITHMS["GNG"].make(insertion_interval=7)
    inserted = [t for t, x in enumerate(_stream(100).X[:200], start=1) if m.learn_one(x).inserted]
    assert inserted == list(range(9, 201, 7))


def test_asoinns_edge_age_limit_never_removes_a_node_and_its_denoising_runs_every_lambda():
    m = ALGORITHMS["ASOINN"].make(deletion_interval=40, max_edge_age=2)
    seen = []
    for t, x in enumerate(_stream(100).X[:400], start=1):
        before = len(m.nodes_) if t > 1 else 0
        rec = m.learn_one(x)
        if len(m.nodes_) < before:
            seen.append(t)
        assert rec is not None
    assert seen and all(t % 40 == 0 for t in seen)

"""The Lineage lesson's computation (cae.app.lineage): merges, the runs, the table and its sentences."""

from __future__ import annotations

import numpy as np

from cae.app.lineage import (
    SETTINGS,
    TABLE_COLUMNS,
    LineageJob,
    LineageRun,
    merged_classes,
    models_at,
    run_one,
    setting_sentence,
    summary_table,
)


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
    fragments = np.arange(60)  # every point its own cluster: fragments, not merges
    assert merged_classes(y, fragments) == 0


def _run(setting, seed, nmi, k, merges):
    return LineageRun(setting, seed, nmi, nmi, k, merges, k, 0.1, 100, 0.0)


def test_the_table_has_one_row_per_setting_with_mean_and_sd_over_seeds():
    a, b = SETTINGS[0].key, SETTINGS[-1].key
    runs = [_run(a, 0, 0.5, 8, 2), _run(a, 1, 0.7, 10, 4), _run(b, 0, 0.9, 6, 0), _run(b, 1, 1.0, 6, 0)]
    table = summary_table(runs)
    assert list(table.columns) == TABLE_COLUMNS
    assert table["algorithm"].tolist() == ["Fuzzy ART", "CAE"]
    first = table.iloc[0]
    # mean ± sample sd: NMI 0.6 ± 0.141, #clusters 9 ± 1.4, merges 3 ± 1.4
    assert (first["NMI"], first["#clusters"], first["merges"]) == ("0.600 ± 0.141", "9.0 ± 1.4", "3.0 ± 1.4")
    assert first["setting"] == "ρ = 0.5 (too low)" and first["seeds"] == 2
    assert table.iloc[1]["merges"] == "0.0 ± 0.0" and table.iloc[1]["setting"] == "— (no parameter)"


def test_each_setting_gets_a_sentence_on_its_fixed_parameter():
    runs = [_run(s.key, 0, 0.5, 8, 2) for s in SETTINGS]
    words = {s.key: setting_sentence(s, runs) for s in SETTINGS}
    assert words["Fuzzy ART ρ = 0.5"].startswith(
        "ρ = 0.5 is too low: a box may grow until its sides sum to 2 (1 − ρ) = 1"
    )
    assert "too high" in words["Fuzzy ART ρ = 0.95"] and "many small boxes" in words["Fuzzy ART ρ = 0.95"]
    assert words["GNG λ = 10"].startswith("λ = 10 is too small") and "follow" in words["GNG λ = 1000"]
    assert words["CAE"].startswith("No parameter") and "grid-searched" in words[SETTINGS[6].key]
    assert all("2.0 classes merged" in w for w in words.values())
    assert setting_sentence(SETTINGS[0], []) == ""


def test_a_run_is_reproducible_and_scored_on_the_classes():
    s = SETTINGS[0]
    a, b = run_one(s, seed=1, n_per_class=250), run_one(s, seed=1, n_per_class=250)
    assert (a.nmi, a.n_clusters, a.merges, a.n_nodes) == (b.nmi, b.n_clusters, b.merges, b.n_nodes)
    assert a.n_samples == 1650 and 0 <= a.merges <= 6 and 0 <= a.on_noise <= 1


def test_the_job_runs_every_setting_for_every_seed_in_the_background():
    job = LineageJob(n_seeds=2, n_per_class=250).start()
    assert job.wait(300)
    assert job.error is None and len(job.runs) == 2 * len(SETTINGS)
    assert {(r.setting, r.seed) for r in job.runs} == {(s.key, seed) for s in SETTINGS for seed in (0, 1)}
    assert job.words() == "Done: 8 settings over 2 seeds (seeds 0–1)."
    stopped = LineageJob(n_seeds=50, n_per_class=250).start()
    stopped.cancel()
    assert stopped.wait(60) and len(stopped.runs) < 50 * len(SETTINGS) and stopped.words().startswith("Stopped")


def test_models_at_a_step_have_learned_exactly_that_many_samples():
    stream, models = models_at(300, seed=0, n_per_class=250)
    assert [s.algorithm for s, _, _ in models] == ["Fuzzy ART", "GNG", "CAEA", "CAE"]
    assert all(m.n_samples_seen_ == 300 and rec.t == 300 for _, m, rec in models)
    _, empty = models_at(0, seed=0, n_per_class=250)
    assert all(rec is None for _, _, rec in empty)
    _, clamped = models_at(10**9, seed=0, n_per_class=250)
    assert clamped[0][1].n_samples_seen_ == len(stream.X)

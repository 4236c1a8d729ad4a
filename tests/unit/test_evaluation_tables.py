"""NMI and ARI from contingency tables (what continual_run sums over stage prefixes) are scikit-learn's
values to the last bit: hand-computed cases, edge cases, random labelings, and whole class-incremental
runs scored both ways."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cae import CAE
from cae.data import class_incremental_stream, make_paper2d
from cae.evaluation import ari, ari_from_table, contingency_table, continual_run, nmi, nmi_from_table


def sk_nmi(y, p):
    """scikit-learn's NMI (geometric mean), the reference every value here is checked against."""
    from sklearn.metrics import normalized_mutual_info_score

    return float(normalized_mutual_info_score(y, p, average_method="geometric"))


def sk_ari(y, p):
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(y, p))


def table_of(y, p):
    """The contingency table of two labellings with any integer labels (codes in label order)."""
    ys, yc = np.unique(y, return_inverse=True)
    ps, pc = np.unique(p, return_inverse=True)
    return contingency_table(yc, pc, len(ys), len(ps))


def test_a_hand_computed_case():
    y, p = [0, 0, 1, 1, 1], [0, 0, 0, 1, 1]
    T = table_of(y, p)
    assert T.tolist() == [[2, 0], [1, 2]]
    # ARI: sum C(n_ij, 2) = 2, rows 1 + 3 = 4, columns 3 + 1 = 4 of C(5, 2) = 10 pairs:
    # (2 - 4 * 4 / 10) / ((4 + 4) / 2 - 4 * 4 / 10) = 0.4 / 2.4
    assert ari_from_table(T) == pytest.approx(1 / 6, rel=1e-15, abs=0) and ari_from_table(T) == ari(y, p) == sk_ari(
        y, p
    )
    # NMI: I = 0.4 ln(0.4 / 0.24) + 0.2 ln(0.2 / 0.36) + 0.4 ln(0.4 / 0.24), both entropies H(0.4, 0.6)
    mi = 0.8 * math.log(5 / 3) + 0.2 * math.log(5 / 9)
    h = -(0.4 * math.log(0.4) + 0.6 * math.log(0.6))
    assert nmi_from_table(T) == pytest.approx(mi / h, rel=1e-14) and nmi_from_table(T) == nmi(y, p) == sk_nmi(y, p)


@pytest.mark.parametrize(
    ("y", "p", "expected_nmi", "expected_ari"),
    [
        ([3, 3, 3], [7, 7, 7], 1.0, 1.0),  # one class, one cluster: a perfect match
        ([3, 3, 3, 3], [0, 1, 0, 1], 0.0, 0.0),  # one class, two clusters
        ([0, 1, 2, 0], [5, 5, 5, 5], 0.0, 0.0),  # three classes, one cluster
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0, 1.0),  # the same partition, other names
        ([0, 1, 2, 3], [0, 1, 2, 3], 1.0, 1.0),  # every sample alone on both sides
        ([0], [0], 1.0, 1.0),  # one sample
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0, -0.5),  # independent
    ],
)
def test_edge_cases(y, p, expected_nmi, expected_ari):
    T = table_of(y, p)
    assert nmi_from_table(T) == nmi(y, p) == sk_nmi(y, p) == expected_nmi
    assert ari_from_table(T) == ari(y, p) == sk_ari(y, p) == expected_ari


def test_empty_rows_and_columns_do_not_count():
    y, p = [0, 0, 1, 1, 1], [0, 0, 0, 1, 1]
    T = table_of(y, p)
    padded = np.zeros((4, 5), dtype=np.int64)
    padded[1:3, [0, 3]] = T
    assert nmi_from_table(padded) == sk_nmi(y, p) and ari_from_table(padded) == sk_ari(y, p)
    empty = np.zeros((3, 2), dtype=np.int64)  # no sample: scikit-learn's 1.0 for empty labellings
    assert nmi_from_table(empty) == 1.0 == ari_from_table(empty)


labelings = st.integers(1, 400).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-3, 12), min_size=n, max_size=n),
        st.lists(st.integers(-1, 40), min_size=n, max_size=n),
    )
)


@settings(max_examples=300, deadline=None)
@given(labelings)
def test_random_labelings_give_scikit_learns_values_to_the_last_bit(yp):
    y, p = yp
    T = table_of(y, p)
    assert nmi_from_table(T) == nmi(y, p) == sk_nmi(y, p)
    assert ari_from_table(T) == ari(y, p) == sk_ari(y, p)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**31), st.integers(1, 3))
def test_a_prefix_table_is_the_sum_of_its_parts(n_parts, seed, skew):
    """Scoring stages 1..i from the sum of the stages' tables is scoring their concatenated labels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 60, n_parts)
    y = rng.integers(0, 4, sizes.sum()) ** skew
    p = rng.integers(-1, 6, sizes.sum())
    ys, yc = np.unique(y, return_inverse=True)
    pc = p - p.min()
    total = np.zeros((len(ys), pc.max() + 1), dtype=np.int64)
    end = 0
    for size in sizes:
        total += contingency_table(yc[end : end + size], pc[end : end + size], len(ys), pc.max() + 1)
        end += size
        assert nmi_from_table(total) == sk_nmi(y[:end], p[:end])
        assert ari_from_table(total) == sk_ari(y[:end], p[:end])


def reference_scores(stream, result, score_noise):
    """The scores as main computed them before the tables: scikit-learn on the labels, per prefix and per
    stage, after each stage (the predictions from the run's snapshots)."""
    starts, ends = stream.stage_starts, stream.stage_ends
    C = len(starts)
    scored = np.ones(len(stream), dtype=bool)
    if not score_noise and stream.noise_label is not None:
        scored = stream.y != stream.noise_label
    out = {k: np.full((C, C), np.nan) for k in ("R_nmi", "R_ari", "ps_nmi", "ps_ari", "share")}
    for j in range(C):
        snap = result.snapshots[j]
        pred = snap.predict(stream.X[: ends[j]]) if len(snap.nodes_) else np.full(ends[j], -1)
        y = stream.y[: ends[j]]
        for i in range(j + 1):
            sl = np.flatnonzero(scored[: ends[i]])
            out["R_nmi"][i, j] = sk_nmi(y[sl], pred[sl])
            out["R_ari"][i, j] = sk_ari(y[sl], pred[sl])
            sk = starts[i] + np.flatnonzero(scored[starts[i] : ends[i]])
            out["ps_nmi"][i, j] = sk_nmi(y[sk], pred[sk])
            out["ps_ari"][i, j] = sk_ari(y[sk], pred[sk])
            if len(sk):
                out["share"][i, j] = np.unique(pred[sk], return_counts=True)[1].max() / len(sk)
    return out


@pytest.mark.parametrize("score_noise", [False, True])
@pytest.mark.parametrize(
    "params", [{}, {"deletion_interval": 20, "max_edge_age": 5}, {"deletion_interval": 10_000, "max_edge_age": 1000}]
)
def test_a_class_incremental_run_scores_as_scikit_learn_does(score_noise, params):
    """Noise learned but unscored (or scored), stages of one class each; CAE, a CAEA that sweeps often and
    one that never sweeps (every sample its own cluster): every matrix equals scikit-learn's on the labels,
    bit for bit."""
    stream = class_incremental_stream(make_paper2d(120, noise_fraction=0.2, seed=3), order=[4, 0, 5, 2], seed=3)
    res = continual_run(stream, CAE(**params), score_noise=score_noise)
    ref = reference_scores(stream, res, score_noise)
    np.testing.assert_array_equal(res.R_nmi, ref["R_nmi"])
    np.testing.assert_array_equal(res.R_ari, ref["R_ari"])
    np.testing.assert_array_equal(res.per_stage_nmi, ref["ps_nmi"])
    np.testing.assert_array_equal(res.per_stage_ari, ref["ps_ari"])
    np.testing.assert_array_equal(res.per_stage_share, ref["share"])
    assert res.single_class[0] == res.stage_single_class[3] == (not score_noise)

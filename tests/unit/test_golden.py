"""Replay traces written by the authors' reference implementation, step by step."""

import csv
import math

import numpy as np
import pytest
from conftest import FIXTURES, load_golden_input, shared_path

import cae

TOL = 1e-9


def _same(a, b):
    if math.isnan(b):
        return math.isnan(a)
    if math.isinf(b):
        return a == b
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _partition_equal(a, b):
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist()))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


def replay(case_dir):
    X, _ = load_golden_input(case_dir)
    exp = case_dir / "expected"
    trace = list(csv.DictReader(open(exp / "trace.csv")))
    model = cae.CAE()
    for t, row in enumerate(trace):
        rec = model.learn_one(X[t])
        where = f"step {t + 1}"
        assert rec.t == t + 1
        assert rec.case == int(row["case"]), where
        assert rec.n_nodes == len(model.nodes_) == int(row["n_nodes"]), where
        assert rec.n_edges == len(model.edges_) == int(row["n_edges"]), where
        assert _same(model.threshold_, float(row["threshold"])), where
        assert _same(rec.threshold, float(row["threshold"])), where
        lam = model.deletion_interval_
        assert _same(math.inf if lam is None else float(lam), float(row["lambda"])), where
        assert model.n_deleted_edges_ == int(row["n_deleted_edges"]), where
        assert _same(model.mean_deleted_edge_age_, float(row["mean_deleted_edge_age"])), where
        if rec.case != 0:
            assert (rec.s1, rec.s2) == (int(row["s1"]), int(row["s2"])), where
            assert _same(float(np.nanmean(model.sigmas_)), float(row["mean_sigma"])), where
        else:
            assert rec.s1 == rec.s2 == -1
    nodes = np.loadtxt(exp / "nodes.csv", delimiter=",", ndmin=2)
    np.testing.assert_allclose(model.nodes_, nodes, rtol=0, atol=TOL)
    want_sig = np.array([float(v) for v in (exp / "sigmas.csv").read_text().split()])
    np.testing.assert_allclose(model.sigmas_[: len(want_sig)], want_sig, rtol=0, atol=TOL)
    assert np.all(np.isnan(model.sigmas_[len(want_sig) :]))
    np.testing.assert_array_equal(model.win_counts_, np.loadtxt(exp / "win_counts.csv", ndmin=1).astype(int))
    want_edges = sorted((int(r["i"]), int(r["j"]), int(r["age"])) for r in csv.DictReader(open(exp / "edges.csv")))
    got_edges = [(int(i), int(j), int(a)) for (i, j), a in zip(model.edges_, model.edge_ages_)]
    assert got_edges == want_edges  # edges_ is already sorted with i < j
    assert _partition_equal(model.node_labels_, np.loadtxt(exp / "node_cluster.csv", ndmin=1).astype(int))
    assert _partition_equal(model.predict(X), np.loadtxt(exp / "predictions.csv", ndmin=1).astype(int))
    summary = dict(line.split("=") for line in (exp / "summary.txt").read_text().split())
    assert model.n_clusters_ == int(summary["n_clusters"])
    assert model.n_active_nodes_ == int(summary["n_active_nodes"])
    assert _same(model.sigma_init_, float(summary["sigma_init"]))
    return model


def test_golden_g0_fixture():
    """g0_mixture2d is our own data, copied into the repository."""
    replay(FIXTURES / "g0_mixture2d")


def test_golden_g1_paper2d():
    """g1 comes from the paper's dataset and stays in ../shared."""
    replay(shared_path("golden", "g1_paper2d_stationary"))


def test_fit_matches_learn_one_on_golden():
    X, _ = load_golden_input(FIXTURES / "g0_mixture2d")
    a = cae.CAE().fit(X)
    b = cae.CAE()
    for x in X:
        b.learn_one(x)
    for name in ("nodes_", "sigmas_", "win_counts_", "edges_", "edge_ages_", "node_ids_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("step", range(1, 400, 37))
def test_records_agree_with_state(step):
    """The record's after-positions and counts are the state the step left."""
    X, _ = load_golden_input(FIXTURES / "g0_mixture2d")
    model = cae.CAE().fit(X[: 2000 + step])
    rec = model.learn_one(X[2000 + step])
    ids = list(model.node_ids_)
    for node_id, before, after in rec.moved:
        if node_id in ids:
            np.testing.assert_array_equal(model.nodes_[ids.index(node_id)], after)
    if rec.case in (2, 3):
        s1_before = rec.moved[0][1]
        M = model.win_counts_[ids.index(rec.s1_id)] if rec.s1_id in ids else None
        if M is not None:
            np.testing.assert_allclose(rec.moved[0][2], s1_before + (X[2000 + step] - s1_before) / M)
    assert rec.n_nodes == len(model.nodes_)


def test_learn_traced_matches_golden_trace_and_records():
    X, _ = load_golden_input(FIXTURES / "g0_mixture2d")
    want = list(csv.DictReader(open(FIXTURES / "g0_mixture2d" / "expected" / "trace.csv")))
    tr = cae.CAE().learn_traced(X)
    np.testing.assert_array_equal(tr["case"].to_numpy(int), [int(r["case"]) for r in want])
    np.testing.assert_array_equal(tr["n_nodes"].to_numpy(int), [int(r["n_nodes"]) for r in want])
    np.testing.assert_array_equal(tr["n_edges"].to_numpy(int), [int(r["n_edges"]) for r in want])
    got_thr = tr["threshold"].to_numpy()
    want_thr = np.array([float(r["threshold"]) for r in want])
    np.testing.assert_allclose(got_thr, want_thr, rtol=1e-9, equal_nan=True)
    # the same numbers as the full records of learn_one
    m = cae.CAE()
    for t in range(0, 600):
        rec = m.learn_one(X[t])
        row = tr.iloc[t]
        assert (rec.case, rec.n_nodes, rec.n_edges, rec.n_clusters, rec.s1, rec.s2) == (
            row["case"],
            row["n_nodes"],
            row["n_edges"],
            row["n_clusters"],
            row["s1"],
            row["s2"],
        )
        assert rec.lambda_fixed == bool(row["lambda_fixed"]) and rec.threshold_setup == bool(row["threshold_setup"])
        assert len(rec.swept_ids) == row["n_swept"] == len(rec.swept_positions)

"""The contracts every registered algorithm shares (one estimator shell, one state, one model file),
checked with Hypothesis on random streams: every entry of the registry alike (CAE, CAEA, SOINN+, ASOINN, TCA,
AutoCloud, ...)."""

import io
import re

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cae
from cae.data.csvio import scale
from cae.registry import ALGORITHMS

# the registry's small parameters, so that deletions of every kind happen within a few hundred samples
PARAMS = {name: a.small for name, a in ALGORITHMS.items()}
NAMES = list(ALGORITHMS)
PROTOCOL = (
    "t",
    "event",
    "s1_id",
    "s2_id",
    "new_node_id",
    "edge_created",
    "edge_reset",
    "edges_deleted",
    "nodes_deleted",
    "n_nodes",
    "n_edges",
    "n_clusters",
)


def make(name):
    return ALGORITHMS[name].make(**PARAMS[name])


@st.composite
def streams(draw, max_n=400):
    d = draw(st.integers(1, 5))
    n = draw(st.integers(4, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["uniform", "blobs", "duplicates", "grid"]))
    if kind == "uniform":
        X = rng.random((n, d))
    elif kind == "blobs":
        X = rng.random((3, d))[rng.integers(0, 3, n)] + rng.normal(0, 0.03, (n, d))
    elif kind == "duplicates":
        base = rng.random((max(2, n // 8), d))
        X = base[rng.integers(0, len(base), n)]
    else:
        X = rng.integers(0, 4, (n, d)) / 3.0
    cut = draw(st.integers(1, n - 1))
    return X, cut


def in_domain(name, X):
    """X min-max scaled into [0, 1] for an algorithm that takes only such values (Fuzzy ART's ``input_range``)."""
    return X if ALGORITHMS[name].estimator_class.input_range is None else scale(X, "minmax")


def snapshot_state(m):
    out = [
        np.asarray(m.nodes_).copy(),
        np.asarray(m.node_ids_).copy(),
        np.asarray(m.edges_).copy(),
        np.asarray(m.win_counts_).copy(),
        m.n_samples_seen_,
    ]
    if hasattr(m, "edge_ages_"):
        out.append(np.asarray(m.edge_ages_).copy())
    return out


def assert_same(a, b):
    for x, y in zip(snapshot_state(a), snapshot_state(b)):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=streams())
def test_shared_contracts_on_random_streams(name, data):
    X, cut = data
    X = in_domain(name, X)
    whole = make(name).learn_many(X)
    # the stream may be cut anywhere: learn_many continues it (t cumulative), and so does a saved model
    split = make(name).learn_many(X[:cut])
    buf = io.BytesIO()
    split.save(buf)
    buf.seek(0)
    resumed = cae.load_model(buf)
    assert type(resumed) is type(whole) and resumed.get_params() == whole.get_params()
    resumed.learn_many(X[cut:])
    split.learn_many(X[cut:])
    assert_same(whole, split)
    assert_same(whole, resumed)
    # the fitted state is a consistent graph
    K = len(whole.nodes_)
    assert whole.n_samples_seen_ == len(X) and K <= len(X)
    ids = np.asarray(whole.node_ids_)
    assert len(set(ids.tolist())) == K
    if ALGORITHMS[name].kind != "clouds":  # rows in creation order (AutoCloud: a merged cloud takes the first place)
        assert np.all(np.diff(ids) > 0)
    E = np.asarray(whole.edges_).reshape(-1, 2)
    assert np.all(E[:, 0] < E[:, 1]) and len({tuple(e) for e in E.tolist()}) == len(E)
    g = whole.to_networkx()
    assert g.number_of_nodes() == K and g.number_of_edges() == len(E)
    if K:
        assert nx.number_connected_components(g) == whole.n_clusters_
        labels = whole.predict(X)
        assert labels.min() >= 0 and labels.max() < whole.n_clusters_
    else:  # a sweep can empty a network that has no edges yet
        assert np.all(whole.predict(X) == -1)


@pytest.mark.parametrize("name", NAMES)
def test_step_records_and_traces_agree(name):
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(c, 0.03, (150, 2)) for c in (0.2, 0.5, 0.8)])[rng.permutation(450)]
    traced = make(name)
    tr = traced.learn_traced(X)
    assert {"t", "case", "n_nodes", "n_edges", "n_clusters", "n_deleted", "n_swept"} <= set(tr.columns)
    one = make(name)
    for k, x in enumerate(X):
        rec = one.learn_one(x)
        for field in PROTOCOL:
            assert hasattr(rec, field), field
        assert isinstance(rec.event, str) and rec.event
        assert rec.t == k + 1 == int(tr["t"].iloc[k])
        assert (rec.n_nodes, rec.n_edges, rec.n_clusters) == tuple(
            int(tr[c].iloc[k]) for c in ("n_nodes", "n_edges", "n_clusters")
        )
        assert len(rec.nodes_deleted) == int(tr["n_swept"].iloc[k])
        row = one.last_trace_row()
        np.testing.assert_array_equal(row, tr.iloc[k].to_numpy())
    assert_same(traced, one)


@pytest.mark.parametrize("name", NAMES)
def test_model_files_name_their_algorithm(name, tmp_path):
    m = make(name).fit(np.random.default_rng(1).random((120, 3)))
    m.save(tmp_path / "m.npz")
    loaded = cae.load_model(tmp_path / "m.npz")
    assert type(loaded).__name__ == type(m).__name__ and loaded.algorithm == m.algorithm
    from cae.algorithms import MODEL_FILE_NAMES, estimator_class

    assert estimator_class(m.algorithm) is type(m)
    other = next(estimator_class(a) for a in MODEL_FILE_NAMES if a != m.algorithm)
    with pytest.raises(cae.ModelFileError, match=re.escape(f"holds a {m.algorithm} model")):
        other.load(tmp_path / "m.npz")

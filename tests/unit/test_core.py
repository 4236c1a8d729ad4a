"""The estimator, its step records, hand-checked steps, the save format."""

import io
import json
import math
import os
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from conftest import FIXTURES, ROOT, load_golden_input, rewrite_model_file
from sklearn.utils.estimator_checks import parametrize_with_checks

import cae
from cae import CAE, ModelFileError

G0 = FIXTURES / "g0_mixture2d"


# ---------------------------------------------------------------- scikit-learn
# Every check applies to the parameter-free CAE: it is deterministic and
# order-dependent, and each check fits on a fixed array. For CAEA with a small
# fixed lambda one check is a statement about the parameters, not the API:
CAEA_EXPECTED_FAILURES = {
    "check_clustering": (
        "asks for ARI > 0.4 after one pass over 50 samples; with lambda fixed at 10 the isolated-node "
        "sweep runs every 10 samples and this tuned-by-hand baseline does not form the three blobs "
        "(the parameter-free CAE passes the same check)"
    ),
}


def _expected_failures(estimator):
    return CAEA_EXPECTED_FAILURES if estimator.deletion_interval is not None else {}


@parametrize_with_checks([CAE(), CAE(deletion_interval=10, max_edge_age=20)], expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_dataframe_feature_names_and_labels():
    X, _ = load_golden_input(G0)
    df = pd.DataFrame(X[:500], columns=["a", "b"])
    m = CAE().fit(df)
    assert list(m.feature_names_in_) == ["a", "b"]
    assert m.n_features_in_ == 2
    np.testing.assert_array_equal(m.labels_, m.predict(df))
    np.testing.assert_array_equal(m.fit_predict(df), m.labels_)


def test_bad_parameters_and_inputs():
    with pytest.raises(ValueError, match="deletion_interval"):
        CAE(deletion_interval=3).fit(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="max_edge_age"):
        CAE(max_edge_age=0).fit(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="NaN|infinity"):
        CAE().fit(np.array([[0.0, np.nan]]))
    with pytest.raises(ValueError, match="overflow"):
        CAE().fit(np.array([[0.0, 1e300], [1.0, 2.0]]))
    m = CAE().fit(np.random.default_rng(0).random((50, 3)))
    with pytest.raises(ValueError, match="features"):
        m.learn_one([1.0, 2.0])
    with pytest.raises(ValueError, match="1-D"):
        m.learn_one(np.zeros((2, 3)))
    with pytest.raises(AttributeError):
        CAE().nodes_  # noqa: B018


# ----------------------------------------------------------- hand-checked steps
def silverman(P):
    m, d = P.shape
    s = P.std(axis=0, ddof=1)
    s[s == 0] = 1e-6
    return float(np.median((4 / (2 + d)) ** (1 / (4 + d)) * s * m ** (-1 / (4 + d))))


def cim(x, y, sigma):
    return float(np.sqrt(1 - np.mean(np.exp(-((np.asarray(x) - np.asarray(y)) ** 2) / (2 * sigma**2)))))


def test_hand_checked_caea_steps():
    """lambda = 4 (n_active = 2): set-up, Case III twice, Case I, then the sweep."""
    m = CAE(deletion_interval=4)
    r1 = m.learn_one([0.0, 0.0])
    assert (r1.case, r1.new_node_id, r1.threshold_setup) == (0, 0, False)
    assert math.isnan(m.threshold_)
    r2 = m.learn_one([1.0, 0.0])
    sigma0 = silverman(np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert sigma0 == pytest.approx(0.5 * (0.5**0.5 * 2 ** (-1 / 6) + 1e-6 * 2 ** (-1 / 6)), rel=1e-12)
    V = cim([0, 0], [1, 0], sigma0)  # each node's nearest other node is the other one
    assert r2.threshold_setup and r2.sigma0 == pytest.approx(sigma0, rel=1e-12)
    assert m.threshold_ == pytest.approx(V, rel=1e-12) and V == pytest.approx(0.70481, abs=1e-5)
    np.testing.assert_allclose(m.sigmas_, [sigma0, sigma0], rtol=1e-12)

    r3 = m.learn_one([0.1, 0.0])
    assert r3.case == 3 and r3.case_name == "Case III"
    assert (r3.s1, r3.s2) == (0, 1)
    assert r3.v1 == pytest.approx(cim([0.1, 0], [0, 0], sigma0), rel=1e-12)
    assert r3.v2 == pytest.approx(cim([0.1, 0], [1, 0], sigma0), rel=1e-12)
    assert r3.v1 <= r3.v2 <= m.threshold_
    assert r3.edge_created == (0, 1) and r3.edges_aged == []
    assert len(r3.moved) == 1 and r3.moved[0][0] == 0
    np.testing.assert_allclose(r3.moved[0][2], [0.05, 0.0])  # y + (x - y) / 2
    assert math.isnan(r3.a_max)  # one edge: no hinges, nothing deleted

    r4 = m.learn_one([0.9, 0.0])
    assert r4.case == 3 and (r4.s1, r4.s2) == (1, 0)
    assert r4.edges_aged == [(1, 0, 2)]  # aged first ...
    assert r4.edge_reset == (1, 0)  # ... then reset to 1 [ref]
    assert [i for i, _, _ in r4.moved] == [1, 0]
    np.testing.assert_allclose(r4.moved[0][2], [0.95, 0.0])
    np.testing.assert_allclose(r4.moved[1][2], [0.05 + (0.9 - 0.05) / 20, 0.0])  # neighbour: 1/(10 M)
    assert r4.swept_ids == []  # t = 4 is a sweep, but both nodes have an edge
    np.testing.assert_array_equal(m.edge_ages_, [1])

    r5 = m.learn_one([0.5, 1.0])
    assert r5.case == 1 and r5.new_node_id == 2 and r5.v1 > m.threshold_
    active = np.array([[0.5, 1.0], [0.95, 0.0]])  # the n_active most recent: new node, then node 1
    assert r5.new_node_sigma == pytest.approx(silverman(active), rel=1e-12)
    for x in ([0.1, 0.0], [0.9, 0.0]):
        assert m.learn_one(x).swept_ids == []
    r8 = m.learn_one([0.1, 0.0])
    assert r8.t == 8 and r8.swept_ids == [2]  # isolated node 2 removed at t = 2 lambda
    assert list(m.node_ids_) == [0, 1] and r8.n_nodes == 2


def test_initial_phase_records_diversity_and_lambda():
    X, _ = load_golden_input(G0)
    m = CAE()
    recs = [m.learn_one(x) for x in X[:60]]
    assert all(math.isnan(r.diversity) for r in recs[:9])  # sigma_init needs 10 samples
    fixed = [r for r in recs if r.lambda_fixed]
    assert len(fixed) == 1 and fixed[0].t == 22 and fixed[0].diversity < 1e-6
    assert all(r.diversity >= 1e-6 for r in recs[9:21])
    assert fixed[0].threshold_setup and fixed[0].n_active_nodes == 22 and fixed[0].deletion_interval == 44
    # D is det(exp(R)) with R = 1 - CIM(., ., sigma_init)
    Y = X[:15]  # in the initial phase every sample is a node
    R = np.array([[1 - cim(a, b, m.sigma_init_) for b in Y] for a in Y])
    assert recs[14].diversity == pytest.approx(np.linalg.det(np.exp(R)), rel=1e-9)


def test_edge_deletion_records_follow_tukey_hinges():
    X, _ = load_golden_input(G0)
    m = CAE()
    checked = 0
    for x in X:
        r = m.learn_one(x)
        if r.case not in (2, 3) or not r.edge_ages_at_deletion:
            continue
        ages = np.array([a for _, a in r.edge_ages_at_deletion], float)
        med = np.median(ages)
        lo, hi = ages[ages < med], ages[ages > med]
        if len(lo) == 0 or len(hi) == 0:
            assert math.isnan(r.a_max) and r.edges_deleted == []
            continue
        q1, q3 = np.median(lo), np.median(hi)
        assert (r.median, r.q1, r.q3, r.a_thr) == (med, q1, q3, q3 + (q3 - q1))
        assert r.a_max == pytest.approx(r.mean_deleted_edge_age_before * r.ratio + r.a_thr * (1 - r.ratio))
        assert sorted(a for _, _, a in r.edges_deleted) == sorted(a for a in ages if a > r.a_max)
        checked += 1
    assert checked > 100


def test_divergence_bordering_matches_full_determinant():
    """Raw Wine never sets a threshold; past 128 nodes D is updated by bordering."""
    from sklearn.datasets import load_wine

    X = load_wine().data
    m = CAE()
    D = [m.learn_one(x).diversity for x in X]
    assert math.isnan(m.threshold_) and len(m.nodes_) == len(X)
    Y = np.asarray(m.nodes_)
    for K in (60, 128, 129, 178):
        R = 1 - np.array([[cim(a, b, m.sigma_init_) for b in Y[:K]] for a in Y[:K]])
        assert D[K - 1] == pytest.approx(np.linalg.det(np.exp(R)), rel=1e-9)


def test_to_networkx():
    X, _ = load_golden_input(G0)
    m = CAE().fit(X)
    g = m.to_networkx()
    assert g.number_of_nodes() == len(m.nodes_) and g.number_of_edges() == len(m.edges_)
    nid = int(m.node_ids_[3])
    attrs = g.nodes[nid]
    assert attrs["pos"] == tuple(m.nodes_[3]) and attrs["win_count"] == m.win_counts_[3]
    assert attrs["cluster"] == m.node_labels_[3] and attrs["sigma"] == m.sigmas_[3]
    (i, j), age = m.edges_[0], m.edge_ages_[0]
    assert g.edges[int(m.node_ids_[i]), int(m.node_ids_[j])]["age"] == age
    import networkx as nx

    assert nx.number_connected_components(g) == m.n_clusters_


# ------------------------------------------------------------------ save/load
STATE = ("nodes_", "node_ids_", "sigmas_", "win_counts_", "edges_", "edge_ages_")


def assert_same_model(a, b):
    for name in STATE:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    for name in (
        "threshold_",
        "deletion_interval_",
        "n_active_nodes_",
        "n_deleted_edges_",
        "mean_deleted_edge_age_",
        "n_samples_seen_",
        "sigma_init_",
    ):
        x, y = getattr(a, name), getattr(b, name)
        assert x == y or (x != x and y != y), name


@pytest.mark.parametrize("params", [{}, {"deletion_interval": 20}, {"deletion_interval": 12, "max_edge_age": 6}])
@pytest.mark.parametrize("cut", [5, 15, 30, 700, 2500])
def test_save_load_resumes_bit_identically(tmp_path, params, cut):
    X, _ = load_golden_input(G0)
    X = X[:3000]
    whole = CAE(**params).fit(X)
    first = CAE(**params).fit(X[:cut])
    path = tmp_path / "model.npz"
    first.save(path)
    resumed = CAE.load(path)
    assert resumed.get_params() == CAE(**params).get_params()
    assert_same_model(first, resumed)
    resumed.partial_fit(X[cut:])
    assert_same_model(whole, resumed)
    np.testing.assert_array_equal(whole.predict(X), resumed.predict(X))


def test_save_load_mid_bordering(tmp_path):
    from sklearn.datasets import load_wine

    X = load_wine().data
    whole = CAE().fit(X)
    part = CAE().fit(X[:150])
    part.save(tmp_path / "m.npz")
    resumed = CAE.load(tmp_path / "m.npz").partial_fit(X[150:])
    assert_same_model(whole, resumed)


def test_bad_model_files(tmp_path):
    X, _ = load_golden_input(G0)
    buf = io.BytesIO()
    CAE().fit(X[:500]).save(buf)
    good = buf.getvalue()
    cases = {
        "empty": b"",
        "truncated": good[: len(good) // 2],
        "garbage": bytes(range(256)) * 10,
        "text": b"x0,x1\n1,2\n",
    }
    for name, data in cases.items():
        p = tmp_path / f"{name}.npz"
        p.write_bytes(data)
        with pytest.raises(ModelFileError) as caught:
            CAE.load(p)
        assert "pickle" not in str(caught.value)  # a CSV given as the model is told so, not about allow_pickle
    with pytest.raises(ModelFileError, match=r"holds text \(a CSV\?\)"):
        CAE.load(tmp_path / "text.npz")
    # a foreign npz, a pickle-only npz, and a tampered one
    np.savez(tmp_path / "foreign.npz", a=np.arange(3))
    with pytest.raises(ModelFileError, match="not a CAE"):
        CAE.load(tmp_path / "foreign.npz")
    np.savez(tmp_path / "pickled.npz", meta_json=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ModelFileError):
        CAE.load(tmp_path / "pickled.npz")
    with zipfile.ZipFile(io.BytesIO(good)) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    meta = json.loads(str(np.load(io.BytesIO(parts["meta_json.npy"]))[()]))
    for change, msg in (
        ({"format": "other"}, "not a CAE"),
        ({"version": 99}, "version"),
        ({"n_features": 5}, "inconsistent"),
        ({"params": {"deletion_interval": 1, "max_edge_age": None}}, "invalid parameters"),
        ({"algorithm": "SOINN+"}, "holds a SOINN\\+ model"),
        ({"feature_names": ["a"]}, "feature names"),
        (
            {
                "learned_on": {
                    "how": "samples",
                    "rows": 9,
                    "samples": 5,
                    "sample_rows": 2,
                    "seed": 0,
                    "chosen": 5,
                    "agreement": 1,
                }
            },
            "how the network was learned",
        ),
        ({"learned_on": {"how": "guessed"}}, "how the network was learned"),
        ({"cluster_trace": [[20, 3, 2, 9], [10, 3, 2, 9]]}, "cluster trace"),
        ({"cluster_trace": [[10, -1, 2, 9]]}, "cluster trace"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            CAE.load(rewrite_model_file(parts, meta={**meta, **change}))
    # values that pass the shape checks but cannot be a CAE state
    state = {n[len("state_") : -4]: np.load(io.BytesIO(d)) for n, d in parts.items() if n.startswith("state_")}
    from cae.algorithms import _cae_kernel as kernel

    def tampered(name, fn):
        arr = state[name].copy()
        fn(arr)
        return rewrite_model_file(parts, arrays={name: arr})

    for name, fn, msg in (
        ("M", lambda a: a.__setitem__(0, 0), "win count"),
        ("sig", lambda a: a.__setitem__(0, -0.5), "bandwidth"),
        ("fscal", lambda a: a.__setitem__(kernel.F_V, np.inf), "threshold"),
        ("Y", lambda a: a.__setitem__((0, 0), np.nan), "not finite"),
        ("ids", lambda a: a.__setitem__(1, a[0]), "ids"),
        ("age", lambda a: a.__setitem__((0, 0), 0), "inconsistent"),
    ):
        with pytest.raises(ModelFileError, match=msg):
            CAE.load(tampered(name, fn))


def test_version_1_model_files_still_load():
    """Files written before the baselines (format version 1, CAE only) still load and resume."""
    X, _ = load_golden_input(G0)
    buf = io.BytesIO()
    m = CAE(deletion_interval=40).fit(X[:600])
    m.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    v1 = {
        "format": "cae-explorer-model",
        "version": 1,
        "deletion_interval": 40,
        "max_edge_age": None,
        "n_features": 2,
        "feature_names": None,
    }
    old = CAE.load(rewrite_model_file(parts, meta=v1))
    assert old.deletion_interval == 40
    assert_same_model(old.partial_fit(X[600:]), CAE(deletion_interval=40).fit(X))


# ------------------------------------------------------------ without numba
def test_unjitted_kernel_gives_identical_results(tmp_path):
    """The kernel's source runs as plain Python where numba is absent: same bits."""
    X, _ = load_golden_input(G0)
    X = X[:1500]
    out = tmp_path / "plain.npz"
    code = (
        "import numpy as np, cae, cae.algorithms._cae_kernel as k\n"
        "assert not k.HAVE_NUMBA\n"
        f"X = np.load({str(tmp_path / 'X.npy')!r})\n"
        "m = cae.CAE().fit(X)\n"
        f"m.save({str(out)!r})\n"
    )
    np.save(tmp_path / "X.npy", X)
    env = dict(os.environ, CAE_DISABLE_NUMBA="1")
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
    assert cae.algorithms._cae_kernel.HAVE_NUMBA
    assert_same_model(CAE().fit(X), CAE.load(out))


def test_continue_with_keeps_the_network_and_fixes_lambda_and_a_max_from_here():
    """``continue_with`` is the public fork: the learned nodes stay, the constructor's parameters and the
    learned state's λ/a_max change from the next sample on; bad values get set_params' clear message."""
    X = np.random.default_rng(0).normal(0, 0.05, (400, 2))
    model = CAE().learn_many(X[:300])
    nodes = model.nodes_.copy()
    assert model.continue_with(deletion_interval=40, max_edge_age=3) is model
    assert np.array_equal(model.nodes_, nodes) and model.deletion_interval_ == 40 and model.n_active_nodes_ == 20
    assert model.get_params()["deletion_interval"] == 40 and model.get_params()["max_edge_age"] == 3
    records = [model.learn_one(x) for x in X[300:]]
    assert {r.a_max for r in records if not math.isnan(r.a_max)} == {3.0}  # the fixed a_max at every deletion
    with pytest.raises(ValueError, match="deletion_interval"):
        CAE().learn_many(X[:50]).continue_with(deletion_interval=2)

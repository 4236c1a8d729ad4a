"""cae.integrations.river: every registered algorithm as a River clusterer, checked with River's own checks.

River's ``yield_checks`` gives a clusterer only its general checks (its sample streams are for classifiers,
regressors, anomaly detectors and transformers); its stream checks (``river.checks.common``) are run here too,
on the paper's 2-D stream and on River's TrumpApproval (six numeric features). The three about features that
come and go expect our refusal, :class:`FeatureMismatch`: a network has a fixed dimension.
"""

import copy
import inspect
import itertools
import pickle

import numpy as np
import pytest

river = pytest.importorskip("river", reason="River is an optional extra: pip install 'cae-explorer[river]'")

from river import checks, compose, datasets, preprocessing  # noqa: E402
from river.checks import common  # noqa: E402

from cae.data import make_paper2d, stationary_stream  # noqa: E402
from cae.data.csvio import scale  # noqa: E402
from cae.integrations import river as cr  # noqa: E402
from cae.registry import ALGORITHMS  # noqa: E402

NAMES = list(ALGORITHMS)


def models():
    """Every named class with its defaults, and the generic Clusterer for every registry name."""
    out = [pytest.param(cls(), id=cls.__name__) for cls in cr.RIVER_CLASSES.values()]
    out += [pytest.param(cr.Clusterer(name), id=f"Clusterer({name})") for name in NAMES]
    return out


def paper_stream(n=2000):
    s = stationary_stream(make_paper2d(n_per_class=max(1, n // 6), seed=0), seed=0)
    return [({"x": float(a), "y": float(b)}, int(c)) for (a, b), c in zip(s.X[:n], s.y[:n])]


def trump(n=200, model=None):
    """River's TrumpApproval; min-max scaled (over these rows) for a model whose algorithm takes only values in
    [0, 1] (Fuzzy ART's ``input_range``)."""
    data = list(datasets.TrumpApproval().take(n))
    if model is None or ALGORITHMS[model._registry_name()].estimator_class.input_range is None:
        return data
    keys = list(data[0][0])
    Z = scale(np.array([[x[k] for k in keys] for x, _ in data]), "minmax")
    return [({k: float(v) for k, v in zip(keys, z)}, y) for z, (_, y) in zip(Z, data)]


def test_every_registered_algorithm_has_a_river_class_with_its_parameters():
    assert list(cr.RIVER_CLASSES) == NAMES
    for name, cls in cr.RIVER_CLASSES.items():
        sig = {k: p.default for k, p in inspect.signature(cls).parameters.items()}
        assert sig == ALGORITHMS[name].defaults(), name
        m = cls()
        assert m._registry_name() == name and m._algorithm_params() == ALGORITHMS[name].defaults()


@pytest.mark.parametrize("model", models())
def test_rivers_own_checks(model):
    """River's check_estimator, check by check (it yields only the general ones for a clusterer)."""
    ran = []
    for check in checks.yield_checks(model):
        if check.__name__ in model._unit_test_skips():
            continue
        check(model.clone())
        ran.append(check.__name__)
    assert {"check_clone_with_new_params_applies", "check_pickling_supports_roundtrip", "check_doc"} <= set(ran)
    assert "check_repr_roundtrips_clone" in ran and "check_get_params_matches_signature" in ran


STREAM_CHECKS = [
    "check_learn_one",
    "check_pickling",
    "check_shuffle_features_no_impact",
    "check_predict_one_pure",
    "check_predict_one_before_any_learn",
    "check_no_state_aliasing_with_input",
    "check_clone_is_independent",
]
FEATURE_CHECKS = ["check_emerging_features", "check_disappearing_features", "check_radically_disappearing_features"]


def test_the_stream_checks_we_run_are_rivers():
    for name in STREAM_CHECKS + FEATURE_CHECKS + ["check_bounded_memory_growth"]:
        assert callable(getattr(common, name)), name


@pytest.mark.parametrize("check", STREAM_CHECKS)
@pytest.mark.parametrize("model", models())
def test_rivers_stream_checks(model, check):
    for data in (paper_stream(300), trump(200, model)):
        getattr(common, check)(model.clone(), dataset=iter(data))


@pytest.mark.parametrize("check", FEATURE_CHECKS)
@pytest.mark.parametrize("model", models())
def test_features_that_come_and_go_are_refused(model, check):
    with pytest.raises(cr.FeatureMismatch, match=r"learned the features \['"):
        getattr(common, check)(model.clone(), dataset=iter(trump(60, model)))


@pytest.mark.parametrize("model", models())
def test_rivers_bounded_memory_check(model):
    common.check_bounded_memory_growth(model.clone(), dataset=iter(paper_stream(2000)))


@pytest.mark.parametrize("name", NAMES)
def test_learn_one_is_learn_many(name):
    """A River loop gives exactly the network of the estimator's own learn_many over the same rows."""
    data = paper_stream(1500)
    rm = cr.RIVER_CLASSES[name]()
    for x, _ in data:
        rm.learn_one(x)
    X = np.array([[x["x"], x["y"]] for x, _ in data])
    ref = ALGORITHMS[name].make().learn_many(X)
    np.testing.assert_array_equal(rm.model.nodes_, ref.nodes_)
    np.testing.assert_array_equal(rm.model.edges_, ref.edges_)
    labels = [rm.predict_one(x) for x, _ in data]
    assert labels == ref._predict_array(X).tolist() and rm.n_clusters == ref.n_clusters_


def test_numbered_columns_keep_their_order_so_learn_one_is_learn_many():
    """Columns named x0 ... x15 (a DataFrame's, River's iter_array) are kept in number order, not as text
    (x10 before x2): learning one dict at a time gives learn_many's network on the array to the last bit.
    With the names sorted as text, Letter's NMI through River was 0.455 against 0.463."""
    from cae import CAE as Plain

    X = np.random.default_rng(0).random((3000, 16))
    m = cr.CAE()
    for row in X:
        m.learn_one({f"x{j}": v for j, v in enumerate(row)})
    assert m.feature_names_in_ == tuple(f"x{j}" for j in range(16))
    ref = Plain().learn_many(X)
    np.testing.assert_array_equal(m.model.nodes_, ref.nodes_)
    np.testing.assert_array_equal(m.model.edges_, ref.edges_)
    assert sorted([10, 2, "a1", "a10", "a2"], key=cr._name_order) == [2, 10, "a1", "a2", "a10"]


def test_feature_names_in_one_order_and_saved(tmp_path):
    """The features are kept sorted by name, whatever order the samples list them in: the same network
    to the last bit (a sum over features in another order can differ in its last bit, and flip a tie)."""
    from cae import load_model

    m = cr.CAE()
    m.learn_one({"b": 0.2, "a": 0.1})
    m.learn_one({"a": 0.3, "b": 0.9})  # another order: matched by name
    assert m.feature_names_in_ == ("a", "b")
    np.testing.assert_array_equal(m.model.nodes_[1], [0.3, 0.9])
    m.model.save(tmp_path / "m.npz")
    assert list(load_model(tmp_path / "m.npz").feature_names_in_) == ["a", "b"]
    rng = np.random.default_rng(0)
    X = rng.random((400, 6))
    names = [f"f{k}" for k in range(6)]
    a, b = cr.CAE(), cr.CAE()
    for row in X:
        a.learn_one(dict(zip(names, row)))
        order = rng.permutation(6)
        b.learn_one({names[k]: row[k] for k in order})  # every sample in its own order, the first too
    np.testing.assert_array_equal(a.model.nodes_, b.model.nodes_)
    np.testing.assert_array_equal(a.model.edges_, b.model.edges_)


def test_bad_samples_get_clear_messages_and_change_nothing():
    m = cr.CAE()
    assert m.predict_one({"a": 1.0}) == -1 and m.n_clusters == 0  # nothing learned yet
    with pytest.raises(ValueError, match="must be a number, got 'x'"):
        m.learn_one({"a": "x"})
    assert m.feature_names_in_ is None and m.model is None  # a refused first sample fixes nothing
    with pytest.raises(ValueError, match="at least one feature"):
        m.learn_one({})
    m.learn_one({"a": 0.1, "b": 0.2})
    before = pickle.dumps(m)
    with pytest.raises(cr.FeatureMismatch, match=r"has a new feature \['c'\]"):
        m.learn_one({"a": 0.1, "b": 0.2, "c": 0.3})
    with pytest.raises(cr.FeatureMismatch, match=r"has no \['b'\].*StatImputer"):
        m.learn_one({"a": 0.1})
    with pytest.raises(cr.FeatureMismatch, match=r"new feature \['c'\] and no \['b'\]"):
        m.predict_one({"a": 0.1, "c": 0.3})
    with pytest.raises(ValueError, match="'b' is nan: missing or infinite"):
        m.learn_one({"a": 0.1, "b": float("nan")})
    with pytest.raises(ValueError, match="must be a number, got None"):
        m.predict_one({"a": 0.1, "b": None})
    with pytest.raises(ValueError, match="must be a number, got '0.5'"):
        m.learn_one({"a": 0.1, "b": "0.5"})
    assert pickle.dumps(m) == before
    with pytest.raises(ValueError, match="unknown algorithm 'KMeans'"):
        cr.Clusterer("KMeans").learn_one({"a": 1.0})
    with pytest.raises(ValueError, match="must lie in"):
        cr.CAEA(deletion_interval=-5).learn_one({"a": 1.0})


def test_in_a_pipeline_with_select_and_a_scaler():
    """compose.Select keeps a stream with extra features usable; the pipeline learns and predicts."""
    data = [({**x, "note": 1.0, "id": i}, y) for i, (x, y) in enumerate(paper_stream(600))]
    model = compose.Select("x", "y") | preprocessing.MinMaxScaler() | cr.CAE()
    for x, _ in data:
        model.learn_one(x)
    # sorted by name, though Select writes its features from a set (an order that varies between processes)
    assert model["CAE"].feature_names_in_ == ("x", "y")
    assert all(model.predict_one(x) in range(model["CAE"].n_clusters) for x, _ in data[:50])
    copy.deepcopy(model).learn_one(data[0][0])  # River copies pipelines (e.g. in evaluate.progressive_val_score)


def test_clone_forgets_the_learning():
    m = cr.ASOINN(deletion_interval=50)
    for x, _ in itertools.islice(paper_stream(100), 100):
        m.learn_one(x)
    c = m.clone()
    assert c.model is None and c.feature_names_in_ is None and c.deletion_interval == 50
    assert m.model.n_samples_seen_ == 100
